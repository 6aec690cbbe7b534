"""Memories as a retrieval source for the tree decoder, alone or fused with documents.

    memories = MemoryRetriever(store, user_id="ana")
    memories.search("o que eu disse semana passada sobre o orçamento?", k=3)   # only that week's memories
    FusedRetriever([documents, memories]).batch_search(queries, k=3)          # documents + memories, by RRF

`MemoryRetriever` is one user's view of a `MemoryStore`: build one per request, for the user asking. Each
query is read for a time expression (`memory_time.date_range_in`, relative to `now`), and when it has one only
memories of those days are searched.

Neither should sit behind `CachedRetriever`: memories change with every exchange, a relative date ("ontem")
means another day tomorrow, and the cache keeps plain `Hit`s, dropping the memory's date and id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from rqrag.inference.memory.dates import date_range_in
from rqrag.inference.memory.store import MemoryStore
from rqrag.retrieval.base import Hit, Retriever, check_qids
from rqrag.retrieval.hybrid import DEFAULT_DEPTH, DEFAULT_RRF_K, reciprocal_rank_fusion


class MemoryRetriever:
    """The `Retriever` over one user's memories. `now` (a datetime, or a callable returning one) anchors
    relative dates; by default the moment of each search."""

    uses_qids = False  # one user's memories, whatever question the query comes from

    def __init__(
        self,
        store: MemoryStore,
        user_id: str,
        now: datetime | Callable[[], datetime] | None = None,
        languages: Sequence[str] = ("pt", "en"),
    ):
        if not user_id:
            raise ValueError("a memory retriever serves one user: pass their user id")
        self.store = store
        self.user_id = user_id
        self.now = now
        self.languages = tuple(languages)
        # Applied date ranges of the last batch, one per query (None: no time expression): for logs and tests.
        self.last_date_ranges: list[tuple | None] = []

    @property
    def name(self) -> str:
        return f"memories:user={self.user_id}"

    def _now(self) -> datetime:
        if self.now is None:
            return datetime.now()
        return self.now() if callable(self.now) else self.now

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, qids=None if qid is None else [qid])[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        check_qids(queries, qids)
        now = self._now()
        found = [date_range_in(query, now, self.languages) for query in queries]
        self.last_date_ranges = found
        date_ranges = [None if f is None else (f[0], f[1]) for f in found]
        return self.store.batch_search(self.user_id, list(queries), k, date_ranges)


class FusedRetriever:
    """Reciprocal-rank fusion of several retrievers (e.g. a document index and a user's memories).

    Each source is asked for `depth` hits (default max(k, 20)) and the fused top `k` keeps each source's own
    `Hit` object (a `ChunkHit` keeps its `extra`) with the RRF score. Docids are assumed distinct across
    sources; memories are "memory:<id>", which no document index issues.
    """

    def __init__(self, retrievers: Sequence[Retriever], rrf_k: int = DEFAULT_RRF_K, depth: int | None = None):
        if not retrievers:
            raise ValueError("FusedRetriever needs at least one retriever")
        self.retrievers = list(retrievers)
        self.rrf_k = rrf_k
        self.depth = depth

    @property
    def uses_qids(self) -> bool:
        return any(r.uses_qids for r in self.retrievers)

    @property
    def name(self) -> str:
        return f"fused(rrf_k={self.rrf_k},depth={self.depth}):" + "+".join(r.name for r in self.retrievers)

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, qids=None if qid is None else [qid])[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        check_qids(queries, qids)
        depth = max(k, self.depth if self.depth is not None else DEFAULT_DEPTH)
        per_source = [r.batch_search(queries, k=depth, qids=qids) for r in self.retrievers]
        return [self._fuse([results[i] for results in per_source], k) for i in range(len(queries))]

    def _fuse(self, rankings: list[list[Hit]], k: int) -> list[Hit]:
        by_docid: dict[str, Hit] = {}
        for hits in reversed(rankings):  # on a shared docid the first source's object wins
            by_docid.update((hit.docid, hit) for hit in hits)
        fused = reciprocal_rank_fusion([[hit.docid for hit in hits] for hits in rankings], k=self.rrf_k)
        return [replace(by_docid[docid], score=score) for docid, score in fused[:k]]
