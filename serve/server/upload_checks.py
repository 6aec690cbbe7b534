"""Checks on an uploaded document before anything is stored: a safe file name, and the HTTP status of what
`rqrag.ingest.upload_precheck` finds (run in a file worker: it opens the user's file). Used by
`serve/server/documents_routes.py`; the larger body limit of uploads is `serve/server/body_limit.py`'s."""

from __future__ import annotations

import os
import unicodedata


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
