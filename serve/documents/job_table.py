"""The job table, `rqrag_jobs`: every job of every queue, one row each, in the server's database.

    table = JobTable("postgresql+psycopg://...", IngestionJob)
    table.insert(job, per_user=3, everyone=8, kept=1000)     # Busy past the limits, counted in the database
    job = table.lease_next("host:123:ab12cd", lease_s=30)     # FOR UPDATE SKIP LOCKED on PostgreSQL
    table.renew(job, "host:123:ab12cd", lease_s=30)           # -> the status in the table (a cancel made elsewhere)
    table.finish(job.id, table.row_values(job), "host:123:ab12cd", kept=1000)   # False: another server holds it

A row holds what every job has (status, owner, times, result, error) as columns, the job's own fields (an upload's
library, name and progress; a review's topic) as JSON in `details`, and an upload's bytes in `input` until it has
run. `leased_by` and `lease_until` say which server runs it and until when it must renew (`job_queue.py`). One
object per queue, its `job_type` (`IngestionJob`, `ReviewJob`) names the queue (`OBJECT`) and rebuilds its jobs.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from sqlalchemy import Column, Float, Integer, LargeBinary, MetaData, String, Table, Text, func, or_, select

from rqrag.serve.database import create_tables, is_postgres, open_engine, serialised
from rqrag.serve.documents.jobs import ALLOWED, FINISHED, Job, JobStatus


metadata = MetaData()
jobs = Table(
    "rqrag_jobs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("queue", String(32), nullable=False, index=True),
    Column("owner", String(128)),
    Column("status", String(16), nullable=False, index=True),
    Column("details", Text, nullable=False),
    Column("input", LargeBinary),
    Column("result", Text),
    Column("error", Text),
    Column("created_at", Float, nullable=False),
    Column("started_at", Float),
    Column("finished_at", Float),
    Column("leased_by", String(128)),
    Column("lease_until", Float),
    Column("attempts", Integer, nullable=False, default=0),
)
BASE_FIELDS = frozenset(f.name for f in dataclasses.fields(Job))
CANDIDATES = 64  # waiting rows looked at per take: the fairness rule picks among them
# Runs a job may start: a job whose server died running it twice (its lease ran out twice) is failed, not taken
# over a third time. A file that crashes whatever reads it (a poison job) would otherwise take down every replica in
# turn. Draining servers hand their jobs back without spending a run (`release`).
MAX_RUNS = 2
SERVER_STOPPED = {
    "reason": "server_stopped",
    "message": f"the server reading this file stopped {MAX_RUNS} times while it ran (a crash, or its memory ran out); "
    "it is not tried again: the file is probably damaged or built to break readers. Nothing else was lost",
}
J = TypeVar("J", bound=Job)


class JobTable(Generic[J]):
    def __init__(self, database_url: str | None, job_type: type[J]):
        self.engine = open_engine(database_url)
        self.job_type = job_type
        self.queue = job_type.OBJECT
        create_tables(self.engine, metadata)

    # ------------------------------------------------------------------------------------------ rows and jobs

    def row_values(self, job: J) -> dict[str, Any]:
        details = {
            f.name: getattr(job, f.name)
            for f in dataclasses.fields(job)
            if f.name not in BASE_FIELDS and f.name != job.INPUT_FIELD
        }
        return {
            "status": job.status.value,
            "details": json.dumps(details),
            "result": None if job.result is None else json.dumps(job.result),
            "error": None if job.error is None else json.dumps(job.error),
            "started_at": job.started_at,
            "finished_at": job.finished_at,
        }

    def _job(self, row) -> J:
        fields = {
            "owner": row.owner,
            "status": JobStatus(row.status),
            "result": None if row.result is None else json.loads(row.result),
            "error": None if row.error is None else json.loads(row.error),
            "created_at": row.created_at,
            "started_at": row.started_at,
            "finished_at": row.finished_at,
        }
        own = json.loads(row.details)
        if self.job_type.INPUT_FIELD:
            own[self.job_type.INPUT_FIELD] = row.input
        job = self.job_type(row.id, **own, **fields)
        job.runner, job.attempts = row.leased_by, row.attempts
        return job

    def _mine(self):
        return jobs.c.queue == self.queue

    def _lock_queue(self, conn) -> None:
        """Order this queue's inserts across servers (PostgreSQL): the limits below count, then insert."""
        if is_postgres(self.engine):
            conn.execute(select(func.pg_advisory_xact_lock(func.hashtext(f"rqrag_jobs:{self.queue}"))))

    # ------------------------------------------------------------------------------------------ reading

    def count(self) -> int:
        with serialised(self.engine), self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(jobs).where(self._mine())).scalar_one()

    def get(self, job_id: str) -> J | None:
        with serialised(self.engine), self.engine.connect() as conn:
            row = conn.execute(select(jobs).where(self._mine(), jobs.c.id == job_id)).first()
        return None if row is None else self._job(row)

    def in_status(self, statuses: Iterable[JobStatus]) -> list[J]:
        wanted = [status.value for status in statuses]
        query = select(jobs).where(self._mine(), jobs.c.status.in_(wanted)).order_by(jobs.c.created_at)
        with serialised(self.engine), self.engine.connect() as conn:
            return [self._job(row) for row in conn.execute(query)]

    # ------------------------------------------------------------------------------------------ writing

    def insert(self, job: J, per_user: int, everyone: int | None, kept: int) -> None:
        """Insert a queued job, or raise its `too_many` when its owner, or everyone, has the most waiting."""
        waiting = self._mine() & (jobs.c.status == JobStatus.QUEUED.value)
        with serialised(self.engine), self.engine.begin() as conn:
            self._lock_queue(conn)
            owner = jobs.c.owner.is_(None) if job.owner is None else jobs.c.owner == job.owner
            mine = conn.execute(select(func.count()).select_from(jobs).where(waiting, owner)).scalar_one()
            if mine >= per_user:
                raise job.too_many(mine, per_user, everyone=False)
            if everyone is not None:
                total = conn.execute(select(func.count()).select_from(jobs).where(waiting)).scalar_one()
                if total >= everyone:
                    raise job.too_many(total, everyone, everyone=True)
            input_bytes = getattr(job, job.INPUT_FIELD) if job.INPUT_FIELD else None
            conn.execute(
                jobs.insert().values(
                    id=job.id, queue=self.queue, owner=job.owner, created_at=job.created_at, input=input_bytes,
                    attempts=0, **self.row_values(job),
                )
            )  # fmt: skip
            self._forget_old(conn, kept)

    def _forget_old(self, conn, kept: int) -> None:
        """Delete the oldest finished jobs past `kept` jobs in all (the waiting and running ones always stay)."""
        excess = conn.execute(select(func.count()).select_from(jobs).where(self._mine())).scalar_one() - kept
        if excess > 0:
            finished = self._mine() & jobs.c.status.in_([status.value for status in FINISHED])
            oldest = select(jobs.c.id).where(finished).order_by(jobs.c.finished_at).limit(excess)
            conn.execute(jobs.delete().where(jobs.c.id.in_([row.id for row in conn.execute(oldest)])))

    def lease_next(self, server: str, lease_s: float) -> J | None:
        """Lease the next job to `server`: a job whose server died (its lease ran out) first, then the oldest
        waiting job of the owner whose last job started longest ago. None when nothing waits."""
        for _ in range(5):  # another server leased the pick between our read and our update: pick again
            now = time.time()
            with serialised(self.engine), self.engine.begin() as conn:
                self._fail_poison(conn, now)
                orphaned = jobs.c.status.in_([JobStatus.RUNNING.value, JobStatus.CANCELLING.value]) & (
                    jobs.c.lease_until < now
                )
                query = (
                    select(jobs.c.id, jobs.c.owner, jobs.c.status, jobs.c.lease_until, jobs.c.created_at)
                    .where(self._mine(), or_(jobs.c.status == JobStatus.QUEUED.value, orphaned))
                    .order_by(jobs.c.created_at)
                    .limit(CANDIDATES)
                    .with_for_update(skip_locked=True)
                )
                candidates = conn.execute(query).all()
                if not candidates:
                    return None
                pick = self._fair_pick(conn, candidates)
                values = {"leased_by": server, "lease_until": now + lease_s, "attempts": jobs.c.attempts + 1}
                if pick.status == JobStatus.QUEUED.value:
                    values |= {"status": JobStatus.RUNNING.value, "started_at": now}
                seen_lease = (
                    jobs.c.lease_until.is_(None)
                    if pick.lease_until is None
                    else jobs.c.lease_until == pick.lease_until
                )
                updated = conn.execute(
                    jobs.update()
                    .where(jobs.c.id == pick.id, jobs.c.status == pick.status, seen_lease)
                    .values(**values)
                )
                if updated.rowcount == 1:
                    return self._job(conn.execute(select(jobs).where(jobs.c.id == pick.id)).one())
        return None

    def _fail_poison(self, conn, now: float) -> None:
        """Fail the running jobs whose server died on each of their `MAX_RUNS` runs (a cancelling one goes on: its
        next run only removes what was stored, it never reads the file again)."""
        poisoned = (
            self._mine()
            & (jobs.c.status == JobStatus.RUNNING.value)
            & (jobs.c.lease_until < now)
            & (jobs.c.attempts >= MAX_RUNS)
        )
        values = {"status": JobStatus.FAILED.value, "error": json.dumps(SERVER_STOPPED), "finished_at": now}
        conn.execute(jobs.update().where(poisoned).values(**values, input=None, lease_until=None))

    def _fair_pick(self, conn, candidates):
        orphans = [row for row in candidates if row.status != JobStatus.QUEUED.value]
        if orphans:
            return orphans[0]
        owners = {row.owner for row in candidates if row.owner is not None}
        started = select(jobs.c.owner, func.max(jobs.c.started_at)).where(
            self._mine(), jobs.c.owner.in_(owners), jobs.c.started_at.is_not(None)
        )
        last_start = dict(conn.execute(started.group_by(jobs.c.owner)).all()) if owners else {}
        return min(candidates, key=lambda row: (last_start.get(row.owner) or -1.0, row.created_at))

    def cancel(self, job_id: str, cancelled_error: dict) -> JobStatus | None:
        """Cancel in the table: queued -> cancelled (its input dropped), running -> cancelling; the status after."""
        with serialised(self.engine), self.engine.begin() as conn:
            row = conn.execute(
                select(jobs.c.status).where(self._mine(), jobs.c.id == job_id).with_for_update()
            ).first()
            if row is None:
                return None
            status = JobStatus(row.status)
            if status is JobStatus.QUEUED:
                to = JobStatus.CANCELLED
                extra = {"finished_at": time.time(), "error": json.dumps(cancelled_error), "input": None}
            elif status is JobStatus.RUNNING:
                to, extra = JobStatus.CANCELLING, {}
            else:
                return status
            assert to in ALLOWED[status]
            conn.execute(jobs.update().where(jobs.c.id == job_id).values(status=to.value, **extra))
            return to

    def renew(self, job: J, server: str, lease_s: float) -> JobStatus | None:
        """Extend `server`'s lease of `job` and write its progress; the job's status in the table (None: the lease
        is no longer this server's)."""
        with serialised(self.engine), self.engine.begin() as conn:
            held = (jobs.c.id == job.id) & (jobs.c.leased_by == server)
            values = {"lease_until": time.time() + lease_s, "details": self.row_values(job)["details"]}
            if conn.execute(jobs.update().where(held).values(**values)).rowcount != 1:
                return None
            return JobStatus(conn.execute(select(jobs.c.status).where(held)).scalar_one())

    def finish(self, job_id: str, ended: dict[str, Any], server: str, kept: int) -> bool:
        """Write how a job ended (`ended`: its `row_values`), if `server` still holds it; False if another server
        took it over meanwhile."""
        with serialised(self.engine), self.engine.begin() as conn:
            held = (jobs.c.id == job_id) & (jobs.c.leased_by == server)
            values = {**ended, "input": None, "lease_until": None}
            done = conn.execute(jobs.update().where(held).values(**values)).rowcount == 1
            self._forget_old(conn, kept)
            return done

    def fail(self, job_id: str, server: str, error: dict) -> None:
        """Mark a job `server` holds failed, whatever its object says (its run raised past its own handling)."""
        with serialised(self.engine), self.engine.begin() as conn:
            held = (jobs.c.id == job_id) & (jobs.c.leased_by == server)
            values = {"status": JobStatus.FAILED.value, "error": json.dumps(error), "finished_at": time.time()}
            conn.execute(jobs.update().where(held).values(**values, input=None, lease_until=None))

    def release(self, job: J, server: str) -> None:
        """End `server`'s lease of a job it could not finish (draining): another server takes it over at once."""
        with serialised(self.engine), self.engine.begin() as conn:
            held = (jobs.c.id == job.id) & (jobs.c.leased_by == server)
            handed_back = {"lease_until": 0.0, "attempts": jobs.c.attempts - 1}  # not a death: the run is not spent
            conn.execute(jobs.update().where(held).values(**handed_back, details=self.row_values(job)["details"]))
