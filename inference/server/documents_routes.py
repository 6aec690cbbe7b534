"""The server's document endpoints: upload files into a document library, follow their ingestion, list, delete.

    curl -F file=@manual.pdf http://127.0.0.1:8000/v1/documents             # 202 {"job_id": "...", ...}
    curl http://127.0.0.1:8000/v1/documents/jobs/JOB_ID                     # {"status": "running", "progress": ...}
    curl http://127.0.0.1:8000/v1/documents                                 # {"object": "list", "data": [...]}
    curl -X DELETE http://127.0.0.1:8000/v1/documents/DOC_ID                # 204

`POST /v1/documents` takes multipart/form-data with the file in field `file` and, optionally, the library's name
in field `index` (default: the server's; a plain name, never a path). `GET` and `DELETE` take `?index=NAME`.
Job statuses are queued, running, done (with `result`) and failed (with `error.reason` and `error.message`).

Checks, all answered before anything is queued or stored:

* size: the body of this one route may be `max_upload_bytes` plus the multipart envelope (`UploadBodyLimit` takes
  the place of the server-wide `BodySizeLimit`), and the file part is counted again as it is read: 413.
* type, from the bytes (`detect_kind`'s magic numbers), never from the extension: a PNG named .pdf gets 415.
* PDFs are opened: password-protected, damaged, page-less, or without text on any page (a scan with no text layer)
  get 422 whose `code` is the reason (`encrypted`, `corrupt`, `empty`). The scan for text stops at the first page
  that has some (usually page 1) or after `PRECHECK_SECONDS`; a file whose first text lies further in is left to
  the job, which then fails with the same reason (so do other files with no text once cleaned).
* the name kept is the upload's base name: no directories, no control characters, no leading dots
  (`../../etc/passwd.pdf` is recorded as `passwd.pdf`). Only the library's index is written, never the file.
* the same bytes again: 200 `{"status": "duplicate", "doc_id", "document"}`; while the first copy is still queued
  or running, 202 with that job.

Accepted files are ingested one at a time by a single background thread (extract, clean, chunk, embed, swap the
index in), so an upload never holds up `/v1/ask`: searches keep reading the library's previous version until the
new one is swapped in, and share the encoder with the ingestion one batch at a time.
"""

from __future__ import annotations

import asyncio
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

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from rqrag.inference.server.schema import APIError
from rqrag.inference.server.upload_checks import (  # noqa: F401  (UploadBodyLimit, safe_filename: the app and tests)
    MULTIPART_ENVELOPE_BYTES,
    UPLOAD_PATH,
    UploadBodyLimit,
    _status_for,
    precheck,
    safe_filename,
)


logger = logging.getLogger(__name__)

READ_CHUNK_BYTES = 1 << 20
MAX_JOBS_KEPT = 1000
_INDEX_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


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

    @classmethod
    def from_serve(cls, serve: Any) -> DocumentsSettings:
        names = {
            "default_index": "documents_index",
            "documents_dir": "documents_dir",
            "database_url": "documents_database_url",
            "max_upload_bytes": "max_upload_bytes",
            "language": "documents_language",
            "embedding_model": "documents_embedding_model",
        }
        defaults = cls()
        return cls(**{ours: getattr(serve, theirs, getattr(defaults, ours)) for ours, theirs in names.items()})


@dataclass
class IngestionJob:
    id: str
    index: str
    name: str
    doc_id: str
    size_bytes: int
    data: bytes | None = field(default=None, repr=False)  # dropped once the job has run
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
        name = (name or "").strip() or self.settings.default_index
        if not _INDEX_NAME.fullmatch(name):
            raise APIError(400, "index must be a plain name: letters, digits, '-' and '_' (at most 64)", param="index")
        return name

    def library(self, name: str | None = None):
        """The library `name` (validated), opened once; the server's language and model apply to new ones."""
        from rqrag.ingest.libraries import open_library
        from rqrag.ingest.library import LibraryError, library_path

        name = self.index_name(name)
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
        """What `/v1/ask` searches: the library's current documents (it follows adds and removes)."""
        return self.library(name).retriever(mode or self.settings.retrieval_mode)

    # ----------------------------------------------------------------- jobs

    def job(self, job_id: str) -> IngestionJob | None:
        with self._lock:
            return self._jobs.get(job_id)

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

    def submit(self, index: str, name: str, data: bytes, doc_id: str) -> IngestionJob:
        job = IngestionJob(uuid.uuid4().hex, index, name, doc_id, len(data), data)
        with self._lock:
            waiting = sum(1 for j in self._jobs.values() if j.status == "queued")
            if waiting >= self.settings.max_queued_jobs:
                raise APIError(429, f"{waiting} uploads are already waiting; try again later", code="too_many_jobs")
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


# ---------------------------------------------------------------------------------------------- routes


async def _read_upload(request: Request, limit: int) -> tuple[bytes, str, str | None]:
    """(file bytes, safe name, index field) of a multipart upload; the file is counted as it is read."""
    from starlette.datastructures import UploadFile

    form = await request.form(max_files=1, max_fields=4)
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise APIError(400, "send the document as multipart/form-data in a field named `file`", param="file")
        index = form.get("index")
        data = bytearray()
        while chunk := await upload.read(READ_CHUNK_BYTES):
            data += chunk
            if len(data) > limit:
                raise APIError(413, f"the file is over the {limit}-byte upload limit", code="file_too_large")
        return bytes(data), safe_filename(upload.filename), index if isinstance(index, str) else None
    finally:
        await form.close()


def documents_router(service: DocumentsService) -> APIRouter:
    router = APIRouter()

    @router.post(UPLOAD_PATH)
    async def upload_document(request: Request):
        from rqrag.ingest.extract import IngestError
        from rqrag.ingest.library import content_doc_id

        data, name, index = await _read_upload(request, service.settings.max_upload_bytes)
        index = service.index_name(index)
        try:
            kind = await asyncio.to_thread(precheck, data, name)
        except IngestError as error:
            raise APIError(_status_for(error.reason), error.message, code=error.reason, param="file") from None
        doc_id = content_doc_id(data)
        library = await asyncio.to_thread(service.library, index)
        if await asyncio.to_thread(library.contains, doc_id):
            document = await asyncio.to_thread(library.get, doc_id)
            return {"status": "duplicate", "index": index, "doc_id": doc_id, "document": document}
        job = service.pending(index, doc_id) or service.submit(index, name, data, doc_id)
        logger.info("queued %s (%s, %d bytes) for library %s as job %s", name, kind, len(data), index, job.id)
        return JSONResponse(job.to_dict(), status_code=202, headers={"Location": f"{UPLOAD_PATH}/jobs/{job.id}"})

    @router.get(UPLOAD_PATH + "/jobs/{job_id}")
    async def ingestion_job(job_id: str):
        job = service.job(job_id)
        if job is None:
            raise APIError(404, f"no ingestion job {job_id!r}", code="job_not_found", param="job_id")
        return job.to_dict()

    @router.get(UPLOAD_PATH)
    async def list_documents(index: str | None = None):
        name = service.index_name(index)
        library = await asyncio.to_thread(service.library, name)
        return {"object": "list", "index": name, "data": await asyncio.to_thread(library.list)}

    @router.get(UPLOAD_PATH + "/{doc_id}")
    async def get_document(doc_id: str, index: str | None = None):
        library = await asyncio.to_thread(service.library, index)
        document = await asyncio.to_thread(library.get, doc_id)
        if document is None:
            raise APIError(404, f"no document {doc_id!r} in this library", code="document_not_found", param="doc_id")
        return document

    @router.delete(UPLOAD_PATH + "/{doc_id}", status_code=204)
    async def delete_document(doc_id: str, index: str | None = None):
        library = await asyncio.to_thread(service.library, index)
        # Waits for an ingestion swapping in its index (one writer at a time), in a thread: the server goes on.
        if not await asyncio.to_thread(library.remove, doc_id):
            raise APIError(404, f"no document {doc_id!r} in this library", code="document_not_found", param="doc_id")
        return Response(status_code=204)

    return router
