"""The ingestion jobs of the documents service: each upload's state, and the queue its one worker takes them from.

    queue = JobQueue(max_queued=8, max_queued_per_user=3)
    queue.add(job)              # Busy when the uploader (or everyone together) already has too many waiting
    job = queue.take()          # blocks; the next job, each user in turn; None once closed
    queue.cancel(job)           # queued: cancelled now; running: "cancelling", stopped at its next checkpoint
    queue.finish(job, "done", result=...)

Statuses: queued -> running -> done | failed, and cancelled (from queued at once, or from running through
cancelling). A running job stops at its next progress checkpoint (each page read, before embedding and after each
embedding batch): `IngestionJob.progress` raises `JobCancelled` inside the library's `add`, which stores nothing of
a document it did not finish. A cancel after the last checkpoint is too late: the job ends done.

Two stages. A running job's document is searchable by its words (BM25) as soon as its text is read and committed
(`progress.searchable`, `searchable_at`), and by meaning once its vectors are done (`progress.embedded`, status
done); questions asked in between use what is ready.

Fairness. Every upload waits behind the one running job (one worker: the encoder is the bottleneck, and searches
share it). One user's uploads must not keep everyone else's out or waiting: each user may have `max_queued_per_user`
jobs waiting (a global `max_queued` bounds the memory the waiting files hold), and the worker takes the oldest job
of the user it served longest ago, so another user's upload waits for at most one job per other user.
"""

from __future__ import annotations

import collections
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rqrag.ingest.library import SEARCHABLE
from rqrag.serve.errors import Busy


MAX_JOBS_KEPT = 1000
FINISHED = ("done", "failed", "cancelled")


class JobCancelled(Exception):
    """Raised at a running job's progress checkpoint once its owner cancelled it."""


@dataclass
class IngestionJob:
    id: str
    index: str
    name: str
    doc_id: str
    size_bytes: int
    data: bytes | None = field(default=None, repr=False)  # dropped once the job has run (or was cancelled)
    owner: str | None = None  # who uploaded it: only they may follow or cancel the job
    status: str = "queued"
    stage: str | None = None
    pages_done: int = 0
    pages_total: int | None = None
    chunks_done: int = 0
    chunks_total: int | None = None
    searchable_at: float | None = None  # when its text was committed: BM25 finds it from then on, vectors follow
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None

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
        if self.status == "cancelling":
            raise JobCancelled(self.id)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "object": "document.job",
            "job_id": self.id,
            "status": self.status,
            "index": self.index,
            "doc_id": self.doc_id,
            "name": self.name,
            "size_bytes": self.size_bytes,
            "progress": {
                "stage": self.stage,
                "pages_done": self.pages_done,
                "pages_total": self.pages_total,
                "chunks_done": self.chunks_done,
                "chunks_total": self.chunks_total,
                # Searchable by its words (BM25) before its vectors are done; both are true once the job is done.
                "searchable": self.searchable_at is not None,
                "embedded": self.status == "done",
            },
            "searchable_at": self.searchable_at,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


CANCELLED_ERROR = {"reason": "cancelled", "message": "cancelled by its owner; nothing of the file was stored"}


class JobQueue:
    """The job table (the last `MAX_JOBS_KEPT` finished jobs are kept for polling) and the waiting jobs' order."""

    def __init__(self, max_queued: int, max_queued_per_user: int):
        self.max_queued = max_queued
        self.max_queued_per_user = max_queued_per_user
        self._jobs: collections.OrderedDict[str, IngestionJob] = collections.OrderedDict()
        self._changed = threading.Condition()  # guards everything here; notified when a job is queued or closing
        self._turn = itertools.count()
        self._served: dict[str | None, int] = {}  # owner -> the turn their last job was taken at
        self._closed = False

    def __len__(self) -> int:
        with self._changed:
            return len(self._jobs)

    def get(self, job_id: str) -> IngestionJob | None:
        with self._changed:
            return self._jobs.get(job_id)

    def pending(self, index: str, doc_id: str) -> IngestionJob | None:
        """The job already queued or running for these bytes in this library (not one being cancelled)."""
        with self._changed:
            return next(
                (
                    job
                    for job in self._jobs.values()
                    if job.index == index and job.doc_id == doc_id and job.status in ("queued", "running")
                ),
                None,
            )

    def add(self, job: IngestionJob) -> None:
        """Queue `job`, or `Busy` when its owner, or everyone together, already has the most jobs waiting."""
        with self._changed:
            waiting = [j for j in self._jobs.values() if j.status == "queued"]
            mine = sum(1 for j in waiting if j.owner == job.owner)
            if mine >= self.max_queued_per_user:
                raise Busy(
                    f"you already have {mine} uploads waiting (at most {self.max_queued_per_user} per user); "
                    "try again when one has started, or cancel one",
                    code="too_many_jobs_for_user",
                )
            if len(waiting) >= self.max_queued:
                raise Busy(f"{len(waiting)} uploads are already waiting; try again later", code="too_many_jobs")
            self._jobs[job.id] = job
            self._forget_old_jobs()
            self._changed.notify_all()

    def _forget_old_jobs(self) -> None:
        finished = [job_id for job_id, job in self._jobs.items() if job.status in FINISHED]
        for job_id in finished[: max(0, len(self._jobs) - MAX_JOBS_KEPT)]:
            del self._jobs[job_id]

    def take(self) -> IngestionJob | None:
        """The next job to run, marked running (blocks while none waits); None once the queue is closed. Of the
        waiting jobs, the oldest of the owner served longest ago (never served counts as longest)."""
        with self._changed:
            while not self._closed:
                waiting = [job for job in self._jobs.values() if job.status == "queued"]
                if waiting:
                    job = min(waiting, key=lambda j: self._served.get(j.owner, -1))  # min keeps the oldest of ties
                    self._served[job.owner] = next(self._turn)
                    job.status, job.started_at = "running", time.time()
                    return job
                self._changed.wait()
            return None

    def cancel(self, job: IngestionJob) -> IngestionJob:
        """Cancel `job`: a waiting one at once (it never runs), a running one at its next checkpoint (the worker then
        calls `finish(job, "cancelled")`); a finished one is left as it is."""
        with self._changed:
            if job.status == "queued":
                self._finished(job, "cancelled", error=CANCELLED_ERROR)
            elif job.status == "running":
                job.status = "cancelling"
            return job

    def finish(
        self, job: IngestionJob, status: str, *, result: dict[str, Any] | None = None, error: dict | None = None
    ) -> None:
        """Record how a taken job ended; a job that stopped because it was cancelled ends "cancelled"."""
        with self._changed:
            self._finished(job, status, result=result, error=CANCELLED_ERROR if status == "cancelled" else error)

    def _finished(self, job: IngestionJob, status: str, result=None, error=None) -> None:
        job.status, job.result, job.error = status, result, error
        job.data, job.finished_at = None, time.time()

    def close(self) -> None:
        """Wake the worker so that `take` returns None (after the job it is running, if any)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
