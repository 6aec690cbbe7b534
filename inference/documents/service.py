"""The documents service: the server's named document libraries and the background ingestion of uploads.

    service = DocumentsService(DocumentsSettings(documents_dir="libraries", language="pt"))
    job = service.submit(service.index_name(None), "manual.pdf", data, content_doc_id(data))
    service.job(job.id).status                       # queued -> running -> done | failed
    service.retriever()                              # what the `documents` retriever searches
    service.view_for("alice")                        # with users: alice's own library and the shared ones

With users (`rqrag serve --users FILE`) every user has a private library, `user__NAME`, where their uploads go,
and the server has shared libraries (`shared_libraries`) every user searches and only admins change: the
`writable_index` and `readable_indexes` rules below are the whole of document ownership. Request-given names
may not contain "__", so no one names another user's library. Without users there is one library for everyone
(the single-user local mode).

Accepted files are ingested one at a time by a single background thread (extract, clean, chunk, embed, swap the
index in), so an upload never holds up a question: searches keep reading the library's previous version until the
new one is swapped in, and share the encoder with the ingestion one batch at a time. The HTTP routes that use it
are `inference/server/documents_routes.py`; it speaks no HTTP itself: a bad library name is a `BadRequest`, a full
queue `Busy` (`rqrag.inference.errors`).
"""

from __future__ import annotations

import collections
import logging
import queue
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rqrag.inference.errors import BadRequest, Busy, Forbidden, NotFound


logger = logging.getLogger(__name__)

MAX_JOBS_KEPT = 1000
_INDEX_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
PRIVATE_PREFIX = "user__"  # + the user's name: a private library (request-given names may not contain "__")


@dataclass
class DocumentsSettings:
    """What the document endpoints need from the server's config (`from_serve` reads the `ServeConfig` fields)."""

    default_index: str = "documents"
    documents_dir: str | None = None  # folder of the named libraries; None: the rq-rag cache's indexes/
    database_url: str | None = None  # PostgreSQL + pgvector instead of folders
    max_upload_bytes: int = 50 * 1024 * 1024
    language: str | None = None  # for libraries the server creates (None: detected from the first upload's text)
    embedding_model: str | None = None
    retrieval_mode: str = "hybrid"
    max_queued_jobs: int = 8  # each waiting job holds its file in memory
    users: bool = False  # keys name users: private libraries plus the shared ones
    shared_libraries: list[str] = field(default_factory=list)  # default: [default_index]

    def __post_init__(self):
        self.shared_libraries = list(self.shared_libraries or [self.default_index])

    @classmethod
    def from_serve(cls, serve: Any) -> DocumentsSettings:
        names = {
            "default_index": "documents_index",
            "documents_dir": "documents_dir",
            "database_url": "documents_database_url",
            "max_upload_bytes": "max_upload_bytes",
            "language": "documents_language",
            "embedding_model": "documents_embedding_model",
            "shared_libraries": "shared_libraries",
        }
        defaults = cls()
        values = {ours: getattr(serve, theirs, getattr(defaults, ours)) for ours, theirs in names.items()}
        return cls(**values, users=bool(getattr(serve, "users", None)))


@dataclass
class IngestionJob:
    id: str
    index: str
    name: str
    doc_id: str
    size_bytes: int
    data: bytes | None = field(default=None, repr=False)  # dropped once the job has run
    owner: str | None = None  # who uploaded it: only they may follow the job
    status: str = "queued"
    stage: str | None = None
    pages_done: int = 0
    pages_total: int | None = None
    chunks_done: int = 0
    chunks_total: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None

    def progress(self, stage: str, done: int, total: int) -> None:
        self.stage = stage
        if stage == "reading":
            self.pages_done, self.pages_total = done, total
        else:
            self.chunks_done, self.chunks_total = done, total

    def to_dict(self) -> dict[str, Any]:
        out = {
            "object": "document.job",
            "job_id": self.id,
            "status": self.status,
            "index": self.index,
            "doc_id": self.doc_id,
            "name": self.name,
            "size_bytes": self.size_bytes,
            "progress": {
                "stage": self.stage,
                "pages_done": self.pages_done,
                "pages_total": self.pages_total,
                "chunks_done": self.chunks_done,
                "chunks_total": self.chunks_total,
            },
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


class DocumentsService:
    """The libraries the server opened (by name) and the ingestion jobs with their one worker thread."""

    def __init__(self, settings: DocumentsSettings | None = None, encoder: Any = None):
        self.settings = settings or DocumentsSettings()
        self._encoder = encoder  # tests pass a loaded model; otherwise each library loads its own on first use
        self._libraries: dict[str, Any] = {}
        self._jobs: collections.OrderedDict[str, IngestionJob] = collections.OrderedDict()
        self._lock = threading.Lock()  # the job table
        self._libraries_lock = threading.Lock()  # opening a PostgreSQL library may take seconds: not under _lock
        self._queue: queue.Queue[IngestionJob | None] = queue.Queue()
        self._worker: threading.Thread | None = None

    def index_name(self, name: str | None) -> str:
        """A library name a request gave (or the default one), checked: a plain name, never a path."""
        name = (name or "").strip() or self.settings.default_index
        if not _INDEX_NAME.fullmatch(name) or "__" in name:
            raise BadRequest(
                "index must be a plain name: letters, digits, '-' and '_' (at most 64, no '__')", param="index"
            )
        return name

    # ----------------------------------------------------------------- ownership

    def private_index(self, user: str) -> str:
        return f"{PRIVATE_PREFIX}{user}"

    def _shared(self, name: str) -> str:
        name = self.index_name(name)
        if name not in self.settings.shared_libraries:
            raise NotFound(
                f"no library {name!r} here: leave `index` out for your own documents, or name a shared library "
                f"({', '.join(self.settings.shared_libraries)})",
                code="library_not_found",
                param="index",
            )
        return name

    def writable_index(self, user: str, admin: bool, name: str | None) -> str:
        """The library an upload or a removal by `user` goes to: their own unless they name a shared one, which
        only an admin changes. Without users, the named (or default) library."""
        if not self.settings.users:
            return self.index_name(name)
        if not (name or "").strip():
            return self.private_index(user)
        name = self._shared(name)
        if not admin:
            raise Forbidden(f"only an admin changes the shared library {name!r}", code="shared_library", param="index")
        return name

    def readable_indexes(self, user: str, name: str | None = None) -> list[str]:
        """The libraries `user` reads: the named shared one, else their own and every shared one."""
        if not self.settings.users:
            return [self.index_name(name)]
        if (name or "").strip():
            return [self._shared(name)]
        return [self.private_index(user), *self.settings.shared_libraries]

    def view_for(self, user: str | None):
        """What the `documents` retriever searches for `user`: one library, or (with users) their own and the
        shared ones that hold documents, searched together (`LibraryView`)."""
        if not self.settings.users:
            return self.library()
        from rqrag.inference.documents.view import LibraryView

        names = self.readable_indexes(user) if user else self.settings.shared_libraries
        libraries = [self.library(name) for name in names]
        return LibraryView([lib for lib in libraries if lib.list()] or libraries[:1])

    def library(self, name: str | None = None):
        """The library `name` (validated), opened once; the server's language and model apply to new ones."""
        from rqrag.ingest.libraries import open_library
        from rqrag.ingest.library import LibraryError, library_path

        private = bool(name) and name.startswith(PRIVATE_PREFIX) and _INDEX_NAME.fullmatch(name)
        name = name if private else self.index_name(name)
        with self._libraries_lock:
            if name not in self._libraries:
                if self.settings.database_url:
                    where = name
                elif self.settings.documents_dir:
                    where = str(Path(self.settings.documents_dir).expanduser() / name)
                else:
                    where = str(library_path(name))
                options = {"database_url": self.settings.database_url, "encoder": self._encoder}
                try:
                    library = open_library(
                        where,
                        language=self.settings.language,
                        embedding_model=self.settings.embedding_model,
                        **options,
                    )
                except LibraryError as error:  # made with other settings (e.g. by `rqrag docs add`): it keeps them
                    logger.warning("library %s: %s; using its own settings", name, error)
                    library = open_library(where, **options)
                self._libraries[name] = library
            return self._libraries[name]

    def retriever(self, name: str | None = None, mode: str | None = None):
        """The library's current documents as a retriever (it follows adds and removes)."""
        return self.library(name).retriever(mode or self.settings.retrieval_mode)

    # ----------------------------------------------------------------- jobs

    def job(self, job_id: str, user: str | None = None) -> IngestionJob | None:
        """The job, for its owner (with users, another user's job is None, like one that does not exist)."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is not None and self.settings.users and job.owner != user:
            return None
        return job

    def pending(self, index: str, doc_id: str) -> IngestionJob | None:
        with self._lock:
            return next(
                (
                    job
                    for job in self._jobs.values()
                    if job.index == index and job.doc_id == doc_id and job.status in ("queued", "running")
                ),
                None,
            )

    def submit(self, index: str, name: str, data: bytes, doc_id: str, owner: str | None = None) -> IngestionJob:
        job = IngestionJob(uuid.uuid4().hex, index, name, doc_id, len(data), data, owner=owner)
        with self._lock:
            waiting = sum(1 for j in self._jobs.values() if j.status == "queued")
            if waiting >= self.settings.max_queued_jobs:
                raise Busy(f"{waiting} uploads are already waiting; try again later", code="too_many_jobs")
            self._jobs[job.id] = job
            self._forget_old_jobs()
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="rqrag-ingestion", daemon=True)
                self._worker.start()
        self._queue.put(job)
        return job

    def _forget_old_jobs(self) -> None:
        finished = [job_id for job_id, job in self._jobs.items() if job.status in ("done", "failed")]
        for job_id in finished[: max(0, len(self._jobs) - MAX_JOBS_KEPT)]:
            del self._jobs[job_id]

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            self._run(job)

    def _run(self, job: IngestionJob) -> None:
        from rqrag.ingest.extract import IngestError

        job.status, job.started_at = "running", time.time()
        try:
            library = self.library(job.index)
            result = library.add(job.data, job.name, progress=job.progress)
            job.result = {**result.to_dict(), "document": library.get(result.doc_id)}
            job.status = "done"
        except IngestError as error:
            job.error, job.status = {"reason": error.reason, "message": error.message}, "failed"
        except Exception as error:  # the worker must outlive any one bad file
            logger.exception("ingesting %s failed", job.name)
            job.error, job.status = {"reason": "internal", "message": f"{type(error).__name__}: {error}"}, "failed"
        finally:
            job.data, job.finished_at = None, time.time()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker after its current job (waiting at most `timeout`); close the libraries' connections."""
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join(timeout)
        for library in self._libraries.values():
            library.close()
