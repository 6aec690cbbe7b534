"""A document library in PostgreSQL + pgvector (`PgVectorIndex`); its settings are kept with every document."""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Any

from rqrag.ingest.library import (
    DEFAULT_NAME,
    AddResult,
    DocumentLibrary,
    LibrarySettings,
    Progress,
    SharedEncoder,
    _duplicate,
    _normalised,
    content_doc_id,
    resolve_settings,
)


logger = logging.getLogger(__name__)


def _table_prefix(name: str) -> str:
    cleaned = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or DEFAULT_NAME
    return f"rqrag_docs_{cleaned}"[:40]


def _saved_pg_settings(database_url: str, prefix: str) -> LibrarySettings | None:
    """The settings stored with the first document of a PostgreSQL library, read before opening its store (which
    needs the language and the embedding model to check its tables)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(database_url, autocommit=True) as conn:
        table = f"{prefix}_documents"
        if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None:
            return None
        query = sql.SQL("SELECT metadata->'settings' FROM {} ORDER BY created_at LIMIT 1").format(
            sql.Identifier(table)
        )
        row = conn.execute(query).fetchone()
    return _normalised(LibrarySettings(**row[0])) if row and row[0] else None


class PgLibrary(DocumentLibrary):
    """The same library in PostgreSQL + pgvector (`PgVectorIndex`); the settings are kept with every document."""

    def __init__(self, database_url: str, name: str = DEFAULT_NAME, *, language=None, embedding_model=None,
                 chunking=None, encoder=None):  # fmt: skip
        from rqrag.retrieval.pgvector_store import PgVectorIndex

        prefix = _table_prefix(name)
        self.location = f"PostgreSQL tables {prefix}_*"
        saved = _saved_pg_settings(database_url, prefix)
        self.settings = resolve_settings(saved, language, embedding_model, chunking)
        self.encoder = SharedEncoder(self.settings.embedding_model, encoder)
        self.store = PgVectorIndex(
            database_url,
            self.encoder,
            language=self.settings.language,
            table_prefix=prefix,
            embedding_model=self.settings.embedding_model,
        )

    def add(self, data: bytes, filename: str, progress: Progress | None = None) -> AddResult:
        doc_id = content_doc_id(data)
        if self.store.has_document(doc_id):
            return _duplicate(self.get(doc_id))
        ingested = self._ingest(data, filename, progress)
        vectors = self._embed(ingested.chunks, progress)
        record = self._record(ingested, data)
        meta = {**record, "settings": dataclasses.asdict(self.settings)}
        if not self.store.add_document(meta, ingested.chunks, embeddings=vectors):
            return _duplicate(self.get(doc_id) or record)  # another writer stored it meanwhile
        return AddResult(doc_id, "added", len(ingested.chunks), ingested.name, ingested.page_count)

    def remove(self, doc_id: str) -> bool:
        return self.store.remove_document(doc_id)

    def contains(self, doc_id: str) -> bool:
        return self.store.has_document(doc_id)

    def list(self) -> list[dict[str, Any]]:
        records = []
        for row in self.store.list_documents():
            metadata = {k: v for k, v in row.pop("metadata").items() if k != "settings"}
            records.append({**metadata, **row, "added_at": metadata.get("added_at") or row["created_at"]})
        return records

    def retriever(self, mode: str = "hybrid"):
        return self.store.retriever(mode)

    def close(self) -> None:
        self.store.close()
