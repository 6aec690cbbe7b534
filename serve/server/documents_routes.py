"""The server's document endpoints: upload files into a document library, follow their ingestion, list, delete.

    curl -F file=@manual.pdf http://127.0.0.1:8000/v1/documents             # 202 {"job_id": "...", ...}
    curl http://127.0.0.1:8000/v1/documents/jobs/JOB_ID                     # {"status": "running", "progress": ...}
    curl http://127.0.0.1:8000/v1/documents                                 # {"object": "list", "data": [...]}
    curl -X DELETE http://127.0.0.1:8000/v1/documents/DOC_ID                # 204
    curl -X DELETE http://127.0.0.1:8000/v1/documents/jobs/JOB_ID           # {"status": "cancelled", ...}

`POST /v1/documents` takes multipart/form-data with the file in field `file` and, optionally, the library's name
in field `index` (default: the server's; a plain name, never a path). `GET` and `DELETE` take `?index=NAME`.
Job statuses are queued, running, done (with `result`), failed (with `error.reason` and `error.message`), and
cancelled: `DELETE /v1/documents/jobs/ID` cancels a queued job at once, and a running one (status `cancelling`) at its
next checkpoint (a page read, an embedding batch), storing nothing of the file; a finished job is returned as it is.

Checks, all answered before anything is queued or stored:

* size: the body of this one route may be `max_upload_bytes` plus the multipart envelope (`UploadBodyLimit` takes
  the place of the server-wide `BodySizeLimit`), and the file part is counted again as it is read: 413.
* type, from the bytes (`detect_file_type`'s magic numbers), never from the extension: a PNG named .pdf gets 415.
* archives (DOCX): judged from the central directory before anything is unpacked (`rqrag.ingest.limits`): over
  `max_upload_uncompressed_bytes` unpacked (`archive_too_large`) or a member over `max_upload_compression_ratio` (a zip bomb:
  `compression_ratio`) get 413. A document over `max_chunks_per_document` chunks fails its job (`too_many_chunks`).
* the queue: each user may have `max_queued_uploads_per_user` uploads waiting (`too_many_jobs_for_user`), everyone
  together `max_queued_uploads` (`too_many_jobs`): 429.
* PDFs are opened: password-protected, damaged, page-less, or without text on any page (a scan with no text layer)
  get 422 whose `code` is the reason (`encrypted`, `corrupt`, `empty`). The scan for text stops at the first page
  that has some (usually page 1) or after `PRECHECK_SECONDS`; a file whose first text lies further in is left to
  the job, which then fails with the same reason (so do other files with no text once cleaned).
* the name kept is the upload's base name: no directories, no control characters, no leading dots
  (`../../etc/passwd.pdf` is recorded as `passwd.pdf`). Only the library's index is written, never the file.
* the same bytes again: 200 `{"status": "duplicate", "doc_id", "document"}`; while the first copy is still queued
  or running, 202 with that job.

Ownership (with `rqrag serve --users FILE`): an upload goes to its uploader's private library unless an admin
names a shared one (`index`); a user who is not an admin naming a shared library to upload or delete gets 403;
lists, reads and jobs are the caller's own and the shared libraries' (another user's document or job is 404,
like one that does not exist). The rules are the documents service's (`writable_index`, `readable_indexes`).

A library the server cannot write or read (read-only or full disk, permissions) is 503 `storage_unavailable`, and a
job that meets it fails with that reason; neither says where the server keeps its files.

Ingestion runs on the documents service's one background thread (`serve/documents/service.py`); the routes
only check, queue and report. The service reaches each handler as a FastAPI dependency (`server/dependencies.py`).
"""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from rqrag.ingest.library import public_record
from rqrag.ingest.upload_precheck import precheck
from rqrag.serve.documents.service import storage_faults
from rqrag.serve.server.body_limit import UPLOAD_PATH
from rqrag.serve.server.dependencies import DocumentsServiceDep, RequestCaller
from rqrag.serve.server.schema import APIError
from rqrag.serve.server.upload_checks import _status_for, safe_filename


logger = logging.getLogger(__name__)

READ_CHUNK_BYTES = 1 << 20

# What the OpenAPI schema lists besides each route's success (every error has the OpenAI-shaped body).
UPLOAD_ERRORS = {
    400: {"description": "not multipart/form-data with a `file` field, or a bad `index`"},
    403: {"description": "a user who is not an admin named a shared library"},
    413: {
        "description": "over `max_upload_bytes` as sent (`file_too_large`, `request_too_large`), or an archive "
        "(DOCX) over `max_upload_uncompressed_bytes` unpacked (`archive_too_large`) or with a member over "
        "`max_upload_compression_ratio` (`compression_ratio`: a zip bomb)"
    },
    415: {"description": "not a PDF, DOCX, HTML, Markdown or UTF-8 text file (`unsupported`)"},
    422: {"description": "a PDF that is encrypted, damaged or has no text (`encrypted`, `corrupt`, `empty`)"},
    429: {
        "description": "the uploader already has `max_queued_jobs_per_user` uploads waiting "
        "(`too_many_jobs_for_user`), or everyone together `max_queued_jobs` (`too_many_jobs`)"
    },
    503: {"description": "the server cannot read or write the library's storage (`storage_unavailable`)"},
}
STORAGE_ERROR = {503: UPLOAD_ERRORS[503]}
JOB_NOT_FOUND = {404: {"description": "no such job, or another user's (`job_not_found`)"}}


async def _in_thread(action: str, call, *args):
    """A library call off the event loop (it may read or write files, or wait for a writer's lock); a fault of the
    library's storage is a 503 that names no server path (`storage_faults`)."""

    def guarded():
        with storage_faults(action):
            return call(*args)

    return await asyncio.to_thread(guarded)


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


def documents_router() -> APIRouter:
    """Uploads and their ingestion jobs, then the library's documents: listed, read, deleted."""
    router = APIRouter()
    _add_upload_routes(router)
    _add_library_routes(router)
    return router


def _add_upload_routes(router: APIRouter) -> None:
    @router.post(UPLOAD_PATH, responses={202: {"description": "queued: the ingestion job"}, **UPLOAD_ERRORS})
    async def upload_document(request: Request, service: DocumentsServiceDep, caller: RequestCaller):
        """Upload a file (multipart/form-data, field `file`; optional `index`): checked, then queued for ingestion.
        202 with the job to follow (`Location`); 200 if the library already holds the same bytes."""
        from rqrag.ingest.extract import IngestError
        from rqrag.ingest.library import content_doc_id

        data, name, index = await _read_upload(request, service.settings.max_upload_bytes)
        index = service.writable_index(caller.name, caller.admin, index)
        try:
            limits = service.settings.ingest_limits()
            file_type = await asyncio.to_thread(service.workers.run, precheck, data, name, limits, name=name)
        except IngestError as error:
            raise APIError(_status_for(error.reason), error.message, code=error.reason, param="file") from None
        doc_id = content_doc_id(data)
        library = await _in_thread("opened", service.library, index)
        # A copy still being ingested (already searchable by its words, say) is followed through its job.
        job = service.pending(index, doc_id)
        if job is None and await _in_thread("read", library.contains, doc_id):
            document = await _in_thread("read", library.get, doc_id)
            return {"status": "duplicate", "index": index, "doc_id": doc_id, "document": document}
        job = job or service.submit(index, name, data, doc_id, owner=caller.name)
        logger.info("queued %s (%s, %d bytes) for library %s as job %s", name, file_type, len(data), index, job.id)
        return JSONResponse(job.to_dict(), status_code=202, headers={"Location": f"{UPLOAD_PATH}/jobs/{job.id}"})

    @router.get(UPLOAD_PATH + "/jobs/{job_id}", responses=JOB_NOT_FOUND)
    async def ingestion_job(job_id: str, service: DocumentsServiceDep, caller: RequestCaller):
        """An upload's ingestion job: its status and progress (pages read, chunks embedded)."""
        job = service.job(job_id, caller.name)
        if job is None:
            raise APIError(404, f"no ingestion job {job_id!r}", code="job_not_found", param="job_id")
        return job.to_dict()

    @router.delete(UPLOAD_PATH + "/jobs/{job_id}", responses=JOB_NOT_FOUND)
    async def cancel_ingestion_job(job_id: str, service: DocumentsServiceDep, caller: RequestCaller):
        """Cancel an upload's ingestion: a queued job is `cancelled` at once and never runs; a running one is
        `cancelling` until its next checkpoint (a page read, an embedding batch), then `cancelled`, with nothing of
        the file stored. A finished job is returned as it is. Only the uploader's jobs: another's is 404."""
        return service.cancel(job_id, caller.name).to_dict()


def _add_library_routes(router: APIRouter) -> None:
    @router.get(UPLOAD_PATH, responses=STORAGE_ERROR)
    async def list_documents(service: DocumentsServiceDep, caller: RequestCaller, index: str | None = None):
        """The caller's documents: with users, their own library's and the shared ones' (each says which);
        `?index=` narrows to one shared library."""
        names = service.readable_indexes(caller.name, index)

        def listing():
            return [
                {
                    **public_record(record),
                    "index": name,
                    "shared": service.settings.users and name in service.settings.shared_libraries,
                }
                for name in names
                for record in service.library(name).list()
            ]

        return {"object": "list", "index": names[0], "data": await _in_thread("read", listing)}

    @router.get(UPLOAD_PATH + "/{doc_id}", responses=STORAGE_ERROR)
    async def get_document(doc_id: str, service: DocumentsServiceDep, caller: RequestCaller, index: str | None = None):
        def find():
            for name in service.readable_indexes(caller.name, index):
                document = service.library(name).get(doc_id)
                if document is not None:
                    return {**public_record(document), "index": name}
            return None

        document = await _in_thread("read", find)
        if document is None:
            raise APIError(404, f"no document {doc_id!r} in your libraries", code="document_not_found", param="doc_id")
        return document

    @router.delete(UPLOAD_PATH + "/{doc_id}", status_code=204, responses=STORAGE_ERROR)
    async def delete_document(
        doc_id: str, service: DocumentsServiceDep, caller: RequestCaller, index: str | None = None
    ):
        name = service.writable_index(caller.name, caller.admin, index)
        library = await _in_thread("opened", service.library, name)
        # Waits for an ingestion swapping in its index (one writer at a time), in a thread: the server goes on.
        if not await _in_thread("written", library.remove, doc_id):
            raise APIError(404, f"no document {doc_id!r} in this library", code="document_not_found", param="doc_id")
        return Response(status_code=204)
