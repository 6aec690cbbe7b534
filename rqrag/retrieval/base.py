"""The retrieval interface every backend implements, shaped like pyserini's searchers.

`Hit` is what every stage passes around (evidence in trajectories, sources in server answers), whatever
retriever found it: a chunk of a document library carries its file and page span in `extra`, a memory its
date and id, a Wikipedia paragraph nothing. `Retriever` is the protocol the tree decoder, the data builder and
the evaluator call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Hit:
    """One retrieved passage. `score` is backend-specific: larger is better within one result list.

    `extra` is where the passage comes from beyond its title: a library chunk's `file`, `page_start`,
    `page_end`, `doc_id` and chunking strategy, a memory's `origin` ("memory"), date and id. It does not take part in
    equality or hashing (two searches finding the same passage find the same hit).
    """

    docid: str
    title: str
    text: str
    score: float
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict:
        """The hit as JSON; `extra` only when there is some, so a plain passage's record keeps its four keys."""
        out = {"docid": self.docid, "title": self.title, "text": self.text, "score": self.score}
        if self.extra:
            out["extra"] = dict(self.extra)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Hit:
        return cls(
            docid=str(d["docid"]),
            title=d.get("title", ""),
            text=d.get("text", ""),
            score=float(d["score"]),
            extra=dict(d.get("extra") or {}),
        )


# How an index is searched: BM25, dense (embeddings), or hybrid (reciprocal-rank fusion of both, `fusion.py`);
# an index is built with `INDEX_MODES` (hybrid needs both). `registry.py` lists them with the retriever kinds.
SEARCH_MODES = ("bm25", "dense", "hybrid")
INDEX_MODES = ("bm25", "dense")


def check_search_mode(mode: str) -> str:
    """`mode` if it is a search mode, else a ValueError listing them."""
    if mode not in SEARCH_MODES:
        raise ValueError(f"unknown search mode {mode!r}; choose one of {SEARCH_MODES}")
    return mode


def new_docids(hits: Sequence[Hit], seen: set[str]) -> set[str]:
    """The docids among `hits` that are not in `seen`: a search that finds none of them found nothing new (the
    training-data filter and the decoder's refinement guards both ask this)."""
    return {h.docid for h in hits} - seen


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
        shortened.append(replace(hit, text=text))  # keeps `extra` (a chunk's page span)
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
