"""Untrusted files against a real `rqrag serve`: the reported page drawn by many at once, and a parser killed by a
signal in the middle of an upload (docs/reliability.md). The two-replica case is tests/test_replicas.py.

    python -m pytest tests/test_untrusted_files_server.py -q

The server is a child process; its memory is read with psutil, and its file workers are its descendants (the
forkserver it started, and the workers forked from it), which is how the test finds the one to kill.
"""

from __future__ import annotations

import concurrent.futures
import signal
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from rqrag.serve.server.process import RQRAGServer


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from fuzz_files import UNCLOSED_TAGS_HTML, one_page  # noqa: E402


pytestmark = pytest.mark.slow

# What one drawing of the page may add to the server: before the workers it was ~3.5 GB a drawing, in the server.
SERVER_GROWTH_CEILING_MB = 300


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("untrusted")
    flags = ["--retrievers", "documents", "--documents_dir", str(tmp / "libraries"), "--max_depth", "1"]
    running = RQRAGServer(tmp, tmp / "conversations.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"})
    yield running
    running.stop()


def rss_mb(server: RQRAGServer) -> float:
    return server.serving_process().memory_info().rss / 2**20


def upload_and_wait(base: str, name: str, data: bytes) -> dict:
    accepted = httpx.post(f"{base}/v1/documents", files={"file": (name, data)}, timeout=120)
    assert accepted.status_code in (200, 202), accepted.text
    job = accepted.json()
    while job.get("status") in ("queued", "running", "cancelling"):
        time.sleep(0.1)
        job = httpx.get(f"{base}/v1/documents/jobs/{job['job_id']}", timeout=30).json()
    return job


def test_the_reported_page_drawn_by_many_at_once_keeps_the_server_small_and_others_answered(server):
    huge = one_page(b"0 0 14400 14400")  # the 865-byte shape: one 14,400-point page, three lines of text
    job = upload_and_wait(server.base, "cartaz.pdf", huge)
    assert job["status"] == "done", job
    doc_id = job["doc_id"]
    before = rss_mb(server)
    peak, stop = [before], threading.Event()
    bystander: list[tuple[int, float]] = []

    def watch():
        while not stop.wait(0.05):
            peak.append(rss_mb(server))

    def another_user():
        while not stop.wait(0.2):
            started = time.monotonic()
            status = httpx.get(f"{server.base}/v1/documents", timeout=60).status_code
            bystander.append((status, time.monotonic() - started))

    def draw(i: int) -> httpx.Response:  # a different mark each: no drawing comes from the cache
        params = {"scale": 3, "mark": f"Relatorio anual da escola {i}"}
        return httpx.get(f"{server.base}/v1/documents/{doc_id}/pages/1.png", params=params, timeout=120)

    threads = [threading.Thread(target=watch), threading.Thread(target=another_user)]
    for thread in threads:
        thread.start()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        drawn = list(pool.map(draw, range(8)))
    stop.set()
    for thread in threads:
        thread.join()

    assert [r.status_code for r in drawn] == [200] * 8, [r.text for r in drawn if r.status_code != 200]
    assert all(float(r.headers["X-Rqrag-Scale"]) < 0.2 for r in drawn)  # fitted to the pixel budget
    assert max(peak) - before < SERVER_GROWTH_CEILING_MB, (before, max(peak))
    assert bystander and all(status == 200 for status, _ in bystander), bystander
    assert max(wait for _, wait in bystander) < 5.0, bystander


def test_a_parser_killed_by_a_signal_fails_its_upload_once_and_the_server_goes_on(server):
    accepted = httpx.post(
        f"{server.base}/v1/documents", files={"file": ("lento.html", UNCLOSED_TAGS_HTML)}, timeout=120
    )
    assert accepted.status_code == 202, accepted.text
    job_path = f"{server.base}/v1/documents/jobs/{accepted.json()['job_id']}"
    deadline = time.monotonic() + 60
    while httpx.get(job_path).json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(1.0)  # reading (the page's paragraphs) in its worker
    workers = server.file_workers()
    assert workers, "no file worker found under the server"
    for worker in workers:
        worker.send_signal(signal.SIGSEGV)

    deadline = time.monotonic() + 60
    while (job := httpx.get(job_path).json())["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert job["status"] == "failed" and job["error"]["reason"] == "parser_crashed", job
    assert "SIGSEGV" in job["error"]["message"] and job["attempts"] == 1
    assert server.process.poll() is None and httpx.get(f"{server.base}/health").status_code == 200
    after = upload_and_wait(server.base, "nota.md", b"O servidor da escola oferece arquivos.\n" * 40)
    assert after["status"] == "done", after  # a fresh worker reads the next file


@pytest.mark.heavy
def test_many_users_drawing_and_uploading_at_once_stay_under_the_memory_ceiling(tmp_path):
    """`scripts/bench_untrusted_load.py`, shortened: six users drawing pages (the reported one among them) and two
    uploading mutated files, while another asks questions. The ceilings are docs/reliability.md's."""
    from script_modules import load_script

    summary = load_script("bench_untrusted_load").main(["--seconds", "20", "--out", str(tmp_path)])
    statuses = summary["statuses"]
    assert not [key for key in statuses if key.split()[-1].startswith("5")], statuses
    assert statuses.get("page 200", 0) > 0 and statuses.get("bystander 200", 0) > 0
    assert summary["server_growth_mb"] < SERVER_GROWTH_CEILING_MB, summary
    assert summary["workers_rss_peak_mb"] < 2 * 1024, summary
