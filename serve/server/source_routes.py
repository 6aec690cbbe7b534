"""The source viewer's endpoints: a cited document's file, and its PDF pages as images with the quote marked.

    curl -o manual.pdf http://127.0.0.1:8000/v1/documents/DOC_ID/file
    curl -o p4.png 'http://127.0.0.1:8000/v1/documents/DOC_ID/pages/4.png?mark=O+corpus+reúne+1.840+acórdãos'

A page image is the page as pdfium draws it (`rqrag.ingest.page_image`) in a file worker (`rqrag.ingest.file_workers`:
a page built to exhaust memory or time fails there with 422, and the server goes on), 1.5× by default (`scale`,
0.5–3; less where the page is over the pixel budget, `max_page_pixels`: `X-Rqrag-Scale` says), with
`mark` (the quoted sentence) painted where the page's text holds it; the headers say whether it was found
(`X-Rqrag-Marked: true|false`, and `X-Rqrag-Mark-Top`: where it starts, as a share of the page's height, for the
viewer to scroll to) and how many pages the document has (`X-Rqrag-Pages`), for previous/next. Only a
PDF has pages to draw: another file type, or a document stored before files were kept, is 404 `no_page_images`
(the viewer then shows the passage alone). Reads follow the documents' rules (`readable_indexes`): another user's
document is 404. A file is always sent as an attachment (never rendered by the browser as a page of this site).
Drawn pages are cached by (document, page, mark, scale) in each replica: a document's id is its content's hash, so a
cached page is never stale. Not shared across replicas: a page is cheap to draw again (docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from urllib.parse import quote

from fastapi import APIRouter, Query
from fastapi.responses import Response

from rqrag.serve.documents.service import storage_faults
from rqrag.serve.server.body_limit import UPLOAD_PATH
from rqrag.serve.server.dependencies import DocumentsServiceDep, RequestCaller
from rqrag.serve.server.schema import APIError


CACHED_PAGES = 48  # ~0.3-0.5 MB each: a few answers' worth of pages
MEDIA_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "html": "text/html",
    "md": "text/markdown",
    "txt": "text/plain",
}
NOT_FOUND = {404: {"description": "no such document in your libraries, no stored file, or no such page"}}


class _PageCache:
    def __init__(self, size: int):
        self.size = size
        self._pages: OrderedDict[tuple, tuple] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple):
        with self._lock:
            if key in self._pages:
                self._pages.move_to_end(key)
                return self._pages[key]
            return None

    def put(self, key: tuple, value: tuple) -> None:
        with self._lock:
            self._pages[key] = value
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)


def _stored(service, caller_name: str | None, index: str | None, doc_id: str, with_file: bool = True):
    """(record, file bytes) of `doc_id` in a library the caller may read, or None; without `with_file`, the bytes
    are not read (None): enough to know the caller may see a page already drawn."""
    for name in service.readable_indexes(caller_name, index):
        library = service.library(name)
        record = library.get(doc_id)
        if record is None:
            continue
        if not with_file:
            return record, None
        data = library.original(doc_id)
        return (record, data) if data is not None else None
    return None


async def _drawn(service, data: bytes, page: int, mark: str | None, scale: float, name: str):
    """The page drawn in a file worker, within the server's pixel budget and time; its failures as 4xx (all
    workers busy: the error handlers' 503)."""
    from rqrag.ingest.extract import IngestError
    from rqrag.ingest.page_image import PageNotFound, PageUnreadable, render_page

    settings = service.settings
    try:
        return await asyncio.to_thread(
            service.workers.run,
            render_page,
            data,
            page,
            mark,
            scale,
            settings.max_page_pixels,
            wall_seconds=settings.page_draw_seconds,
            cpu_seconds=settings.page_draw_seconds,
            queue_seconds=settings.page_draw_seconds,
            name=f"page {page} of {name}",
        )
    except PageNotFound as error:
        raise APIError(404, str(error), code="page_not_found", param="page") from None
    except PageUnreadable as error:
        raise APIError(422, str(error), code="page_unreadable", param="page") from None
    except IngestError as error:  # over the worker's limits, or its reader crashed
        raise APIError(422, error.message, code=error.reason, param="page") from None


def source_router() -> APIRouter:
    router = APIRouter()
    cache = _PageCache(CACHED_PAGES)

    async def stored(service, caller, index, doc_id, with_file: bool = True) -> tuple[dict, bytes | None]:
        def read():
            with storage_faults("read"):
                return _stored(service, caller.name, index, doc_id, with_file)

        found = await asyncio.to_thread(read)
        if found is None:
            raise APIError(404, f"no stored file for document {doc_id!r} in your libraries", code="document_not_found")
        return found

    @router.get(UPLOAD_PATH + "/{doc_id}/file", responses=NOT_FOUND)
    async def document_file(
        doc_id: str, service: DocumentsServiceDep, caller: RequestCaller, index: str | None = None
    ):
        """The document's file as it was uploaded (an attachment)."""
        record, data = await stored(service, caller, index, doc_id)
        name = record.get("name") or doc_id
        headers = {
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}",
            "X-Content-Type-Options": "nosniff",
        }
        media = MEDIA_TYPES.get(record.get("file_type"), "application/octet-stream")
        return Response(data, media_type=media, headers=headers)

    @router.get(UPLOAD_PATH + "/{doc_id}/pages/{page}.png", responses=NOT_FOUND)
    async def page_image(
        doc_id: str,
        page: int,
        service: DocumentsServiceDep,
        caller: RequestCaller,
        index: str | None = None,
        mark: str | None = Query(default=None, max_length=2000),
        scale: float = Query(default=1.5, ge=0.5, le=3.0),
    ):
        """Page `page` (1-based) of a PDF as a PNG, the quote `mark` painted on it where the page holds it; a page
        over the pixel budget is drawn smaller (`X-Rqrag-Scale` says at what scale)."""
        key = (doc_id, page, " ".join((mark or "").split()), round(scale, 2))
        drawn = cache.get(key)
        if drawn is None:
            record, data = await stored(service, caller, index, doc_id)
            if record.get("file_type") != "pdf":
                raise APIError(404, "only a PDF's pages can be shown as images", code="no_page_images")
            image = await _drawn(service, data, page, key[2] or None, scale, record.get("name") or doc_id)
            drawn = (image.png, image.marked, image.pages, image.mark_top, image.scale)
            cache.put(key, drawn)
        else:  # cached: the caller must still be allowed to read the document (its file is not read again)
            await stored(service, caller, index, doc_id, with_file=False)
        png, marked, pages, top, drawn_scale = drawn
        headers = {
            "X-Rqrag-Marked": str(marked).lower(),
            "X-Rqrag-Pages": str(pages),
            "X-Rqrag-Scale": str(drawn_scale),
            "Cache-Control": "private",
        }
        if top is not None:
            headers["X-Rqrag-Mark-Top"] = str(top)  # where the mark starts (share of the page's height)
        return Response(png, media_type="image/png", headers=headers)

    return router
