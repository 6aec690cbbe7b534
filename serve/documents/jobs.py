"""The served application's one job queue: an upload's ingestion and a literature review are both jobs in it.

    queue = JobQueue(max_queued=8, max_queued_per_user=3)
    queue.add(job)              # Busy when the owner (or everyone together) already has too many waiting
    queue.start(run, "rqrag-ingestion")  # its one worker thread: run(job) for each job `take` gives
    job = queue.take()          # blocks; the next job, each user in turn; None once closed
    queue.cancel(job)           # queued: cancelled now; running: cancelling, stopped at its next checkpoint
    queue.finish(job, JobStatus.DONE, result=...)

The documents service has one queue of `IngestionJob`s (below) and one of review jobs (`review_jobs.py`): the same
class, each with its own worker and limits, so a review never holds the ingestion worker.

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

Fairness. Every job waits behind the one running job of its queue (one worker: for uploads the encoder is the
bottleneck, and searches share it). One user's jobs must not keep everyone else's out or waiting: each user may have
`max_queued_per_user` jobs waiting (a global `max_queued` bounds the memory the waiting files hold), and the worker
takes the oldest job of the user it served longest ago, so another user's job waits for at most one job per other
user. The last `kept` finished jobs are kept for polling.

Storage. The jobs live in this process's memory (a restart forgets them). A durable store (PostgreSQL, for server
replicas) replaces `JobQueue`'s table (`_jobs`, read and written only by its methods, under its lock) and writes
each move `transition` allows; the moves themselves, the fairness rule and the limits stay as they are here.
"""

from __future__ import annotations

import collections
import enum
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from rqrag.ingest.library import SEARCHABLE
from rqrag.serve.errors import Busy


MAX_JOBS_KEPT = 1000


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

    OBJECT: ClassVar[str] = "job"
    NOUN: ClassVar[str] = "jobs"  # as the queue's refusals name them
    CANCELLED_ERROR: ClassVar[dict[str, str]] = {"reason": "cancelled", "message": "cancelled by its owner"}

    def __post_init__(self):
        self.status = JobStatus(self.status)

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


J = TypeVar("J", bound=Job)


class JobQueue(Generic[J]):
    """The job table (the last `kept` finished jobs are kept for polling), the waiting jobs' order, and the one
    worker thread that runs them (module docstring). `max_queued=None`: no bound on everyone's waiting jobs."""

    def __init__(self, max_queued: int | None, max_queued_per_user: int, kept: int = MAX_JOBS_KEPT):
        self.max_queued = max_queued
        self.max_queued_per_user = max_queued_per_user
        self.kept = kept
        self._jobs: collections.OrderedDict[str, J] = collections.OrderedDict()
        self._changed = threading.Condition()  # guards everything here; notified when a job is queued or closing
        self._turn = itertools.count()
        self._served: dict[str | None, int] = {}  # owner -> the turn their last job was taken at
        self._closed = False
        self._worker: threading.Thread | None = None

    def __len__(self) -> int:
        with self._changed:
            return len(self._jobs)

    def get(self, job_id: str) -> J | None:
        with self._changed:
            return self._jobs.get(job_id)

    def active(self, match: Callable[[J], bool]) -> J | None:
        """The queued or running job `match` accepts (not one being cancelled), if any."""
        with self._changed:
            return next((job for job in self._jobs.values() if job.status in ACTIVE and match(job)), None)

    def add(self, job: J) -> None:
        """Queue `job`, or `Busy` when its owner, or everyone together, already has the most jobs waiting."""
        with self._changed:
            waiting = [j for j in self._jobs.values() if j.status is JobStatus.QUEUED]
            mine = sum(1 for j in waiting if j.owner == job.owner)
            if mine >= self.max_queued_per_user:
                raise job.too_many(mine, self.max_queued_per_user, everyone=False)
            if self.max_queued is not None and len(waiting) >= self.max_queued:
                raise job.too_many(len(waiting), self.max_queued, everyone=True)
            self._jobs[job.id] = job
            self._forget_old_jobs()
            self._changed.notify_all()

    def _forget_old_jobs(self) -> None:
        finished = [job_id for job_id, job in self._jobs.items() if job.status in FINISHED]
        for job_id in finished[: max(0, len(self._jobs) - self.kept)]:
            del self._jobs[job_id]

    def take(self) -> J | None:
        """The next job to run, marked running (blocks while none waits); None once the queue is closed. Of the
        waiting jobs, the oldest of the owner served longest ago (never served counts as longest)."""
        with self._changed:
            while not self._closed:
                waiting = [job for job in self._jobs.values() if job.status is JobStatus.QUEUED]
                if waiting:
                    job = min(waiting, key=lambda j: self._served.get(j.owner, -1))  # min keeps the oldest of ties
                    self._served[job.owner] = next(self._turn)
                    transition(job, JobStatus.RUNNING)
                    return job
                self._changed.wait()
            return None

    def cancel(self, job: J) -> J:
        """Cancel `job`: a waiting one at once (it never runs), a running one at its next checkpoint (the worker then
        calls `finish(job, CANCELLED)`); a finished or cancelling one is left as it is."""
        with self._changed:
            if job.status is JobStatus.QUEUED:
                self._finish(job, JobStatus.CANCELLED)
            elif job.status is JobStatus.RUNNING:
                transition(job, JobStatus.CANCELLING)
            return job

    def finish(
        self, job: J, status: JobStatus | str, *, result: dict[str, Any] | None = None, error: dict | None = None
    ) -> None:
        """Record how a taken job ended (done, failed, or cancelled: stopped at a checkpoint)."""
        with self._changed:
            self._finish(job, JobStatus(status), result, error)

    def _finish(self, job: J, status: JobStatus, result=None, error=None) -> None:
        transition(job, status)
        job.result = result
        job.error = job.CANCELLED_ERROR if status is JobStatus.CANCELLED else error
        job.drop_input()

    def start(self, run: Callable[[J], None], name: str) -> None:
        """Start the queue's one worker thread, once: it calls `run(job)` for each job `take` gives until the queue
        is closed. `run` ends each job with `finish` and raises nothing (the worker serves every later job)."""
        with self._changed:
            if self._worker is None and not self._closed:
                self._worker = threading.Thread(target=self._work, args=(run,), name=name, daemon=True)
                self._worker.start()

    def _work(self, run: Callable[[J], None]) -> None:
        while (job := self.take()) is not None:
            run(job)

    def close(self, timeout: float | None = 0.0) -> None:
        """Wake the worker so that `take` returns None (after the job it is running, if any), waiting for it at most
        `timeout` seconds (0: not at all)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            worker = self._worker
        if worker is not None and timeout != 0:
            worker.join(timeout)
