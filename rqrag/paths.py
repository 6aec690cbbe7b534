"""Where rq-rag keeps what it builds once and reuses: materialised models, prebuilt indexes, fetched benchmarks.

`RQRAG_CACHE_DIR` overrides the location (tests point it at a temporary folder); the default follows the
XDG convention, like the Hugging Face cache.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    root = os.environ.get("RQRAG_CACHE_DIR")
    if root:
        return Path(root).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "rqrag"


def models_cache_dir() -> Path:
    return cache_dir() / "models"


def indexes_cache_dir() -> Path:
    return cache_dir() / "indexes"


PROJECT_DATA_DIR = Path(__file__).resolve().parent / "retrieval" / "data"

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def benchmarks_dir() -> Path:
    """The full benchmark files: `RQRAG_BENCHMARKS_DIR`, else `<cache>/benchmarks`, where `rqrag data fetch`
    writes them. Without them, readers fall back to the slices shipped in the package (`rqrag.benchmarks.files`)."""
    root = os.environ.get("RQRAG_BENCHMARKS_DIR")
    return Path(root).expanduser() if root else cache_dir() / "benchmarks"
