"""The retrieval interface every backend implements, shaped like pyserini's searchers.

`Hit` is what every stage passes around (evidence in trajectories, sources in server answers);
`Retriever` is the protocol the tree decoder, the data builder and the evaluator call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Hit:
    """One retrieved passage. `score` is backend-specific: larger is better within one result list."""

    docid: str
    title: str
    text: str
    score: float

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Hit:
        return cls(docid=str(d["docid"]), title=d.get("title", ""), text=d.get("text", ""), score=float(d["score"]))


def shorten_hits(hits: Sequence[Hit], max_words: int | None) -> list[Hit]:
    """Each passage cut to its first `max_words` words (None or 0: unchanged).

    Evidence is most of a trajectory's tokens and none of its supervised ones: training and decoding with
    the same cut keeps the two consistent and makes both ~1.5x cheaper at 60 words (HotpotQA paragraphs
    average ~80, and the fact a hop needs is usually in the first sentences).
    """
    if not max_words:
        return list(hits)
    if max_words < 0:
        raise ValueError(f"max_words must be >= 0 (0: whole passages), got {max_words}")
    shortened = []
    for hit in hits:
        words = hit.text.split()
        text = hit.text if len(words) <= max_words else " ".join(words[:max_words])
        shortened.append(replace(hit, text=text))  # a subclass keeps its fields (a chunk's page span)
    return shortened


class RetrieverError(RuntimeError):
    """A retriever could not answer (index missing, service unreachable, bad query scope)."""


class RetrieverUnavailable(RetrieverError):
    """The backend cannot be reached at all (e.g. web search offline); the message names an alternative."""


@runtime_checkable
class Retriever(Protocol):
    """`search` one query, or `batch_search` many at once (the tree decoder always batches).

    `qids` name the *question* each query belongs to. Global retrievers (corpus, web) ignore them;
    the candidates retriever needs them to search only that question's paragraphs. Unlike pyserini,
    results are a list aligned with `queries` rather than a dict keyed by qid, because one question
    issues several queries per tree level and a dict would collapse them.
    """

    name: str
    # True when results depend on the question (`qids` must be passed: the candidates retriever); False for
    # global ones (corpus, web), whose answer to a query is the same for every question, so callers and the
    # cache may share one search between questions.
    uses_qids: bool

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]: ...

    def batch_search(
        self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None
    ) -> list[list[Hit]]: ...


def check_qids(queries: Sequence[str], qids: Sequence[str] | None) -> None:
    if qids is not None and len(qids) != len(queries):
        raise ValueError(f"got {len(queries)} queries but {len(qids)} qids; they must align one to one")
