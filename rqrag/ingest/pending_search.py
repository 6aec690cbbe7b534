"""Searching a local library while some documents wait for their vectors (an upload between its two stages).

    dense = WithoutPending(index.dense(), waiting, rows)        # the dense side, placeholders dropped
    hybrid = HybridWhilePending(index.bm25(), dense)             # RRF, waiting chunks borrowing their BM25 rank

A document is searchable by its words as soon as its text is read (`rqrag.ingest.library`, stage 1); its rows in
the dense index are zeros until stage 2 fills them. These two wrappers keep those placeholders out of the dense
ranking and fuse fairly meanwhile (`rqrag.ingest.local_library.LibraryRetriever` uses them).
"""

from __future__ import annotations

from collections.abc import Sequence

from rqrag.retrieval.base import Hit
from rqrag.retrieval.citations import doc_id_of


class WithoutPending:
    """The dense side of a library while some documents wait for their vectors: their placeholder rows (zeros,
    similarity 0) are asked for and dropped, so a half-added document is found by its words only."""

    uses_qids = False

    def __init__(self, dense, waiting: frozenset[str], rows: int):
        self.dense = dense
        self.waiting = waiting
        self.rows = rows  # placeholders score 0, above a real chunk's negative similarity: ask for k beyond them
        self.name = f"{dense.name}:without{len(waiting)}"

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        found = self.dense.batch_search(list(queries), k=k + self.rows)
        return [[hit for hit in hits if doc_id_of(hit) not in self.waiting][:k] for hits in found]


class HybridWhilePending:
    """Hybrid search while some documents have no vectors yet: RRF with the dense ranking borrowing each waiting
    chunk's BM25 rank (`fusion.with_borrowed_ranks`), so a half-added document is not ranked at half its worth."""

    uses_qids = False

    def __init__(self, bm25, dense: WithoutPending):
        self.bm25, self.dense = bm25, dense

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        from rqrag.retrieval.fusion import DEFAULT_RRF_K, fuse_hits, fusion_depth, with_borrowed_ranks

        depth = fusion_depth(k, None)
        words = self.bm25.batch_search(list(queries), k=depth)
        meaning = self.dense.batch_search(list(queries), k=depth)
        return [
            fuse_hits([sparse, with_borrowed_ranks(sparse, dense, self.dense.waiting, depth)], k, DEFAULT_RRF_K)
            for sparse, dense in zip(words, meaning)
        ]
