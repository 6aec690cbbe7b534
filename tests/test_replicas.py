"""Two real `rqrag serve` replicas over one real PostgreSQL (+ pgvector), behind a real HAProxy (docs/scale.md).

    python -m pytest tests/test_replicas.py -q          # slow and heavy: `make test-heavy`, and CI

Everything a replica keeps is in the database: users and keys, conversations, the document library (its words
searched by PostgreSQL's full-text search, its vectors by pgvector), the job queue and each user's questions in
flight. So a replica killed in the middle of an upload leaves it to the other, a conversation goes on wherever the
balancer sends its next turn, and a user's limit is counted once for the whole deployment. Jobs are leased for 4 s
here (30 by default), so a dead replica's job is taken over within seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from manual import MANUAL, needs_manual


pytestmark = [
    pytest.mark.slow,
    pytest.mark.heavy,
    needs_manual,
    pytest.mark.skipif(not Path("/usr/sbin/haproxy").is_file(), reason="needs HAProxy (apt-get install haproxy)"),
]
LEASE_S = 4


class Replica:
    """One `rqrag serve` that can be killed (SIGKILL, SIGTERM) and started again on its port."""

    def __init__(self, log_dir: Path, flags: list[str], name: str):
        self.log_dir, self.flags, self.name = log_dir / name, flags, name
        self.port = None
        self.start()

    def start(self) -> None:
        from rqrag.serve.server.process import RQRAGServer

        self.server = RQRAGServer(self.log_dir, self.log_dir / "unused.db", self.flags, port=self.port)
        self.port, self.base = self.server.port, self.server.base
        self.id = httpx.get(f"{self.base}/ready", timeout=30).json()["server"]

    def kill(self, signum=signal.SIGKILL) -> None:
        """SIGKILL: the whole process group, at once. SIGTERM: the launcher only, which passes it on once (uvicorn
        takes a second SIGTERM as "stop now", which would cut the requests it is draining)."""
        if signum == signal.SIGKILL:
            os.killpg(self.server.process.pid, signum)
        else:
            os.kill(self.server.process.pid, signum)

    def stop(self) -> None:
        self.server.stop()


@pytest.fixture(scope="module")
def deployment(pg_url, tmp_path_factory):
    from rqrag.serve.load_balancer import LoadBalancer
    from rqrag.serve.users import UserFile

    users = UserFile(pg_url)
    keys = {name: users.add(name, admin=name == "root") for name in ("ana", "bruno", "root")}
    out = tmp_path_factory.mktemp("replicas")
    flags = ["--database_url", pg_url, "--documents_database_url", pg_url, "--users", pg_url,
             "--job_lease_seconds", str(LEASE_S), "--drain_seconds", "30", "--documents_language", "pt",
             "--retrievers", "documents", "corpus", "--memories", "false", "--max_waiting_per_user", "1",
             "--max_depth", "1", "--answer_max_tokens", "24"]  # fmt: skip
    replicas = [Replica(out, flags, "a"), Replica(out, flags, "b")]
    balancer = LoadBalancer([r.port for r in replicas], out)
    try:
        yield {"a": replicas[0], "b": replicas[1], "lb": balancer, "keys": keys, "url": pg_url, "out": out}
    finally:
        balancer.stop()
        for replica in replicas:
            replica.stop()


def auth(deployment, user: str) -> dict:
    return {"Authorization": f"Bearer {deployment['keys'][user]}"}


def wait_job(base: str, path: str, headers: dict, until, timeout: float = 600) -> dict:
    """Poll a job until `until(job)`; through a balancer a poll may meet a replica being restarted (a 502/503)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            response = httpx.get(base + path, headers=headers, timeout=30)
            if response.status_code == 200 and until(job := response.json()):
                return job
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"{path} never got there"
        time.sleep(0.3)


def chunk_rows(url: str, doc_id: str) -> tuple[int, int]:
    """(rows, distinct texts) of the document's chunks in every library's table."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            t for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'rqrag_docs_%_chunks'")
        ]
        rows = distinct = 0
        for table in tables:
            count = conn.execute(
                f'SELECT count(*), count(DISTINCT position) FROM "{table}" WHERE doc_id = %s', (doc_id,)
            )
            r, d = count.fetchone()
            rows, distinct = rows + r, distinct + d
    return rows, distinct


def test_an_upload_whose_replica_is_killed_mid_ingestion_is_finished_by_the_other_once(deployment):
    lb, ana = deployment["lb"], auth(deployment, "ana")
    files = {"file": (MANUAL.name, MANUAL.read_bytes(), "application/pdf")}
    accepted = httpx.post(f"{lb.base}/v1/documents", files=files, headers=ana, timeout=120)
    assert accepted.status_code == 202, accepted.text
    job_path = f"/v1/documents/jobs/{accepted.json()['job_id']}"
    # Killed between its two stages: its chunks are committed (searchable by words) and their vectors are being
    # computed. The other replica must finish that document, not store its chunks again.
    running = wait_job(lb.base, job_path, ana, lambda job: job["progress"]["searchable"] and job.get("server"), 300)
    assert running["status"] == "running"
    victim = next(r for r in (deployment["a"], deployment["b"]) if r.id == running["server"])
    survivor = deployment["b"] if victim is deployment["a"] else deployment["a"]
    victim.kill()
    killed_at = time.monotonic()

    done = wait_job(lb.base, job_path, ana, lambda job: job["status"] not in ("queued", "running"), 900)
    assert done["status"] == "done", done
    assert done["server"] == survivor.id and done["attempts"] == 2
    assert done["progress"]["searchable"] and done["progress"]["embedded"]
    assert done["result"]["status"] == "added" and time.monotonic() - killed_at >= LEASE_S - 1

    doc_id = done["doc_id"]
    listed = [d for d in httpx.get(f"{lb.base}/v1/documents", headers=ana, timeout=30).json()["data"]]
    assert [d["doc_id"] for d in listed].count(doc_id) == 1
    rows, distinct = chunk_rows(deployment["url"], doc_id)
    assert rows == distinct == done["result"]["chunks"] > 0  # no chunk stored twice

    victim.start()  # back for the next tests, on its port
    for replica in (deployment["a"], deployment["b"]):  # the document is searchable through either replica
        hits = httpx.post(f"{replica.base}/v1/ask", headers=ana, timeout=600, json={
            "question": "Quais são os requisitos de hardware para uma estação de trabalho?",
            "retriever": "documents", "max_depth": 0,
        })  # fmt: skip
        assert hits.status_code == 200, hits.text
        sources = hits.json()["sources"]
        assert sources and all(s["docid"].startswith(doc_id) and s["file"] == MANUAL.name for s in sources)
        passages = [s["docid"] for s in sources]
        assert len(passages) == len(set(passages))  # searchable once: no passage found twice


def test_a_parser_killed_by_a_signal_fails_its_upload_once_and_neither_replica_dies_or_retries_it(deployment):
    """A file whose reader dies (here: SIGSEGV sent to the replica's file workers while it reads) fails with its
    reason on the replica that read it; that replica lives, and the other never takes the job over."""
    lb, bruno = deployment["lb"], auth(deployment, "bruno")
    from script_modules import load_script

    slow = load_script("fuzz_files").UNCLOSED_TAGS_HTML  # ~18 s of reading: time to kill its reader
    accepted = httpx.post(f"{lb.base}/v1/documents", files={"file": ("lento.html", slow)}, headers=bruno, timeout=120)
    assert accepted.status_code == 202, accepted.text
    job_path = f"/v1/documents/jobs/{accepted.json()['job_id']}"
    running = wait_job(lb.base, job_path, bruno, lambda job: job["status"] == "running" and job.get("server"), 120)
    reader = next(r for r in (deployment["a"], deployment["b"]) if r.id == running["server"])
    time.sleep(1.0)
    workers = reader.server.file_workers()
    assert workers, "no file worker found under the replica"
    for worker in workers:
        worker.send_signal(signal.SIGSEGV)

    failed = wait_job(lb.base, job_path, bruno, lambda job: job["status"] != "running", 120)
    assert failed["status"] == "failed" and failed["error"]["reason"] == "parser_crashed", failed
    time.sleep(2 * LEASE_S + 1)  # past two leases: nobody took it over
    again = wait_job(lb.base, job_path, bruno, lambda job: True, 30)
    assert again["status"] == "failed" and again["attempts"] == 1 and again["server"] == reader.id
    for replica in (deployment["a"], deployment["b"]):
        assert replica.server.process.poll() is None
        assert httpx.get(f"{replica.base}/ready", timeout=30).status_code == 200


def test_a_conversation_goes_on_at_the_other_replica(deployment):
    a, b, bruno = deployment["a"], deployment["b"], auth(deployment, "bruno")
    first = httpx.post(
        f"{a.base}/v1/ask",
        headers=bruno,
        timeout=600,
        json={"question": "Quem escreveu Os Lusíadas?", "retriever": "corpus", "max_depth": 0},
    )
    assert first.status_code == 200, first.text
    cid = first.json()["conversation_id"]
    second = httpx.post(f"{b.base}/v1/ask", headers=bruno, timeout=600, json={
        "question": "E em que século?", "conversation_id": cid, "retriever": "corpus", "max_depth": 0})  # fmt: skip
    assert second.status_code == 200, second.text
    assert second.json()["conversation_id"] == cid
    for replica in (a, b):
        messages = httpx.get(f"{replica.base}/v1/conversations/{cid}", headers=bruno, timeout=30).json()["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
        assert messages[2]["content"] == "E em que século?"


def test_a_user_added_once_authenticates_on_both_and_a_removal_counts_on_both(deployment):
    a, b, url = deployment["a"], deployment["b"], deployment["url"]
    run = [sys.executable, "-m", "rqrag.cli", "users"]
    added = subprocess.run([*run, "add", "carla", "--file", url], capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    key = next(word for word in added.stdout.split() if word.startswith("rqrag_"))
    for replica in (a, b):
        me = httpx.get(f"{replica.base}/v1/me", headers={"Authorization": f"Bearer {key}"}, timeout=30)
        assert me.status_code == 200 and me.json()["user"] == "carla"
    removed = subprocess.run([*run, "remove", "carla", "--file", url], capture_output=True, text=True, timeout=120)
    assert removed.returncode == 0, removed.stderr
    for replica in (a, b):
        assert httpx.get(f"{replica.base}/v1/me", headers={"Authorization": f"Bearer {key}"}).status_code == 401


def test_a_review_job_survives_its_replicas_restart(deployment):
    a, lb, ana = deployment["a"], deployment["lb"], auth(deployment, "ana")
    started = httpx.post(
        f"{a.base}/v1/reviews",
        headers=ana,
        timeout=60,
        json={"topic": "requisitos de hardware", "language": "pt", "k": 10},
    )
    assert started.status_code == 202, started.text
    path = f"/v1/reviews/{started.json()['job_id']}"
    a.kill()
    seen = wait_job(lb.base, path, ana, lambda job: True, 60)  # the other replica knows the job
    assert seen["status"] in ("queued", "running", "done")
    a.start()
    done = wait_job(lb.base, path, ana, lambda job: job["status"] not in ("queued", "running"), 600)
    assert done["status"] == "done", done
    # the review of Ana's library: the manual uploaded above (read as a document, not an article: no BibTeX entry)
    names = {d["file"] for d in done["result"]["review"]["documents"]}
    assert MANUAL.name in names and done["result"]["markdown"].startswith("#"), names


def test_a_users_limit_holds_across_both_replicas(deployment):
    """At most 1 question in flight per user (`--max_waiting_per_user 1`): while Ana's question decodes on one
    replica, her second on the other is refused (429); Bruno's is answered. English questions: they need the model
    (a Portuguese question over the corpus is answered by quoting, with no model work to count)."""
    import psycopg

    a, b, url = deployment["a"], deployment["b"], deployment["url"]
    slow = {
        "question": "What is the capital of the country where the Eiffel Tower stands?",
        "retriever": "corpus",
        "max_depth": 2,
    }
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(first=httpx.post(
        f"{a.base}/v1/ask", headers=auth(deployment, "ana"), json=slow, timeout=600)))  # fmt: skip
    thread.start()
    deadline = time.monotonic() + 120
    with psycopg.connect(url, autocommit=True) as conn:
        while not conn.execute("SELECT count(*) FROM rqrag_questions_in_flight").fetchone()[0]:
            assert time.monotonic() < deadline and thread.is_alive(), f"never in flight: {outcome.get('first')}"
            time.sleep(0.01)
    second = httpx.post(
        f"{b.base}/v1/ask", headers=auth(deployment, "ana"), json={**slow, "max_depth": 0}, timeout=600
    )
    other = httpx.post(
        f"{b.base}/v1/ask", headers=auth(deployment, "bruno"), json={**slow, "max_depth": 0}, timeout=600
    )
    thread.join(600)
    assert second.status_code == 429 and second.json()["error"]["code"] == "too_many_questions_for_user"
    assert other.status_code == 200 and outcome["first"].status_code == 200


def test_sigterm_drains_a_replica_and_the_balancer_sends_new_work_to_the_other(deployment):
    """SIGTERM: the question in flight on the replica is answered; requests through the balancer meanwhile and after
    are answered by the other replica (no error: the draining replica's port is closed, and HAProxy sends a request
    it could not deliver to the other)."""
    a, b, lb, ana = deployment["a"], deployment["b"], deployment["lb"], auth(deployment, "ana")
    slow = {
        "question": "What is the capital of the country where the Eiffel Tower stands?",
        "retriever": "corpus",
        "max_depth": 2,
    }
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(
        first=httpx.post(f"{a.base}/v1/ask", headers=ana, json=slow, timeout=600)))  # fmt: skip
    thread.start()
    time.sleep(1.0)
    a.kill(signal.SIGTERM)
    statuses = [httpx.get(f"{lb.base}/v1/models", headers=ana, timeout=60).status_code for _ in range(20)]
    thread.join(600)
    assert outcome["first"].status_code == 200, outcome["first"].text  # finished, not cut
    assert statuses == [200] * 20
    asked = httpx.post(
        f"{lb.base}/v1/ask",
        headers=auth(deployment, "bruno"),
        timeout=600,
        json={"question": "Quem pintou a Mona Lisa?", "retriever": "corpus", "max_depth": 0},
    )
    assert asked.status_code == 200
    assert a.server.process.wait(60) is not None
    a.start()
    assert httpx.get(f"{b.base}/ready").status_code == 200
