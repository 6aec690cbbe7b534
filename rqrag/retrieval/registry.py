"""Every retriever kind and search mode rq-rag knows, and the one factory that builds a retriever by kind.

Kinds (what `--retriever` / `--retrievers` take):

    corpus      a local index (`rqrag index build`, a document library from `rqrag docs add`, or the embedded
                Wikipedia paragraphs when none is named), searched in a `SEARCH_MODES` mode
    candidates  each benchmark question's own paragraphs (bm25 or dense)
    web         DuckDuckGo
    documents, memories, documents+memories
                the server's document library and the asking user's memories: built by the answering service
                (`rqrag.serve.answer_service`) from what it holds, not here

Modes: "bm25", "dense", "hybrid" (reciprocal-rank fusion of both, `fusion.py`); an index is built with
`INDEX_MODES` (hybrid needs both). `build_retriever` is what `rqrag.inference.build`, the data builder, the CLI
commands and the evaluator call; nothing else decides which class a kind name means.
"""

from __future__ import annotations

import logging
import os
from typing import Any

# The modes live in base.py, beside the interface, because the indexes this factory builds check them too.
from rqrag.retrieval.base import INDEX_MODES, SEARCH_MODES, Retriever, check_search_mode  # noqa: F401  (re-exported)


logger = logging.getLogger(__name__)

# Kinds `build_retriever` makes.
RETRIEVER_KINDS = ("corpus", "candidates", "web")
# Kinds only a server has: its document library and its users' memories.
MEMORY_KINDS = ("memories", "documents+memories")
DOCUMENT_KINDS = ("documents", "documents+memories")
SERVER_KINDS = (*RETRIEVER_KINDS, "documents", "memories", "documents+memories")
# Kinds whose first search is the question itself (their passages are what the user asked about).
SEARCH_FIRST_KINDS = ("documents", *MEMORY_KINDS)


def check_retriever_kind(retriever_kind: str) -> str:
    """`retriever_kind` if `build_retriever` makes it, else a ValueError listing the kinds (and saying where a
    server's own kinds come from)."""
    if retriever_kind in RETRIEVER_KINDS:
        return retriever_kind
    if retriever_kind in SERVER_KINDS:
        raise ValueError(
            f"retriever kind {retriever_kind!r} is the server's (`rqrag serve --retrievers {retriever_kind}`); "
            f"build_retriever makes {RETRIEVER_KINDS}"
        )
    raise ValueError(f"unknown retriever kind {retriever_kind!r}; choose one of {RETRIEVER_KINDS} (a server also has "
                     f"{tuple(k for k in SERVER_KINDS if k not in RETRIEVER_KINDS)})")  # fmt: skip


def build_retriever(
    retriever_kind: str,
    *,
    mode: str | None = None,
    index_dir: str | os.PathLike | None = None,
    index: Any = None,
    candidates_path: str | os.PathLike | None = None,
    records: Any = None,
    cache_path: str | os.PathLike | None = None,
    database_url: str | None = None,
    **kwargs: Any,
) -> Retriever:
    """Make a retriever by its kind's name (`RETRIEVER_KINDS`).

    - "corpus": `mode` is "bm25", "dense" or "hybrid" (default). The index is `index`, an opened store with
      `retriever(mode)` (a `CorpusIndex`, a `PgVectorIndex`, a document library), or the directory `index_dir`
      built by `rqrag index build`, or by default the embedded Wikipedia paragraphs (built on first use).
      With `database_url`, `index_dir` is instead the name of a corpus `rqrag index build --database_url` loaded
      into PostgreSQL (`rqrag.retrieval.pg_corpus`), searched densely through HNSW.
      Extra kwargs (`rrf_k`, `depth`) go to the hybrid retriever of a directory index.
    - "candidates": each question's own paragraphs, from `candidates_path` (a benchmark file) or `records`;
      `mode` is "bm25" (default) or "dense" (hybrid, the corpus default, falls back to bm25 with a warning).
      Extra kwargs go to `CandidateRetriever`.
    - "web": DuckDuckGo via ddgs; `mode` is ignored; extra kwargs (timeout, retries, backoff, concurrency, ...)
      go to `WebRetriever`.

    With `cache_path`, the retriever is wrapped in a `CachedRetriever` writing to that SQLite file.
    """
    check_retriever_kind(retriever_kind)
    if retriever_kind == "corpus":
        mode = check_search_mode(mode or "hybrid")
        if index is not None:
            retriever = index.retriever(mode)
        elif database_url is not None:
            from rqrag.retrieval.pg_corpus import PgCorpus

            if index_dir is None:
                raise ValueError("a corpus in PostgreSQL (`database_url`) is named by `index_dir` (--index NAME)")
            retriever = PgCorpus(database_url, str(index_dir)).retriever(mode)
        else:
            from rqrag.retrieval.corpus_index import CorpusIndex
            from rqrag.retrieval.embedded import load_embedded_index

            if index_dir is None:
                index = load_embedded_index(INDEX_MODES if mode == "hybrid" else (mode,))
            else:
                index = CorpusIndex.load(index_dir)
            retriever = index.retriever(mode, **kwargs)
    elif retriever_kind == "candidates":
        from rqrag.retrieval.candidate_paragraphs import CandidateRetriever

        if mode == "hybrid":
            # Candidate pools support bm25 and dense; hybrid is said out loud, not swapped silently.
            logger.warning("retrieval_mode hybrid is not available over per-question candidates: using bm25")
        mode = "bm25" if mode in (None, "hybrid") else mode
        if candidates_path is not None:
            retriever = CandidateRetriever.from_file(candidates_path, mode=mode, **kwargs)
        elif records is not None:
            retriever = CandidateRetriever.from_records(records, mode=mode, **kwargs)
        else:
            raise ValueError("the candidates retriever needs `candidates_path` (a benchmark file) or `records`")
    else:
        from rqrag.retrieval.web import WebRetriever

        retriever = WebRetriever(**kwargs)

    if cache_path is not None:
        from rqrag.retrieval.cache import CachedRetriever

        retriever = CachedRetriever(retriever, cache_path)
    return retriever
