"""Packed (padding-free, bfd) vs padded batches for `training/sft.py`: same data, same steps, one run.

    python scripts/bench_train.py --dataset_path runs/data/offline/data.jsonl --steps 6 --batch_size 4

Both arms build the model, tokenizer, dataset and trainer exactly as `training/sft.py` does (LoRA config of
`configs/train/smollm2_135m_cpu.yaml`), differing only in `packing`. Packed batches hold `batch_size`
sequences of up to `max_length` tokens filled with whole examples; padded batches hold `batch_size` examples
padded to the longest. Reported: real (non-pad) tokens per second, the share of padded positions, and the
ratio of the two arms' real-token throughput.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


class CountingCollator:
    """Wraps the trainer's collator to count real and padded positions of every batch it builds."""

    def __init__(self, inner, pad_token_id: int):
        self.inner, self.pad_token_id = inner, pad_token_id
        self.real = self.total = 0

    def __call__(self, features):
        batch = self.inner(features)
        mask = batch.get("attention_mask")
        positions = batch["input_ids"].numel()
        self.total += positions
        self.real += int(mask.sum()) if mask is not None else positions  # padding-free batches have no pads
        return batch


def run_arm(packing: bool, args) -> dict:
    from trl import ModelConfig, SFTConfig, SFTTrainer, get_peft_config

    from rqrag.training.data import load_records, tokenize_dataset
    from rqrag.training.sft import build_model_and_tokenizer
    from rqrag.training.token_rows import NewTokenRows

    model_args = ModelConfig(
        model_name_or_path=args.model,
        use_peft=True,
        lora_r=16,
        lora_alpha=32,
        lora_dropout=0.0,
        lora_target_modules=["all-linear"],
    )
    training_args = SFTConfig(
        output_dir=str(Path(args.out_dir) / ("packed" if packing else "padded")),
        max_steps=args.steps,
        per_device_train_batch_size=args.batch_size,
        learning_rate=2e-4,
        max_length=args.max_length,
        packing=packing,
        packing_strategy="bfd",
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        seed=0,
        dataloader_num_workers=0,
    )
    model, tokenizer, new_ids = build_model_and_tokenizer(model_args, training_args)
    records, _ = load_records(args.dataset_path)
    records = records.select(range(min(args.records, len(records))))
    dataset = tokenize_dataset(records, tokenizer, args.max_length)
    trainer = SFTTrainer(
        model=model,
        args=training_args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
    )
    NewTokenRows(trainer.model, new_ids)
    counter = CountingCollator(trainer.data_collator, tokenizer.pad_token_id)
    trainer.data_collator = counter
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "real": counter.real, "total": counter.total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset_path", default="runs/data/offline/data.jsonl")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--max_length", type=int, default=1024)
    parser.add_argument("--records", type=int, default=400, help="records tokenized (both arms draw from them)")
    parser.add_argument("--out_dir", default="runs/bench_train")
    args = parser.parse_args(argv)
    results = {name: run_arm(packing, args) for name, packing in (("padded", False), ("packed", True))}
    print(f"{'arm':<8}{'seconds':>9}{'real tokens':>13}{'positions':>11}{'padded share':>14}{'real tok/s':>12}")
    for name, r in results.items():
        share = 1 - r["real"] / r["total"]
        print(
            f"{name:<8}{r['seconds']:>9.1f}{r['real']:>13d}{r['total']:>11d}{share:>14.1%}{r['real'] / r['seconds']:>12.1f}"
        )
    ratio = (results["packed"]["real"] / results["packed"]["seconds"]) / (
        results["padded"]["real"] / results["padded"]["seconds"]
    )
    print(f"packed / padded real-token throughput: {ratio:.2f}x (goal >= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
