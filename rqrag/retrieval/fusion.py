"""Reciprocal-rank fusion (Cormack et al., 2009): the one way rq-rag merges ranked lists of hits.

RRF needs no score calibration between its sources (BM25 scores are unbounded, cosines are in [-1, 1], memory
scores are yet another scale): each list contributes 1 / (rrf_k + rank) for every document it ranks, with ranks
starting at 1, and the documents are re-ranked by the sum. A document found by several sources therefore beats
one found by only one source at a similar rank.

Every fusion goes through here: hybrid BM25 + dense over a local index (`HybridRetriever`), over PostgreSQL
(`PgVectorIndex` in hybrid mode), and a document library fused with a user's memories (`FusedRetriever`).
`fuse_hits` keeps each hit as its source returned it (its `extra`: file, pages, a memory's date) with the RRF
score in place of the source's own.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from rqrag.retrieval.base import Hit, Retriever, RetrieverError, check_qids


logger = logging.getLogger(__name__)


DEFAULT_RRF_K = 60
# Hits fetched from each source before fusing (at least k): a document ranked 15th by BM25 and 2nd by the dense
# side can deserve a top-3 place after fusion.
DEFAULT_DEPTH = 20


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = DEFAULT_RRF_K) -> list[tuple[str, float]]:
    """Fuse ranked docid lists: score(d) = sum over lists r of 1 / (k + rank_r(d)), rank starting at 1.

    Returns (docid, score) pairs, best first. Equal scores are ordered by docid so the result does not
    depend on the order of the input lists. A docid repeated within one list counts at its best rank only.
    """
    scores: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, docid in enumerate(ranking, start=1):
            if docid in seen:
                continue
            seen.add(docid)
            scores[docid] = scores.get(docid, 0.0) + 1.0 / (k + rank)
    # Rounding the sort key keeps float summation order (a+b vs b+a over 3+ lists) from breaking ties.
    return sorted(scores.items(), key=lambda item: (-round(item[1], 12), item[0]))


def fuse_hits(rankings: Sequence[Sequence[Hit]], limit: int, k: int = DEFAULT_RRF_K) -> list[Hit]:
    """The top `limit` hits of the RRF of several ranked hit lists, each with its RRF score.

    A docid several lists return keeps the hit object of the first list that has it (its title, text and
    `extra`), so callers put the source whose metadata they trust first.
    """
    by_docid: dict[str, Hit] = {}
    for hits in reversed(rankings):  # on a shared docid the first list's object wins
        by_docid.update((hit.docid, hit) for hit in hits)
    fused = reciprocal_rank_fusion([[hit.docid for hit in hits] for hits in rankings], k=k)
    return [replace(by_docid[docid], score=score) for docid, score in fused[:limit]]


def with_borrowed_ranks(sparse: Sequence[Hit], dense: Sequence[Hit], waiting, depth: int) -> list[Hit]:
    """The dense ranking with each hit of a document still `waiting` for its vectors put in at its sparse rank.

    RRF of a chunk only one side can rank halves its score, so a just-uploaded document's words would outrank
    nothing; borrowing its word rank treats it as ranking on meaning as it ranks on words, until its vector says
    otherwise. `waiting` holds doc_ids (`documents.doc_id_of`).
    """
    from rqrag.retrieval.citations import doc_id_of

    dense = list(dense)
    for rank, hit in enumerate(sparse):
        if doc_id_of(hit) in waiting:
            dense.insert(rank, hit)
    return dense[:depth]


def fusion_depth(k: int, depth: int | None) -> int:
    """How many hits to ask each source for when the fused list should hold `k`."""
    return max(k, depth if depth is not None else DEFAULT_DEPTH)


class FusedRetriever:
    """RRF over several retrievers, e.g. a document index and a user's memories.

    Each source is asked for `fusion_depth(k, depth)` hits in one batched call and the fused top `k` keeps each
    source's own hit (see `fuse_hits`). Docids are assumed distinct across sources unless they index the same
    documents (as the two sides of a hybrid index do); memories are "memory:<id>", which no document index issues.
    """

    label = "fused"  # the start of `name`: search caches key on it

    def __init__(self, retrievers: Sequence[Retriever], rrf_k: int = DEFAULT_RRF_K, depth: int | None = None):
        if not retrievers:
            raise ValueError(f"{type(self).__name__} needs at least one retriever")
        self.retrievers = list(retrievers)
        self.rrf_k = rrf_k
        self.depth = depth

    @property
    def uses_qids(self) -> bool:
        return any(r.uses_qids for r in self.retrievers)

    @property
    def name(self) -> str:
        return f"{self.label}(rrf_k={self.rrf_k},depth={self.depth}):" + "+".join(r.name for r in self.retrievers)

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, qids=None if qid is None else [qid])[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """One batched call per source, then fusion per query. Hit scores are the RRF scores. A source that fails
        (`RetrieverError`: offline, a database gone) is left out and the others answer; only when every source
        fails does the search fail, with the first source's error."""
        check_qids(queries, qids)
        depth = fusion_depth(k, self.depth)
        per_source, errors = [], []
        for retriever in self.retrievers:
            try:
                per_source.append(retriever.batch_search(queries, k=depth, qids=qids))
            except RetrieverError as error:
                logger.warning("fused search without %s: %s", retriever.name, error)
                errors.append(error)
        if not per_source:
            raise errors[0]
        return [fuse_hits([results[i] for results in per_source], k, self.rrf_k) for i in range(len(queries))]
