"""Text out of a user's file, page by page: PDF, DOCX, HTML, Markdown and plain text.

The file type is decided from the bytes (`detect_file_type`), never from the extension alone: users rename files,
and a PNG called `scan.pdf` must fail with "this is a PNG image", not with a PDF parser's stack trace. Every
failure a user can cause is an `IngestError` whose `reason` is one of a few fixed codes (the server shows the
message, a client can branch on the code).

PDF pages are numbered 1-based by physical position (what a PDF viewer shows), which is what answers cite.
The other file types have no fixed pages and come back as a single page 1.

PDF text comes from PDFium (`pypdfium2`, Apache-2.0/BSD) by default; `pdf_backend="pypdf"` (BSD, pure
Python) and `"pymupdf"` (AGPL, not a dependency: only if the user installs it) are selectable.
`scripts/compare_pdf_extractors.py` measured them on the 104-page Debian Edu manual: PDFium 0.7 s, 100 % of
the golden quotes on their page once the spaces it invents inside monospace code are dropped (below), no
words run together; pypdf 5.0 s, 100 %, but 27 run-together words where it lost the spaces of whole lines
("Oarquivodeconfiguração..."); PyMuPDF 0.7 s, 94 % (the same invented spaces: "debian -edu-amd64").
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import threading
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rqrag.ingest.accents import accent_targets, place_accents, stray_accents


# The reasons an `IngestError` can carry.
ENCRYPTED = "encrypted"
CORRUPT = "corrupt"
EMPTY = "empty"
UNSUPPORTED = "unsupported"
ENCODING = "encoding"

FILE_TYPES = ("pdf", "docx", "html", "markdown", "text")
PDF_BACKENDS = ("pypdfium2", "pypdf", "pymupdf")
DEFAULT_PDF_BACKEND = "pypdfium2"

# Progress callbacks get (pages done, pages in total).
ProgressCallback = Callable[[int, int], None]


class IngestError(ValueError):
    """A file we cannot turn into text. `reason` is one of ENCRYPTED, CORRUPT, EMPTY, UNSUPPORTED, ENCODING, or one
    of the limits' (`rqrag.ingest.limits.LIMIT_REASONS`: a file over what a server lets one upload cost)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __reduce__(self):  # raised in a file worker (`file_workers.py`) and sent back to the server whole
        return type(self), (self.reason, self.message)


@contextlib.contextmanager
def reader_failures(name: str, passing: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Whatever a reader raises on a broken file inside the block (pdfium's and lxml's errors, pypdf's
    OverflowError, zipfile's NotImplementedError) as `IngestError(CORRUPT)` naming `name`. An `IngestError`, a
    `MemoryError` (a file worker's memory limit: `file_too_complex`) and the `passing` types go through as they are."""
    try:
        yield
    except (IngestError, MemoryError, *passing):
        raise
    except Exception as error:  # noqa: BLE001 - a reader's failure on a file built to fail it
        logging.getLogger(__name__).warning("%s could not be read: %r", name, error)
        message = f"{name} is damaged and cannot be read ({type(error).__name__}: {error})"[:400]
        raise IngestError(CORRUPT, message) from None


@dataclass(frozen=True)
class Page:
    """The text of one page; `number` is 1-based and physical (the n-th page of the file)."""

    number: int
    text: str


# Magic numbers of formats users upload by mistake, so the error can say what the file really is.
_KNOWN_BINARIES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office file (.doc/.xls/.ppt); save it as .docx or PDF"),
    (b"{\\rtf", "an RTF document; save it as .docx or PDF"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
)
_MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown", ".mkd"}
_SUPPORTED = "PDF, DOCX, HTML, Markdown or UTF-8 text"


def _decode_utf8(data: bytes, name: str) -> str:
    """UTF-8 (with or without a byte-order mark), or an ENCODING error that says where it broke."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise IngestError(
            ENCODING,
            f"{name}: not UTF-8 text (byte 0x{data[error.start]:02x} at position {error.start}); "
            "save the file as UTF-8 and upload it again",
        ) from None


def detect_file_type(data: bytes, filename: str = "") -> str:
    """One of FILE_TYPES, from the content. The extension only tells Markdown from plain text (both are text)."""
    name = filename or "the file"
    if not data:
        raise IngestError(EMPTY, f"{name} is empty (0 bytes)")
    # The PDF spec lets readers accept the header anywhere in the first 1024 bytes, and Acrobat does.
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = set(archive.namelist())
        except zipfile.BadZipFile:
            raise IngestError(CORRUPT, f"{name} looks like a ZIP/DOCX file but the archive is damaged") from None
        if "word/document.xml" in members:
            return "docx"
        raise IngestError(UNSUPPORTED, f"{name} is a ZIP archive, not a Word document; upload {_SUPPORTED}")
    for magic, what in _KNOWN_BINARIES:
        if data.startswith(magic):
            raise IngestError(UNSUPPORTED, f"{name} is {what}, not a document we can read; upload {_SUPPORTED}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise IngestError(
            UNSUPPORTED, f"{name} is neither a known document format nor UTF-8 text; upload {_SUPPORTED}"
        ) from None
    if "\x00" in text:
        raise IngestError(UNSUPPORTED, f"{name} is a binary file, not a document; upload {_SUPPORTED}")
    head = text[:4096].lstrip().lower()
    if head.startswith("<!doctype html") or "<html" in head:
        return "html"
    if Path(filename).suffix.lower() in _MARKDOWN_SUFFIXES:
        return "markdown"
    return "text"


# ---------------------------------------------------------------------------------------------------- PDF


def _pdf_pages_pypdf(data: bytes, name: str, progress: ProgressCallback | None) -> list[Page]:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # Many PDFs are "encrypted" with an empty user password only to restrict printing: those open.
            try:
                opened = reader.decrypt("")
            except (DependencyError, NotImplementedError):
                opened = 0
            if not opened:
                raise IngestError(ENCRYPTED, f"{name} is password-protected; remove the password and upload it again")
        total = len(reader.pages)
        pages = []
        for index in range(total):
            pages.append(Page(index + 1, reader.pages[index].extract_text() or ""))
            if progress is not None:
                progress(index + 1, total)
        return pages
    except IngestError:
        raise
    except FileNotDecryptedError:
        raise IngestError(
            ENCRYPTED, f"{name} is password-protected; remove the password and upload it again"
        ) from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as error:
        # pypdf signals damaged files with its own errors but also with plain Python ones from deep inside.
        raise IngestError(CORRUPT, f"{name} is a damaged PDF that cannot be read ({error})") from None


def _pdf_pages_pymupdf(data: bytes, name: str, progress: ProgressCallback | None) -> list[Page]:
    import pymupdf

    try:
        document = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:  # PyMuPDF raises its own FileDataError, or RuntimeError on older versions
        raise IngestError(CORRUPT, f"{name} is a damaged PDF that cannot be read ({error})") from None
    with document:
        if document.needs_pass and not document.authenticate(""):
            raise IngestError(ENCRYPTED, f"{name} is password-protected; remove the password and upload it again")
        total = document.page_count
        pages = []
        for index in range(total):
            pages.append(Page(index + 1, document[index].get_text("text")))
            if progress is not None:
                progress(index + 1, total)
        return pages


def _fixed_pitch(textpage, index: int) -> bool:
    import ctypes

    import pypdfium2.raw as pdfium_c

    flags = ctypes.c_int(0)
    pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, None, 0, ctypes.byref(flags))
    return bool(flags.value & 1)  # PDF font flag 1: FixedPitch


def _loose_box(textpage, index: int) -> tuple[float, float]:
    import pypdfium2.raw as pdfium_c

    rect = pdfium_c.FS_RECTF()
    pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, index, rect)
    return rect.left, rect.right


def _pdfium_page_text(textpage) -> str:
    """PDFium's page text, without the spaces it invents inside monospace words.

    Accents PDFium leaves out of reading order are placed on their letters by position. PDFium adds a space
    wherever two glyphs sit further apart than it expects. In code set in a monospace
    font, TeX places a hyphen as its own glyph run ("debian-edu-amd64" comes out "debian -edu-amd64"); a
    real space there is a whole character cell wide, so a generated space narrower than half a cell between
    two fixed-pitch glyphs is dropped. Proportional text is left to PDFium, whose word gaps are right.
    """
    import pypdfium2.raw as pdfium_c

    text = textpage.get_text_range()
    if len(text) != textpage.count_chars():  # character indices would not line up with the text
        return text
    invented = set()
    for match in re.finditer(r"(?<=\S) (?=\S)", text):
        i = match.start()
        if pdfium_c.FPDFText_IsGenerated(textpage.raw, i) != 1:
            continue
        if not (_fixed_pitch(textpage, i - 1) and _fixed_pitch(textpage, i + 1)):
            continue
        (left_start, left_end), (right_start, _) = _loose_box(textpage, i - 1), _loose_box(textpage, i + 1)
        if right_start - left_end < 0.5 * (left_end - left_start):
            invented.add(i)
    # A LaTeX (OT1) accent PDFium emitted out of reading order ("E necessário ... con- ´" for "É") is put on the
    # letter it is drawn over; the accents in order are joined by the cleaner (rqrag.ingest.accents).
    strays = stray_accents(text)
    targets = accent_targets(text, strays, textpage.get_charbox) if strays else {}
    return place_accents(text, targets, drop=invented)


# PDFium is not thread-safe, not even across different documents; a server ingests uploads in worker threads.
_PDFIUM_LOCK = threading.Lock()


def _pdf_pages_pypdfium2(data: bytes, name: str, progress: ProgressCallback | None) -> list[Page]:
    with _PDFIUM_LOCK:
        return _pdf_pages_pypdfium2_unlocked(data, name, progress)


def _pdf_pages_pypdfium2_unlocked(data: bytes, name: str, progress: ProgressCallback | None) -> list[Page]:
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as error:
        if "password" in str(error).lower():
            raise IngestError(
                ENCRYPTED, f"{name} is password-protected; remove the password and upload it again"
            ) from None
        raise IngestError(CORRUPT, f"{name} is a damaged PDF that cannot be read ({error})") from None
    try:
        total = len(document)
        pages = []
        for index in range(total):
            page = document[index]
            text_page = page.get_textpage()
            # PDFium ends lines with \r\n, and writes a hyphen at a line end as U+FFFE with the line break
            # removed ("com\ufffeputador", but also "recomenda\ufffese"): restore "-\n" so that the cleaner
            # decides, with one rule for every backend, which hyphens were the typesetter's.
            text = _pdfium_page_text(text_page).replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-\n")
            pages.append(Page(index + 1, text))
            text_page.close()
            page.close()
            if progress is not None:
                progress(index + 1, total)
        return pages
    finally:
        document.close()


_PDF_READERS = {"pypdfium2": _pdf_pages_pypdfium2, "pypdf": _pdf_pages_pypdf, "pymupdf": _pdf_pages_pymupdf}


def extract_pdf_pages(
    data: bytes, name: str = "the PDF", backend: str = DEFAULT_PDF_BACKEND, progress: ProgressCallback | None = None
) -> list[Page]:
    """Every physical page of a PDF, in order, with the backend's raw text (empty pages included)."""
    if backend not in _PDF_READERS:
        raise ValueError(f"unknown PDF backend {backend!r}; choose one of {PDF_BACKENDS}")
    return _PDF_READERS[backend](data, name, progress)


# ---------------------------------------------------------------------------------------------- the others


def _html_text(data: bytes, name: str) -> str:
    import trafilatura

    # trafilatura drops navigation, footers, cookie banners and link lists; it detects the encoding itself.
    text = trafilatura.extract(data, include_comments=False, include_tables=True, favor_recall=True)
    return text or ""


def _docx_text(data: bytes, name: str) -> str:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise IngestError(CORRUPT, f"{name} is a damaged Word document ({error})") from None
    # Body paragraphs then tables: python-docx keeps them in separate lists; a blank line between
    # paragraphs keeps the paragraph structure for the cleaner and the chunkers.
    blocks = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            cells = []
            for cell in row.cells:
                if cell.text not in cells:  # merged cells repeat their text once per spanned column
                    cells.append(cell.text)
            blocks.append(" | ".join(cells))
    return "\n\n".join(block for block in blocks if block.strip())


def extract_pages(
    source: bytes | str | os.PathLike,
    file_type: str | None = None,
    filename: str = "",
    pdf_backend: str = DEFAULT_PDF_BACKEND,
    progress: ProgressCallback | None = None,
) -> list[Page]:
    """The pages of a document given as bytes or a path. `file_type` None: detected from the content.

    Raises `IngestError` when the file is encrypted, damaged, of an unsupported type, not UTF-8, or has no
    extractable text at all (e.g. a scanned PDF without a text layer).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        path = Path(source)
        data = path.read_bytes()
        filename = filename or path.name
    name = filename or "the file"
    file_type = file_type or detect_file_type(data, filename)
    if file_type not in FILE_TYPES:
        raise ValueError(f"unknown file type {file_type!r}; choose one of {FILE_TYPES}")
    if file_type == "pdf":
        pages = extract_pdf_pages(data, name, pdf_backend, progress)
    else:
        if file_type == "html":
            text = _html_text(data, name)
        elif file_type == "docx":
            text = _docx_text(data, name)
        else:
            text = _decode_utf8(data, name)
        pages = [Page(1, text)]
        if progress is not None:
            progress(1, 1)
    if not any(page.text.strip() for page in pages):
        hint = " (a scanned document without a text layer? run OCR on it first)" if file_type == "pdf" else ""
        raise IngestError(EMPTY, f"{name} has no extractable text{hint}")
    return pages
