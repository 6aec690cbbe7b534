"""The application's one job queue, kept in the server's database: jobs outlive a restart and any server runs them.

    queue = JobQueue(IngestionJob, max_queued=8, max_queued_per_user=3, database_url="postgresql+psycopg://...")
    queue.add(job)                         # Busy when the owner (or everyone together) already has too many waiting
    queue.start(run, "rqrag-ingestion")    # this server's worker: run(job) for each job `take` gives
    queue.get(job_id)                      # from the table: any server's job, with its latest progress
    queue.cancel(job)                      # queued: cancelled now; running (here or elsewhere): at its next checkpoint
    queue.finish(job, JobStatus.DONE, result=...)

Jobs are rows of one table, `rqrag_jobs` (`job_table.py`), in the database `rqrag serve --database_url` names:
SQLite on one machine, PostgreSQL when several servers share the work (docs/scale.md). Without a URL the table is a
private in-memory SQLite database, the same code. The statuses and their moves are `jobs.py`'s (`transition`).

Leases. Taking a job leases it to this server for `lease_s` seconds: PostgreSQL picks the candidate rows with
`SELECT ... FOR UPDATE SKIP LOCKED` (two servers never wait on each other's pick), and the update that leases a row
also checks it is still as it was read (so SQLite, which has no row locks, cannot give one job to two servers
either). While a job runs, a heartbeat thread renews its lease every `lease_s / 4` seconds and writes its progress,
and reads back its status: a cancel made through another server reaches the job there. A job whose server died
keeps its status (running) until its lease runs out; then any server takes it over and runs it again from the
start, which the job's steps make harmless (an upload is stored under its content's id: a document stored before
the crash is found, not stored twice). A server that lost its lease cannot write the job's end over the new
holder's (`finish` checks the lease).

Fairness as before, over the whole deployment: of the waiting jobs, the oldest of the owner whose last job started
longest ago (never counts as longest); jobs whose server died go first. The last `kept` finished jobs of a queue
are kept for polling.

Draining (`close`): the worker takes no new job and finishes the one it runs (waiting at most `timeout`); a job
still running then is handed back (its lease ends now), so another server takes it over at once.
"""

from __future__ import annotations

import copy
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from rqrag.serve.documents.job_table import JobTable
from rqrag.serve.documents.jobs import ACTIVE, Job, JobStatus, transition


logger = logging.getLogger(__name__)

MAX_JOBS_KEPT = 1000
DEFAULT_LEASE_S = 30.0
POLL_S = 0.5  # how often an idle worker looks for jobs another server queued (its own are noticed at once)
DATABASE_RETRY_S = 1.0  # how soon a worker looks again when the database did not answer

J = TypeVar("J", bound=Job)


_server_ids: dict[int, str] = {}


def server_id() -> str:
    """This process's name in the job table's `leased_by` and its `GET /ready`: host, pid and a random tail (a pid
    is reused once its process is gone). One per process."""
    pid = os.getpid()
    if pid not in _server_ids:
        _server_ids[pid] = f"{socket.gethostname()}:{pid}:{uuid.uuid4().hex[:6]}"
    return _server_ids[pid]


class JobQueue(Generic[J]):
    """One queue (a `job_type`: uploads, reviews) of the job table, and this server's one worker for it."""

    def __init__(
        self,
        job_type: type[J],
        max_queued: int | None,
        max_queued_per_user: int,
        kept: int = MAX_JOBS_KEPT,
        *,
        database_url: str | None = None,
        lease_s: float = DEFAULT_LEASE_S,
        server: str | None = None,
    ):
        self.job_type = job_type
        self.max_queued = max_queued
        self.max_queued_per_user = max_queued_per_user
        self.kept = kept
        self.lease_s = lease_s
        self.server = server or server_id()
        self.table = JobTable(database_url, job_type)
        self._changed = threading.Condition()  # notified when a job is queued here or the queue closes
        self._known: dict[str, J] = {}  # the job objects this process made or took: `take` and `get` return them
        self._running: dict[str, J] = {}  # taken here and not finished: their leases are renewed
        self._closed = False
        self._worker: threading.Thread | None = None
        self._heartbeat: threading.Thread | None = None

    def __len__(self) -> int:
        return self.table.count()

    # ------------------------------------------------------------------------------------------ reading

    def get(self, job_id: str) -> J | None:
        """The job as the table has it (any server's); this process's own object when it made or runs it."""
        with self._changed:
            mine = self._running.get(job_id)
        if mine is not None:
            return mine  # fresher than the table: its progress is written at the next heartbeat
        job = self.table.get(job_id)
        if job is None:
            return None
        with self._changed:
            if job_id in self._running:  # taken here since the read above: the snapshot is already stale
                return self._running[job_id]
            known = self._known.get(job_id)
            if known is None:
                return job
            if _STAGE[job.status] >= _STAGE[known.status]:  # never a read older than what this process wrote
                _copy_state(job, known)
            return known

    def active(self, match: Callable[[J], bool]) -> J | None:
        """The queued or running job `match` accepts (not one being cancelled), if any."""
        return next((job for job in self.table.in_status(ACTIVE) if match(job)), None)

    # ------------------------------------------------------------------------------------------ queueing

    def add(self, job: J) -> None:
        """Queue `job`, or `Busy` when its owner, or everyone together, already has the most jobs waiting."""
        self.table.insert(job, self.max_queued_per_user, self.max_queued, self.kept)
        with self._changed:
            self._known[job.id] = job
            self._changed.notify_all()

    def take(self) -> J | None:
        """The next job to run, leased to this server and marked running (blocks while none waits); None once
        the queue is closed."""
        with self._changed:
            while not self._closed:
                try:
                    taken = self.table.lease_next(self.server, self.lease_s)
                except Exception:  # the database away (a restart): look again shortly; the worker must live on
                    logger.warning("could not look for jobs; trying again", exc_info=True)
                    self._changed.wait(DATABASE_RETRY_S)
                    continue
                if taken is not None:
                    job = self._known.get(taken.id)
                    if job is None:
                        job = self._known[taken.id] = taken
                    else:
                        _copy_state(taken, job)
                        if job.INPUT_FIELD and getattr(job, job.INPUT_FIELD) is None:
                            setattr(job, job.INPUT_FIELD, getattr(taken, job.INPUT_FIELD))
                    self._running[job.id] = job
                    return job
                self._changed.wait(POLL_S)
            return None

    def cancel(self, job: J) -> J:
        """Cancel `job`: a waiting one at once (it never runs), a running one at its next checkpoint, on whichever
        server runs it; a finished or cancelling one is left as it is."""
        status = self.table.cancel(job.id, job.CANCELLED_ERROR)
        with self._changed:
            local = self._running.get(job.id) or job
            if status is JobStatus.CANCELLED and local.status is JobStatus.QUEUED:
                transition(local, JobStatus.CANCELLED)
                local.error = job.CANCELLED_ERROR
                local.drop_input()
            elif status is JobStatus.CANCELLING and local.status is JobStatus.RUNNING:
                transition(local, JobStatus.CANCELLING)
            if local is not job:
                _copy_state(local, job)
        return job

    def finish(
        self, job: J, status: JobStatus | str, *, result: dict[str, Any] | None = None, error: dict | None = None
    ) -> None:
        """Record how a taken job ended (done, failed, or cancelled: stopped at a checkpoint). Every read says
        running until the end is written (a client told "done" may act on it: delete the document, say), so the
        end is written first, tried again while the database is away, and only then set on the job object."""
        status = JobStatus(status)
        with self._changed:
            ended_job = copy.copy(job)
            transition(ended_job, status)
            ended_job.result = result
            ended_job.error = job.CANCELLED_ERROR if status is JobStatus.CANCELLED else error
            ended = self.table.row_values(ended_job)
        written = self._write_end(job.id, ended)
        with self._changed:
            self._running.pop(job.id, None)
            if written is None:  # never written: the lease runs out and a server runs the job again
                self._known.pop(job.id, None)
                return
            _copy_state(ended_job, job)
            job.drop_input()
        if not written:
            logger.warning("job %s ended here after another server took it over; its end there counts", job.id)

    def _write_end(self, job_id: str, ended: dict[str, Any]) -> bool | None:
        """`table.finish`, tried again for up to a lease while the database does not answer (a restart); None if it
        never did. The job stays in `_running` meanwhile, so the heartbeat keeps its lease."""
        give_up = time.monotonic() + self.lease_s
        while True:
            try:
                return self.table.finish(job_id, ended, self.server, self.kept)
            except Exception:
                if time.monotonic() > give_up:
                    logger.error("could not write the end of job %s; it will run again", job_id, exc_info=True)
                    return None
                logger.warning("could not write the end of job %s; trying again", job_id, exc_info=True)
                time.sleep(DATABASE_RETRY_S)

    # ------------------------------------------------------------------------------------------ the worker

    def start(self, run: Callable[[J], None], name: str) -> None:
        """Start this server's worker thread (and its heartbeat), once: it calls `run(job)` for each job `take`
        gives until the queue is closed. `run` ends each job with `finish` and raises nothing."""
        with self._changed:
            if self._worker is None and not self._closed:
                self._worker = threading.Thread(target=self._work, args=(run,), name=name, daemon=True)
                self._heartbeat = threading.Thread(target=self._beat, name=f"{name}-heartbeat", daemon=True)
                self._worker.start()
                self._heartbeat.start()

    def _work(self, run: Callable[[J], None]) -> None:
        while (job := self.take()) is not None:
            try:
                run(job)
            except Exception:  # `run` should end every job itself; whatever escapes must not stop this worker
                logger.exception("job %s: the worker's run raised; the job is marked failed", job.id)
                with self._changed:
                    self._running.pop(job.id, None)
                error = {"reason": "internal", "message": "the job failed inside the server; its log has the details"}
                try:
                    self.table.fail(job.id, self.server, error)
                except Exception:  # the database away: the lease runs out and a server runs the job again
                    logger.warning("could not mark job %s failed", job.id, exc_info=True)

    def _beat(self) -> None:
        """Renew the leases of the jobs running here, write their progress, and bring a cancel made elsewhere in."""
        while True:
            with self._changed:
                if self._closed and not self._running:
                    return
                running = list(self._running.values())
            for job in running:
                try:
                    status = self.table.renew(job, self.server, self.lease_s)
                except Exception:  # the database away for a moment: the lease is renewed at the next beat
                    logger.warning("could not renew the lease of job %s", job.id, exc_info=True)
                    continue
                if status is JobStatus.CANCELLING and job.status is JobStatus.RUNNING:
                    with self._changed:
                        transition(job, JobStatus.CANCELLING)
            with self._changed:
                self._changed.wait(self.lease_s / 4)

    def close(self, timeout: float | None = 0.0) -> None:
        """Take no new job; wait at most `timeout` seconds (0: not at all) for the running one to end, then hand
        back (end the lease of) whatever still runs here, for another server to take over."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            worker = self._worker
        if worker is not None and timeout != 0:
            worker.join(timeout)
        with self._changed:
            unfinished = list(self._running.values())
            self._running.clear()  # no heartbeat renews them from here on
        for job in unfinished:
            self.table.release(job, self.server)
            logger.info("job %s handed back unfinished: another server takes it over", job.id)


# How far along a status is: a table read may only move an object this process holds forward. (A poll that read
# "running" and ended after the worker finished the job had set the object back to running, and the worker then
# wrote that into the table: a job running nowhere, seen in the two-replica soak.)
_STAGE = {
    JobStatus.QUEUED: 0,
    JobStatus.RUNNING: 1,
    JobStatus.CANCELLING: 2,
    JobStatus.DONE: 3,
    JobStatus.FAILED: 3,
    JobStatus.CANCELLED: 3,
}


def _copy_state(source: Job, target: Job) -> None:
    """Bring `target` (an object this process holds) up to the table's `source`: status, outcome, progress."""
    for name, value in vars(source).items():
        if name != target.INPUT_FIELD:
            setattr(target, name, value)
