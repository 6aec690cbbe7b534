"""Where rq-rag finds what it ships and keeps what it builds.

What it builds once and reuses (materialised models, prebuilt indexes, fetched benchmarks) lives in the cache:
`RQRAG_CACHE_DIR` overrides the location (tests point it at a temporary folder); the default follows the
XDG convention, like the Hugging Face cache.

What it ships comes from the checkout when running from one, else from the installed wheels: the YAML configs
(`configs_dir`, inside the rq-rag wheel as `rqrag/configs/`) and the trained models (`models_dir`, the companion
wheel rq-rag-models, importable as `rqrag_models`).
"""

from __future__ import annotations

import importlib.util
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

# The companion wheel that carries models/ (models/pyproject.toml): too big for the main wheel (docs/install.md).
MODELS_DISTRIBUTION = "rq-rag-models"
MODELS_PACKAGE = "rqrag_models"
MODELS_INSTALL = (
    f"pip install {MODELS_DISTRIBUTION} (from a checkout: `make wheels`, then `pip install dist/rq_rag_models-*.whl`)"
)


class ModelsNotInstalled(FileNotFoundError):
    """Neither a checkout's models/ nor the rq-rag-models package is there."""


def checkout_root() -> Path | None:
    """The git checkout rqrag runs from, or None when it is installed. Installed, the folder above `rqrag/` is
    site-packages, where a `models/` or `configs/` belongs to some other package: the checkout is recognised by
    its pyproject.toml, which no installed package puts there."""
    return PROJECT_ROOT if (PROJECT_ROOT / "pyproject.toml").is_file() else None


def configs_dir() -> Path:
    """The shipped YAML configs, `<stage>/<name>.yaml`: the checkout's configs/, else the wheel's rqrag/configs/
    (pyproject.toml maps the package rqrag.configs to configs/)."""
    root = checkout_root()
    return root / "configs" if root is not None else Path(__file__).resolve().parent / "configs"


def models_dir() -> Path:
    """The shipped models (the default model's adapters, its verifier, the reader): the checkout's models/, else
    the installed rq-rag-models package. Every reader of models/ asks here."""
    root = checkout_root()
    if root is not None and (root / "models").is_dir():
        return root / "models"
    spec = importlib.util.find_spec(MODELS_PACKAGE)  # data only: located, never executed
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    raise ModelsNotInstalled(f"the shipped models are not installed: {MODELS_INSTALL}")


def benchmarks_dir() -> Path:
    """The full benchmark files: `RQRAG_BENCHMARKS_DIR`, else `<cache>/benchmarks`, where `rqrag data fetch`
    writes them. Without them, readers fall back to the slices shipped in the package (`rqrag.benchmarks.files`)."""
    root = os.environ.get("RQRAG_BENCHMARKS_DIR")
    return Path(root).expanduser() if root else cache_dir() / "benchmarks"
