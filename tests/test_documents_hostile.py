"""Hostile uploads against the real app and real libraries: a zip bomb, a document of endless chunks, a user who fills
the queue, jobs cancelled while queued and while embedding, a library the server cannot write.

    python -m pytest tests/test_documents_hostile.py -q

To keep a job where a test wants it, the tests hold what a real concurrent user would hold: the library's file lock
(a `rqrag docs add` writing the same library: the job waits after reading its file) or the shared encoder's lock (a
search embedding its query: the job waits before its next batch). Nothing of the server is replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time

import pytest
from fastapi.testclient import TestClient
from filelock import FileLock
from hostile_files import SENTENCE, docx_bomb, words_docx
from test_documents_api import upload, wait_for

from rqrag.retrieval.shared_encoder import EMBED_BATCH
from rqrag.serve.documents.job_queue import JobQueue
from rqrag.serve.documents.jobs import IngestionJob
from rqrag.serve.errors import Busy


def text_file(label: str, paragraphs: int = 4) -> bytes:
    """A Markdown file of ~1,000-character paragraphs: about one chunk each; `label` makes its bytes its own."""
    return "\n\n".join(f"{label} {i}. " + f"{SENTENCE} " * 10 for i in range(paragraphs)).encode()


def wait_until(client, job_id: str, ready, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while not ready(job := client.get(f"/v1/documents/jobs/{job_id}").json()):
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
    return job


# ------------------------------------------------------------------------------------------ archives and chunks


@pytest.mark.parametrize(
    ("case", "settings", "code"),
    [
        ("the reported bomb, default limits", {}, "compression_ratio"),
        ("plain words over a lowered limit", {"max_upload_uncompressed_bytes": 1_000_000}, "archive_too_large"),
    ],
)
def test_an_archive_that_unpacks_too_far_is_refused_at_upload(make_app, case, settings, code):
    data = docx_bomb(206_000_000) if "bomb" in case else words_docx(2_000_000)
    app, service, _ = make_app(ingest=False, **settings)
    client = TestClient(app)
    response = upload(client, data, "relatorio.docx")
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["param"] == "file" and "relatorio.docx" in error["message"]
    assert len(service.queue) == 0 and client.get("/v1/documents").json()["data"] == []


def test_a_document_over_the_chunk_cap_fails_its_job_with_the_reason(make_app):
    # A bomb small enough to pass lowered archive limits still cannot become thousands of chunks.
    app, service, _ = make_app(ingest=False, max_upload_compression_ratio=1000, max_chunks_per_document=50)
    client = TestClient(app)
    accepted = upload(client, docx_bomb(1_000_000), "bomba.docx")
    assert accepted.status_code == 202, accepted.text
    job = wait_for(client, accepted.json()["job_id"], timeout=60)
    assert job["status"] == "failed" and job["error"]["reason"] == "too_many_chunks", job
    assert "bomba.docx" in job["error"]["message"] and "50" in job["error"]["message"]
    assert job["progress"]["chunks_done"] == 0 and client.get("/v1/documents").json()["data"] == []


# -------------------------------------------------------------------------------------------------- cancelling


@pytest.mark.slow
def test_a_queued_job_and_an_embedding_job_are_cancelled_and_nothing_is_stored(make_app):
    app, service, _ = make_app()
    first, second = text_file("Primeiro", 30), text_file("Segundo")
    with TestClient(app) as client:
        library = service.library()
        with library.encoder._lock:  # a search embedding its query: the job waits before its first batch
            running = upload(client, first, "primeiro.md").json()
            wait_until(client, running["job_id"], lambda job: job["progress"]["stage"] == "embedding")
            queued = upload(client, second, "segundo.md").json()
            assert queued["status"] == "queued"

            response = client.delete(f"/v1/documents/jobs/{queued['job_id']}")
            assert response.status_code == 200, response.text
            assert response.json()["status"] == "cancelled" and response.json()["error"]["reason"] == "cancelled"
            response = client.delete(f"/v1/documents/jobs/{running['job_id']}")
            assert response.status_code == 200 and response.json()["status"] == "cancelling"

        job = wait_for(client, running["job_id"], timeout=120)
        assert job["status"] == "cancelled" and job["error"]["reason"] == "cancelled", job
        # It stopped at the checkpoint after the one batch it had started: the rest was never embedded.
        assert job["progress"]["chunks_done"] == EMBED_BATCH < job["progress"]["chunks_total"]
        never_ran = client.get(f"/v1/documents/jobs/{queued['job_id']}").json()
        assert never_ran["status"] == "cancelled" and never_ran["started_at"] is None
        assert client.get("/v1/documents").json()["data"] == [] and library.list() == []
        assert library.retriever().search(SENTENCE, k=3) == []

        # Cancelling again answers the same; the same file again is a new job that stores the whole document.
        assert client.delete(f"/v1/documents/jobs/{running['job_id']}").json()["status"] == "cancelled"
        again = upload(client, first, "primeiro.md").json()
        assert again["job_id"] != running["job_id"]
        done = wait_for(client, again["job_id"])
        assert done["status"] == "done" and done["result"]["chunks"] == job["progress"]["chunks_total"]
        assert client.delete(f"/v1/documents/jobs/{again['job_id']}").json()["status"] == "done"  # too late: kept
        assert [d["name"] for d in client.get("/v1/documents").json()["data"]] == ["primeiro.md"]
        missing = client.delete("/v1/documents/jobs/no-such-job")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "job_not_found"


def test_only_the_owner_cancels_a_job_and_to_others_it_does_not_exist(make_app, tmp_path):
    from rqrag.serve.users import UserFile

    users = UserFile(tmp_path / "users.json")
    keys = {name: users.add(name) for name in ("alice", "bob")}
    app, service, _ = make_app(ingest=False, users=True, serve={"users": str(tmp_path / "users.json")})
    alice, bob = (TestClient(app, headers={"Authorization": f"Bearer {keys[name]}"}) for name in ("alice", "bob"))
    owner = users.authenticate(f"Bearer {keys['alice']}").name  # her data's key: NAME-UID, not the name
    with FileLock(service.library(service.private_index(owner)).lock_path):  # the job waits after reading
        job = upload(alice, text_file("Alice"), "alice.md").json()
        wait_until(alice, job["job_id"], lambda j: j["status"] == "running")
        for response in (bob.delete(f"/v1/documents/jobs/{job['job_id']}"), bob.delete("/v1/documents/jobs/x")):
            assert response.status_code == 404, response.text
            assert {k: v for k, v in response.json()["error"].items() if k != "message"} == {
                "type": "not_found_error",
                "param": "job_id",
                "code": "job_not_found",
            }
        assert alice.get(f"/v1/documents/jobs/{job['job_id']}").json()["status"] == "running"
        assert alice.delete(f"/v1/documents/jobs/{job['job_id']}").json()["status"] == "cancelling"
    # It stops at the checkpoint before embedding: the encoder is never loaded.
    assert wait_for(alice, job["job_id"], timeout=60)["status"] == "cancelled"
    assert service.library(service.private_index(owner)).list() == []


def test_the_cancel_endpoint_and_the_limits_are_in_the_openapi_schema(make_app):
    app, _, _ = make_app(ingest=False)
    paths = TestClient(app).get("/openapi.json").json()["paths"]
    assert "delete" in paths["/v1/documents/jobs/{job_id}"]
    assert {"413", "429", "503"} <= set(paths["/v1/documents"]["post"]["responses"])


# ------------------------------------------------------------------------------------------------ the queue


def test_one_user_filling_their_queue_leaves_room_for_another(make_app):
    app, service, _ = make_app(ingest=False, max_queued_uploads_per_user=2, max_queued_uploads=3)
    alice, bob, carol = (TestClient(app, headers={"X-Rqrag-User": name}) for name in ("alice", "bob", "carol"))
    jobs = []
    with FileLock(service.library().lock_path):  # the first job waits after reading; the others queue behind it
        jobs.append(upload(alice, text_file("A0"), "a0.md").json())
        wait_until(alice, jobs[0]["job_id"], lambda j: j["status"] == "running")
        for i in (1, 2):
            response = upload(alice, text_file(f"A{i}"), f"a{i}.md")
            assert response.status_code == 202 and response.json()["status"] == "queued"
            jobs.append(response.json())
        refused = upload(alice, text_file("A3"), "a3.md")
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_jobs_for_user"
        assert "2" in refused.json()["error"]["message"]

        # Alice's quota is full, not the server's: Bob's upload is taken, and only then is the queue full.
        accepted = upload(bob, text_file("B0"), "b0.md")
        assert accepted.status_code == 202, accepted.text
        jobs.append(accepted.json())
        full = upload(carol, text_file("C0"), "c0.md")
        assert full.status_code == 429 and full.json()["error"]["code"] == "too_many_jobs"

        for job, owner in zip(jobs, (alice, alice, alice, bob)):
            assert owner.delete(f"/v1/documents/jobs/{job['job_id']}").status_code == 200
    assert all(wait_for(alice, job["job_id"], timeout=60)["status"] == "cancelled" for job in jobs)
    assert upload(carol, text_file("C0"), "c0.md").status_code == 202  # room again


def test_the_worker_takes_each_users_jobs_in_turn():
    queue = JobQueue(IngestionJob, max_queued=10, max_queued_per_user=3)
    for owner, n in [("alice", 1), ("alice", 2), ("alice", 3), ("bob", 1), ("carol", 1), ("bob", 2)]:
        queue.add(IngestionJob(f"{owner}{n}", "documents", f"{owner}{n}.md", f"{owner}{n}", 1, b"x", owner=owner))
    with pytest.raises(Busy):
        queue.add(IngestionJob("alice4", "documents", "a.md", "alice4", 1, b"x", owner="alice"))
    order = []
    while len(order) < 6:
        job = queue.take()
        order.append(job.id)
        queue.finish(job, "done")
    # Bob and Carol do not wait for all of Alice's uploads: one job per user, in turn, oldest first.
    assert order == ["alice1", "bob1", "carol1", "alice2", "bob2", "alice3"]


# ------------------------------------------------------------------------------------------ storage faults


@contextlib.contextmanager
def storage_refused(libraries, library):
    """The libraries' folder as a read-only disk leaves it: chmod'ed read-only. Permissions do not stop root (with
    CAP_DAC_OVERRIDE, as in most containers): then a directory stands where the library's lock file must be opened
    for writing, which the kernel refuses just as really (EISDIR)."""
    mode = libraries.stat().st_mode
    libraries.chmod(0o555)
    probe = libraries / "probe"
    try:
        probe.touch()
    except PermissionError:
        try:
            yield
        finally:
            libraries.chmod(mode)
        return
    probe.unlink()
    libraries.chmod(mode)
    lock = library.lock_path
    if os.path.exists(lock):
        os.remove(lock)
    os.mkdir(lock)
    try:
        yield
    finally:
        shutil.rmtree(lock)


@pytest.mark.slow
def test_a_library_the_server_cannot_write_is_a_503_without_server_paths(make_app, tmp_path):
    app, service, _ = make_app()
    with TestClient(app) as client:
        stored = wait_for(client, upload(client, text_file("Guardado", 2), "guardado.md").json()["job_id"])
        assert stored["status"] == "done", stored
        doc_id = stored["result"]["doc_id"]
        with storage_refused(tmp_path / "libraries", service.library()):
            response = client.delete(f"/v1/documents/{doc_id}")
            assert response.status_code == 503, response.text
            assert response.json()["error"]["code"] == "storage_unavailable"
            assert str(tmp_path) not in response.text and ".lock" not in response.text

            failed = wait_for(client, upload(client, text_file("Novo", 2), "novo.md").json()["job_id"])
            assert failed["status"] == "failed" and failed["error"]["reason"] == "storage_unavailable", failed
            assert str(tmp_path) not in json.dumps(failed) and ".lock" not in json.dumps(failed)

            # Reading still works: the document is listed as before.
            assert [d["doc_id"] for d in client.get("/v1/documents").json()["data"]] == [doc_id]
        assert client.delete(f"/v1/documents/{doc_id}").status_code == 204  # the fault gone, the same call works


# ------------------------------------------------------------------------------------------------ PDF bombs


@pytest.mark.slow
def test_a_pdf_that_inflates_to_gigabytes_is_refused_at_upload_within_seconds(make_app):
    """Issue 45: a PDF of a few kB whose stream inflates to 2 GB was caught only by the chunk cap, after extraction.
    It is now a 413 before any reader inflates it, in seconds and without holding the inflated bytes."""
    from hostile_files import pdf_bomb

    data = pdf_bomb(2 << 30)
    assert len(data) < 500_000
    app, service, _ = make_app(ingest=False)
    client = TestClient(app)
    started = time.monotonic()
    response = upload(client, data, "relatorio.pdf")
    seconds = time.monotonic() - started
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["code"] == "compression_ratio" and "relatorio.pdf" in error["message"], error
    assert seconds < 10 and len(service.queue) == 0


@pytest.mark.slow
def test_the_pdf_check_holds_memory_bounded_and_passes_real_pdfs(tmp_path):
    """Peak RSS of the check alone, in a fresh process, on a 2 GB bomb; and the shipped PDFs pass it, the 104-page
    manual included (its streams keep bytes after the deflate end, which once looped the check forever)."""
    import subprocess
    import sys

    from hostile_files import pdf_bomb

    from rqrag.ingest.limits import IngestLimits, check_pdf_streams

    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(pdf_bomb(2 << 30))
    code = (
        "import resource, sys, time\n"
        "from rqrag.ingest.limits import IngestLimits, check_pdf_streams\n"
        "from rqrag.ingest.extract import IngestError\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "t = time.monotonic()\n"
        "try:\n    check_pdf_streams(open(sys.argv[1], 'rb').read(), 'bomb.pdf', IngestLimits())\n"
        "except IngestError as e:\n    print(e.reason)\n"
        "print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, round(time.monotonic() - t, 2))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, check=True)
    reason, sizes = out.stdout.split("\n", 1)
    before_kb, peak_kb, seconds = sizes.split()
    print(f"pdf bomb check: {reason}, peak RSS {int(peak_kb) / 1024:.0f} MB ({int(before_kb) / 1024:.0f} MB before), "
          f"{seconds} s")  # fmt: skip
    assert reason == "compression_ratio" and int(peak_kb) - int(before_kb) < 64 * 1024 and float(seconds) < 10
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "tests" / "data"
    from manual import MANUAL

    shipped = [*root.glob("heldout_pt/*.pdf"), *root.glob("articles/*/*/*.pdf"), *root.glob("second_pt/*.pdf")]
    for pdf in [*shipped, *([MANUAL] if MANUAL.is_file() else [])]:
        check_pdf_streams(pdf.read_bytes(), pdf.name, IngestLimits())  # raises if a real PDF were judged a bomb
