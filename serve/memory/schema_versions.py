"""Schema versions of the server's database: which version each store's tables are at, and the steps up.

The conversations (`conversations.py`) and the memories (`store.py`) share one database. A table of its own,
`rqrag_schema`, holds one row per store — `("conversations", 2)`, `("memories", 2)` — and a store upgrades its
tables when it opens (`upgrade`):

* no tables yet: the newest tables are created and the newest version recorded;
* a version recorded: each migration above it runs, in order, and the new version is recorded;
* tables but no version: they were written before versions were kept, by the first schema (version 1), and are
  upgraded from there;
* a version above the newest this code knows (a newer rq-rag wrote it): `SchemaTooNew`, and nothing is touched —
  an older program must not write into tables it does not understand.

A change to a store's tables is one more `Migration` at the end of its list: the version it brings the tables to,
one line saying what changes, and the step, given the open connection (columns are added nullable, so rows
already there need no data moved). The store's `Table` definitions are always the newest version.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Column, Connection, Engine, Float, Integer, MetaData, String, Table, inspect, select
from sqlalchemy.exc import IntegrityError


logger = logging.getLogger(__name__)

FIRST_VERSION = 1  # the tables as the first release wrote them, before versions were kept

_metadata = MetaData()
schema_versions = Table(
    "rqrag_schema",
    _metadata,
    Column("store", String(64), primary_key=True),  # "conversations", "memories"
    Column("version", Integer, nullable=False),
    Column("updated", Float, nullable=False),  # epoch seconds of the last upgrade
)


@dataclass(frozen=True)
class Migration:
    version: int  # the version the tables are at once it ran
    what: str
    step: Callable[[Connection], None]


class SchemaTooNew(RuntimeError):
    """The database's tables are of a newer version than this program knows."""


def newest_version(migrations: Sequence[Migration]) -> int:
    return migrations[-1].version if migrations else FIRST_VERSION


def recorded_version(engine: Engine, store: str) -> int | None:
    """The version recorded for `store`, or None when none is (a new database, or one from before versions)."""
    if not inspect(engine).has_table(schema_versions.name):
        return None
    with engine.connect() as conn:
        return conn.execute(select(schema_versions.c.version).where(schema_versions.c.store == store)).scalar()


def upgrade(engine: Engine, store: str, metadata: MetaData, migrations: Sequence[Migration]) -> int:
    """Bring `store`'s tables (those of `metadata`) to the newest version; returns it. See the module's doc."""
    try:
        return _upgrade(engine, store, metadata, migrations)
    except IntegrityError:  # another process recorded the version between our read and our write: read it again
        return _upgrade(engine, store, metadata, migrations)


def _upgrade(engine: Engine, store: str, metadata: MetaData, migrations: Sequence[Migration]) -> int:
    newest = newest_version(migrations)
    _metadata.create_all(engine)
    with engine.begin() as conn:
        recorded = conn.execute(select(schema_versions.c.version).where(schema_versions.c.store == store)).scalar()
        found = recorded
        if found is not None and found > newest:
            raise SchemaTooNew(
                f"the database at {engine.url.render_as_string(hide_password=True)} holds {store} tables of schema "
                f"version {found}, newer than this rq-rag knows ({newest}): upgrade rq-rag, or use another "
                "database_url"
            )
        if found is None:
            present = set(inspect(conn).get_table_names())
            found = FIRST_VERSION if present & set(metadata.tables) else None
        if found is None:
            metadata.create_all(conn)  # a new database: the newest tables at once
        else:
            for migration in migrations:
                if migration.version > found:
                    logger.info("%s tables: version %d -> %d: %s", store, found, migration.version, migration.what)
                    migration.step(conn)
                    found = migration.version
            metadata.create_all(conn)  # a table added after the first version, if a migration did not create it
        if recorded != newest:
            _record(conn, store, newest)
    return newest


def _record(conn: Connection, store: str, version: int) -> None:
    values = {"version": version, "updated": time.time()}
    done = conn.execute(schema_versions.update().where(schema_versions.c.store == store).values(**values))
    if done.rowcount == 0:
        conn.execute(schema_versions.insert().values(store=store, **values))
