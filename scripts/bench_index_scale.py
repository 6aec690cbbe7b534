"""The cost of a corpus index as it grows: build time, size on disk, peak RAM at build and at query time, queries
per second, and recall@10 against exact search, for the flat index and the compressed one `--index_factory auto`
picks, at 100k and 1M passages (10M if the disk allows: pass it in --sizes).

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_index_scale.py --sizes 100000 1000000 \
        --out runs/bench_index_scale --plot docs/index_scale.png

Every index is built by the product's own path, `rqrag.retrieval.streamed_index.build_streamed_index` (stream,
SQLite docstore, vector shards, FAISS by index_factory), and searched by its own retriever, each in a fresh
process so its peak RSS is its own. Two things are synthetic, because encoding 1M passages takes hours on 2 CPU
cores:
- the passages' text cycles through the packaged Wikipedia paragraphs (real-looking text of real lengths, each
  row its own docid), so the docstore is the size a real one would be;
- the vectors are the packaged MiniLM vectors of those paragraphs, each mixed with another at random and with
  noise, then normalised (`synthetic_vectors`): neighbourhoods like real embeddings', not uniform noise, on which
  every compressed index looks worse than it is. The queries are made the same way with another seed.
Recall@10 is against exact inner-product search over the same vectors (computed here in blocks). QPS is one query
at a time, docstore read included, as `rqrag search` does it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


REPO = Path(__file__).resolve().parents[1]
PARAGRAPHS = REPO / "rqrag" / "retrieval" / "data" / "wiki_paragraphs.jsonl.gz"
VECTORS = REPO / "rqrag" / "retrieval" / "data" / "wiki_paragraphs.all-MiniLM-L6-v2.f16.npy"
MIX, NOISE = 0.35, 0.02  # the second paragraph's weight and the noise's scale (per dimension)
QUERIES = 200


def synthetic_vectors(first: int, count: int, seed: int) -> np.ndarray:
    """Rows first..first+count of an endless stream of unit vectors near the packaged MiniLM ones (deterministic
    per block of rows, so every process makes the same vectors)."""
    base = np.load(VECTORS).astype(np.float32)
    out = np.empty((count, base.shape[1]), dtype=np.float32)
    for start in range(0, count, 10_000):
        block = min(10_000, count - start)
        rng = np.random.default_rng([seed, first + start])
        x = base[rng.integers(0, len(base), block)] + MIX * base[rng.integers(0, len(base), block)]
        x += NOISE * rng.standard_normal(x.shape, dtype=np.float32)
        out[start : start + block] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


class SyntheticEncoder:
    """Passages get the next rows of the synthetic stream, in corpus order (the build encodes shards in order);
    queries are not embedded here (the bench searches by vector)."""

    name = "synthetic-minilm-neighbourhoods"

    def __init__(self) -> None:
        self.next_row = 0

    def encode_passages(self, texts, **_):
        vectors = synthetic_vectors(self.next_row, len(texts), seed=1)
        self.next_row += len(texts)
        return vectors

    def encode_queries(self, texts, **_):
        raise NotImplementedError("the bench searches by vector")


def write_corpus(path: Path, size: int) -> None:
    """`size` passages cycling through the packaged paragraphs, each with its own docid."""
    with gzip.open(PARAGRAPHS, "rt") as f:
        paragraphs = [json.loads(line) for line in f]
    with path.open("w") as out:
        for row in range(size):
            p = paragraphs[row % len(paragraphs)]
            out.write(json.dumps({"id": f"p{row}", "title": p["title"], "text": p["text"]}) + "\n")


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB
    return float("nan")


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: unlike getrusage's ru_maxrss, not carried over from the parent
    across fork + exec)."""
    return _status_mb("VmHWM")


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    return _status_mb("VmRSS")


def compressed_factory(size: int, dim: int = 384) -> str:
    """The IVF-PQ index `auto` picks for a corpus of 1M passages or more, at this size."""
    from rqrag.retrieval.faiss_factory import ivf_lists, pq_subquantizers

    return f"IVF{ivf_lists(size)},PQ{pq_subquantizers(dim)}"


def build(corpus: str, out: str, factory: str) -> dict:
    """One build, in this (fresh) process."""
    from rqrag.retrieval.streamed_index import build_streamed_index

    started = time.perf_counter()
    meta = build_streamed_index(corpus, out, encoder=SyntheticEncoder(), index_factory=factory, show_progress=False)
    seconds = time.perf_counter() - started
    disk = {name: sum(f.stat().st_size for f in Path(out).rglob(name) if f.is_file()) for name in ("index.faiss",)}
    disk["shards"] = sum(f.stat().st_size for f in (Path(out) / "shards").glob("*.npy"))
    disk["docstore"] = sum(f.stat().st_size for f in Path(out).glob("docstore.sqlite*"))
    return {"factory": meta["index_factory"], "build_s": seconds, "build_peak_rss_mb": peak_rss_mb(), "disk": disk,
            "search_params": meta.get("search_params"), "rerank_depth": meta.get("rerank_depth")}  # fmt: skip


def search(index_dir: str, truth_file: str) -> dict:
    """Open the index and answer the synthetic queries one at a time (docstore read included), in this process."""
    from rqrag.retrieval.corpus_index import CorpusIndex

    queries = synthetic_vectors(0, QUERIES, seed=2)
    before = rss_mb()
    retriever = CorpusIndex.load(index_dir).retriever("dense")
    truth = np.load(truth_file)
    found, started = [], time.perf_counter()
    for i in range(QUERIES):
        rows, _ = retriever.search_vectors(queries[i : i + 1], 10)
        retriever.docstore.passages(rows[0])
        found.append(len(set(rows[0]) & set(truth[i].tolist())) / 10)
    seconds = time.perf_counter() - started
    # the index's own memory: what loading and searching added to the process (shard pages touched by the
    # re-ranking included: they are memory-mapped, so they count once read)
    return {"qps": QUERIES / seconds, "recall_at_10": float(np.mean(found)), "query_rss_mb": rss_mb(),
            "index_rss_mb": rss_mb() - before, "query_peak_rss_mb": peak_rss_mb(),
            # of which file pages (the memory-mapped shards, read by the re-ranking; the kernel may drop them)
            "query_rss_file_mb": _status_mb("RssFile"), "query_rss_anon_mb": _status_mb("RssAnon")}  # fmt: skip


def exact_truth(size: int, path: Path) -> None:
    """The exact top 10 of each query over all `size` vectors, computed block by block."""
    queries = synthetic_vectors(0, QUERIES, seed=2)
    best_scores = np.full((QUERIES, 10), -np.inf, dtype=np.float32)
    best_rows = np.zeros((QUERIES, 10), dtype=np.int64)
    for start in range(0, size, 100_000):
        block = synthetic_vectors(start, min(100_000, size - start), seed=1)
        scores = queries @ block.T
        rows = np.broadcast_to(np.arange(start, start + len(block)), scores.shape)
        all_scores = np.concatenate([best_scores, scores], axis=1)
        all_rows = np.concatenate([best_rows, rows], axis=1)
        top = np.argsort(-all_scores, axis=1)[:, :10]
        best_scores, best_rows = np.take_along_axis(all_scores, top, 1), np.take_along_axis(all_rows, top, 1)
    np.save(path, best_rows)


def in_child(*args: str) -> dict:
    """Run this script's `--child` mode in a fresh process: its peak RSS is then the step's own."""
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    panels = [("build_s", "build time (s)"), ("disk_mb", "index size on disk (MB)"),
              ("index_rss_mb", "the index's RAM while searching (MB)"), ("qps", "queries per second")]  # fmt: skip
    for ax, (key, title) in zip(axes, panels):
        for requested in sorted({r["requested"] for r in results}):
            rows = [r for r in results if r["requested"] == requested]
            label = " / ".join(dict.fromkeys(r["factory"] for r in rows))
            ax.plot([r["size"] for r in rows], [r[key] for r in rows], marker="o", label=label)
        ax.set_xscale("log"), ax.set_title(title), ax.set_xlabel("passages")
    axes[0].legend(fontsize=8)
    fig.suptitle("Corpus index cost, 2 CPU cores, 384-d vectors (scripts/bench_index_scale.py)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000], help="passages per corpus")
    parser.add_argument("--factories", nargs="+", default=["Flat", "compressed"],
                        help="index_factory values compared; 'compressed': the IVF-PQ `auto` picks from 1M passages")  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("runs/bench_index_scale"), help="results.json goes here")
    parser.add_argument("--work", type=Path, default=None, help="where corpora and indexes are built (default: tmp)")
    parser.add_argument("--plot", type=Path, default=None, help="write the four-panel plot here (PNG)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        step, *rest = args.child
        print(json.dumps(build(*rest) if step == "build" else search(*rest)))
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        for size in args.sizes:
            corpus, truth = Path(work) / f"corpus_{size}.jsonl", Path(work) / f"truth_{size}.npy"
            write_corpus(corpus, size)
            exact_truth(size, truth)
            for factory in args.factories:
                index_dir = Path(work) / f"index_{size}_{factory.replace(',', '_')}"
                chosen = compressed_factory(size) if factory == "compressed" else factory
                built = in_child("build", str(corpus), str(index_dir), chosen)
                searched = in_child("search", str(index_dir), str(truth))
                row = {"size": size, "requested": factory, **built, **searched,
                       "disk_mb": built["disk"]["index.faiss"] / 1e6}  # fmt: skip
                results.append(row)
                print(f"{size:>9} {factory:>6} -> {row['factory']:<16} build {row['build_s']:7.1f} s  "
                      f"build RSS {row['build_peak_rss_mb']:7.0f} MB  index {row['disk_mb']:8.1f} MB  "
                      f"shards {built['disk']['shards'] / 1e6:7.0f} MB  docstore {built['disk']['docstore'] / 1e6:6.0f} MB  "
                      f"index RAM {row['index_rss_mb']:6.0f} MB  {row['qps']:7.1f} q/s  "
                      f"recall@10 {row['recall_at_10']:.3f}", flush=True)  # fmt: skip
                (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
                import shutil

                shutil.rmtree(index_dir)  # disk: one index at a time
            corpus.unlink()
    for size in args.sizes:
        flat = next((r for r in results if r["size"] == size and r["requested"] == "Flat"), None)
        auto = next((r for r in results if r["size"] == size and r["requested"] == "compressed"), None)
        if flat and auto:
            print(f"{size:>9}: compressed / Flat  the index's own RAM at query {auto['index_rss_mb'] / flat['index_rss_mb']:.3f}x  "
                  f"process RSS {auto['query_rss_mb'] / flat['query_rss_mb']:.3f}x  "
                  f"index on disk {auto['disk_mb'] / flat['disk_mb']:.3f}x  q/s {auto['qps'] / flat['qps']:.2f}x  "
                  f"recall@10 {auto['recall_at_10']:.3f} (Flat {flat['recall_at_10']:.3f})")  # fmt: skip
    if args.plot:
        plot(results, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
