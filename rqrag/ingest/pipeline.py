"""A user's file in, citable chunks out: detect -> extract -> clean -> chunk, one function call.

    from rqrag.ingest import ChunkingConfig, ingest_path
    document = ingest_path("manual.pdf", ChunkingConfig(strategy="recursive"))
    document.chunks[0].extra["page_start"]

The document is keyed by the SHA-256 of its bytes (`doc_id`, 16 hex characters), as LlamaIndex's ingestion
pipeline keys its docstore: adding the same file twice is recognisable as a no-op, and a changed file gets a
new id. Chunks are ordinary retrieval `Passage`s with docid `"<doc_id>:<chunk number>"`, so every index in
`rqrag.retrieval` takes them as they are; their `extra` carries what a citation needs (file, pages) and how
they were cut (strategy, sizes).
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rqrag.ingest.chunking import ChunkingConfig, Embedder, TokenCounter, chunk_pages
from rqrag.ingest.clean import clean_pages
from rqrag.ingest.extract import (
    DEFAULT_PDF_BACKEND,
    EMPTY,
    IngestError,
    Page,
    ProgressCallback,
    extract_pages,
    reader_failures,
)
from rqrag.ingest.limits import IngestLimits, check_chunk_count, checked_file_type, fewest_chunks
from rqrag.retrieval.passages import Passage


if TYPE_CHECKING:
    from rqrag.ingest.file_workers import FileWorkers


logger = logging.getLogger(__name__)


@dataclass
class IngestedDocument:
    """One uploaded file after ingestion. `pages` are the cleaned pages (TOC and empty pages left out)."""

    doc_id: str
    name: str
    size_bytes: int
    file_type: str  # one of rqrag.ingest.extract.FILE_TYPES: pdf, docx, html, markdown, text
    page_count: int
    pages: list[Page]
    chunks: list[Passage]
    # Its title, authors, year and sections when it reads as a scientific article (rqrag.ingest.article), else None.
    article: dict | None = None

    def summary(self) -> dict:
        """What a status line or an API response shows: everything but the texts."""
        return {
            "doc_id": self.doc_id,
            "name": self.name,
            "size_bytes": self.size_bytes,
            "file_type": self.file_type,
            "page_count": self.page_count,
            "pages_with_text": len(self.pages),
            "chunks": len(self.chunks),
        }


def content_id(data: bytes) -> str:
    """The document's id: the first 16 hex characters of the SHA-256 of its bytes."""
    return hashlib.sha256(data).hexdigest()[:16]


# A chunk is read in another language than its document's only when its prose says so this surely.
CHUNK_LANGUAGE_CONFIDENCE = 0.9


def chunk_languages(chunks: list[str], pages: list[str]) -> list[str]:
    """Each chunk's own language (its prose, `rqrag.ingest.language.language_of`), or the document's where a chunk
    alone cannot tell (a table, a listing, a few words). A manual two-thirds untranslated is not one language: BM25
    analyses each chunk in its own (`rqrag.retrieval.bm25`), so a Portuguese page is stemmed as Portuguese."""
    from rqrag.ingest.language import language_of, prose_lines

    document = language_of(pages).code
    out = []
    for text in chunks:
        found = language_of([prose_lines(text)])  # a listing or a table says nothing of its language
        sure = not found.fallback and found.confidence >= CHUNK_LANGUAGE_CONFIDENCE
        out.append(found.code if sure else document)
    return out


@dataclass
class ReadFile:
    """What opening a user's file gives: everything the ingestion needs from the file itself (its text and its
    front matter), so that the rest (chunks, languages, vectors) never touches the file. Small and picklable: a
    file worker (`rqrag.ingest.file_workers`) sends it back to the server."""

    file_type: str
    page_count: int  # physical pages, empty ones included
    pages: list[Page]  # cleaned, with text
    article: dict | None


def read_file(
    data: bytes,
    name: str,
    *,
    pdf_backend: str = DEFAULT_PDF_BACKEND,
    progress: ProgressCallback | None = None,
    limits: IngestLimits | None = None,
) -> ReadFile:
    """Every step that opens the file: the limits' checks, the text of each page, its cleaning, the article's
    front matter. `IngestError` for a file that cannot be read, holds no text, or is over `limits`; whatever
    else a reader raises on a broken file (pdfium's, lxml's errors, a recursion too deep) is `corrupt` too."""
    try:
        with reader_failures(name, passing=(_CallersOwn,)):
            return _read_file(data, name, pdf_backend, progress and _CallersOwn.wrap(progress), limits)
    except _CallersOwn as stop:  # the caller's progress raised (a cancelled job): its exception, as it was
        raise stop.error from None


class _CallersOwn(Exception):
    """An exception of the caller's progress callback, carried through the readers untouched."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error

    @classmethod
    def wrap(cls, progress: ProgressCallback) -> ProgressCallback:
        def call(done: int, total: int) -> None:
            try:
                progress(done, total)
            except Exception as error:
                raise cls(error) from error

        return call


def _read_file(data: bytes, name: str, pdf_backend: str, progress, limits: IngestLimits | None) -> ReadFile:
    file_type = checked_file_type(data, name, limits)
    raw_pages = extract_pages(data, file_type=file_type, filename=name, pdf_backend=pdf_backend, progress=progress)
    pages = clean_pages(raw_pages)
    if not pages:
        raise IngestError(EMPTY, f"{name} has no text left once headers, page numbers and contents pages are removed")
    from rqrag.ingest.article import read_article

    article = read_article(data, file_type, name, pages)
    return ReadFile(file_type, len(raw_pages), pages, article.to_dict() if article else None)


def ingest_bytes(
    data: bytes,
    filename: str,
    chunking: ChunkingConfig | None = None,
    *,
    embedder: Embedder | None = None,
    count_tokens: TokenCounter | None = None,
    pdf_backend: str = DEFAULT_PDF_BACKEND,
    progress: ProgressCallback | None = None,
    limits: IngestLimits | None = None,
    workers: FileWorkers | None = None,
) -> IngestedDocument:
    """Ingest a file's bytes. `progress(done_pages, total_pages)` is called as pages are extracted.

    `embedder` is needed by the semantic strategy only; `count_tokens` measures `chunking.max_tokens`. `limits`
    (a server's; None: none) refuses an archive that unpacks too far before extracting it, and a document of too
    many chunks before chunking it when its text alone says so, else once chunked. `workers` (a server's) open the
    file in a limited worker process (`read_file` there); None: here, as the command line does with one's own files.
    Raises `IngestError` for files that cannot be read, hold no text, or are over a limit.
    """
    chunking = chunking or ChunkingConfig()
    name = Path(filename).name or "document"
    options = {"pdf_backend": pdf_backend, "progress": progress, "limits": limits}
    if workers is None:
        read = read_file(data, name, **options)
    else:
        # A background job: it may wait for a free worker as long as one file may take to read.
        wait = workers.limits.wall_seconds
        read = workers.run(read_file, data, name, name=name, queue_seconds=wait, **options)
    pages = read.pages
    doc_id = content_id(data)
    if limits is not None:
        check_chunk_count(fewest_chunks(pages, chunking), name, limits, estimated=True)
    chunks = chunk_pages(pages, chunking, embedder=embedder, count_tokens=count_tokens)
    if limits is not None:
        check_chunk_count(len(chunks), name, limits)
    settings = {
        "strategy": chunking.strategy,
        "chunk_size": chunking.chunk_size,
        "chunk_overlap": chunking.chunk_overlap,
    }
    languages = chunk_languages([chunk.text for chunk in chunks], [page.text for page in pages])
    chunk_passages = [
        Passage(
            docid=f"{doc_id}:{i:05d}",
            title=name,
            text=chunk.text,
            extra={
                "doc_id": doc_id,
                "file": name,
                "page_start": chunk.page_start,
                "page_end": chunk.page_end,
                "language": language,
                **settings,
            },
        )
        for i, (chunk, language) in enumerate(zip(chunks, languages))
    ]
    logger.info(
        "%s: %s, %d pages (%d with text), %d chunks (%s)",
        name,
        read.file_type,
        read.page_count,
        len(pages),
        len(chunk_passages),
        asdict(chunking),
    )
    return IngestedDocument(
        doc_id, name, len(data), read.file_type, read.page_count, pages, chunk_passages, read.article
    )


def ingest_path(
    path: str | os.PathLike,
    chunking: ChunkingConfig | None = None,
    **kwargs,
) -> IngestedDocument:
    """`ingest_bytes` on a file; the name recorded (and cited) is the file's name."""
    path = Path(path)
    return ingest_bytes(path.read_bytes(), path.name, chunking, **kwargs)
