"""The server's database connections: one SQLAlchemy engine per URL, made the same way for every store.

    engine = open_engine("sqlite:///runs/serve/conversations.db")     # one machine (the default)
    engine = open_engine("postgresql+psycopg://rqrag@db/rqrag")        # replicas share it (docs/scale.md)
    engine = open_engine(None)                                         # a private in-memory SQLite (tests)

Conversations, memories, the job queue, the users and the deployment-wide limits all live in the database that
`rqrag serve --database_url` names, so that servers sharing one PostgreSQL share every piece of state. Engines
pre-ping their connections: after a database restart a dropped connection is replaced before use, not failed on.
An in-memory SQLite database exists only inside its one connection, so that engine keeps exactly one (StaticPool)
and its users serialise their transactions (`serialised`).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool


_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()
_memory_lock = threading.RLock()


def is_postgres(engine_or_url: Engine | str) -> bool:
    url = engine_or_url.url if isinstance(engine_or_url, Engine) else make_url(engine_or_url)
    return url.get_backend_name() == "postgresql"


def open_engine(url: str | None) -> Engine:
    """The engine of `url`, made once per process (None: a new private in-memory SQLite database)."""
    if url is None or url in ("sqlite://", "sqlite:///:memory:"):
        return create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
    with _engines_lock:
        if url not in _engines:
            parsed = make_url(url)
            if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
                Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            _engines[url] = create_engine(url, future=True, pool_pre_ping=True)
        return _engines[url]


@contextlib.contextmanager
def serialised(engine: Engine):
    """Hold a process-wide lock for an in-memory SQLite engine (one connection shared by threads); nothing for
    a file or a server database, whose own locking orders the transactions."""
    if isinstance(engine.pool, StaticPool):
        with _memory_lock:
            yield
    else:
        yield


def database_answers(url: str | None) -> None:
    """Run `SELECT 1` on `url`'s database (raises when it does not answer): the server's readiness check."""
    from sqlalchemy import text

    engine = open_engine(url)
    with serialised(engine), engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def create_tables(engine: Engine, metadata) -> None:
    """`metadata.create_all`, safe when several servers start at once on one PostgreSQL: the loser of a race to
    create a table sees it exist on its second try."""
    from sqlalchemy.exc import IntegrityError, ProgrammingError

    for attempt in range(3):
        try:
            with serialised(engine):
                metadata.create_all(engine, checkfirst=True)
            return
        except (IntegrityError, ProgrammingError):
            if attempt == 2:
                raise
