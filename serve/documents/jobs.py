"""The served application's jobs: an upload's ingestion and a literature review, their statuses and their moves.

    job = IngestionJob(uuid4().hex, "documents", "manual.pdf", doc_id, len(data), data, owner="ana")
    transition(job, JobStatus.RUNNING)     # the one place a status changes
    job.checkpoint()                       # a running job's place to stop once it is cancelling

Both sorts of job go through the one job queue (`job_queue.py`, kept in the server's database so that jobs outlive a
restart and any server runs them): the documents service has a queue of `IngestionJob`s (below) and one of review
jobs (`review_jobs.py`), each with its own worker and limits, so a review never holds the ingestion worker.

Statuses are `JobStatus`, a `StrEnum` whose values are the strings the HTTP API returns. A job's status changes in
one place, `transition`, and only along these moves (`ALLOWED`; tests/test_jobs.py reads this table):

    queued     -> running | cancelled
    running    -> done | failed | cancelling
    cancelling -> cancelled | done | failed
    done       ->
    failed     ->
    cancelled  ->

A cancelled job never ran (it was still queued) or stopped at a checkpoint after `cancelling`: a running job calls
`checkpoint` at each step (an upload: each page read, before embedding and after each embedding batch), which raises
`JobCancelled` once it is cancelling; the library's `add` then stores nothing of the document. A cancel after the
last checkpoint is too late: the job ends done.

Fairness and limits (each user's waiting jobs, the oldest of the user served longest ago first) and leases (a job
whose server died is taken over by another) are the queue's, `job_queue.py`.
"""

from __future__ import annotations

import enum
import time
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from rqrag.ingest.library import SEARCHABLE
from rqrag.serve.errors import Busy


class JobStatus(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    CANCELLING = "cancelling"  # cancelled while running: it stops at its next checkpoint
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


ALLOWED: dict[JobStatus, frozenset[JobStatus]] = {
    JobStatus.QUEUED: frozenset({JobStatus.RUNNING, JobStatus.CANCELLED}),
    JobStatus.RUNNING: frozenset({JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLING}),
    JobStatus.CANCELLING: frozenset({JobStatus.CANCELLED, JobStatus.DONE, JobStatus.FAILED}),
    JobStatus.DONE: frozenset(),
    JobStatus.FAILED: frozenset(),
    JobStatus.CANCELLED: frozenset(),
}
FINISHED = frozenset(status for status, moves in ALLOWED.items() if not moves)
ACTIVE = frozenset({JobStatus.QUEUED, JobStatus.RUNNING})  # what a new job for the same thing would repeat


class IllegalTransition(RuntimeError):
    """A move between statuses that `ALLOWED` does not list (a finished job started again, say)."""


class JobCancelled(Exception):
    """Raised at a running job's checkpoint once its owner cancelled it."""


@dataclass
class Job:
    """What every job has: its status, its owner (only they may follow or cancel it), how it ended, and when."""

    id: str
    _: KW_ONLY
    owner: str | None = None
    status: JobStatus = JobStatus.QUEUED
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None

    OBJECT: ClassVar[str] = "job"  # also the job table's name for the queue of this sort of job
    NOUN: ClassVar[str] = "jobs"  # as the queue's refusals name them
    INPUT_FIELD: ClassVar[str | None] = None  # the field that holds what the job only needs to run (kept apart)
    CANCELLED_ERROR: ClassVar[dict[str, str]] = {"reason": "cancelled", "message": "cancelled by its owner"}

    def __post_init__(self):
        self.status = JobStatus(self.status)
        self.runner: str | None = None  # the server that runs it (the job table's lease)
        # Runs started, less those a draining server handed back: 2 when a server died running it and another took
        # it over; a job whose server died on both runs is failed, not run a third time (job_table.MAX_RUNS).
        self.attempts = 0

    def checkpoint(self) -> None:
        """Where a running job may stop: raises `JobCancelled` once it is cancelling."""
        if self.status is JobStatus.CANCELLING:
            raise JobCancelled(self.id)

    def drop_input(self) -> None:
        """Let go of what the job held only to run (an upload's bytes), once it has ended."""

    @classmethod
    def too_many(cls, waiting: int, limit: int, everyone: bool) -> Busy:
        """The refusal of one more job when `waiting` of the owner's (or everyone's) jobs already wait."""
        if everyone:
            return Busy(f"{waiting} {cls.NOUN} are already waiting; try again later", code="too_many_jobs")
        return Busy(
            f"you already have {waiting} {cls.NOUN} waiting (at most {limit} per user); try again when one has "
            "started, or cancel one",
            code="too_many_jobs_for_user",
        )

    def body(self, details: dict[str, Any]) -> dict[str, Any]:
        """The job as the HTTP API shows it: the `details` of its sort of job (an upload's, a review's) between the
        status and the times."""
        out = {
            "object": self.OBJECT,
            "job_id": self.id,
            "status": self.status.value,
            **details,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }
        if self.runner is not None:
            out |= {"server": self.runner, "attempts": self.attempts}
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


def transition(job: Job, to: JobStatus | str) -> None:
    """Move `job` to status `to`, if `ALLOWED` lists the move (else `IllegalTransition`), stamping when it started
    or ended. The one place a job's status changes; `JobQueue` calls it under its lock."""
    to = JobStatus(to)
    if to not in ALLOWED[job.status]:
        raise IllegalTransition(f"job {job.id}: {job.status} -> {to} is not allowed")
    job.status = to
    if to is JobStatus.RUNNING:
        job.started_at = time.time()
    elif to in FINISHED:
        job.finished_at = time.time()


@dataclass
class IngestionJob(Job):
    """An upload's ingestion, in two stages: its document is searchable by its words (BM25) as soon as its text is
    read and committed (`progress.searchable`, `searchable_at`), and by meaning once its vectors are done
    (`progress.embedded`, status done); questions asked in between use what is ready."""

    index: str
    name: str
    doc_id: str
    size_bytes: int
    data: bytes | None = field(default=None, repr=False)  # dropped once the job has run (or was cancelled)
    stage: str | None = None
    pages_done: int = 0
    pages_total: int | None = None
    chunks_done: int = 0
    chunks_total: int | None = None
    searchable_at: float | None = None  # when its text was committed: BM25 finds it from then on, vectors follow

    OBJECT: ClassVar[str] = "document.job"
    NOUN: ClassVar[str] = "uploads"
    INPUT_FIELD: ClassVar[str | None] = "data"
    CANCELLED_ERROR: ClassVar[dict[str, str]] = {
        "reason": "cancelled",
        "message": "cancelled by its owner; nothing of the file was stored",
    }

    def progress(self, stage: str, done: int, total: int) -> None:
        """The library's progress callback, and the job's cancellation checkpoint: what was done is recorded, then
        a cancelled job stops here."""
        self.stage = stage
        if stage == "reading":
            self.pages_done, self.pages_total = done, total
        elif stage == SEARCHABLE:
            self.searchable_at, self.chunks_done, self.chunks_total = time.time(), done, total
        else:
            self.chunks_done, self.chunks_total = done, total
        self.checkpoint()

    def drop_input(self) -> None:
        self.data = None

    def to_dict(self) -> dict[str, Any]:
        progress = {
            "stage": self.stage,
            "pages_done": self.pages_done,
            "pages_total": self.pages_total,
            "chunks_done": self.chunks_done,
            "chunks_total": self.chunks_total,
            # Searchable by its words (BM25) before its vectors are done; both are true once the job is done.
            "searchable": self.searchable_at is not None,
            "embedded": self.status is JobStatus.DONE,
        }
        details = {"index": self.index, "doc_id": self.doc_id, "name": self.name, "size_bytes": self.size_bytes}
        return self.body({**details, "progress": progress, "searchable_at": self.searchable_at})
