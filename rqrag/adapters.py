"""LoRA adapters from `training/sft.py` as plain model folders, so every backend loads them the same way.

An adapter folder holds `adapter_config.json` (naming its base, e.g. the packaged `smollm2-135m-instruct`),
the adapter weights (LoRA matrices and the trained rows of the special tokens) and the tokenizer with those
tokens. vLLM and the HF backend want one ordinary checkpoint, so the first resolution merges the adapter
into its base (base + special tokens with the same mean-initialised rows as in training + adapter, then
`merge_and_unload`) and saves the result under `<cache>/models/merged-<name>-<hash>`; the hash covers the
adapter's files, so retraining into the same folder yields a new merge. Concurrent callers share one merge
through a file lock, and the folder appears only when complete.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

from rqrag.paths import models_cache_dir


logger = logging.getLogger(__name__)

ADAPTER_CONFIG = "adapter_config.json"
TOKEN_ROWS_FILE = "token_rows.safetensors"  # special-token rows trained beside a LoRA adapter (training/token_rows.py)
_MERGED_MARKER = "rqrag_merged_from.txt"


def is_adapter_folder(path: Path) -> bool:
    return (path / ADAPTER_CONFIG).is_file() and not (path / "config.json").is_file()


def _fingerprint(adapter_dir: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(
        p for p in adapter_dir.iterdir() if p.is_file() and p.suffix in (".json", ".safetensors", ".bin")
    ):
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def merged_dir(adapter_dir: Path) -> Path:
    return models_cache_dir() / f"merged-{adapter_dir.resolve().name}-{_fingerprint(adapter_dir)}"


def adapter_base_model(adapter_dir: str | os.PathLike) -> str:
    """The `base_model_name_or_path` an adapter was trained on (an alias, a folder or a hub id)."""
    import json

    return json.loads((Path(adapter_dir) / ADAPTER_CONFIG).read_text())["base_model_name_or_path"]


def materialize_adapter(adapter_dir: str | os.PathLike, base_dir: str | os.PathLike) -> Path:
    """The merged checkpoint of an adapter folder, built once into the cache.

    `base_dir` is the adapter's base model already resolved to a folder: `rqrag.models.resolve_model` does that,
    so this module never imports `rqrag.models` (which imports it).
    """
    from filelock import FileLock

    adapter_dir = Path(adapter_dir)
    target = merged_dir(adapter_dir)
    if (target / _MERGED_MARKER).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / _MERGED_MARKER).is_file():
            return target
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            _merge_into(adapter_dir, Path(base_dir), tmp)
            (tmp / _MERGED_MARKER).write_text(str(adapter_dir.resolve()) + "\n")
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    logger.info("merged adapter %s -> %s", adapter_dir, target)
    return target


def _merge_into(adapter_dir: Path, base_dir: Path, out_dir: Path) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rqrag.special_tokens import add_special_tokens

    base = adapter_base_model(adapter_dir)
    tokenizer = AutoTokenizer.from_pretrained(adapter_dir)
    model = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
    # The same growth and mean initialisation as in training: the adapter stores the token rows as deltas.
    base_tokenizer = AutoTokenizer.from_pretrained(base_dir)
    add_special_tokens(base_tokenizer, model)
    if base_tokenizer.get_vocab() != tokenizer.get_vocab():
        raise ValueError(f"{adapter_dir}: its tokenizer differs from {base} plus the RQ-RAG tokens")
    merged = PeftModel.from_pretrained(model, adapter_dir).merge_and_unload()
    apply_token_rows(merged, adapter_dir)
    merged.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)


def embedding_matrices(model) -> dict:
    """The input embedding and, when not tied to it, the output embedding (works through a PeftModel)."""
    matrices = {"input": model.get_input_embeddings().weight}
    output = model.get_output_embeddings()
    if output is not None and output.weight is not matrices["input"]:
        matrices["output"] = output.weight
    return matrices


def apply_token_rows(model, directory: str | Path) -> bool:
    """Write saved rows into `model`'s embeddings; False when `directory` has none (full fine-tuning)."""
    import torch
    from safetensors.torch import load_file

    path = Path(directory) / TOKEN_ROWS_FILE
    if not path.is_file():
        return False
    saved = load_file(str(path))
    ids = saved["ids"]
    with torch.no_grad():
        for name, weight in embedding_matrices(model).items():
            weight[ids] = saved[name].to(weight.dtype)
    return True
