"""Limits on what one file may cost the ingestion: how far an archive may unpack, and how many chunks a document
may become. A server applies them to every upload (`rqrag serve`: `DocumentsSettings`); `ingest_bytes` applies them
when given (the command line ingests the user's own files, unlimited).

    limits = IngestLimits(max_uncompressed_bytes=100 << 20, max_compression_ratio=100, max_chunks=5000)
    check_archive(data, "report.docx", limits)       # IngestError("compression_ratio", ...) for a zip bomb

Why these checks. A 780 kB .docx whose document.xml unpacks to 206 MB (a zip bomb) was taken by the server: it
became 200,000 chunks, the process grew from 1.26 to 4.57 GB, and embedding would have taken ~29 hours. DOCX (and
every other ZIP-based format: ODT, EPUB, XLSX) is judged from its central directory, before a byte is inflated:
the declared sizes can be trusted because Python's zipfile (which python-docx reads through) never returns more than
a member's declared size, and a member that holds more fails its CRC check (a damaged file, `corrupt`). The chunk
cap catches what the archive limits cannot see: a PDF or a plain text whose text alone is endless.

Defaults. The upload limit is 50 MB. A legitimate DOCX of that size is mostly images, which do not compress, so it
unpacks to little more than itself; 100 MB uncompressed leaves twice that. Word's own XML compresses ~10-30:1
(python-docx's template styles.xml: 29:1), so a member over 1 MiB that compresses over 100:1 is a bomb, not prose
(the reported one: 250:1). 5,000 chunks is ~2,500 pages at the density of the 104-page Debian Edu manual (202
chunks), i.e. a very long book, and ~45 minutes of embedding at the rate the bomb's 200,000 chunks implied.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from rqrag.ingest.extract import IngestError, Page, detect_file_type


# The reasons an `IngestError` raised here carries (with extract.py's: encrypted, corrupt, ...).
ARCHIVE_TOO_LARGE = "archive_too_large"
COMPRESSION_RATIO = "compression_ratio"
TOO_MANY_CHUNKS = "too_many_chunks"
LIMIT_REASONS = (ARCHIVE_TOO_LARGE, COMPRESSION_RATIO, TOO_MANY_CHUNKS)

ZIP_MAGIC = b"PK\x03\x04"
# Small members (a content-types list, an empty header) compress far beyond any ratio and cost nothing: the ratio
# is judged only on members larger than this.
RATIO_GRACE_BYTES = 1 << 20
# A DOCX has tens of members, one with many images a few hundred; the directory's parse is bounded by the upload's
# size, but what reads the members afterwards should not walk a million of them.
MAX_ARCHIVE_MEMBERS = 10_000


@dataclass(frozen=True)
class IngestLimits:
    """What one file may cost; see the module docstring for how the defaults were chosen."""

    max_uncompressed_bytes: int = 100 * 1024 * 1024  # all members of an archive together, as declared
    max_compression_ratio: float = 100.0  # uncompressed / compressed size of one member over RATIO_GRACE_BYTES
    max_chunks: int = 5000  # chunks of one document


def _shown(member_name: str) -> str:
    """A member's name as a message may show it: the uploader chose it (printable, at most 80 characters)."""
    return "".join(ch for ch in member_name if ch.isprintable())[:80]


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def checked_file_type(data: bytes, name: str, limits: IngestLimits | None = None) -> str:
    """The file's type by its content, once an archive (`check_archive`) and a PDF's streams (`check_pdf_streams`)
    are within `limits` (None: not checked): what every reader of a user's file does first."""
    file_type = detect_file_type(data, name)
    if limits is not None:
        check_archive(data, name, limits)
        if file_type == "pdf":
            check_pdf_streams(data, name, limits)  # before any reader inflates a bomb
    return file_type


def check_archive(data: bytes, name: str, limits: IngestLimits) -> None:
    """Refuse a ZIP-based file (DOCX, ...) that would unpack too far, reading only its central directory.
    Anything that is not a ZIP passes: its own reader judges it."""
    if not data.startswith(ZIP_MAGIC):
        return
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError):
        return  # the reader reports the damage when it reads the file's type (`detect_file_type`: corrupt)
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise IngestError(
            ARCHIVE_TOO_LARGE, f"{name} holds {len(members):,} files, more than the {MAX_ARCHIVE_MEMBERS:,} allowed"
        )
    for member in members:
        if member.file_size <= RATIO_GRACE_BYTES:
            continue
        ratio = member.file_size / max(1, member.compress_size)
        if ratio > limits.max_compression_ratio:
            raise IngestError(
                COMPRESSION_RATIO,
                f"{name} is refused as a zip bomb: its {_shown(member.filename)} unpacks from "
                f"{_megabytes(member.compress_size)} to {_megabytes(member.file_size)} ({ratio:,.0f}:1; at most "
                f"{limits.max_compression_ratio:,.0f}:1 is allowed)",
            )
    # After the ratio: a bomb is named as one, even when it is also over the size limit.
    total = sum(member.file_size for member in members)
    if total > limits.max_uncompressed_bytes:
        raise IngestError(
            ARCHIVE_TOO_LARGE,
            f"{name} unpacks to {_megabytes(total)}, more than the {_megabytes(limits.max_uncompressed_bytes)} "
            "allowed; split it into smaller files, or save it as PDF",
        )


def fewest_chunks(pages: Sequence[Page], chunking) -> int:
    """A lower bound on the chunks `chunk_pages` will make of `pages`, computed without chunking: recursive chunks
    hold at most `chunk_size` characters and paragraph windows at most `max_words` words (each non-space character,
    or word, lands in at least one chunk). Semantic chunks have no maximum size: 0."""
    if chunking.strategy == "recursive":
        characters = sum(len(page.text) - sum(page.text.count(space) for space in " \n\t") for page in pages)
        return characters // chunking.chunk_size
    if chunking.strategy == "paragraph":
        words = sum(sum(1 for _ in re.finditer(r"\S+", page.text)) for page in pages)
        return words // chunking.max_words
    return 0


def check_chunk_count(count: int, name: str, limits: IngestLimits, *, estimated: bool = False) -> None:
    """Refuse a document of more than `IngestLimits.max_chunks` chunks (`estimated`: a lower bound, before chunking)."""
    if count > limits.max_chunks:
        makes = f"would make at least {count:,}" if estimated else f"makes {count:,}"
        raise IngestError(
            TOO_MANY_CHUNKS,
            f"{name} {makes} chunks, more than the {limits.max_chunks:,} a document may have here; "
            "split it into smaller files",
        )


# --------------------------------------------------------------------------------------------------- PDF

# A PDF's streams are inflated by its reader while it extracts the text, and a few hundred kB can inflate to
# gigabytes (a stream deflated twice: /Filter [/FlateDecode /FlateDecode]). `check_pdf_streams` inflates every Flate
# stream here first, 1 MiB at a time and keeping none of it, and stops as soon as the file is judged: bounded memory,
# and at most `PDF_INFLATE_BUDGET` bytes of work however large the bomb.
_STREAM = re.compile(rb"stream\r?\n")
_FILTERS = re.compile(rb"/Filter\s*(\[[^\]]*\]|/\w+)")
_INFLATE_STEP = 1 << 20
PDF_RATIO_FLOOR = 50 * 1024 * 1024  # a PDF inflating to less than this is never judged by its ratio


def _inflated_size(raw: bytes, layers: int, budget: int) -> int:
    """How many bytes `raw` inflates to through `layers` Flate layers, counting at most `budget` (then stops)."""
    decoders = [zlib.decompressobj() for _ in range(layers)]
    total = 0

    def feed(level: int, data: bytes) -> None:
        nonlocal total
        decoder = decoders[level]
        while data and total <= budget and not decoder.eof:
            out = decoder.decompress(data, _INFLATE_STEP)
            # past the end of the deflate stream (a PDF often keeps a newline or more before `endstream`) nothing
            # more comes out, and the tail would be offered again forever
            data = b"" if decoder.eof else decoder.unconsumed_tail
            if level + 1 < layers:
                feed(level + 1, out)
            else:
                total += len(out)
            if not out and not data:
                break

    try:
        for start in range(0, len(raw), _INFLATE_STEP):
            feed(0, raw[start : start + _INFLATE_STEP])
            if total > budget:
                break
    except zlib.error:
        pass  # not (all) Flate after all, or damaged: the reader judges it
    return total


def check_pdf_streams(data: bytes, name: str, limits: IngestLimits) -> None:
    """Refuse a PDF whose Flate streams inflate too far: beyond `max_compression_ratio` times the file's size once
    over `PDF_RATIO_FLOOR` (a bomb), or beyond ten times `max_uncompressed_bytes` at all. Other files pass."""
    if not data[:1024].lstrip().startswith(b"%PDF-") and b"%PDF-" not in data[:1024]:
        return
    too_far = 10 * limits.max_uncompressed_bytes
    bomb_at = max(PDF_RATIO_FLOOR, int(limits.max_compression_ratio * len(data)))
    budget = min(too_far, bomb_at)
    total = 0
    for found in _STREAM.finditer(data):
        head = data[max(0, found.start() - 400) : found.start()]
        dictionary = head[head.rfind(b"<<") :] if b"<<" in head else b""
        filters = _FILTERS.findall(dictionary)
        names = re.findall(rb"/(\w+)", filters[-1]) if filters else []
        if not names or any(n not in (b"FlateDecode", b"Fl") for n in names):
            continue  # images (DCT, JPX) and unfiltered streams cost their own size
        end = data.find(b"endstream", found.end())
        raw = data[found.end() : end if end >= 0 else len(data)]
        total += _inflated_size(raw, len(names), budget - total)
        if total > budget:
            break
    if total > bomb_at:
        raise IngestError(
            COMPRESSION_RATIO,
            f"{name} is refused as a decompression bomb: its streams inflate from {_megabytes(len(data))} to more "
            f"than {_megabytes(bomb_at)} (at most {limits.max_compression_ratio:,.0f}:1 is allowed)",
        )
    if total > too_far:
        raise IngestError(
            ARCHIVE_TOO_LARGE,
            f"{name}'s streams inflate to more than {_megabytes(too_far)}; split it into smaller files",
        )
