"""Benchmark local retrieval on the embedded corpus: index build time and batch-search throughput.

Run from the project root:

    python scripts/bench_retrieval.py [--queries 500] [-k 5] [--repeats 3] [--out bench/retrieval.json]

(a) Builds the embedded corpus (~10.7k Wikipedia paragraphs) into a temporary directory and reports the
    seconds of the BM25 and of the dense (MiniLM + FAISS) build separately.
(b) Searches the same batch of queries (HotpotQA dev questions: the fetched file or the shipped slice, or corpus titles when that
    is absent) with raw bm25s (`bm25s.tokenize` + `BM25.retrieve`, same index, same k), our BM25 wrapper,
    the dense retriever and the hybrid (RRF) retriever, and prints a table of seconds, queries/s and the
    ratio to raw bm25s. Each timing is the median of `--repeats` runs after a warm-up.
(c) What the time buys: recall@k of the gold supporting paragraphs of those HotpotQA questions (their
    paragraphs are in the embedded corpus) for bm25, dense and hybrid.
Use `--index DIR` to time searches on an existing index (e.g. the cached embedded one) and skip (a).
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rqrag.benchmarks.files import default_file
from rqrag.eval import metrics
from rqrag.records import read_records


PROJECT_ROOT = Path(__file__).resolve().parents[1]
HOTPOTQA = default_file("hotpotqa")  # the fetched full file (rqrag data fetch hotpotqa), else the shipped slice
TARGET_RATIO = 1.3  # the goal: hybrid batch search within 1.3x of raw bm25s


def load_queries(n: int, passages) -> tuple[list[str], list[set[str]] | None, str]:
    """Queries, the titles of their gold supporting paragraphs (None without ../shared), and a label."""
    if HOTPOTQA.is_file():
        records = list(itertools.islice(read_records(HOTPOTQA), n))
        gold = [{c["title"] for c in r["contexts"] if c["is_supporting"]} for r in records]
        return [r["question_text"] for r in records], gold, f"{len(records)} HotpotQA dev questions"
    titles = sorted({p.title for p in passages})
    return titles[:n], None, f"{min(n, len(titles))} corpus titles (no HotpotQA file)"


def mean_supporting_recall(results, gold: list[set[str]]) -> float:
    """Mean over questions of `metrics.supporting_recall`, paragraphs matched by title (questions without gold
    are left out)."""
    recalls = [metrics.supporting_recall([h.title for h in hits], g) for hits, g in zip(results, gold)]
    known = [r for r in recalls if r is not None]
    return sum(known) / len(known) if known else 0.0


def median_seconds(fn, repeats: int) -> float:
    fn()  # warm-up: loads lazy components, fills CPU caches
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="run: " + __doc__.split("\n\n")[2].strip()
    )
    parser.add_argument(
        "--queries", type=int, default=500, help="number of queries in the batch (default: %(default)s)"
    )
    parser.add_argument("-k", type=int, default=5, help="hits per query (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per system; the median is reported")
    parser.add_argument(
        "--index", type=Path, default=None, help="time searches on this existing index; skip the build"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the numbers as JSON to this path")
    return parser.parse_args(argv)


def build_or_load_index(index_dir: Path | None, tmp: Path, results: dict):
    """(a): the embedded corpus built into `tmp` (its build seconds go to `results`), or an existing index loaded."""
    from rqrag.retrieval.corpus_index import CorpusIndex
    from rqrag.retrieval.embedded import embedded_corpus_path
    from rqrag.retrieval.passages import read_passages

    if index_dir is not None:
        return CorpusIndex.load(index_dir)
    passages, _ = read_passages(embedded_corpus_path())
    print(f"(a) building the embedded corpus index ({len(passages)} passages) into a temporary directory")
    started = time.perf_counter()
    index = CorpusIndex.build(passages, tmp / "embedded", modes=("bm25", "dense"), show_progress=True)
    results["build"] = {
        "documents": len(passages),
        "bm25_seconds": index.meta["build_seconds"]["bm25"],
        "dense_seconds": index.meta["build_seconds"]["dense"],
        "total_wall_seconds": round(time.perf_counter() - started, 3),
    }
    return index


def time_searches(index, queries: list[str], k: int, repeats: int) -> dict[str, float]:
    """(b): the median seconds of each system over the same batch, and where the hybrid's time goes."""
    import bm25s

    from rqrag.retrieval.bm25 import english_stemmer
    from rqrag.retrieval.dense import encode
    from rqrag.retrieval.fusion import fuse_hits
    from rqrag.retrieval.hybrid import DEFAULT_DEPTH

    bm25, dense, hybrid = index.retriever("bm25"), index.retriever("dense"), index.retriever("hybrid")
    raw_model, stemmer = bm25.model, english_stemmer()

    def raw_bm25s():
        tokens = bm25s.tokenize(queries, stopwords="en", stemmer=stemmer, show_progress=False)
        raw_model.retrieve(tokens, k=k, show_progress=False)

    # Where hybrid time goes: the two sides at fusion depth, the MiniLM forward pass alone, the fusion alone.
    depth = max(k, DEFAULT_DEPTH)
    sparse_hits, dense_hits = bm25.batch_search(queries, k=depth), dense.batch_search(queries, k=depth)
    systems = {
        "raw bm25s": raw_bm25s,
        "rqrag bm25": lambda: bm25.batch_search(queries, k=k),
        "rqrag dense": lambda: dense.batch_search(queries, k=k),
        "rqrag hybrid": lambda: hybrid.batch_search(queries, k=k),
        f"hybrid: bm25 @{depth}": lambda: bm25.batch_search(queries, k=depth),
        "hybrid: encode only": lambda: encode(dense.encoder, queries, dense.batch_size),
        "hybrid: fusion only": lambda: [fuse_hits([s, d], k, hybrid.rrf_k) for s, d in zip(sparse_hits, dense_hits)],
    }
    return {name: median_seconds(fn, repeats) for name, fn in systems.items()}


def recall_at_k(index, queries: list[str], gold: list[set[str]], k: int) -> dict[str, float]:
    """(c): what the time buys, recall@k of the gold supporting paragraphs per retriever."""
    return {
        name: round(mean_supporting_recall(index.retriever(name).batch_search(queries, k=k), gold), 3)
        for name in ("bm25", "dense", "hybrid")
    }


def search_rows(timings: dict[str, float], count: int) -> dict[str, dict]:
    raw = timings["raw bm25s"]
    return {
        name: {
            "seconds": round(s, 4),
            "queries_per_second": round(count / s, 1),
            "ratio_to_raw_bm25s": round(s / raw, 2),
        }
        for name, s in timings.items()
    }


def print_report(results: dict, timings: dict[str, float], query_source: str, repeats: int, k: int) -> None:
    if "build" in results:
        b = results["build"]
        print(
            f"\n(a) index build, {b['documents']} documents: bm25 {b['bm25_seconds']:.1f} s, "
            f"dense {b['dense_seconds']:.1f} s (wall {b['total_wall_seconds']:.1f} s)"
        )
    print(f"\n(b) batch search of {query_source}, k={k}, median of {repeats} runs")
    print(f"{'system':<26} {'seconds':>9} {'queries/s':>11} {'x raw bm25s':>12}")
    for name, row in results["search"].items():
        print(
            f"{name:<26} {row['seconds']:>9.4f} {row['queries_per_second']:>11.1f} {row['ratio_to_raw_bm25s']:>12.2f}"
        )
    ratio = results["hybrid_over_raw_bm25s"]
    verdict = "met" if results["target_met"] else "NOT met"
    print(f"\nhybrid / raw bm25s = {ratio:.2f} (target <= {TARGET_RATIO}: {verdict})")
    if not results["target_met"]:
        raw = timings["raw bm25s"]
        encode_share = timings["hybrid: encode only"] / timings["rqrag hybrid"]
        print(
            f"the MiniLM forward pass over the queries alone is {encode_share:.0%} of the hybrid time and "
            f"{timings['hybrid: encode only'] / raw:.1f}x raw bm25s: no wrapper change can bring hybrid under the target"
        )
    if "recall_at_k" in results:
        recalls = ", ".join(f"{name} {value:.3f}" for name, value in results["recall_at_k"].items())
        print(f"\n(c) recall@{k} of the gold supporting paragraphs: {recalls}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    results: dict = {
        "machine": {"python": platform.python_version(), "cpus": torch.get_num_threads(), "torch": torch.__version__},
        "k": args.k,
    }
    with tempfile.TemporaryDirectory(prefix="rqrag-bench-") as tmp:
        index = build_or_load_index(args.index, Path(tmp), results)
        queries, gold, query_source = load_queries(args.queries, index.passages)
        results["queries"] = {"count": len(queries), "source": query_source}
        timings = time_searches(index, queries, args.k, args.repeats)
        if gold is not None:
            results["recall_at_k"] = recall_at_k(index, queries, gold, args.k)

    results["search"] = search_rows(timings, len(queries))
    ratio = timings["rqrag hybrid"] / timings["raw bm25s"]
    results["hybrid_over_raw_bm25s"] = round(ratio, 2)
    results["target_ratio"] = TARGET_RATIO
    results["target_met"] = ratio <= TARGET_RATIO
    print_report(results, timings, query_source, args.repeats, args.k)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
