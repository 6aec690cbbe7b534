"""A document library in PostgreSQL + pgvector (`PgVectorIndex`); its settings are kept with every document.

The tables' full-text column is generated with the library's language, so a library that has no language yet
(see `rqrag.ingest.library`) creates no tables until its first document has decided it: until then it lists
nothing and its retriever finds nothing, and both follow the tables once they exist.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
from typing import TYPE_CHECKING, Any

from rqrag.ingest.library import (
    DEFAULT_NAME,
    PENDING,
    SEARCHABLE,
    VECTORS,
    AddResult,
    DocumentLibrary,
    LibrarySettings,
    Progress,
    _duplicate,
    _normalised,
    content_doc_id,
    resolve_settings,
    upgraded_record,
)
from rqrag.ingest.originals import TableOriginals
from rqrag.retrieval.base import check_qids
from rqrag.retrieval.registry import check_search_mode
from rqrag.retrieval.shared_encoder import SharedEncoder


if TYPE_CHECKING:
    from rqrag.ingest.file_workers import FileWorkers
    from rqrag.ingest.limits import IngestLimits
    from rqrag.retrieval.pgvector_store import PgVectorIndex


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
        self.database_url = database_url
        self.prefix = _table_prefix(name)
        self.location = f"PostgreSQL tables {self.prefix}_*"
        self.originals = TableOriginals(database_url, self.prefix)
        saved = _saved_pg_settings(database_url, self.prefix)
        self.settings = resolve_settings(saved, language, embedding_model, chunking)
        self.encoder = SharedEncoder(self.settings.embedding_model, encoder)
        # None while the library has no language: opening the store would create its tables for a guessed one.
        self.store: PgVectorIndex | None = self._open_store() if self.settings.language else None

    def _open_store(self) -> PgVectorIndex:
        from rqrag.retrieval.pgvector_store import PgVectorIndex

        return PgVectorIndex(
            self.database_url,
            self.encoder,
            language=self.settings.language,
            table_prefix=self.prefix,
            embedding_model=self.settings.embedding_model,
        )

    def _settled_store(self) -> PgVectorIndex | None:
        """The store, or None while the library has no language; a writer elsewhere may have given it one since."""
        if self.store is None:
            saved = _saved_pg_settings(self.database_url, self.prefix)
            if saved is not None and saved.language:
                self.settings = dataclasses.replace(
                    self.settings, language=saved.language, language_source=saved.language_source
                )
                self.store = self._open_store()
        return self.store

    def add(
        self,
        data: bytes,
        filename: str,
        progress: Progress | None = None,
        limits: IngestLimits | None = None,
        workers: FileWorkers | None = None,
    ) -> AddResult:
        doc_id = content_doc_id(data)
        if self._settled_store() is not None and self.store.has_document(doc_id):
            if doc_id in self.store.pending_documents():
                # Stored by an add that died between its two stages (a server killed mid-upload): this add, a job
                # another server took over, finishes it rather than calling it a duplicate of itself.
                if progress:
                    progress(SEARCHABLE, 0, self.get(doc_id)["chunk_count"])  # its words are searchable already
                self._fill_pending(progress, only=doc_id)
                self.originals.keep(doc_id, data)
                return dataclasses.replace(_duplicate(self.get(doc_id)), status="added")
            self.originals.keep(doc_id, data)  # a document added before files were kept gets its file now
            return _duplicate(self.get(doc_id))
        ingested = self._ingest(data, filename, progress, limits, workers)
        language = self._document_language(ingested)
        settled = self._settled_store() is not None
        # No records: the tables' text-search configuration is fixed once made, so a document in another language
        # is only reported; a library without a language takes this one's.
        detected = self._settle_language(ingested, language)
        if not settled:
            self.store = self._open_store()
        self._fill_pending(progress)
        record = self._record(ingested, data, language)
        meta = {**record, "settings": dataclasses.asdict(self.settings), VECTORS: PENDING}
        # The lock tells another server's `_fill_pending` that a live writer is storing this document's vectors.
        self.originals.keep(doc_id, data)  # before the chunks: a searchable document's pages can be shown
        with self._embedding(doc_id, wait=True):
            # Stage 1: the chunks without vectors, found by full-text search as soon as the text is read.
            if not self.store.add_document(meta, ingested.chunks, embeddings=PENDING):
                return _duplicate(self.get(doc_id) or record)  # another writer stored it meanwhile
            try:
                if progress:
                    progress(SEARCHABLE, 0, len(ingested.chunks))
                # Stage 2: the vectors; the dense side finds the document from here on.
                self.store.set_embeddings(doc_id, self._embed(ingested.chunks, progress), metadata_drop=VECTORS)
            except BaseException:
                self.store.remove_document(doc_id)  # cancelled or failed: the library goes back to what it was
                self.originals.forget(doc_id)
                raise
        return AddResult(doc_id, "added", len(ingested.chunks), ingested.name, ingested.page_count, detected, language)

    def _fill_pending(self, progress: Progress | None, only: str | None = None) -> None:
        """Embed the chunks of documents whose add was killed between its two stages (`only`: that one), skipping
        those a live writer is embedding right now (another server's add holds their lock)."""
        for doc_id in [only] if only else self.store.pending_documents():
            with self._embedding(doc_id, wait=only is not None) as mine:
                if not mine or doc_id not in self.store.pending_documents():
                    continue
                chunks = self.store.document_chunks(doc_id)
                logger.info(
                    "%s: embedding %d chunks an interrupted add left without vectors", self.location, len(chunks)
                )
                self.store.set_embeddings(doc_id, self._embed(chunks, progress), metadata_drop=VECTORS)

    @contextlib.contextmanager
    def _embedding(self, doc_id: str, wait: bool):
        """Hold a PostgreSQL advisory lock on `doc_id` while its vectors are computed (yields whether this writer
        holds it; `wait`: block until it does). A session lock: a writer that dies lets go of it with its
        connection, so the document is then anyone's to finish."""
        import psycopg

        key = f"{self.prefix}:{doc_id}"
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            if wait:
                conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
                held = True
            else:
                held = conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (key,)).fetchone()[0]
            yield held

    def remove(self, doc_id: str) -> bool:
        removed = self._settled_store() is not None and self.store.remove_document(doc_id)
        if removed:
            self.originals.forget(doc_id)
        return removed

    def pending(self) -> frozenset[str]:
        """The documents searchable by their words whose vectors are still being computed."""
        return frozenset(self.store.pending_documents()) if self._settled_store() is not None else frozenset()

    def contains(self, doc_id: str) -> bool:
        return self._settled_store() is not None and self.store.has_document(doc_id)

    def list(self) -> list[dict[str, Any]]:
        if self._settled_store() is None:
            return []
        records = []
        for row in self.store.list_documents():
            metadata = {k: v for k, v in row.pop("metadata").items() if k != "settings"}
            records.append(
                upgraded_record({**metadata, **row, "added_at": metadata.get("added_at") or row["created_at"]})
            )
        return records

    def retriever(self, mode: str = "hybrid"):
        if self._settled_store() is None:
            return _UnsettledRetriever(self, mode)
        return self.store.retriever(mode)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


class _UnsettledRetriever:
    """The retriever of a library without a language yet: it finds nothing until a first document has created the
    tables, then searches them (a server makes its retriever once, before any upload)."""

    uses_qids = False

    def __init__(self, library: PgLibrary, mode: str):
        self.library = library
        self.mode = check_search_mode(mode)

    @property
    def name(self) -> str:
        store = self.library._settled_store()
        return store.retriever(self.mode).name if store is not None else f"library:{self.library.prefix}:empty"

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries, k: int = 3, qids=None) -> list[list]:
        import psycopg

        from rqrag.retrieval.base import RetrieverUnavailable

        check_qids(queries, qids)
        try:
            store = self.library._settled_store()
            if store is None:
                return [[] for _ in queries]
            return store.retriever(self.mode).batch_search(list(queries), k=k)
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            # the database went away: the answer says the documents could not be searched; the store
            # reconnects on its next use
            raise RetrieverUnavailable(f"the document database is unavailable: {error}") from None
