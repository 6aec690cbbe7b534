"""Where the users document is kept: a file on one machine, or a row of the database every server shares.

    storage = users_storage("users.json")                                 # a file (one machine)
    storage = users_storage("postgresql+psycopg://rqrag@db/rqrag")        # replicas: one row in PostgreSQL
    storage.stamp()              # changes whenever the document changes (None: there is none yet)
    storage.read()               # the document's text
    with storage.editing() as write:   # serialised with every other writer, on any machine
        write(new_text)

`UserFile` (`serve/users.py`) keeps the document's format, its checks and its keys' hashes; this module only keeps
its bytes. A database URL (anything with `://`) keeps the same JSON in the one row of `rqrag_users`, with a version
number that each write raises: a server compares it on each request, as it compares a file's modification time, so
a user added or removed through any server, or with `rqrag users add NAME --file URL`, counts on every server at
its next request. Writers take the row's lock (`SELECT ... FOR UPDATE`), as file writers take the lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, Text, select

from rqrag.serve.database import create_tables, open_engine, serialised


metadata = MetaData()
users_document = Table(
    "rqrag_users",
    metadata,
    Column("id", Integer, primary_key=True),  # always 1: one document
    Column("version", Integer, nullable=False),
    Column("document", Text, nullable=False),
)


def users_storage(where: str | os.PathLike):
    """A database URL (with `://`) or a file path."""
    return TableStorage(str(where)) if "://" in str(where) else FileStorage(where)


class FileStorage:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        self.where = f"users file {self.path}"

    def stamp(self) -> tuple | None:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def read(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @contextlib.contextmanager
    def editing(self) -> Iterator[Callable[[str], None]]:
        """Under the lock file: `write(text)` replaces the file atomically, readable by its owner only."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield self._write

    def _write(self, text: str) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class TableStorage:
    def __init__(self, url: str):
        self.engine = open_engine(url)
        self.where = f"users table rqrag_users in {self.engine.url.render_as_string(hide_password=True)}"
        create_tables(self.engine, metadata)

    def stamp(self) -> int | None:
        with serialised(self.engine), self.engine.connect() as conn:
            return conn.execute(select(users_document.c.version).where(users_document.c.id == 1)).scalar()

    def read(self) -> str:
        with serialised(self.engine), self.engine.connect() as conn:
            text = conn.execute(select(users_document.c.document).where(users_document.c.id == 1)).scalar()
        if text is None:
            raise FileNotFoundError(self.where)
        return text

    @contextlib.contextmanager
    def editing(self) -> Iterator[Callable[[str], None]]:
        """In one transaction holding the row's lock: `write(text)` replaces the document and raises its version."""
        with serialised(self.engine), self.engine.begin() as conn:
            row = users_document.c.id == 1
            version = conn.execute(select(users_document.c.version).where(row).with_for_update()).scalar()
            if version is None:  # the first user: make the row (two first writers: one insert fails, retried)
                conn.execute(users_document.insert().values(id=1, version=0, document=""))
                version = 0

            def write(text: str) -> None:
                conn.execute(users_document.update().where(row).values(version=version + 1, document=text))

            yield write
