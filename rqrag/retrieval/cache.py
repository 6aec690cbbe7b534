"""An on-disk cache in front of any retriever, so re-running a stage never repeats a search.

Entries live in SQLite keyed by (retriever name, query, qid, k) and hold the hits as JSON. The qid part is
left empty for global retrievers (`uses_qids = False`: corpus, web), whose answer to a query is the same
for every question; only the candidates retriever keys entries per question. The database runs in WAL
mode with a busy timeout, so several processes (data-building workers, an evaluation running next to a
server) can read and write the same file at once. The retriever's `name` is its fingerprint: each backend
folds its corpus (and model) into it, so two indexes never share entries.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rqrag.retrieval.base import Hit, Retriever, check_qids


_SCHEMA = """
CREATE TABLE IF NOT EXISTS search_cache (
    retriever TEXT NOT NULL,
    query TEXT NOT NULL,
    qid TEXT NOT NULL,
    k INTEGER NOT NULL,
    hits TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (retriever, query, qid, k)
)
"""


class CachedRetriever:
    """Wrap `inner`; `batch_search` answers from the cache and sends only the distinct misses to `inner`, once.

    `hits` and `misses` count cache lookups (one per query, duplicates within a batch included), and
    `inner_calls` counts calls made to the inner retriever.
    """

    def __init__(self, inner: Retriever, path: str | os.PathLike, namespace: str | None = None):
        self.inner = inner
        self.path = Path(path)
        self.namespace = namespace
        self.hits = 0
        self.misses = 0
        self.inner_calls = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by threads (guarded by a lock); other processes get their own.
        self._conn = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            self._conn.commit()

    @property
    def name(self) -> str:
        return self.namespace or self.inner.name

    @property
    def keys_on_qid(self) -> bool:
        """Whether entries are per question: only for retrievers whose results depend on the qid (candidates)."""
        return self.inner.uses_qids

    @property
    def uses_qids(self) -> bool:
        return self.keys_on_qid

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> CachedRetriever:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, qids=None if qid is None else [qid])[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        check_qids(queries, qids)
        if not self.keys_on_qid:
            qids = None  # a global retriever answers the same query identically for every question
        keys = [(query, "" if qids is None or qids[i] is None else str(qids[i])) for i, query in enumerate(queries)]
        found = self._lookup(set(keys), k)
        self.hits += sum(1 for key in keys if key in found)
        self.misses += sum(1 for key in keys if key not in found)

        misses = list(dict.fromkeys(key for key in keys if key not in found))  # distinct, in first-seen order
        if misses:
            miss_queries = [query for query, _ in misses]
            miss_qids = None if qids is None else [qid for _, qid in misses]
            self.inner_calls += 1
            fresh = self.inner.batch_search(miss_queries, k=k, qids=miss_qids)
            found.update(zip(misses, fresh))
            self._store(dict(zip(misses, fresh)), k)
        return [list(found[key]) for key in keys]

    def _lookup(self, keys: set[tuple[str, str]], k: int) -> dict[tuple[str, str], list[Hit]]:
        found: dict[tuple[str, str], list[Hit]] = {}
        name = self.name  # hashes the inner corpus: compute once per batch, not per query
        with self._lock:
            cursor = self._conn.cursor()
            for query, qid in keys:
                row = cursor.execute(
                    "SELECT hits FROM search_cache WHERE retriever = ? AND query = ? AND qid = ? AND k = ?",
                    (name, query, qid, k),
                ).fetchone()
                if row is not None:
                    found[(query, qid)] = [Hit.from_dict(d) for d in json.loads(row[0])]
        return found

    def _store(self, entries: dict[tuple[str, str], list[Hit]], k: int) -> None:
        now, name = time.time(), self.name
        rows = [
            (name, query, qid, k, json.dumps([h.to_dict() for h in hits], ensure_ascii=False), now)
            for (query, qid), hits in entries.items()
        ]
        with self._lock, self._conn:  # the connection as context manager commits the transaction
            self._conn.executemany("INSERT OR REPLACE INTO search_cache VALUES (?, ?, ?, ?, ?, ?)", rows)

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute(
                "SELECT COUNT(*) FROM search_cache WHERE retriever = ?", (self.name,)
            ).fetchone()[0]
