"""The files as they were uploaded, kept beside a library's chunks, one per document under its id.

    originals = FolderOriginals(Path("libraries/manuals.originals"))   # a local library's
    originals = TableOriginals(database_url, "rqrag_lib_manuals")       # a PostgreSQL library's: every replica's
    originals.keep(doc_id, data); originals.get(doc_id); originals.forget(doc_id)

The source viewer renders a cited PDF page from its file (`rqrag.ingest.page_image`), and a reader downloads what
a citation points into. A document added before files were kept has none (`get` is None) until it is uploaded
again. Keeping is idempotent: a retried upload job keeps the same bytes under the same id once.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


class FolderOriginals:
    """Files in a folder beside a local library (not inside it: a new version of the library is swapped in whole,
    and the files must not be copied into each)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def get(self, doc_id: str) -> bytes | None:
        path = self.folder / doc_id
        return path.read_bytes() if doc_id.isalnum() and path.is_file() else None

    def keep(self, doc_id: str, data: bytes) -> None:
        path = self.folder / doc_id
        if path.is_file():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self.folder / f".{doc_id}.{os.getpid()}.{threading.get_ident()}.partial"
        partial.write_bytes(data)
        os.replace(partial, path)  # whole or absent: a killed write leaves a .partial, never a torn file

    def forget(self, doc_id: str) -> None:
        (self.folder / doc_id).unlink(missing_ok=True)


class TableOriginals:
    """Files in a table of the library's PostgreSQL database (`{prefix}_originals`), so every replica serves them."""

    def __init__(self, database_url: str, prefix: str):
        from psycopg import sql

        self.database_url = database_url
        self.table = sql.Identifier(f"{prefix}_originals")
        self._made = False

    def _connect(self):
        import psycopg
        from psycopg import sql

        conn = psycopg.connect(self.database_url, autocommit=True)
        if not self._made:
            conn.execute(
                sql.SQL("CREATE TABLE IF NOT EXISTS {} (doc_id text PRIMARY KEY, data bytea NOT NULL)").format(
                    self.table
                )
            )
            self._made = True
        return conn

    def get(self, doc_id: str) -> bytes | None:
        from psycopg import sql

        with self._connect() as conn:
            row = conn.execute(sql.SQL("SELECT data FROM {} WHERE doc_id = %s").format(self.table), (doc_id,))
            found = row.fetchone()
        return bytes(found[0]) if found else None

    def keep(self, doc_id: str, data: bytes) -> None:
        from psycopg import sql

        with self._connect() as conn:
            query = sql.SQL("INSERT INTO {} (doc_id, data) VALUES (%s, %s) ON CONFLICT (doc_id) DO NOTHING")
            conn.execute(query.format(self.table), (doc_id, data))

    def forget(self, doc_id: str) -> None:
        from psycopg import sql

        with self._connect() as conn:
            conn.execute(sql.SQL("DELETE FROM {} WHERE doc_id = %s").format(self.table), (doc_id,))
