"""A fuzzing campaign against a real `rqrag serve`: files built to break it, and mutants of real ones, uploaded,
ingested, their pages drawn and their files downloaded, the review run over what was stored; server deaths, 500s,
peak memory and every error reason counted, while a bystander keeps using the server.

    python scripts/fuzz_uploads.py --files 60  --out runs/fuzz-short     # `make test` runs this size (a few min)
    python scripts/fuzz_uploads.py --files 600 --out runs/fuzz-long      # `make test-heavy`
    python scripts/fuzz_uploads.py --files 10000 --seed 1 --out runs/fuzz-night   # overnight (docs/reliability.md)

The files are `scripts/fuzz_files.py`'s: every hand-built adversarial file first, then seeded mutants of the real
fixtures (a few pages of the shipped manual, the article DOCX and HTML of tests/data, Markdown). Each file goes
through what a user does with one: `POST /v1/documents`; its job followed to its end; once stored, its first and
last page drawn (at the viewer's scale and at the largest, one with a quote to mark), its file downloaded and
compared, then it is deleted (so the library stays small and the run's speed even). Every `--review-every` files a
literature review of what is stored runs. A server that dies is counted, its log kept, and started again.

Written to `--out`: `files.jsonl` (one line per file: name, size, every response's status and error code),
`summary.json` (files tried, deaths, 5xx, peak RSS of the server and of its file workers, the bystander's worst
wait and failures, every reason with its count), `config.json` (this run's settings), `server-*.log`.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from fuzz_files import adversarial_files, mutants, one_page  # noqa: E402


JOB_TIMEOUT_S = 600
MARK = "O servidor oferece arquivos."


def seed_files() -> list[tuple[str, bytes]]:
    """The real files the mutants start from."""
    from pypdf import PdfReader, PdfWriter

    seeds = [("pagina.pdf", one_page())]
    manual = ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
    if manual.is_file():
        reader, writer = PdfReader(manual), PdfWriter()
        for page in reader.pages[10:13]:
            writer.add_page(page)
        out = io.BytesIO()
        writer.write(out)
        seeds.append(("manual-3p.pdf", out.getvalue()))
    articles = ROOT / "tests" / "data" / "articles" / "tuning"
    for path in [articles / "pt_docx" / "article.docx", articles / "pt_html" / "article.html"]:
        if path.is_file():
            seeds.append((path.parent.name + path.suffix, path.read_bytes()))
    markdown = "\n\n".join(
        f"## Seção {i}\n\nO servidor principal oferece o diretório e a impressão." for i in range(8)
    )
    seeds.append(("notas.md", markdown.encode()))
    return seeds


def campaign_files(count: int, seed: int, adversarial: bool = True):
    """The first `count` files: the adversarial ones (unless told not), then mutants."""
    made = 0
    for name, data in adversarial_files() if adversarial else ():
        if made >= count:
            return
        made += 1
        yield name, data
    yield from mutants(seed_files(), random.Random(seed), count - made)


class Watcher(threading.Thread):
    """Samples the server's RSS and its file workers' (its descendants': the forkserver and the workers) every
    0.1 s; keeps the peaks."""

    def __init__(self):
        super().__init__(daemon=True)
        self.server = None  # the RQRAGServer
        self.peak_server = self.peak_workers = 0
        self.stopped = threading.Event()

    def run(self):
        import psutil

        while not self.stopped.wait(0.1):
            try:
                server = self.server.serving_process()
                rss = server.memory_info().rss
                workers = sum(child.memory_info().rss for child in server.children(recursive=True))
            except (psutil.Error, AttributeError):
                continue
            self.peak_server, self.peak_workers = max(self.peak_server, rss), max(self.peak_workers, workers)


class Bystander(threading.Thread):
    """Another user: lists the documents and reads the health every 0.5 s, timing each; counts what failed."""

    def __init__(self):
        super().__init__(daemon=True)
        self.base = None
        self.waits: list[float] = []
        self.failures = Counter()
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(0.5):
            for path in ("/health", "/v1/documents"):
                started = time.monotonic()
                try:
                    status = httpx.get(self.base + path, timeout=30).status_code
                except httpx.HTTPError as error:
                    status = type(error).__name__
                self.waits.append(time.monotonic() - started)
                if status != 200:
                    self.failures[f"{path} {status}"] += 1


def error_code(response: httpx.Response) -> str | None:
    try:
        return (response.json().get("error") or {}).get("code")
    except ValueError:
        return None


def follow(client: httpx.Client, job: dict) -> dict:
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while job["status"] in ("queued", "running", "cancelling") and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.get(f"/v1/documents/jobs/{job['job_id']}").json()
    return job


def exercise(client: httpx.Client, name: str, data: bytes) -> dict:
    """One file through upload, ingestion, page images, download and deletion: each step's status and reason."""
    record = {"name": name, "bytes": len(data), "steps": []}
    started = time.monotonic()

    def step(label: str, response: httpx.Response) -> httpx.Response:
        record["steps"].append([label, response.status_code, error_code(response)])
        return response

    uploaded = step("upload", client.post("/v1/documents", files={"file": (name, data)}))
    if uploaded.status_code == 202:
        job = follow(client, uploaded.json())
        record["job"] = [job["status"], (job.get("error") or {}).get("reason")]
        if job["status"] != "done":
            record["seconds"] = round(time.monotonic() - started, 2)
            return record
        doc_id = job["doc_id"]
    elif uploaded.status_code == 200:
        doc_id = uploaded.json()["doc_id"]
    else:
        return record
    document = step("document", client.get(f"/v1/documents/{doc_id}")).json()
    if document.get("file_type") == "pdf":
        last = max(1, int(document.get("pages") or 1))
        for page, params in [(1, {}), (last, {"scale": 3}), (1, {"mark": MARK})]:
            step(f"page {page}", client.get(f"/v1/documents/{doc_id}/pages/{page}.png", params=params))
    download = step("file", client.get(f"/v1/documents/{doc_id}/file"))
    record["file_intact"] = download.content == data
    step("delete", client.delete(f"/v1/documents/{doc_id}"))
    record["seconds"] = round(time.monotonic() - started, 2)
    return record


def review(client: httpx.Client, keep: list[tuple[str, bytes]]) -> list:
    """Store the kept files again, review them, download the review's files: each step's status."""
    steps = []
    for name, data in keep:
        response = client.post("/v1/documents", files={"file": (name, data)})
        if response.status_code == 202:
            follow(client, response.json())
    started = client.post("/v1/reviews", json={"topic": "servidor da escola", "language": "pt"})
    steps.append(["review", started.status_code, error_code(started)])
    if started.status_code == 202:
        job = started.json()
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while job["status"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.2)
            job = client.get(f"/v1/reviews/{job['job_id']}").json()
        steps.append(["review job", job["status"], (job.get("error") or {}).get("reason")])
        for download in ("review.md", "articles.csv", "articles.bib"):
            response = client.get(f"/v1/reviews/{job['job_id']}/{download}")
            steps.append([download, response.status_code, error_code(response)])
    return steps


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=200, help="files to try (adversarial ones first, then mutants)")
    parser.add_argument("--seed", type=int, default=0, help="the mutator's seed: the same seed, the same files")
    parser.add_argument("--out", type=Path, default=Path("runs/fuzz"), help="folder for the log and the summary")
    parser.add_argument("--review-every", type=int, default=250, help="run a literature review every this many files")
    parser.add_argument(
        "--max-chunks", type=int, default=20, help="the server's max_chunks_per_document (larger files: read, refused)"
    )
    parser.add_argument("--mutants-only", action="store_true", help="leave out the hand-built files (a second run)")
    parser.add_argument("--clients", type=int, default=2, help="users sending files at once, each its own")
    parser.add_argument("--server-flag", action="append", default=[], help="one more `rqrag serve` flag (repeat)")
    return parser.parse_args(argv)


def start_server(out: Path, flags: list[str], max_chunks: int = 20):
    from rqrag.serve.server.process import RQRAGServer

    # At most `max_chunks` chunks a document (20; the server's default is 5,000): a larger file is still read in
    # full by its worker (the readers are what the campaign attacks), then refused before its vectors are made.
    # Storing is what costs time on 2 cores (a mutant of 1.6 MB of tags is ~2,000 chunks: ten minutes of
    # embedding), and it never opens a file.
    base_flags = ["--retrievers", "documents", "--documents_dir", str(out / "libraries"), "--max_depth", "1",
                  "--max_chunks_per_document", str(max_chunks)]  # fmt: skip
    return RQRAGServer(out, out / "conversations.db", [*base_flags, *flags], env={"DDGS_PROXY": "http://127.0.0.1:9"})


class Campaign:
    """The run's shared state: the server (started again if it dies), the counts, the log; `client()` is one user
    taking files from the shared list until it is empty (`--clients` of them at once)."""

    def __init__(self, args: argparse.Namespace, log):
        self.args, self.log = args, log
        self.files = iter(campaign_files(args.files, args.seed, not args.mutants_only))
        self.lock = threading.Lock()
        self.watcher, self.bystander = Watcher(), Bystander()
        self.server = None
        self.restart()
        self.deaths, self.tried, self.statuses, self.reasons = 0, 0, Counter(), Counter()
        self.keep: list[tuple[str, bytes]] = []
        self.progress = None

    def restart(self) -> None:
        if self.server is not None:
            self.server.stop()
        self.server = start_server(self.args.out, self.args.server_flag, self.args.max_chunks)
        self.watcher.server, self.bystander.base = self.server, self.server.base

    def next_file(self):
        with self.lock:
            self.tried += 1
            return self.tried, next(self.files, None)

    def client(self) -> None:
        while True:
            number, file = self.next_file()
            if file is None:
                return
            name, data = file
            server = self.server
            try:
                with httpx.Client(base_url=server.base, timeout=JOB_TIMEOUT_S) as client:
                    record = exercise(client, name, data)
                    if number % self.args.review_every == 0:
                        record["review"] = review(client, list(self.keep))
            except httpx.HTTPError as error:
                record = {"name": name, "bytes": len(data), "transport_error": type(error).__name__}
            self.record(record, server, data)

    def record(self, record: dict, server, data: bytes) -> None:
        with self.lock:
            if server is self.server and server.process.poll() is not None:  # died: counted, log kept, restarted
                self.deaths += 1
                record["server_died"] = server.process.returncode
                self.restart()
            if record.get("job", ["done"])[0] == "done" and len(self.keep) < 6 and len(data) < 2 << 20:
                self.keep.append((record["name"], data))
            for label, status, code in record.get("steps", []) + record.get("review", []):
                self.statuses[f"{label.split()[0]} {status}"] += 1
                if code:
                    self.reasons[code] += 1
            if record.get("job") and record["job"][1]:
                self.reasons[record["job"][1]] += 1
            self.log.write(json.dumps(record) + "\n")
            self.log.flush()
            self.progress.update()

    def summary(self, seconds: float) -> dict:
        waits = sorted(self.bystander.waits) or [0.0]
        statuses = self.statuses
        return {
            "files_tried": self.args.files,
            "clients": self.args.clients,
            "seconds": round(seconds, 1),
            "server_deaths": self.deaths,
            "responses_5xx": sum(count for key, count in statuses.items() if key.split()[-1].startswith("5")),
            "statuses": dict(sorted(statuses.items())),
            "jobs_failed_internal": self.reasons["internal"],
            "reasons": dict(self.reasons.most_common()),
            "peak_server_rss_mb": round(self.watcher.peak_server / 2**20),
            "peak_workers_rss_mb": round(self.watcher.peak_workers / 2**20),
            "bystander_requests": len(self.bystander.waits),
            "bystander_failures": dict(self.bystander.failures),
            "bystander_wait_p50_s": round(waits[len(waits) // 2], 3),
            "bystander_wait_max_s": round(waits[-1], 3),
        }


def main(argv=None) -> dict:
    from tqdm import tqdm

    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.json").write_text(json.dumps({**vars(args), "out": str(args.out)}, indent=2))
    started = time.monotonic()
    with open(args.out / "files.jsonl", "w") as log:
        campaign = Campaign(args, log)
        campaign.watcher.start(), campaign.bystander.start()
        with tqdm(total=args.files, desc="files", unit="file") as campaign.progress:
            clients = [threading.Thread(target=campaign.client) for _ in range(args.clients)]
            for client in clients:
                client.start()
            for client in clients:
                client.join()
    campaign.watcher.stopped.set(), campaign.bystander.stopped.set()
    campaign.server.stop()
    summary = campaign.summary(time.monotonic() - started)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
