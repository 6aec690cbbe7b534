"""Reading and writing corpus files: the passages every local index is built from.

A corpus is JSONL (optionally gzipped) or a single JSON array. Each record needs a `title` and a passage
text, which may be called `text`, `paragraph_text` (IRCoT/MuSiQue) or `contents` (pyserini). The docid is
the record's `docid` or `id` when present; otherwise it is derived from the content, so re-reading the same
file always gives the same ids (an index built today matches a cache written yesterday).

Malformed lines are skipped and counted rather than fatal: one broken line in a 10k-passage dump should not
cost a rebuild, but the count is logged so it does not go unnoticed either.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


logger = logging.getLogger(__name__)

TEXT_KEYS = ("text", "paragraph_text", "contents")
ID_KEYS = ("docid", "id")


@dataclass(frozen=True)
class Document:
    """One passage of a corpus. `extra` keeps any other fields of the record (e.g. source datasets)."""

    docid: str
    title: str
    text: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {"docid": self.docid, "title": self.title, "text": self.text, **self.extra}


def content_docid(title: str, text: str) -> str:
    """The stable id of a passage that came without one: a hash of its title and text."""
    digest = hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()
    return f"doc-{digest[:16]}"


def doc_id_of(item) -> str:
    """The document a chunk or a hit of a document library belongs to: `extra["doc_id"]`, else its docid before the
    last ':' (chunks of an ingested file are "DOC_ID:00012")."""
    return (item.extra or {}).get("doc_id") or item.docid.rsplit(":", 1)[0]


def indexed_text(doc: Document) -> str:
    """What the indexes see of a passage: the title on its own line, then the text.

    Both BM25 and the dense encoder index this string, so a query naming the article title can match
    even when the paragraph itself only says "he" or "the film".
    """
    return f"{doc.title}\n{doc.text}"


def document_from_record(record: dict[str, Any]) -> Document:
    """Build a `Document` from one corpus record; raises `ValueError` when the record has no text."""
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    text = next((record[key] for key in TEXT_KEYS if isinstance(record.get(key), str)), None)
    if text is None:
        raise ValueError(f"record has none of the text fields {TEXT_KEYS}")
    title = record.get("title") or ""
    if not isinstance(title, str):
        raise ValueError(f"title must be a string, got {type(title).__name__}")
    given_id = next((record[key] for key in ID_KEYS if record.get(key) not in (None, "")), None)
    docid = str(given_id) if given_id is not None else content_docid(title, text)
    known = {"title", *TEXT_KEYS, *ID_KEYS}
    extra = {key: value for key, value in record.items() if key not in known}
    return Document(docid=docid, title=title, text=text, extra=extra)


@dataclass
class ReadStats:
    """What `read_documents` saw: documents kept and lines it had to skip."""

    path: str
    documents: int = 0
    skipped: int = 0
    first_errors: list[str] = field(default_factory=list)

    def record_error(self, where: str, error: Exception) -> None:
        self.skipped += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(f"{where}: {error}")


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return path.open(encoding="utf-8")


def _looks_like_json_array(path: Path) -> bool:
    with _open_text(path) as f:
        for line in f:
            stripped = line.lstrip()
            if stripped:
                return stripped.startswith("[")
    return False


def iter_documents(path: str | os.PathLike, stats: ReadStats | None = None) -> Iterator[Document]:
    """Yield the documents of a JSONL(.gz) or JSON-array file, skipping (and counting) malformed records."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path}")
    stats = stats if stats is not None else ReadStats(path=str(path))
    if _looks_like_json_array(path):
        with _open_text(path) as f:
            records = json.load(f)
        for i, record in enumerate(records):
            try:
                doc = document_from_record(record)
            except ValueError as error:
                stats.record_error(f"{path}[{i}]", error)
                continue
            stats.documents += 1
            yield doc
        return
    with _open_text(path) as f:
        for line_no, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                doc = document_from_record(json.loads(line))
            except ValueError as error:  # json.JSONDecodeError is a ValueError too
                stats.record_error(f"{path}:{line_no}", error)
                continue
            stats.documents += 1
            yield doc


def read_documents(path: str | os.PathLike) -> tuple[list[Document], ReadStats]:
    """Read a whole corpus file. Returns the documents and the read statistics (skips are logged)."""
    stats = ReadStats(path=str(path))
    docs = list(iter_documents(path, stats))
    if stats.skipped:
        logger.warning(
            "%s: skipped %d malformed record(s) of %d; first: %s",
            path,
            stats.skipped,
            stats.skipped + stats.documents,
            "; ".join(stats.first_errors),
        )
    return docs, stats


def write_documents(docs: Iterable[Document], path: str | os.PathLike) -> int:
    """Write documents as JSONL (gzipped when the name ends in .gz). Returns how many were written."""
    path = Path(path)
    n = 0
    with gzip.open(path, "wt", encoding="utf-8") if path.suffix == ".gz" else path.open("w", encoding="utf-8") as f:
        for doc in docs:
            f.write(json.dumps(doc.to_dict(), ensure_ascii=False) + "\n")
            n += 1
    return n


def deduplicate_docids(docs: Iterable[Document]) -> tuple[list[Document], int]:
    """Keep the first document of each docid. Returns the kept documents and how many were dropped."""
    seen: set[str] = set()
    kept: list[Document] = []
    dropped = 0
    for doc in docs:
        if doc.docid in seen:
            dropped += 1
            continue
        seen.add(doc.docid)
        kept.append(doc)
    return kept, dropped


def corpus_fingerprint(docids: Iterable[str]) -> str:
    """A short hash of a corpus's docids, in order: names an index in cache keys and retriever names."""
    h = hashlib.sha1()
    for docid in docids:
        h.update(docid.encode())
        h.update(b"\0")
    return h.hexdigest()[:12]
