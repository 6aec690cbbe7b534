"""The served application's one job queue (`serve/documents/jobs.py`), for uploads and reviews alike: the status
moves it allows (and only those), the strings the HTTP API shows, cancelling, and reviews through the same queue.
No server and no library: fast.

    python -m pytest tests/test_jobs.py -q
"""

from __future__ import annotations

import json
import re
import threading
import time
from types import SimpleNamespace

import pytest

from rqrag.config_loader import ConfigError
from rqrag.serve.documents import jobs as jobs_module
from rqrag.serve.documents.job_queue import JobQueue
from rqrag.serve.documents.jobs import (
    ALLOWED,
    IllegalTransition,
    IngestionJob,
    JobCancelled,
    JobStatus,
    transition,
)
from rqrag.serve.documents.review_jobs import MAX_WAITING_PER_USER, ReviewJob, ReviewJobs
from rqrag.serve.errors import Busy


def upload(job_id: str, owner: str | None = "alice") -> IngestionJob:
    return IngestionJob(job_id, "documents", f"{job_id}.md", job_id, 1, b"x", owner=owner)


def documented_moves() -> dict[str, set[str]]:
    """The table of moves the module's docstring gives, `from -> to | to`, one status a line."""
    moves = re.findall(r"^ +([a-z]+) +->(.*)$", jobs_module.__doc__, flags=re.MULTILINE)
    return {source: {to.strip() for to in targets.split("|") if to.strip()} for source, targets in moves}


def test_the_allowed_moves_are_the_documented_table():
    assert documented_moves() == {
        "queued": {"running", "cancelled"},
        "running": {"done", "failed", "cancelling"},
        "cancelling": {"cancelled", "done", "failed"},
        "done": set(),
        "failed": set(),
        "cancelled": set(),
    }
    assert {str(source): {str(to) for to in targets} for source, targets in ALLOWED.items()} == documented_moves()
    assert set(ALLOWED) == set(JobStatus)


@pytest.mark.parametrize(
    ("start", "to"),
    [("done", "running"), ("failed", "running"), ("cancelled", "queued"), ("queued", "done"), ("running", "queued")],
)
def test_an_illegal_move_raises_and_changes_nothing(start, to):
    job = upload("a1")
    job.status = JobStatus(start)
    with pytest.raises(IllegalTransition, match=f"{start} -> {to}"):
        transition(job, to)
    assert job.status is JobStatus(start) and job.started_at is None and job.finished_at is None


def test_every_allowed_move_is_made_and_stamped():
    for source, targets in ALLOWED.items():
        for to in targets:
            job = upload("a1")
            job.status = source
            transition(job, to)
            assert job.status is to
            assert (job.started_at is not None) == (to is JobStatus.RUNNING)
            assert (job.finished_at is not None) == (not ALLOWED[to])


def test_the_api_shows_the_same_status_strings():
    assert [str(status) for status in JobStatus] == ["queued", "running", "cancelling", "done", "failed", "cancelled"]
    job = upload("a1")
    body = json.loads(json.dumps(job.to_dict()))
    assert body["status"] == "queued" and type(job.to_dict()["status"]) is str
    assert list(body) == [
        "object", "job_id", "status", "index", "doc_id", "name", "size_bytes", "progress", "searchable_at",
        "created_at", "started_at", "finished_at",
    ]  # fmt: skip
    assert IngestionJob("a2", "d", "n", "d", 1, status="done").status is JobStatus.DONE  # a string is read as one


def test_cancelling_a_queued_a_running_and_a_finished_job():
    queue: JobQueue[IngestionJob] = JobQueue(IngestionJob, max_queued=10, max_queued_per_user=3)
    first, second = upload("a1"), upload("a2")
    queue.add(first)
    queue.add(second)
    assert queue.cancel(second).status is JobStatus.CANCELLED and second.data is None
    assert second.error == IngestionJob.CANCELLED_ERROR and second.started_at is None
    assert queue.take() is first and first.status is JobStatus.RUNNING
    queue.cancel(first)
    assert first.status is JobStatus.CANCELLING
    queue.cancel(first)  # again: still cancelling
    with pytest.raises(JobCancelled):
        first.progress("embedding", 1, 2)
    queue.finish(first, "cancelled")
    assert first.status is JobStatus.CANCELLED and first.error["reason"] == "cancelled"
    assert queue.cancel(first).status is JobStatus.CANCELLED  # finished: left as it is
    with pytest.raises(IllegalTransition):
        queue.finish(first, JobStatus.DONE)


def test_a_cancel_after_the_last_checkpoint_is_too_late():
    queue: JobQueue[IngestionJob] = JobQueue(IngestionJob, max_queued=10, max_queued_per_user=3)
    queue.add(job := upload("a1"))
    queue.take()
    queue.cancel(job)
    queue.finish(job, JobStatus.DONE, result={"chunks": 1})
    assert job.status is JobStatus.DONE and job.to_dict()["progress"]["embedded"] and job.error is None


def test_a_queue_refuses_with_its_jobs_words_and_forgets_old_finished_jobs():
    queue: JobQueue[IngestionJob] = JobQueue(IngestionJob, max_queued=2, max_queued_per_user=1, kept=2)
    queue.add(upload("a1"))
    with pytest.raises(Busy, match="you already have 1 uploads waiting") as mine:
        queue.add(upload("a2"))
    queue.add(upload("b1", owner="bob"))
    with pytest.raises(Busy, match="2 uploads are already waiting") as everyone:
        queue.add(upload("c1", owner="carol"))
    assert (mine.value.code, everyone.value.code) == ("too_many_jobs_for_user", "too_many_jobs")
    for _ in range(2):
        queue.finish(queue.take(), JobStatus.DONE)
    queue.add(upload("c2", owner="carol"))
    assert len(queue) == 2 and queue.get("a1") is None and queue.get("c2") is not None


class SlowLibraries:
    """A documents service stand-in whose library waits for `go`, then cannot be reviewed."""

    def __init__(self):
        self.settings = SimpleNamespace(users=True)
        self.go = threading.Event()
        self.opened: list[str] = []

    def library(self, index):
        self.opened.append(index)
        assert self.go.wait(30)
        raise ConfigError(f"no library {index}")


def wait_for(job: ReviewJob, status: JobStatus) -> None:
    deadline = time.monotonic() + 30
    while job.status is not status:
        assert time.monotonic() < deadline, job
        time.sleep(0.01)


def test_reviews_are_jobs_of_the_same_queue():
    service = SlowLibraries()
    reviews = ReviewJobs(service)
    try:
        running = reviews.submit("alice", "tema", "a0")
        wait_for(running, JobStatus.RUNNING)
        waiting = [reviews.submit("alice", "tema", f"a{n}") for n in range(1, MAX_WAITING_PER_USER + 1)]
        with pytest.raises(Busy, match="2 of your reviews are waiting") as refused:
            reviews.submit("alice", "tema", "a9")
        assert refused.value.code == "too_many_jobs"
        bob = reviews.submit("bob", "tema", "b1")
        assert [job.to_dict()["status"] for job in waiting] == ["queued"] * MAX_WAITING_PER_USER
        assert reviews.get(bob.id, "alice") is None and reviews.get(bob.id, "bob") is bob
        service.go.set()
        for job in [running, *waiting, bob]:
            wait_for(job, JobStatus.FAILED)
            assert job.error == {"reason": "no_review", "message": f"no library {job.index}"}
        assert service.opened == ["a0", "b1", "a1", "a2"]  # Bob's review waited for one of Alice's, not all
        assert list(running.to_dict())[:3] == ["object", "job_id", "status"] and running.finished_at is not None
    finally:
        service.go.set()
        reviews.close()
