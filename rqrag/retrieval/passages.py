"""Corpus passages (`Passage`): reading and writing the corpus files every local index is built from.

A passage is a corpus's unit of retrieval; a user's file is a document (`rqrag.ingest`), whose chunks become
passages once ingested. Where a passage is, as a citation says it, is `rqrag.retrieval.citations`.

A corpus is JSONL (optionally gzipped) or a single JSON array. Each record needs a `title` and a passage
text, which may be called `text`, `paragraph_text` (IRCoT/MuSiQue) or `contents` (pyserini). FlashRAG's corpora
(wiki-18) are read as they are: `{"id", "contents": "title\\ntext"}` without a `title` field gives the first line
of `contents` as the title and the rest as the text (`split_contents`). The docid is
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rqrag.records import jsonl_objects


logger = logging.getLogger(__name__)

TEXT_KEYS = ("text", "paragraph_text", "contents")
ID_KEYS = ("docid", "id")


@dataclass(frozen=True)
class Passage:
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


def indexed_text(doc: Passage) -> str:
    """What the indexes see of a passage: the title on its own line, then the text.

    Both BM25 and the dense encoder index this string, so a query naming the article title can match
    even when the paragraph itself only says "he" or "the film".
    """
    return f"{doc.title}\n{doc.text}"


def split_contents(contents: str) -> tuple[str, str]:
    """(title, text) of a FlashRAG / DPR-style `contents` field: the title is its first line, without the double
    quotes wiki-18 puts around it (`"Aaron"\\nAaron is a prophet ...`), and the text the lines after it."""
    first, _, rest = contents.partition("\n")
    title = first.strip()
    if len(title) >= 2 and title[0] == title[-1] == '"':
        title = title[1:-1].strip()
    return title, rest.strip()


def passage_from_record(record: dict[str, Any]) -> Passage:
    """Build a `Passage` from one corpus record; raises `ValueError` when the record has no text."""
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    text_key = next((key for key in TEXT_KEYS if isinstance(record.get(key), str)), None)
    if text_key is None:
        raise ValueError(f"record has none of the text fields {TEXT_KEYS}")
    text = record[text_key]
    if text_key == "contents" and "title" not in record and "\n" in text:
        title, text = split_contents(text)
    else:
        title = record.get("title") or ""
    if not isinstance(title, str):
        raise ValueError(f"title must be a string, got {type(title).__name__}")
    given_id = next((record[key] for key in ID_KEYS if record.get(key) not in (None, "")), None)
    docid = str(given_id) if given_id is not None else content_docid(title, text)
    known = {"title", *TEXT_KEYS, *ID_KEYS}
    extra = {key: value for key, value in record.items() if key not in known}
    return Passage(docid=docid, title=title, text=text, extra=extra)


@dataclass
class CorpusReadStats:
    """What `read_passages` saw: documents kept and lines it had to skip."""

    path: str
    passages: int = 0
    skipped: int = 0
    first_errors: list[str] = field(default_factory=list)

    def record_error(self, where: str, error: Exception | str) -> None:
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


def iter_passages(path: str | os.PathLike, stats: CorpusReadStats | None = None) -> Iterator[Passage]:
    """Yield the documents of a JSONL(.gz) or JSON-array file, skipping (and counting) malformed records."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path}")
    stats = stats if stats is not None else CorpusReadStats(path=str(path))
    if _looks_like_json_array(path):
        with _open_text(path) as f:
            records = json.load(f)
        yield from _passages(enumerate(records), stats, lambda i: f"{path}[{i}]")
        return
    with _open_text(path) as f:
        lines = jsonl_objects(f, lambda line_no, reason: stats.record_error(f"{path}:{line_no}", reason), str(path))
        yield from _passages(lines, stats, lambda line_no: f"{path}:{line_no}")


def _passages(
    numbered: Iterable[tuple[int, Any]], stats: CorpusReadStats, where: Callable[[int], str]
) -> Iterator[Passage]:
    """The documents of (position, record) pairs; a record that is not one is counted in `stats` at `where`."""
    for position, record in numbered:
        try:
            doc = passage_from_record(record)
        except ValueError as error:
            stats.record_error(where(position), error)
            continue
        stats.passages += 1
        yield doc


def read_passages(path: str | os.PathLike) -> tuple[list[Passage], CorpusReadStats]:
    """Read a whole corpus file. Returns the documents and the read statistics (skips are logged)."""
    stats = CorpusReadStats(path=str(path))
    docs = list(iter_passages(path, stats))
    if stats.skipped:
        logger.warning(
            "%s: skipped %d malformed record(s) of %d; first: %s",
            path,
            stats.skipped,
            stats.skipped + stats.passages,
            "; ".join(stats.first_errors),
        )
    return docs, stats


def write_passages(docs: Iterable[Passage], path: str | os.PathLike) -> int:
    """Write documents as JSONL (gzipped when the name ends in .gz). Returns how many were written."""
    path = Path(path)
    n = 0
    with gzip.open(path, "wt", encoding="utf-8") if path.suffix == ".gz" else path.open("w", encoding="utf-8") as f:
        for doc in docs:
            f.write(json.dumps(doc.to_dict(), ensure_ascii=False) + "\n")
            n += 1
    return n


def deduplicate_docids(docs: Iterable[Passage]) -> tuple[list[Passage], int]:
    """Keep the first document of each docid. Returns the kept documents and how many were dropped."""
    seen: set[str] = set()
    kept: list[Passage] = []
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
