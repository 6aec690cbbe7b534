"""Memory under load: many users drawing pages and uploading hostile files at once, against a real `rqrag serve`,
while another user asks questions; the server's RSS, its file workers' and that user's waits, measured.

    python scripts/bench_untrusted_load.py                          # 6 drawers, 2 uploaders, 60 s
    python scripts/bench_untrusted_load.py --drawers 12 --seconds 120 --out runs/load

The drawers ask for pages of the reported 14,400-point PDF and of 20 pages of the shipped manual, at the viewer's
scale and the largest, each with a mark of its own (so no drawing comes from the cache: the worst case). The
uploaders send mutants of the real fixtures (`scripts/fuzz_files.py`) and follow their jobs. The bystander asks a
question over the library (`/v1/ask`, depth 0) and lists the documents, in turn. Printed and written to
`--out/summary.json`: the server's RSS at rest and at its peak, the workers' peak, every status, and the
bystander's median and worst wait. The ceiling stated in docs/reliability.md is checked by
tests/test_untrusted_files_server.py with a short run of this script.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from fuzz_files import mutants, one_page  # noqa: E402
from fuzz_uploads import Watcher, follow, seed_files, start_server  # noqa: E402


QUESTION = "Quais são os requisitos de hardware de uma estação de trabalho?"


def manual_pages(count: int) -> bytes:
    from pypdf import PdfReader, PdfWriter

    reader, writer = PdfReader(ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"), PdfWriter()
    for page in reader.pages[:count]:
        writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def stored(client: httpx.Client, name: str, data: bytes) -> dict:
    job = follow(client, client.post("/v1/documents", files={"file": (name, data)}).json())
    assert job["status"] == "done", job
    return {"doc_id": job["doc_id"], "pages": client.get(f"/v1/documents/{job['doc_id']}").json()["pages"]}


class Load:
    """The users: drawers, uploaders and the bystander, each a loop until `stop` (a monotonic time)."""

    def __init__(self, base: str, documents: list[dict], stop: float):
        self.base, self.documents, self.stop = base, documents, stop
        self.statuses, self.waits, self.lock = Counter(), {"ask": [], "list": []}, threading.Lock()

    def count(self, key: str) -> None:
        with self.lock:
            self.statuses[key] += 1

    def drawer(self, seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=self.base, timeout=600) as client:
            while time.monotonic() < self.stop:
                document = rng.choice(self.documents)
                params = {"scale": rng.choice([1.5, 3]), "mark": f"marca {seed} {rng.random()}"}
                page = rng.randint(1, document["pages"])
                response = client.get(f"/v1/documents/{document['doc_id']}/pages/{page}.png", params=params)
                self.count(f"page {response.status_code}")

    def uploader(self, seed: int) -> None:
        files = mutants(seed_files(), random.Random(seed), 10**6)
        with httpx.Client(base_url=self.base, timeout=600) as client:
            while time.monotonic() < self.stop:
                name, data = next(files)
                response = client.post("/v1/documents", files={"file": (name, data)})
                self.count(f"upload {response.status_code}")
                if response.status_code == 202:
                    self.count(f"job {follow(client, response.json())['status']}")

    def bystander(self) -> None:
        with httpx.Client(base_url=self.base, timeout=600) as client:
            turn = 0
            while time.monotonic() < self.stop:
                started = time.monotonic()
                if turn % 2 == 0:
                    body = {"question": QUESTION, "retriever": "documents", "max_depth": 0}
                    response, kind = client.post("/v1/ask", json=body), "ask"
                else:
                    response, kind = client.get("/v1/documents"), "list"
                self.waits[kind].append(time.monotonic() - started)
                self.count(f"bystander {response.status_code}")
                turn += 1
                time.sleep(0.5)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drawers", type=int, default=6, help="users asking for page images, each in a loop")
    parser.add_argument("--uploaders", type=int, default=2, help="users uploading mutated files, each in a loop")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the load lasts")
    parser.add_argument("--out", type=Path, default=Path("runs/untrusted-load"), help="folder for the summary")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.json").write_text(json.dumps({**vars(args), "out": str(args.out)}, indent=2))

    server = start_server(args.out, ["--max_chunks_per_document", "5000"])  # the default: real files here
    try:
        with httpx.Client(base_url=server.base, timeout=600) as client:
            documents = [stored(client, "cartaz.pdf", one_page(b"0 0 14400 14400")),
                         stored(client, "manual-20p.pdf", manual_pages(20))]  # fmt: skip
            body = {"question": QUESTION, "retriever": "documents", "max_depth": 0}
            alone = []
            for _ in range(3):  # the bystander's question with nobody else on the server: the baseline
                started = time.monotonic()
                assert client.post("/v1/ask", json=body).status_code == 200
                alone.append(time.monotonic() - started)
        time.sleep(2)
        rest = server.serving_process().memory_info().rss
        watcher = Watcher()
        watcher.server = server
        watcher.start()
        stop = time.monotonic() + args.seconds

        load = Load(server.base, documents, stop)
        threads = [threading.Thread(target=load.drawer, args=(i,)) for i in range(args.drawers)]
        threads += [threading.Thread(target=load.uploader, args=(100 + i,)) for i in range(args.uploaders)]
        threads.append(threading.Thread(target=load.bystander))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        watcher.stopped.set()
    finally:
        server.stop()
    summary = {
        "drawers": args.drawers,
        "uploaders": args.uploaders,
        "seconds": args.seconds,
        "server_rss_at_rest_mb": round(rest / 2**20),
        "server_rss_peak_mb": round(watcher.peak_server / 2**20),
        "server_growth_mb": round((watcher.peak_server - rest) / 2**20),
        "workers_rss_peak_mb": round(watcher.peak_workers / 2**20),
        "statuses": dict(sorted(load.statuses.items())),
        "bystander_ask_alone_median_s": round(statistics.median(alone), 2),
        **{f"bystander_{kind}_median_s": round(statistics.median(w), 2) for kind, w in load.waits.items() if w},
        **{f"bystander_{kind}_max_s": round(max(w), 2) for kind, w in load.waits.items() if w},
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
