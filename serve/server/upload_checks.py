"""Checks on an uploaded document before anything is stored: a safe file name, and the HTTP status of what
`rqrag.ingest.upload_precheck` finds (run in a file worker: it opens the user's file); plus the body-size limit
that lets uploads be larger than other requests. Used by `serve/server/documents_routes.py`."""

from __future__ import annotations

import os
import unicodedata

from rqrag.serve.server.body_limit import BodySizeLimit


UPLOAD_PATH = "/v1/documents"
MULTIPART_ENVELOPE_BYTES = 64 * 1024  # boundaries, part headers and the `index` field around the file


def safe_filename(raw: str | None) -> str:
    """The base name of an uploaded file's name, printable, without leading dots, at most 200 characters."""
    name = unicodedata.normalize("NFC", raw or "").replace("\\", "/").split("/")[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip().lstrip(".").strip()
    if len(name) > 200:
        stem, suffix = os.path.splitext(name)
        name = stem[: 200 - len(suffix[:20])] + suffix[:20]
    return name or "document"


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
