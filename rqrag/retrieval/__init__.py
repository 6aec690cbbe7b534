"""Retrieval for rq-rag: local corpora (BM25, dense, hybrid), per-question candidates, web search, caching.

Every backend implements `Retriever` (`search` / `batch_search` returning `Hit`s). `build_retriever` makes
one from a kind name, which is what `--retriever corpus|candidates|web` in the other stages maps to.

Names are imported lazily (PEP 562) so `import rqrag.retrieval` does not pull in bm25s, torch,
sentence-transformers or FAISS until a backend is actually used.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from rqrag.retrieval.base import Hit, Retriever, RetrieverError, RetrieverUnavailable, check_qids


if TYPE_CHECKING:
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.cache import CachedRetriever
    from rqrag.retrieval.candidates import CandidateRetriever
    from rqrag.retrieval.corpus_index import CorpusIndex, build_index_from_file
    from rqrag.retrieval.dense import DenseRetriever, load_encoder, packaged_minilm_path
    from rqrag.retrieval.documents import Document, read_documents, write_documents
    from rqrag.retrieval.embedded import embedded_corpus_path, load_embedded_index
    from rqrag.retrieval.hybrid import HybridRetriever, reciprocal_rank_fusion
    from rqrag.retrieval.web import WebRetriever

_LAZY = {
    "BM25Retriever": "bm25",
    "CachedRetriever": "cache",
    "CandidateRetriever": "candidates",
    "CorpusIndex": "corpus_index",
    "build_index_from_file": "corpus_index",
    "DenseRetriever": "dense",
    "load_encoder": "dense",
    "packaged_minilm_path": "dense",
    "Document": "documents",
    "read_documents": "documents",
    "write_documents": "documents",
    "embedded_corpus_path": "embedded",
    "load_embedded_index": "embedded",
    "HybridRetriever": "hybrid",
    "reciprocal_rank_fusion": "hybrid",
    "WebRetriever": "web",
}

RETRIEVER_KINDS = ("corpus", "candidates", "web")

__all__ = [
    "RETRIEVER_KINDS",
    "BM25Retriever",
    "CachedRetriever",
    "CandidateRetriever",
    "CorpusIndex",
    "DenseRetriever",
    "Document",
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
    "load_embedded_index",
    "load_encoder",
    "packaged_minilm_path",
    "read_documents",
    "reciprocal_rank_fusion",
    "write_documents",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def build_retriever(
    kind: str,
    *,
    mode: str | None = None,
    index_dir: str | os.PathLike | None = None,
    candidates_path: str | os.PathLike | None = None,
    records: Any = None,
    cache_path: str | os.PathLike | None = None,
    **kwargs: Any,
) -> Retriever:
    """Make a retriever by kind name.

    - "corpus": a local index; `mode` is "bm25", "dense" or "hybrid" (default), `index_dir` an index built by
      `rqrag index build` (default: the embedded Wikipedia paragraphs, built on first use). Extra kwargs
      (`rrf_k`, `depth`) go to the hybrid retriever.
    - "candidates": each question's own paragraphs, from `candidates_path` (a benchmark file) or `records`;
      `mode` is "bm25" (default) or "dense". Extra kwargs go to `CandidateRetriever`.
    - "web": DuckDuckGo via ddgs; extra kwargs (timeout, retries, backoff, concurrency, ...) go to `WebRetriever`.

    With `cache_path`, the retriever is wrapped in a `CachedRetriever` writing to that SQLite file.
    """
    if kind == "corpus":
        from rqrag.retrieval.corpus_index import CorpusIndex
        from rqrag.retrieval.embedded import load_embedded_index

        mode = mode or "hybrid"
        if index_dir is None:
            needed = ("bm25", "dense") if mode == "hybrid" else (mode,)
            index = load_embedded_index(needed)
        else:
            index = CorpusIndex.load(index_dir)
        retriever = index.retriever(mode, **kwargs)
    elif kind == "candidates":
        from rqrag.retrieval.candidates import CandidateRetriever

        mode = mode or "bm25"
        if candidates_path is not None:
            retriever = CandidateRetriever.from_file(candidates_path, mode=mode, **kwargs)
        elif records is not None:
            retriever = CandidateRetriever.from_records(records, mode=mode, **kwargs)
        else:
            raise ValueError("the candidates retriever needs `candidates_path` (a benchmark file) or `records`")
    elif kind == "web":
        from rqrag.retrieval.web import WebRetriever

        retriever = WebRetriever(**kwargs)
    else:
        raise ValueError(f"unknown retriever kind {kind!r}; choose one of {RETRIEVER_KINDS}")

    if cache_path is not None:
        from rqrag.retrieval.cache import CachedRetriever

        retriever = CachedRetriever(retriever, cache_path)
    return retriever
