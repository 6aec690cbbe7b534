"""Conversations of `/v1/ask` and the chat page, persisted so a follow-up sees earlier turns — across server
restarts too — and scoped to the user who had them.

SQLite by default (`sqlite:///runs/serve/conversations.db`); any SQLAlchemy database URL works, e.g.
`postgresql+psycopg://user@host/rqrag` for several server processes sharing one store. The episodic memories
(`serve/memory/store.py`) live in the same database. The tables' version is recorded in the database and a
store written by an older version is upgraded when it opens (`schema_versions.py`; the steps are `MIGRATIONS`).

    store = ConversationStore("sqlite:///conversations.db")
    cid = store.new_conversation(user_id="ana", title="Who directed Titanic?")
    store.append_exchange(cid, "Who directed Titanic?", "James Cameron", sources=[...], trajectory=[...])
    store.messages(cid, user_id="ana")   # [{"role": "user", ...}, {"role": "assistant", "content": "James Cameron"}]
    store.list_conversations("ana")       # newest first, with title and number of turns
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import make_url

from rqrag.serve.memory.schema_versions import Migration, upgrade


metadata = MetaData()

conversations = Table(
    "conversations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("created", Float, nullable=False),
    # Added with the chat page (schema version 2, `MIGRATIONS`).
    Column("user_id", String(128), nullable=True, index=True),
    Column("title", Text, nullable=True),
    Column("updated", Float, nullable=True),
)

turns = Table(
    "turns",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conversation_id", String(64), ForeignKey("conversations.id"), nullable=False, index=True),
    Column("role", String(16), nullable=False),
    Column("content", Text, nullable=False),
    Column("sources", Text, nullable=True),  # JSON list of the evidence an assistant turn used
    Column("created", Float, nullable=False),
    Column("trajectory", Text, nullable=True),  # JSON list of the steps of the selected trajectory
)

DEFAULT_USER = "default"  # requests that name no user (a single-user server)


class UnknownConversation(KeyError):
    """A conversation id the store has never issued, or one of another user's (the two look the same)."""


class ConversationStore:
    def __init__(self, url: str):
        parsed = make_url(url)
        if parsed.drivername.startswith("sqlite") and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.url = url
        # pre-ping: a connection the database dropped (a restart) is replaced before use, not failed on
        self.engine = create_engine(url, future=True, pool_pre_ping=True)
        self.schema_version = upgrade(self.engine, "conversations", metadata, MIGRATIONS)

    def new_conversation(self, user_id: str = DEFAULT_USER, title: str = "", cid: str | None = None) -> str:
        cid = cid or uuid.uuid4().hex
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                conversations.insert().values(id=cid, created=now, updated=now, user_id=user_id, title=title[:200])
            )
        return cid

    def owner(self, cid: str) -> str | None:
        """The user a conversation belongs to (rows from before users existed belong to `DEFAULT_USER`)."""
        return self._row(cid)[0] or DEFAULT_USER

    def title(self, cid: str, user_id: str | None = DEFAULT_USER) -> str:
        """The conversation's title (its first question), for its owner only."""
        self._check(cid, user_id)
        return self._row(cid)[1] or ""

    def _row(self, cid: str):
        with self.engine.connect() as conn:
            row = conn.execute(
                select(conversations.c.user_id, conversations.c.title).where(conversations.c.id == cid)
            ).first()
        if row is None:
            raise UnknownConversation(cid)
        return row

    def exists(self, cid: str) -> bool:
        try:
            self.owner(cid)
        except UnknownConversation:
            return False
        return True

    def _check(self, cid: str, user_id: str | None) -> None:
        if self.owner(cid) != (user_id or DEFAULT_USER):
            raise UnknownConversation(cid)  # another user's conversation is not theirs to see, or to know of

    def messages(self, cid: str, user_id: str | None = DEFAULT_USER) -> list[dict]:
        """The conversation's turns in order, as chat messages."""
        return [{"role": t["role"], "content": t["content"]} for t in self.turns(cid, user_id)]

    def turns(self, cid: str, user_id: str | None = DEFAULT_USER) -> list[dict]:
        """The conversation's turns with the sources and trajectory of each answer (the chat page's view)."""
        self._check(cid, user_id)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(turns.c.role, turns.c.content, turns.c.sources, turns.c.trajectory, turns.c.created)
                .where(turns.c.conversation_id == cid)
                .order_by(turns.c.id)
            ).all()
        return [
            {
                "role": role,
                "content": content,
                "sources": [_passage(s) for s in json.loads(sources)] if sources else None,
                "trajectory": [_step(s) for s in json.loads(trajectory)] if trajectory else None,
                "created": created,
            }
            for role, content, sources, trajectory, created in rows
        ]

    def list_conversations(self, user_id: str = DEFAULT_USER, limit: int = 200) -> list[dict]:
        """The user's conversations, most recently updated first."""
        count = select(func.count()).where(turns.c.conversation_id == conversations.c.id).scalar_subquery()
        query = (
            select(conversations.c.id, conversations.c.title, conversations.c.created, conversations.c.updated, count)
            .where(func.coalesce(conversations.c.user_id, DEFAULT_USER) == user_id)
            .order_by(func.coalesce(conversations.c.updated, conversations.c.created).desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            {"id": cid, "title": title or "", "created": created, "updated": updated or created, "turns": n}
            for cid, title, created, updated, n in rows
        ]

    def append_exchange(
        self, cid: str, question: str, answer: str, sources: list[dict], trajectory: list[dict] | None = None
    ) -> None:
        """Store a question and its answer together, so a failed request never leaves half an exchange."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                turns.insert(),
                [
                    # Every row names every column: an executemany takes its columns from the first row.
                    {
                        "conversation_id": cid,
                        "role": "user",
                        "content": question,
                        "sources": None,
                        "trajectory": None,
                        "created": now,
                    },
                    {
                        "conversation_id": cid,
                        "role": "assistant",
                        "content": answer,
                        "sources": json.dumps(sources, ensure_ascii=False),
                        "trajectory": json.dumps(trajectory, ensure_ascii=False) if trajectory is not None else None,
                        "created": now,
                    },
                ],
            )
            conn.execute(conversations.update().where(conversations.c.id == cid).values(updated=now))

    def forget_user(self, user_id: str) -> int:
        """Delete every conversation of `user_id` with its turns; returns how many conversations went."""
        mine = select(conversations.c.id).where(conversations.c.user_id == user_id)
        with self.engine.begin() as conn:
            conn.execute(turns.delete().where(turns.c.conversation_id.in_(mine)))
            return conn.execute(conversations.delete().where(conversations.c.user_id == user_id)).rowcount

    def close(self) -> None:
        self.engine.dispose()


def conversation_window(history: list[dict], limit: int) -> list[dict]:
    """The last `limit` messages of a stored conversation, starting at a user turn (never a dangling reply).

    A long conversation keeps going with its most recent turns as context instead of being refused.
    """
    window = history[max(0, len(history) - limit) :] if limit > 0 else []
    while window and window[0]["role"] != "user":
        window = window[1:]
    return window


def _passage(source: dict) -> dict:
    """A stored source or evidence item under today's keys: turns saved before the rename say where a passage
    comes from (a memory) as `kind`, now `origin`."""
    if "kind" in source and "origin" not in source:
        return {("origin" if key == "kind" else key): value for key, value in source.items()}
    return source


def _step(step: dict) -> dict:
    return {**step, "evidence": [_passage(e) for e in step["evidence"]]} if step.get("evidence") else step


def _add_chat_page_columns(conn: Connection) -> None:
    """Version 2: a conversation's owner, title and last update; an answer's trajectory. A store between versions
    may hold some of them already (the code before versions added whatever was missing on every start)."""
    for table, name in (("conversations", "user_id"), ("conversations", "title"), ("conversations", "updated"),
                        ("turns", "trajectory")):  # fmt: skip
        if name not in {column["name"] for column in inspect(conn).get_columns(table)}:
            column_type = metadata.tables[table].c[name].type.compile(dialect=conn.dialect)
            conn.execute(text(f'ALTER TABLE {table} ADD COLUMN "{name}" {column_type}'))
    for index in conversations.indexes:  # the owner's index, which listing a user's conversations reads
        index.create(conn, checkfirst=True)


# The steps from the first schema (conversations: id, created; turns: id, conversation_id, role, content, sources,
# created) to the newest, which the `Table`s above define; see `schema_versions.py`.
MIGRATIONS = [
    Migration(2, "the chat page: conversations.user_id, title, updated; turns.trajectory", _add_chat_page_columns)
]
