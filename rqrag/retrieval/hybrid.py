"""Hybrid retrieval: BM25 and dense rankings of one index merged by reciprocal-rank fusion (`fusion.py`).

A document found by both sides beats one found by only one side at a similar rank, which is what makes hybrid
robust to the failure modes of either (BM25 misses paraphrases, dense retrieval misses rare names and numbers).
"""

from __future__ import annotations

from rqrag.retrieval.base import Retriever
from rqrag.retrieval.fusion import (  # noqa: F401  (re-exported: the names callers import from here)
    DEFAULT_DEPTH,
    DEFAULT_RRF_K,
    FusedRetriever,
    reciprocal_rank_fusion,
)


class HybridRetriever(FusedRetriever):
    """RRF over a sparse and a dense retriever that index the same docids; on a docid both find, the sparse
    side's hit is kept (the two sides hold the same passage).

    `depth` is how many hits to fetch from each side before fusing; it defaults to max(k, 20).
    """

    label = "hybrid"

    def __init__(self, sparse: Retriever, dense: Retriever, rrf_k: int = DEFAULT_RRF_K, depth: int | None = None):
        super().__init__([sparse, dense], rrf_k=rrf_k, depth=depth)
        self.sparse = sparse
        self.dense = dense
