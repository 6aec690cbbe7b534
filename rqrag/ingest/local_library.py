"""A document library in a local folder: a `CorpusIndex` plus `documents.json`, updated atomically, never
re-embedding what is already indexed (see `rqrag.ingest.library` for the whole design)."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rqrag.ingest.library import (
    CATALOG_FILE,
    FORMAT_VERSION,
    PENDING,
    SEARCHABLE,
    VECTORS,
    AddResult,
    DocumentLibrary,
    LibraryError,
    LibrarySettings,
    Progress,
    _duplicate,
    _now,
    _settings_of,
    content_doc_id,
    resolve_settings,
    upgraded_record,
)
from rqrag.ingest.originals import FolderOriginals
from rqrag.ingest.pending_search import HybridWhilePending, WithoutPending
from rqrag.retrieval.atomic_dir import is_retired, leftovers, staging, swap_in
from rqrag.retrieval.base import Hit, check_qids
from rqrag.retrieval.citations import doc_id_of
from rqrag.retrieval.registry import INDEX_MODES, check_search_mode
from rqrag.retrieval.shared_encoder import SharedEncoder


if TYPE_CHECKING:
    from rqrag.ingest.file_workers import FileWorkers
    from rqrag.ingest.limits import IngestLimits


logger = logging.getLogger(__name__)


@dataclass
class _Version:
    """One committed state of a local library: what searches read while a writer prepares the next."""

    stamp: tuple[int, int] | None  # (inode, mtime) of documents.json: a swap gives it a new inode
    records: dict[str, dict[str, Any]]
    index: Any = None  # the CorpusIndex, once loaded (None also while the library has no documents)
    chunks: dict[str, Any] | None = None  # chunk docid -> Document (for the page spans of hits); None: not loaded


class LocalLibrary(DocumentLibrary):
    def __init__(self, path: str | os.PathLike, *, language=None, embedding_model=None, chunking=None, encoder=None):
        self.path = Path(path)
        self.location = str(self.path)
        self.originals = FolderOriginals(self.path.with_name(f"{self.path.name}.originals"))
        self._write_lock = threading.Lock()  # one writer per process; the file lock orders processes
        self._version_lock = threading.Lock()
        self._recover_if_abandoned()
        saved = _read_catalog(self.path)
        self.settings = resolve_settings(_settings_of(saved) if saved else None, language, embedding_model, chunking)
        self.encoder = SharedEncoder(self.settings.embedding_model, encoder)
        self._version = _Version(None, {})
        self._refresh()

    @property
    def exists(self) -> bool:
        return (self.path / CATALOG_FILE).is_file()

    @property
    def lock_path(self) -> str:
        return str(self.path) + ".lock"

    # ----------------------------------------------------------------- reading

    def _stamp(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.path / CATALOG_FILE)
        except FileNotFoundError:
            return None
        return info.st_ino, info.st_mtime_ns

    def _refresh(self, with_index: bool = False) -> _Version:
        """The current version (its index loaded if asked), reloaded if a writer anywhere committed a new one."""
        version = self._version
        stamp = self._stamp()
        stale = stamp is not None and stamp != version.stamp  # None: mid-swap; the loaded version is consistent
        if not stale and (version.chunks is not None or not with_index):
            return version
        with self._version_lock:
            if self._stamp() != self._version.stamp or (with_index and self._version.chunks is None):
                self._version = self._load_version(with_index)
            return self._version

    def _load_version(self, with_index: bool) -> _Version:
        from rqrag.retrieval.corpus_index import CorpusIndex

        while True:  # a swap between reading the catalog and the index: read both again
            stamp = self._stamp()
            catalog = _read_catalog(self.path) or {"documents": []}
            self._adopt_saved_language(catalog)
            records = {record["doc_id"]: upgraded_record(record) for record in catalog["documents"]}
            index, chunks = None, None
            if with_index:
                if records:
                    index = CorpusIndex.load(self.path, encoder=self.encoder)
                    # Loaded now, not on first search: the next swap deletes these files under a lazy reader.
                    index.bm25()
                    index.dense()
                chunks = {doc.docid: doc for doc in index.passages} if index is not None else {}
            if self._stamp() == stamp:
                return _Version(stamp, records, index, chunks)

    def _adopt_saved_language(self, catalog: dict[str, Any]) -> None:
        """A handle opened before the library had a language (a server's, say) takes the one the first add, in
        this process or another, settled and saved."""
        if not self.settings.language and _saved_language(catalog):
            source = catalog["settings"].get("language_source")
            self.settings = dataclasses.replace(
                self.settings, language=_saved_language(catalog), language_source=source
            )

    def list(self) -> list[dict[str, Any]]:
        return [dict(record) for record in self._refresh().records.values()]

    def contains(self, doc_id: str) -> bool:
        return doc_id in self._refresh().records

    def retriever(self, mode: str = "hybrid") -> LibraryRetriever:
        return LibraryRetriever(self, check_search_mode(mode))

    def vectors(self) -> dict[str, np.ndarray]:
        """Every chunk's stored embedding, by chunk docid (what tests compare across updates)."""
        version = self._refresh(with_index=True)
        if version.index is None:
            return {}
        faiss_index = version.index.dense().index
        matrix = faiss_index.reconstruct_n(0, faiss_index.ntotal)
        return {doc.docid: matrix[i] for i, doc in enumerate(version.index.passages)}

    # ----------------------------------------------------------------- writing

    def add(
        self,
        data: bytes,
        filename: str,
        progress: Progress | None = None,
        limits: IngestLimits | None = None,
        workers: FileWorkers | None = None,
    ) -> AddResult:
        doc_id = content_doc_id(data)
        known = self._refresh().records
        if doc_id in known:
            self.originals.keep(doc_id, data)  # a document added before files were kept gets its file now
            return _duplicate(known[doc_id])
        ingested = self._ingest(data, filename, progress, limits, workers)  # the slow part, outside the lock
        language = self._document_language(ingested)
        with self._locked() as current:
            if doc_id in current.records:
                return _duplicate(current.records[doc_id])
            current = self._fill_pending(current, progress)  # vectors a killed add left unfinished
            before = self.settings
            # Under the lock: one writer decides, the others adopt it; BM25 is rebuilt below in any case.
            detected = self._settle_language(ingested, language, current.records)
            record = self._record(ingested, data, language)
            old_docs, old_vectors = self._stored(current)
            docs = old_docs + ingested.chunks
            searchable = False
            try:
                self.originals.keep(doc_id, data)
                # Stage 1: the document's text is searchable (BM25) before a single chunk is embedded; its rows in
                # the dense index are zeros, which LibraryRetriever leaves out until stage 2 fills them.
                waiting = np.zeros((len(ingested.chunks), self.encoder.dimension), dtype=np.float32)
                records = {**current.records, doc_id: {**record, VECTORS: PENDING}}
                self._write_version(docs, np.concatenate([old_vectors, waiting]), records)
                searchable = True
                if progress:
                    progress(SEARCHABLE, 0, len(ingested.chunks))
                # Stage 2: the vectors, committed in one more version.
                vectors = self._embed(ingested.chunks, progress)
                records[doc_id] = record
                self._write_version(docs, np.concatenate([old_vectors, vectors]), records)
            except BaseException:
                self.settings = before  # the language this document decided or changed goes with it
                self.originals.forget(doc_id)
                if searchable:  # cancelled or failed while embedding: the library goes back to what it was
                    self._write_version(old_docs, old_vectors, current.records)
                raise
        return AddResult(doc_id, "added", len(ingested.chunks), ingested.name, ingested.page_count, detected, language)

    def _fill_pending(self, current: _Version, progress: Progress | None) -> _Version:
        """Embed the chunks of documents whose add was killed between its two stages (caller holds the lock)."""
        waiting = _pending(current)
        if not waiting:
            return current
        docs, vectors = self._stored(current)
        rows = [i for i, doc in enumerate(docs) if doc_id_of(doc) in waiting]
        logger.info("%s: embedding %d chunks an interrupted add left without vectors", self.path, len(rows))
        vectors = vectors.copy()
        vectors[rows] = self._embed([docs[i] for i in rows], progress)
        records = {
            doc_id: {k: v for k, v in record.items() if k != VECTORS} for doc_id, record in current.records.items()
        }
        self._write_version(docs, vectors, records)
        return self._refresh(with_index=True)

    def remove(self, doc_id: str) -> bool:
        """Delete a document and its chunks; False if it is not in the library. Nothing is re-embedded."""
        with self._locked() as current:
            if doc_id not in current.records:
                return False
            docs, vectors = self._stored(current)
            keep = [i for i, doc in enumerate(docs) if doc_id_of(doc) != doc_id]
            records = {key: value for key, value in current.records.items() if key != doc_id}
            self._write_version([docs[i] for i in keep], vectors[keep], records)
            self.originals.forget(doc_id)
        return True

    def _stored(self, version: _Version) -> tuple[list, np.ndarray]:
        """The indexed chunks, in index order, and their vectors as FAISS holds them."""
        if version.index is None:
            return [], np.zeros((0, self.encoder.dimension), dtype=np.float32)
        faiss_index = version.index.dense().index
        return list(version.index.passages), faiss_index.reconstruct_n(0, faiss_index.ntotal)

    def _write_version(self, docs: list, vectors: np.ndarray, records: dict[str, dict[str, Any]]) -> None:
        """Write a complete new version beside the library, then swap it in (caller holds the write lock)."""
        from rqrag.retrieval.corpus_index import CorpusIndex

        with staging(self.path, "staging", create=False) as staged:
            if docs:
                CorpusIndex.build(
                    docs,
                    staged,
                    INDEX_MODES,
                    model=self.settings.embedding_model,
                    encoder=self.encoder,
                    embeddings=vectors,
                    language=self.settings.language,
                    source=f"document library {self.path.name}",
                    show_progress=False,
                )
            else:
                staged.mkdir(parents=True)
            _write_catalog(staged, self.settings, records)
            swap_in(staged, self.path)
        with self._version_lock:
            self._version = self._load_version(with_index=True)

    def _locked(self):
        """Hold the write locks (thread and file) and yield the library's current version, fresh from disk."""
        import contextlib

        from filelock import FileLock

        @contextlib.contextmanager
        def hold():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._write_lock, FileLock(self.lock_path):
                self._recover()
                yield self._refresh(with_index=True)

        return hold()

    def _recover_if_abandoned(self) -> None:
        from filelock import FileLock, Timeout

        if not leftovers(self.path):
            return
        # Library missing: a writer is between the two renames of a swap (microseconds) or was killed there.
        wait = 60 if not self.path.exists() else 0
        try:
            with self._write_lock, FileLock(self.lock_path, timeout=wait):
                self._recover()
        except Timeout:
            pass  # a writer is at work: what lies beside the library is its own

    def _recover(self) -> None:
        """Undo what a killed writer left (the caller holds the locks): put back a library retired by an
        unfinished swap, delete staged copies."""
        left = leftovers(self.path)
        retired = sorted(
            (p for p in left if is_retired(p) and (p / CATALOG_FILE).is_file()),
            key=lambda p: p.stat().st_mtime_ns,
        )
        if not self.path.exists() and retired:
            logger.warning("%s: restoring the library from %s (a swap was interrupted)", self.path, retired[-1])
            os.rename(retired[-1], self.path)
            left.remove(retired[-1])
        for leftover in left:
            logger.info("removing %s, left by an interrupted update", leftover)
            shutil.rmtree(leftover, ignore_errors=True)


class LibraryRetriever:
    """Searches a library's current version; each hit carries its chunk's file and page span in `extra`."""

    uses_qids = False

    def __init__(self, library: LocalLibrary, mode: str):
        self.library = library
        self.mode = mode

    @property
    def name(self) -> str:
        version = self.library._refresh()
        if version.index is None:
            return f"library:{self.library.path.name}:empty"
        # Pending vectors change what a search finds without changing the docids: the name (a cache key) says so.
        waiting = len(_pending(version))
        waiting = f":pending{waiting}" if waiting else ""
        return f"library:{self.library.path.name}:{self.mode}:{version.index.meta.get('fingerprint')}{waiting}"

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        check_qids(queries, qids)
        version = self.library._refresh(with_index=True)
        if version.index is None:
            return [[] for _ in queries]
        waiting = _pending(version)
        if not waiting or self.mode == "bm25":
            retriever = version.index.retriever(self.mode)
        else:
            rows = sum(int(version.records[doc_id].get("chunk_count") or 0) for doc_id in waiting)
            dense = WithoutPending(version.index.dense(), waiting, rows)
            retriever = dense if self.mode == "dense" else HybridWhilePending(version.index.bm25(), dense)
        found = retriever.batch_search(list(queries), k=k)
        return [[_with_extra(hit, version.chunks) for hit in hits] for hits in found]


def _pending(version: _Version) -> frozenset[str]:
    return frozenset(doc_id for doc_id, record in version.records.items() if record.get(VECTORS) == PENDING)


def _with_extra(hit: Hit, chunks: dict[str, Any]) -> Hit:
    doc = chunks.get(hit.docid)
    return dataclasses.replace(hit, extra=dict(doc.extra) if doc is not None else {})


def _saved_language(catalog: dict[str, Any] | None) -> str | None:
    return ((catalog or {}).get("settings") or {}).get("language") or None


def _read_catalog(path: Path) -> dict[str, Any] | None:
    try:
        catalog = json.loads((path / CATALOG_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    if catalog.get("format_version") != FORMAT_VERSION:
        raise LibraryError(f"{path / CATALOG_FILE}: unknown format {catalog.get('format_version')!r}")
    return catalog


def _write_catalog(root: Path, settings: LibrarySettings, records: dict[str, dict[str, Any]]) -> None:
    catalog = {
        "format_version": FORMAT_VERSION,
        "settings": dataclasses.asdict(settings),
        "updated": _now(),
        "documents": list(records.values()),
    }
    (root / CATALOG_FILE).write_text(json.dumps(catalog, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
