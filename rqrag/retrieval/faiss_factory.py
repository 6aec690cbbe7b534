"""Which FAISS index a streamed build makes, how it is trained and filled shard by shard, and how it is searched.

`--index_factory auto` picks by corpus size, from a measurement on the packaged MiniLM embeddings of the
embedded corpus (10.7k x 384; recall@10 = overlap of the top 10 with exact search's, noisy copies of passages
as queries):

    Flat                        exact          1.5 KB/vector  (384-d float32)
    HNSW32, efSearch 128        recall 0.998   1.8 KB/vector
    IVF,PQ48 (dim/8 bytes)      recall 0.69    ~0.2 KB/vector, whatever nprobe
    IVF,PQ48 + exact re-rank    recall 0.96    same memory; nprobe = nlist/8, top 100 re-ranked from the shards

So: Flat while the vectors fit easily (< 200k: under 300 MB), HNSW32 up to 1M (recall of exact search at
~2 GB), and IVF-PQ beyond, where only PQ codes can stay in memory (21M x 48 B = 1 GB): its approximate top
`rerank_depth` is re-scored with the exact vectors read from the memory-mapped shard files
(`rqrag.retrieval.vector_shards`), which restores the recall PQ alone loses.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import numpy as np

from rqrag.retrieval.vector_shards import VectorShards


logger = logging.getLogger(__name__)

AUTO = "auto"
FLAT_MAX_VECTORS = 200_000
HNSW_MAX_VECTORS = 1_000_000
HNSW_EF_SEARCH = 128
# Candidates of a lossy (PQ / SQ) index re-scored with their exact vectors before the top k is kept.
RERANK_DEPTH = 100
# Training vectors per IVF list (FAISS warns under 39) and the cap on the whole sample.
TRAIN_PER_LIST = 50
MAX_TRAIN_VECTORS = 256_000
MIN_PQ_TRAIN_VECTORS = 256 * 39  # a PQ sub-quantizer has 256 centroids


def ivf_lists(num_vectors: int) -> int:
    """About 4 * sqrt(n) IVF lists, rounded to a power of two (the usual FAISS guidance for 1M-100M vectors)."""
    return max(1, 2 ** round(math.log2(max(1.0, 4 * math.sqrt(num_vectors)))))


def pq_subquantizers(dim: int) -> int:
    """About one byte per 8 dimensions: the largest divisor of `dim` not above dim / 8 (48 for 384-d MiniLM)."""
    target = max(1, dim // 8)
    return max(m for m in range(1, target + 1) if dim % m == 0)


def choose_factory(num_vectors: int, dim: int) -> str:
    """The factory string `auto` means for `num_vectors` vectors of `dim` dimensions (see the module docstring)."""
    if num_vectors < FLAT_MAX_VECTORS:
        return "Flat"
    if num_vectors < HNSW_MAX_VECTORS:
        return "HNSW32"
    return f"IVF{ivf_lists(num_vectors)},PQ{pq_subquantizers(dim)}"


def default_nprobe(nlist: int) -> int:
    """Lists searched per query: an eighth of them (recall 0.96 with re-ranking above), between 16 and 512."""
    return int(min(nlist, max(16, min(512, nlist // 8))))


def is_lossy(factory: str) -> bool:
    """Whether the index stores compressed codes (PQ, SQ), so its scores need exact re-ranking."""
    return bool(re.search(r"(^|,)\s*(PQ|SQ|OPQ|LSH)", factory))


def training_size(index: Any, factory: str, num_vectors: int) -> int:
    """How many vectors to train on: ~50 per IVF list (and enough for PQ), capped at 256k and at the corpus."""
    import faiss

    if index.is_trained:
        return 0
    ivf = faiss.try_extract_index_ivf(index)
    wanted = TRAIN_PER_LIST * ivf.nlist if ivf is not None else MIN_PQ_TRAIN_VECTORS
    if "PQ" in factory:
        wanted = max(wanted, MIN_PQ_TRAIN_VECTORS)
    return int(min(num_vectors, MAX_TRAIN_VECTORS, wanted))


def search_params(index: Any, factory: str, nprobe: int | None = None) -> dict[str, int]:
    """The search-time settings recorded in meta.json and applied on load: nprobe (IVF), efSearch (HNSW)."""
    import faiss

    params: dict[str, int] = {}
    ivf = faiss.try_extract_index_ivf(index)
    if ivf is not None:
        params["nprobe"] = int(nprobe or default_nprobe(ivf.nlist))
    if "HNSW" in factory:
        params["efSearch"] = HNSW_EF_SEARCH
    return params


def apply_search_params(index: Any, params: dict[str, int]) -> None:
    import faiss

    space = faiss.ParameterSpace()
    for name, value in params.items():
        space.set_index_parameter(index, name, value)


def build_from_shards(
    shards: VectorShards, num_shards: int, num_vectors: int, dim: int, factory: str, *, nprobe: int | None = None
) -> tuple[Any, dict[str, Any]]:
    """Make the FAISS index `factory` names (inner product), train it on a sample drawn from the shards, add the
    shards one at a time (only one shard's vectors in memory beside the index), and return it with what
    meta.json records about it."""
    import faiss
    from tqdm.auto import tqdm

    index = faiss.index_factory(dim, factory, faiss.METRIC_INNER_PRODUCT)
    train_size = training_size(index, factory, num_vectors)
    if train_size:
        ivf = faiss.try_extract_index_ivf(index)
        if ivf is not None and train_size < ivf.nlist:
            raise ValueError(f"{factory!r} has {ivf.nlist} lists but the corpus has only {num_vectors} vectors")
        logger.info("training %s on %d sampled vectors", factory, train_size)
        index.train(shards.sample(num_shards, train_size))
    for shard in tqdm(range(num_shards), desc=f"adding vectors to {factory}", unit="shard"):
        index.add(shards.float32(shard))
    if index.ntotal != num_vectors:
        raise RuntimeError(f"the shards hold {index.ntotal} vectors but the docstore {num_vectors} rows")
    params = search_params(index, factory, nprobe)
    apply_search_params(index, params)
    info = {
        "index_factory": factory,
        "train_size": train_size,
        "search_params": params,
        "rerank_depth": RERANK_DEPTH if is_lossy(factory) else 0,
    }
    return index, info


def exact_top_k(shards: VectorShards, queries: np.ndarray, candidates: np.ndarray, k: int):
    """Re-score each query's candidate rows (-1: none) with their exact vectors; returns (rows, scores) lists."""
    rows_out, scores_out = [], []
    for query, rows in zip(queries, candidates):
        rows = rows[rows >= 0]
        scores = shards.rows(rows) @ query if len(rows) else np.zeros(0, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:k]
        rows_out.append(rows[order].tolist())
        scores_out.append(scores[order].astype(np.float64).tolist())
    return rows_out, scores_out
