"""The passages of a large index on disk, read back by row number: a SQLite table instead of a list in memory.

A Wikipedia-size corpus (21M passages, ~13 GB of text) does not fit in memory the way `docs.jsonl` of a small
index does. Row i of the docstore is vector i of the FAISS index, so a search reads only the rows of its hits.

    docs(row INTEGER PRIMARY KEY, docid TEXT, title TEXT, text TEXT, extra TEXT)    -- extra: JSON object

Rows are written a shard at a time, in one transaction, with `INSERT OR IGNORE`: a shard written again after a
crash adds nothing, so every row is there exactly once however often a build is resumed. Several processes
(one per GPU) may write their shards at once; SQLite's file lock serialises them and `timeout` lets a writer
wait its turn instead of failing.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from rqrag.retrieval.passages import Passage


DOCSTORE_FILE = "docstore.sqlite"
# Seconds a writer waits for another process's transaction to finish before giving up.
LOCK_TIMEOUT_S = 600.0
# SQLite's limit on the parameters of one statement is 32766 in current builds; stay well under it.
ROWS_PER_QUERY = 900


class Docstore:
    """Random access to the passages of a streamed index, by row number."""

    def __init__(self, path: str | os.PathLike, *, readonly: bool = False):
        self.path = Path(path)
        if readonly:
            if not self.path.is_file():
                raise FileNotFoundError(f"no docstore at {self.path}")
            # Read-only URI: a search never creates, locks for writing, or journals the file.
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        else:
            self._db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_S, check_same_thread=False)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS docs "
                "(row INTEGER PRIMARY KEY, docid TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL, extra TEXT)"
            )
            self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Docstore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def write_rows(self, first_row: int, passages: Sequence[Passage]) -> int:
        """Store `passages` as rows first_row, first_row + 1, ... in one transaction; rows already there are
        left as they are. Returns how many rows were new."""
        records = [
            (first_row + i, d.docid, d.title, d.text, json.dumps(d.extra, ensure_ascii=False) if d.extra else None)
            for i, d in enumerate(passages)
        ]
        with self._db:  # one transaction: all of the shard's rows, or none of them
            before = self._db.total_changes
            self._db.executemany("INSERT OR IGNORE INTO docs VALUES (?, ?, ?, ?, ?)", records)
            return self._db.total_changes - before

    def passages(self, rows: Iterable[int]) -> dict[int, Passage]:
        """The passages at `rows` (row -> passage); a row that is not stored is absent from the result."""
        wanted = sorted({int(r) for r in rows})
        found: dict[int, Passage] = {}
        for start in range(0, len(wanted), ROWS_PER_QUERY):
            chunk = wanted[start : start + ROWS_PER_QUERY]
            placeholders = ",".join("?" * len(chunk))
            for row, docid, title, text, extra in self._db.execute(
                f"SELECT row, docid, title, text, extra FROM docs WHERE row IN ({placeholders})", chunk
            ):
                found[row] = Passage(docid=docid, title=title, text=text, extra=json.loads(extra) if extra else {})
        return found

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM docs").fetchone()[0])

    def row_range(self) -> tuple[int, int] | None:
        """(smallest, largest) row stored, or None when empty: with `count` it tells whether rows are 0..n-1."""
        low, high = self._db.execute("SELECT MIN(row), MAX(row) FROM docs").fetchone()
        return None if low is None else (int(low), int(high))
