"""Train only the special tokens' embedding rows next to a LoRA adapter, and ship just those rows.

The new tokens start as the mean embedding, so all seven have identical output logits until their rows
move: with LoRA they must be trained, but only they. peft's `trainable_token_indices` would do it, yet
TRL's SFTTrainer computes the loss with a fused LM head that multiplies by `lm_head.weight` directly and
so never sees peft's per-token deltas. Instead the base embedding matrix itself is made trainable with a
gradient hook that zeroes every row except the new ones (with a tied head, as in SmolLM2, the same matrix
is the output layer; an untied head gets the same treatment). The trained rows are saved beside the adapter
(`token_rows.safetensors`, a few KB) and in every checkpoint, applied again on resume, and folded in when
the adapter is merged (`rqrag.adapters`).
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import TrainerCallback

from rqrag.adapters import TOKEN_ROWS_FILE, embedding_matrices


class NewTokenRows:
    def __init__(self, model, token_ids: list[int], weight_decay: float = 0.0):
        if weight_decay:
            # Decoupled weight decay would shrink every row of the matrix, not only the trained ones.
            raise ValueError("training token rows next to LoRA needs weight_decay=0")
        self.model = model
        self.ids = torch.tensor(sorted(token_ids), dtype=torch.long)
        for weight in embedding_matrices(model).values():
            mask = torch.zeros(weight.shape[0], 1, dtype=weight.dtype, device=weight.device)
            mask[self.ids] = 1
            weight.requires_grad_(True)
            weight.register_hook(lambda grad, mask=mask: grad * mask)

    def optimizer(self, model, args, rows_lr: float) -> torch.optim.Optimizer:
        """AdamW with the adapter at `args.learning_rate` and the embedding matrices (of which only the new rows
        get gradients) at `rows_lr`; betas, epsilon and weight decay from the training arguments."""
        row_params = {id(w) for w in embedding_matrices(model).values()}
        groups = [
            {
                "params": [p for p in model.parameters() if p.requires_grad and id(p) not in row_params],
                "lr": args.learning_rate,
                "weight_decay": args.weight_decay,
            },
            {"params": list(embedding_matrices(model).values()), "lr": rows_lr, "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(groups, betas=(args.adam_beta1, args.adam_beta2), eps=args.adam_epsilon)

    def state(self) -> dict[str, torch.Tensor]:
        rows = {
            name: weight.detach()[self.ids].clone().contiguous()
            for name, weight in embedding_matrices(self.model).items()
        }
        return {"ids": self.ids.clone(), **rows}

    def save(self, directory: str | Path) -> Path:
        from safetensors.torch import save_file

        path = Path(directory) / TOKEN_ROWS_FILE
        save_file(self.state(), str(path))
        return path


class SaveTokenRowsCallback(TrainerCallback):
    """Put the rows into each checkpoint, so `resume_from_checkpoint` restores them with the adapter."""

    def __init__(self, rows: NewTokenRows):
        self.rows = rows

    def on_save(self, args, state, control, **kwargs):
        if state.is_world_process_zero:
            self.rows.save(Path(args.output_dir) / f"checkpoint-{state.global_step}")
        return control
