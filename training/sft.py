"""Supervised fine-tuning of an RQ-RAG generator with TRL (paper §2.2, App. B.1).

    accelerate launch --config_file configs/accelerate/cpu.yaml training/sft.py \
        --config configs/train/smollm2_135m_cpu.yaml
    accelerate launch --config_file configs/accelerate/deepspeed_zero3.yaml training/sft.py \
        --config configs/train/llama2_7b_paper.yaml
    python training/sft.py --config configs/train/smollm2_135m_cpu.yaml --max_steps 2   # no accelerate needed

Arguments are TRL's own `SFTConfig` (training) and `ModelConfig` (model, LoRA), plus `ScriptArguments`
(the data); `--config YAML` sets them and command-line flags override it (`TrlParser`).

What this adds to TRL's `trl/scripts/sft.py`:
- the trajectory special tokens are added to the tokenizer and the embeddings grow with mean-initialised
  rows (`rqrag.special_tokens`); with LoRA those rows, and only those, are trained too (`token_rows.py`);
- the dataset is pre-tokenized from the trajectory language's segments, so the loss covers only what the
  model must emit (labels -100 on the prompt and the evidence) and TRL uses those labels unchanged, with
  packing (bfd; sequences never attend across boundaries) or padded batches;
- the output folder loads directly in the inference backends: the tokenizer with its special tokens,
  the model (full fine-tuning) or the adapter whose `base_model_name_or_path` names the base as given on
  the command line (e.g. the packaged alias `smollm2-135m-instruct`, portable across machines);
- `resolved_config.yaml` (with the git commit) and `loss.png` next to the checkpoint.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path


logger = logging.getLogger("rqrag.training.sft")


@dataclass
class ScriptArguments:
    dataset_path: str = field(
        default="runs/data/offline/data.jsonl", metadata={"help": "JSONL of trajectory records (`rqrag data build`)"}
    )
    eval_fraction: float = field(default=0.0, metadata={"help": "share of records held out for eval loss"})
    max_train_samples: int | None = field(
        default=None, metadata={"help": "use N records drawn at random (seeded) before the length filter"}
    )
    evidence_max_words: int = field(
        default=0,
        metadata={
            "help": "cut each evidence passage to its first N words, 0 = whole passages (recorded in the output "
            "folder's resolved_config.yaml, where the decoder reads it). "
            "Evidence is unsupervised context: a cut makes each example cheaper (docs/train.md)"
        },
    )
    token_rows_learning_rate: float | None = field(
        default=None,
        metadata={
            "help": "LoRA only: learning rate of the new special-token embedding rows (default: learning_rate). "
            "Adam moves a parameter by about lr per step, so at LoRA's 2e-4 a short run leaves the rows next to "
            "their mean initialisation and the model never learns to emit [EOS] or an action token"
        },
    )


def build_model_and_tokenizer(model_args, training_args):
    """Base model + tokenizer speaking the trajectory language; returns (model, tokenizer, new token ids)."""
    import torch
    from transformers import AutoModelForCausalLM

    from rqrag.models import load_tokenizer, resolve_model
    from rqrag.special_tokens import add_special_tokens
    from rqrag.trajectory import SPECIAL_TOKENS

    path = resolve_model(model_args.model_name_or_path)
    tokenizer = load_tokenizer(path)
    dtype = model_args.dtype if model_args.dtype not in (None, "auto") else "float32"
    model = AutoModelForCausalLM.from_pretrained(
        path,
        revision=model_args.model_revision,
        dtype=getattr(torch, dtype),
        attn_implementation=model_args.attn_implementation,
    )
    add_special_tokens(tokenizer, model)
    new_ids = sorted(tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS)
    if training_args.gradient_checkpointing:
        model.config.use_cache = False
    return model, tokenizer, new_ids


def plot_loss(log_history: list[dict], path: Path) -> Path | None:
    points = [(e["step"], e["loss"]) for e in log_history if "loss" in e]
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(*zip(*points), label="train")
    evals = [(e["step"], e["eval_loss"]) for e in log_history if "eval_loss" in e]
    if evals:
        ax.plot(*zip(*evals), "o-", label="eval")
    ax.set_xlabel("step")
    ax.set_ylabel("loss (supervised tokens)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _checkpoint_to_resume(training_args) -> str | None:
    resume = training_args.resume_from_checkpoint
    if resume in (None, False, "false", "False"):
        return None
    if resume in (True, "true", "True"):
        from transformers.trainer_utils import get_last_checkpoint

        last = get_last_checkpoint(training_args.output_dir) if os.path.isdir(training_args.output_dir) else None
        if last is None:
            raise FileNotFoundError(
                f"--resume_from_checkpoint true: no checkpoint-* folder in {training_args.output_dir}"
            )
        return last
    return resume


def point_adapter_at(output_dir: Path, base: str) -> None:
    """Make a saved adapter name its base as the user did (an alias or hub id), not a machine-local cache path."""
    config_path = output_dir / "adapter_config.json"
    if config_path.is_file():
        config = json.loads(config_path.read_text())
        config["base_model_name_or_path"] = base
        config_path.write_text(json.dumps(config, indent=2) + "\n")


def main(script_args, training_args, model_args) -> None:
    from trl import SFTTrainer, get_peft_config

    from rqrag.adapters import TOKEN_ROWS_FILE, apply_token_rows
    from rqrag.config_loader import save_resolved_config
    from rqrag.training.data import load_records, tokenize_dataset
    from rqrag.training.token_rows import NewTokenRows, SaveTokenRowsCallback

    model, tokenizer, new_ids = build_model_and_tokenizer(model_args, training_args)
    train_records, eval_records = load_records(script_args.dataset_path, script_args.eval_fraction, training_args.seed)
    if script_args.max_train_samples:
        # Shuffled first: data files are grouped by source, and a prefix would be one or two sources only.
        train_records = train_records.shuffle(seed=training_args.seed)
        train_records = train_records.select(range(min(script_args.max_train_samples, len(train_records))))
    with training_args.main_process_first(desc="tokenizing"):
        cut = script_args.evidence_max_words
        train_dataset = tokenize_dataset(
            train_records, tokenizer, training_args.max_length, training_args.dataset_num_proc, cut
        )
        eval_dataset = (
            tokenize_dataset(eval_records, tokenizer, training_args.max_length, training_args.dataset_num_proc, cut)
            if eval_records is not None
            else None
        )
    n_tokens = sum(len(ids) for ids in train_dataset["input_ids"])
    logger.info("training on %d examples, %d tokens", len(train_dataset), n_tokens)

    trainer = SFTTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        eval_dataset=eval_dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
    )
    checkpoint = _checkpoint_to_resume(training_args)  # "true" on the command line means the latest one
    rows = None
    if model_args.use_peft:  # LoRA freezes the embeddings; the new tokens' rows must still learn (token_rows.py)
        rows = NewTokenRows(trainer.model, new_ids, weight_decay=training_args.weight_decay)
        trainer.add_callback(SaveTokenRowsCallback(rows))
        if script_args.token_rows_learning_rate is not None:
            # Set before train(): the Trainer then keeps this optimizer and builds its schedule over both groups.
            trainer.optimizer = rows.optimizer(trainer.model, training_args, script_args.token_rows_learning_rate)
        if checkpoint is not None and not apply_token_rows(trainer.model, checkpoint):
            logger.warning(
                "%s has no %s: the special-token rows restart from their initial values", checkpoint, TOKEN_ROWS_FILE
            )
    trainer.train(resume_from_checkpoint=checkpoint)

    output_dir = Path(training_args.output_dir)
    if rows is not None and trainer.accelerator.is_main_process:
        # The adapter alone: the resized embedding matrix is rebuilt from the base (mean rows) plus token_rows,
        # so saving it (peft's default after a resize) would add ~250 MB for 7 rows.
        trainer.accelerator.unwrap_model(trainer.model).save_pretrained(str(output_dir), save_embedding_layers=False)
    elif rows is None:
        trainer.save_model(str(output_dir))
    if trainer.accelerator.is_main_process:
        tokenizer.save_pretrained(output_dir)
        if rows is not None:
            rows.save(output_dir)
        point_adapter_at(output_dir, model_args.model_name_or_path)
        save_resolved_config(output_dir, "training/sft.py", script_args, training_args, model_args)
        plot_loss(trainer.state.log_history, output_dir / "loss.png")
        save_train_summary(output_dir, trainer.state, examples=len(train_dataset), tokens=n_tokens)
        logger.info("saved %s", output_dir)


def save_train_summary(output_dir: Path, state, **facts) -> None:
    """`train_summary.json` beside the model: what it was trained on (`facts`), its steps and the log history."""
    summary = {**facts, "steps": state.global_step, "log_history": state.log_history}
    (output_dir / "train_summary.json").write_text(json.dumps(summary, indent=1) + "\n")


def make_parser():
    from trl import ModelConfig, SFTConfig, TrlParser

    return TrlParser((ScriptArguments, SFTConfig, ModelConfig))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from rqrag.training.cpu_precision import parse_with_cpu_precision

    script_args, training_args, model_args = parse_with_cpu_precision(make_parser())
    main(script_args, training_args, model_args)
