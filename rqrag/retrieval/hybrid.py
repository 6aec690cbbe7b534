"""Hybrid retrieval: BM25 and dense rankings merged by reciprocal-rank fusion (Cormack et al., 2009).

RRF needs no score calibration between the two sides (BM25 scores are unbounded, cosines are in [-1, 1]):
each list contributes 1 / (rrf_k + rank) for every document it ranks, with ranks starting at 1, and the
documents are re-ranked by the sum. A document found by both sides therefore beats one found by only one
side at a similar rank, which is what makes hybrid robust to the failure modes of either.
"""

from __future__ import annotations

from collections.abc import Sequence

from rqrag.retrieval.base import Hit, Retriever, check_qids


DEFAULT_RRF_K = 60
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


class HybridRetriever:
    """RRF over a sparse and a dense retriever that index the same docids.

    `depth` is how many hits to fetch from each side before fusing; it defaults to max(k, 20), because a
    document ranked 15th by BM25 and 2nd by the dense side can deserve a top-3 place after fusion.
    """

    def __init__(self, sparse: Retriever, dense: Retriever, rrf_k: int = DEFAULT_RRF_K, depth: int | None = None):
        self.sparse = sparse
        self.dense = dense
        self.rrf_k = rrf_k
        self.depth = depth

    @property
    def uses_qids(self) -> bool:
        return self.sparse.uses_qids or self.dense.uses_qids

    @property
    def name(self) -> str:
        return f"hybrid(rrf_k={self.rrf_k},depth={self.depth}):{self.sparse.name}+{self.dense.name}"

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, qids=None if qid is None else [qid])[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """One batched call per side, then fuse per query. Hit scores are the RRF scores."""
        check_qids(queries, qids)
        depth = max(k, self.depth if self.depth is not None else DEFAULT_DEPTH)
        sparse_results = self.sparse.batch_search(queries, k=depth, qids=qids)
        dense_results = self.dense.batch_search(queries, k=depth, qids=qids)
        return [self._fuse(s, d, k) for s, d in zip(sparse_results, dense_results)]

    def _fuse(self, sparse_hits: list[Hit], dense_hits: list[Hit], k: int) -> list[Hit]:
        by_docid = {hit.docid: hit for hit in dense_hits}
        by_docid.update((hit.docid, hit) for hit in sparse_hits)
        fused = reciprocal_rank_fusion(
            [[hit.docid for hit in sparse_hits], [hit.docid for hit in dense_hits]], k=self.rrf_k
        )
        return [
            Hit(docid=docid, title=by_docid[docid].title, text=by_docid[docid].text, score=score)
            for docid, score in fused[:k]
        ]
