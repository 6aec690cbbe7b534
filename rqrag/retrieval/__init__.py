"""Retrieval for rq-rag: local corpora (BM25, dense, hybrid), per-question candidates, web search, caching.

Every backend implements `Retriever` (`search` / `batch_search` returning `Hit`s, each with its metadata in
`extra`). `registry.py` holds the retriever kinds and search modes, and `build_retriever`, which makes one
by its kind's name (what `--retriever corpus|candidates|web` in the other stages maps to). The rest defines each
piece once: fusion (`fusion.py`), the encoder adapter (`encoders.py`, `shared_encoder.py`), the atomic folder
swap (`atomic_dir.py`).

Names are imported lazily (PEP 562) so `import rqrag.retrieval` does not pull in bm25s, torch,
sentence-transformers or FAISS until a backend is actually used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rqrag.retrieval.base import Hit, Retriever, RetrieverError, RetrieverUnavailable, check_qids
from rqrag.retrieval.registry import RETRIEVER_KINDS, SEARCH_MODES, build_retriever


if TYPE_CHECKING:
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.cache import CachedRetriever
    from rqrag.retrieval.candidate_paragraphs import CandidateRetriever
    from rqrag.retrieval.corpus_index import CorpusIndex, build_index_from_file
    from rqrag.retrieval.dense import DenseRetriever, load_encoder, packaged_minilm_path
    from rqrag.retrieval.embedded import embedded_corpus_path, load_embedded_index
    from rqrag.retrieval.fusion import FusedRetriever, fuse_hits, reciprocal_rank_fusion
    from rqrag.retrieval.hybrid import HybridRetriever
    from rqrag.retrieval.passages import Passage, read_passages, write_passages
    from rqrag.retrieval.web import WebRetriever

_LAZY = {
    "BM25Retriever": "bm25",
    "CachedRetriever": "cache",
    "CandidateRetriever": "candidate_paragraphs",
    "CorpusIndex": "corpus_index",
    "build_index_from_file": "corpus_index",
    "DenseRetriever": "dense",
    "load_encoder": "dense",
    "packaged_minilm_path": "dense",
    "Passage": "passages",
    "read_passages": "passages",
    "write_passages": "passages",
    "embedded_corpus_path": "embedded",
    "load_embedded_index": "embedded",
    "FusedRetriever": "fusion",
    "fuse_hits": "fusion",
    "reciprocal_rank_fusion": "fusion",
    "HybridRetriever": "hybrid",
    "WebRetriever": "web",
}

__all__ = [
    "RETRIEVER_KINDS",
    "SEARCH_MODES",
    "BM25Retriever",
    "CachedRetriever",
    "CandidateRetriever",
    "CorpusIndex",
    "DenseRetriever",
    "Passage",
    "FusedRetriever",
    "Hit",
    "HybridRetriever",
    "Retriever",
    "RetrieverError",
    "RetrieverUnavailable",
    "WebRetriever",
    "build_index_from_file",
    "build_retriever",
    "check_qids",
    "embedded_corpus_path",
    "fuse_hits",
    "load_embedded_index",
    "load_encoder",
    "packaged_minilm_path",
    "read_passages",
    "reciprocal_rank_fusion",
    "write_passages",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
