"""Conversations of `/v1/ask`, persisted so a follow-up sees earlier turns — across server restarts too.

SQLite by default (`sqlite:///runs/serve/conversations.db`); any SQLAlchemy database URL works, e.g.
`postgresql+psycopg://user@host/rqrag` for several server processes sharing one store.

    store = ConversationStore("sqlite:///conversations.db")
    cid = store.new_conversation()
    store.append_exchange(cid, "Who directed Titanic?", "James Cameron", sources=[...])
    store.messages(cid)   # [{"role": "user", ...}, {"role": "assistant", "content": "James Cameron"}]
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from sqlalchemy import Column, Float, ForeignKey, Integer, MetaData, String, Table, Text, create_engine, select
from sqlalchemy.engine import make_url


metadata = MetaData()

conversations = Table(
    "conversations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("created", Float, nullable=False),
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
)


class UnknownConversation(KeyError):
    """A conversation id the store has never issued."""


class ConversationStore:
    def __init__(self, url: str):
        parsed = make_url(url)
        if parsed.drivername.startswith("sqlite") and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.engine = create_engine(url, future=True)
        metadata.create_all(self.engine)

    def new_conversation(self) -> str:
        cid = uuid.uuid4().hex
        with self.engine.begin() as conn:
            conn.execute(conversations.insert().values(id=cid, created=time.time()))
        return cid

    def exists(self, cid: str) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(select(conversations.c.id).where(conversations.c.id == cid)).first() is not None

    def messages(self, cid: str) -> list[dict]:
        """The conversation's turns in order, as chat messages."""
        if not self.exists(cid):
            raise UnknownConversation(cid)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(turns.c.role, turns.c.content).where(turns.c.conversation_id == cid).order_by(turns.c.id)
            ).all()
        return [{"role": role, "content": content} for role, content in rows]

    def append_exchange(self, cid: str, question: str, answer: str, sources: list[dict]) -> None:
        """Store a question and its answer together, so a failed request never leaves half an exchange."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                turns.insert(),
                [
                    {"conversation_id": cid, "role": "user", "content": question, "sources": None, "created": now},
                    {
                        "conversation_id": cid,
                        "role": "assistant",
                        "content": answer,
                        "sources": json.dumps(sources),
                        "created": now,
                    },
                ],
            )

    def close(self) -> None:
        self.engine.dispose()
