"""Per-user limits that hold for the whole deployment: every server counts each user's questions in one table.

    limits = DeploymentLimits("postgresql+psycopg://...", max_per_user=16, lease_s=30)
    with limits.holding("ana", questions=1):      # Busy (429) when ana already has 16 in flight on any server
        ...answer...
    limits.elsewhere()                             # {"ana": 3}: her questions in flight on the other servers

Each question in flight is a row of `rqrag_questions_in_flight` (user, server, lease) for as long as it is answered,
in the database `rqrag serve --database_url` names: on one machine the servers' own counts already hold, with
replicas over one PostgreSQL the limit is the deployment's, not each process's (two servers would otherwise let a
user have twice the limit in flight). The count and the insert are one transaction under a per-user advisory lock,
so two servers admitting the same user at once cannot both slip under the limit. A server that dies leaves its rows
behind; each server renews its rows' lease every `lease_s / 4` seconds, and rows whose lease ran out no longer count.

`elsewhere()` is what the tree scheduler's flood rule adds to its own counts (`serve/tree_scheduler.py`): a user
with `flood_questions` in flight across the deployment is a flood on every server, not only on the one that holds
most of them. It is refreshed with the leases, so it is at most `lease_s / 4` seconds old.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Iterator

from sqlalchemy import Column, Float, MetaData, String, Table, delete, func, select, update

from rqrag.serve.database import create_tables, is_postgres, open_engine, serialised
from rqrag.serve.documents.job_queue import server_id
from rqrag.serve.errors import Busy


logger = logging.getLogger(__name__)

metadata = MetaData()
in_flight = Table(
    "rqrag_questions_in_flight",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("user_id", String(128), nullable=False, index=True),
    Column("server", String(128), nullable=False, index=True),
    Column("started_at", Float, nullable=False),
    Column("lease_until", Float, nullable=False),
)


class DeploymentLimits:
    def __init__(self, database_url: str | None, max_per_user: int, lease_s: float = 30.0, server: str | None = None):
        self.engine = open_engine(database_url)
        self.max_per_user = max_per_user
        self.lease_s = lease_s
        self.server = server or server_id()
        self._elsewhere: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        create_tables(self.engine, metadata)

    @contextlib.contextmanager
    def holding(self, user: str | None, questions: int = 1) -> Iterator[None]:
        """Count `questions` of `user`'s in flight for as long as the block runs; `Busy` if that would pass the
        limit across the deployment."""
        user = user or ""
        ids = [uuid.uuid4().hex for _ in range(questions)]
        now = time.time()
        with serialised(self.engine), self.engine.begin() as conn:
            if is_postgres(self.engine):
                conn.execute(select(func.pg_advisory_xact_lock(func.hashtext(f"rqrag_user:{user}"))))
            live = (in_flight.c.user_id == user) & (in_flight.c.lease_until > now)
            count = conn.execute(select(func.count()).select_from(in_flight).where(live)).scalar_one()
            if count + questions > self.max_per_user:
                raise Busy(
                    f"{count} questions of yours are already being answered (at most {self.max_per_user} at once, "
                    "on all servers together); ask again when one is done",
                    code="too_many_questions_for_user",
                )
            rows = [
                {"id": i, "user_id": user, "server": self.server, "started_at": now, "lease_until": now + self.lease_s}
                for i in ids
            ]
            conn.execute(in_flight.insert(), rows)
        try:
            yield
        finally:
            try:
                with serialised(self.engine), self.engine.begin() as conn:
                    conn.execute(delete(in_flight).where(in_flight.c.id.in_(ids)))
            except Exception:  # the database away: the rows' lease runs out, and they stop counting then
                logger.warning("could not clear %d questions of %r in flight", len(ids), user, exc_info=True)

    def elsewhere(self) -> dict[str, int]:
        """Each user's questions in flight on the other servers (as of the last heartbeat)."""
        return self._elsewhere

    def refresh(self) -> None:
        """Renew this server's leases, drop rows whose lease ran out, and count the others' questions."""
        now = time.time()
        with serialised(self.engine), self.engine.begin() as conn:
            mine = in_flight.c.server == self.server
            conn.execute(update(in_flight).where(mine).values(lease_until=now + self.lease_s))
            conn.execute(delete(in_flight).where(in_flight.c.lease_until < now - self.lease_s))
            counts = select(in_flight.c.user_id, func.count()).where(~mine, in_flight.c.lease_until > now)
            self._elsewhere = dict(conn.execute(counts.group_by(in_flight.c.user_id)).all())

    def start(self) -> None:
        def beat():
            while not self._stop.wait(self.lease_s / 4):
                try:
                    self.refresh()
                except Exception:
                    logger.warning("could not renew the questions in flight", exc_info=True)

        self._thread = threading.Thread(target=beat, name="rqrag-limits-heartbeat", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
