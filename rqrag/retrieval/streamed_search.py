"""Searching an index made by `rqrag index build --streamed` (`rqrag.retrieval.streamed_index`).

Only the FAISS index is loaded (for IVF-PQ, its codes: ~1 GB for 21M passages); the passages stay in the SQLite
docstore and are read per search, only the rows of the hits. Queries are embedded by the model meta.json names,
with the prefixes recorded there, and searched with the recorded nprobe / efSearch. For a lossy index (PQ), the
top `rerank_depth` candidates are re-scored with their exact vectors, read row by row from the shard files, so
scores are cosines like a flat index's. The layout is dense only: "hybrid" falls back to dense (with a warning)
and "bm25" is an error.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rqrag.retrieval.base import Hit, RetrieverError, check_qids, check_search_mode
from rqrag.retrieval.docstore import DOCSTORE_FILE, Docstore
from rqrag.retrieval.streamed_index import INDEX_FILE, META_FILE, STREAMED_LAYOUT
from rqrag.retrieval.vector_shards import SHARDS_DIR, VectorShards


logger = logging.getLogger(__name__)


def is_streamed(meta: dict[str, Any]) -> bool:
    return meta.get("layout") == STREAMED_LAYOUT


class StreamedDenseRetriever:
    """Dense search over a streamed index: FAISS for the ranking, the docstore for the passages."""

    uses_qids = False  # one global corpus: results do not depend on the question
    search_mode = "dense"  # whatever mode was asked: this layout has no BM25 side (`rqrag search` prints this)

    def __init__(self, directory: Path, meta: dict[str, Any], encoder: Any = None, batch_size: int = 64):
        import faiss

        from rqrag.retrieval.faiss_factory import apply_search_params

        self.directory = directory
        self.meta = meta
        self.batch_size = batch_size
        self.index = faiss.read_index(str(directory / INDEX_FILE))
        if self.index.ntotal != meta["num_docs"]:
            raise RetrieverError(f"{directory}: meta.json says {meta['num_docs']} docs but the index holds "
                                 f"{self.index.ntotal} vectors")  # fmt: skip
        apply_search_params(self.index, meta.get("search_params") or {})
        self.docstore = Docstore(directory / DOCSTORE_FILE, readonly=True)
        self.shards = VectorShards(directory / SHARDS_DIR, meta["shard_size"], random_access=True)
        self.name = f"dense:{Path(meta['embedding_model']).name}:{meta['fingerprint']}"
        self._given_encoder = encoder
        self._encoder = None

    @property
    def encoder(self):
        """The build's model with the build's prefixes (a caller's encoder is given them too)."""
        if self._encoder is None:
            from rqrag.retrieval.encoders import as_text_encoder, load_encoder, with_prefixes

            given = self._given_encoder
            base = as_text_encoder(given) if given is not None else load_encoder(self.meta["embedding_model"])
            self._encoder = with_prefixes(base, self.meta.get("query_prefix"), self.meta.get("passage_prefix"))
        return self._encoder

    def __len__(self) -> int:
        return int(self.meta["num_docs"])

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """Encode the non-empty queries in one call, search them with one FAISS call, read the hits' rows."""
        from rqrag.retrieval.encoders import embed

        check_qids(queries, qids)
        results: list[list[Hit]] = [[] for _ in queries]
        k = min(int(k), len(self))
        active = [i for i, q in enumerate(queries) if q.strip()]
        if k <= 0 or not active:
            return results
        vectors = embed(self.encoder, [queries[i] for i in active], "queries", self.batch_size)
        rows, scores = self.search_vectors(vectors, k)
        passages = self.docstore.passages(r for ranked in rows for r in ranked)
        for position, ranked, ranked_scores in zip(active, rows, scores):
            results[position] = [
                Hit(
                    docid=passages[r].docid,
                    title=passages[r].title,
                    text=passages[r].text,
                    score=s,
                    extra=dict(passages[r].extra),
                )  # fmt: skip
                for r, s in zip(ranked, ranked_scores)
                if r in passages
            ]
        return results

    def search_vectors(self, vectors: np.ndarray, k: int) -> tuple[list[list[int]], list[list[float]]]:
        """Ranked (rows, scores) per query vector; a lossy index's candidates are re-scored exactly first."""
        from rqrag.retrieval.faiss_factory import exact_top_k

        depth = int(self.meta.get("rerank_depth") or 0)
        if depth:
            _, candidates = self.index.search(vectors, min(max(depth, k), len(self)))
            return exact_top_k(self.shards, vectors, candidates, k)
        scores, indices = self.index.search(vectors, k)
        rows = [[int(r) for r in ranked if r >= 0] for ranked in indices]
        return rows, [s[: len(r)].astype(np.float64).tolist() for s, r in zip(scores, rows)]


class StreamedIndex:
    """An opened streamed index: what `CorpusIndex.load` returns for one, with the same `retriever(mode)`."""

    def __init__(self, directory: str | os.PathLike, meta: dict[str, Any] | None = None, encoder: Any = None):
        self.directory = Path(directory)
        self.meta = meta if meta is not None else json.loads((self.directory / META_FILE).read_text())
        if not is_streamed(self.meta):
            raise RetrieverError(f"{self.directory} is not a streamed index")
        self._encoder = encoder
        self._dense: StreamedDenseRetriever | None = None

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(self.meta["modes"])

    @property
    def embedding_model(self) -> str:
        return self.meta["embedding_model"]

    def __len__(self) -> int:
        return int(self.meta["num_docs"])

    def dense(self) -> StreamedDenseRetriever:
        if self._dense is None:
            self._dense = StreamedDenseRetriever(self.directory, self.meta, encoder=self._encoder)
        return self._dense

    def retriever(self, mode: str = "dense", **_: Any) -> StreamedDenseRetriever:
        """The dense retriever; "hybrid" falls back to it (there is no BM25 side), "bm25" is an error."""
        mode = check_search_mode(mode)
        if mode == "bm25":
            raise RetrieverError(
                f"the streamed index at {self.directory} is dense only; search it with --retrieval_mode dense"
            )
        if mode == "hybrid":
            logger.warning("the streamed index at %s is dense only: searching it in dense mode", self.directory)
        return self.dense()
