"""Copy a trained adapter into `models/<name>/` with only what loading needs, and check it stays small.

    python scripts/ship_model.py runs/train/smollm2_135m_cpu                    # -> models/rqrag-smollm2-135m

Keeps the LoRA adapter (stored in float16), the trained special-token rows, the tokenizer, the training summary, resolved config
and loss curve; drops optimizer states and intermediate checkpoints. The model card
(`models/<name>/README.md`) is written by hand from these files and the held-out format check; this script
prints the figures it needs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path


KEEP = (
    "adapter_config.json",
    "adapter_model.safetensors",
    "token_rows.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
    "train_summary.json",
    "resolved_config.yaml",
    "loss.png",
)
REQUIRED = ("adapter_config.json", "adapter_model.safetensors", "token_rows.safetensors", "tokenizer.json")
MAX_MB = 20.0


def _save_half(source: Path, target: Path) -> None:
    """The LoRA matrices in float16: half the bytes in git; loading casts them back to the model's dtype, and the
    largest change this makes to a merged weight is far below what float32 inference resolves in an answer."""
    import torch
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(source))
    save_file({k: v.to(torch.float16) if v.is_floating_point() else v for k, v in tensors.items()}, str(target))


def ship(run_dir: Path, target: Path) -> list[Path]:
    missing = [name for name in REQUIRED if not (run_dir / name).is_file()]
    if missing:
        raise SystemExit(f"{run_dir} is not a finished training/sft.py LoRA run: missing {missing}")
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in KEEP:
        if not (run_dir / name).is_file():
            continue
        if name == "adapter_model.safetensors":
            _save_half(run_dir / name, target / name)
        else:
            shutil.copy2(run_dir / name, target / name)
        copied.append(target / name)
    size_mb = sum(p.stat().st_size for p in copied) / 2**20
    if size_mb > MAX_MB:
        raise SystemExit(f"{target} would hold {size_mb:.1f} MB, over the {MAX_MB} MB budget for git")
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, help="output_dir of training/sft.py")
    parser.add_argument("--target", type=Path, default=Path("models/rqrag-smollm2-135m"))
    args = parser.parse_args(argv)
    copied = ship(args.run_dir, args.target)
    for path in copied:
        print(f"{path}  {path.stat().st_size / 2**20:.2f} MB")
    summary = args.run_dir / "train_summary.json"
    if summary.is_file():
        print(json.dumps(json.loads(summary.read_text()), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
