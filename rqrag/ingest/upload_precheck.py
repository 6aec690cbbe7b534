"""What can be told quickly about an uploaded file, before it is queued: its type by content, an archive (DOCX)
that would unpack too far (read from its central directory: `rqrag.ingest.limits`), a PDF encrypted, damaged or
without text on its first pages. The server runs it in a file worker (`rqrag.ingest.file_workers`): it opens the
user's file with pypdf.

    file_type = precheck(data, "manual.pdf", limits)     # "pdf", or IngestError(reason, message)
"""

from __future__ import annotations

import io
import time
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from rqrag.ingest.limits import IngestLimits


PRECHECK_SECONDS = 2.0


def precheck(data: bytes, name: str, limits: IngestLimits | None = None) -> str:
    """The file's type (`rqrag.ingest.extract.FILE_TYPES`), or an `IngestError` for what can be told quickly:
    wrong type, an archive over `limits` (a zip bomb), an encrypted, damaged or empty PDF. Whatever else a reader
    raises on a broken file (zipfile's NotImplementedError for a made-up version, pypdf's OverflowError) is
    `corrupt`: the campaign of docs/reliability.md found both reaching the upload as a 500."""
    from rqrag.ingest.extract import reader_failures

    with reader_failures(name):
        return _precheck(data, name, limits)


def _precheck(data: bytes, name: str, limits: IngestLimits | None) -> str:
    from rqrag.ingest.limits import checked_file_type

    file_type = checked_file_type(data, name, limits)
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
