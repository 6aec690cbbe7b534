"""Checks on an uploaded document before anything is stored: a safe file name, the type by content, an archive
(DOCX) that would unpack too far (read from its central directory: `rqrag.ingest.limits`), and what can be told
quickly about a PDF (encrypted, damaged, empty); plus the body-size limit that lets uploads be larger than other
requests. Used by `serve/server/documents_routes.py`."""

from __future__ import annotations

import io
import os
import time
import unicodedata
from typing import TYPE_CHECKING

from rqrag.serve.server.body_limit import BodySizeLimit


if TYPE_CHECKING:
    from rqrag.ingest.limits import IngestLimits


UPLOAD_PATH = "/v1/documents"
MULTIPART_ENVELOPE_BYTES = 64 * 1024  # boundaries, part headers and the `index` field around the file
PRECHECK_SECONDS = 2.0


def safe_filename(raw: str | None) -> str:
    """The base name of an uploaded file's name, printable, without leading dots, at most 200 characters."""
    name = unicodedata.normalize("NFC", raw or "").replace("\\", "/").split("/")[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip().lstrip(".").strip()
    if len(name) > 200:
        stem, suffix = os.path.splitext(name)
        name = stem[: 200 - len(suffix[:20])] + suffix[:20]
    return name or "document"


def precheck(data: bytes, name: str, limits: IngestLimits | None = None) -> str:
    """The file's type (`rqrag.ingest.extract.FILE_TYPES`), or an `IngestError` for what can be told quickly: wrong type, an archive over `limits`
    (a zip bomb), encrypted/damaged/empty PDF."""
    from rqrag.ingest.extract import detect_file_type
    from rqrag.ingest.limits import check_archive, check_pdf_streams

    file_type = detect_file_type(data, name)
    if limits is not None:
        check_archive(data, name, limits)
        if file_type == "pdf":
            check_pdf_streams(data, name, limits)  # before any reader inflates a bomb
    if file_type == "pdf":
        _precheck_pdf(data, name)
    return file_type


def _precheck_pdf(data: bytes, name: str) -> None:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    from rqrag.ingest.extract import CORRUPT, EMPTY, ENCRYPTED, IngestError

    locked = f"{name} is password-protected; remove the password and upload it again"
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")  # an empty user password only restricts printing: those open
            except (DependencyError, NotImplementedError):
                opened = 0
            if not opened:
                raise IngestError(ENCRYPTED, locked)
        if len(reader.pages) == 0:
            raise IngestError(EMPTY, f"{name} has no pages")
        deadline = time.monotonic() + PRECHECK_SECONDS
        for page in reader.pages:
            if (page.extract_text() or "").strip() or time.monotonic() > deadline:
                return  # text found, or no time left to look: the job reads the whole file
    except IngestError:
        raise
    except FileNotDecryptedError:
        raise IngestError(ENCRYPTED, locked) from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError, RecursionError) as error:
        raise IngestError(CORRUPT, f"{name} is a damaged PDF that cannot be read ({error})") from None
    raise IngestError(EMPTY, f"{name} has no extractable text (a scanned document without a text layer? run OCR)")


def _status_for(reason: str) -> int:
    from rqrag.ingest.extract import UNSUPPORTED
    from rqrag.ingest.limits import ARCHIVE_TOO_LARGE, COMPRESSION_RATIO

    if reason in (ARCHIVE_TOO_LARGE, COMPRESSION_RATIO):
        return 413  # too large once unpacked, as a file over the upload limit is too large as sent
    return 415 if reason == UNSUPPORTED else 422


class UploadBodyLimit:
    """`BodySizeLimit` with a larger limit on `POST /v1/documents` (the file plus its multipart envelope)."""

    def __init__(self, app, max_bytes: int, upload_max_bytes: int, upload_path: str = UPLOAD_PATH):
        self.default = BodySizeLimit(app, max_bytes)
        self.uploads = BodySizeLimit(app, upload_max_bytes + MULTIPART_ENVELOPE_BYTES)
        self.upload_path = upload_path

    async def __call__(self, scope, receive, send):
        upload = (
            scope["type"] == "http"
            and scope.get("method") == "POST"
            and scope.get("path", "").rstrip("/") == self.upload_path
        )
        await (self.uploads if upload else self.default)(scope, receive, send)
