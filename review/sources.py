"""What a review searches: a library of the user's documents (a folder, or PostgreSQL + pgvector) or a plain index,
and the language the review is written in when the user does not say."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rqrag.config_loader import ConfigError
from rqrag.review.review_config import ReviewConfig


@dataclass
class ReviewSource:
    """What the topic is searched in: a library of the user's documents, or a plain index."""

    retriever: Any
    label: str  # named in the report: the library's location, or the index folder
    library: Any = None  # a `DocumentLibrary` (closed after the run), or None for a plain index
    index_dir: Path | None = None  # a plain index's folder (its docs file gives hits their document fields)

    @property
    def language(self) -> str | None:
        return self.library.language if self.library is not None else None


def open_source(config: ReviewConfig) -> ReviewSource:
    """The library or index `--index` names, opened as `rqrag docs` opens libraries: a PostgreSQL library with
    `--database_url`, a library folder (`documents.json` beside the index), else a plain index. A library with no
    documents is an error, and nothing is created."""
    from rqrag.ingest.libraries import open_library
    from rqrag.ingest.library import CATALOG_FILE, LibraryError, library_path
    from rqrag.retrieval import build_retriever

    try:
        if config.database_url:
            library = open_library(config.index, database_url=config.database_url)
        else:
            folder = library_path(config.index) if config.index != "embedded" else None
            if folder is None or not (folder / CATALOG_FILE).is_file():
                index_dir = resolve_index(config.index)
                if index_dir is None or not (index_dir / CATALOG_FILE).is_file():  # a plain index
                    retriever = build_retriever("corpus", mode=config.retrieval_mode, index_dir=index_dir)
                    return ReviewSource(retriever, str(index_dir or "embedded"), index_dir=index_dir)
                folder = index_dir.resolve()  # a library folder named without a slash
            library = open_library(folder)
    except LibraryError as error:
        raise ConfigError(str(error)) from None
    if not library.list():
        library.close()
        raise ConfigError(f"the library in {library.location} holds no documents (rqrag docs add FILES --index ...)")
    retriever = build_retriever("corpus", mode=config.retrieval_mode, index=library)
    return ReviewSource(retriever, library.location, library=library)


def library_source(library, config: ReviewConfig) -> ReviewSource:
    """An open library (a server's) as a review source, named by `config.index` (never by its server path)."""
    from rqrag.retrieval import build_retriever

    if not library.list():
        raise ConfigError(f"the library {config.index!r} holds no documents: upload some first")
    retriever = build_retriever("corpus", mode=config.retrieval_mode, index=library)
    return ReviewSource(retriever, str(config.index), library=library)


def resolve_index(name_or_dir: str) -> Path | None:
    """The index folder for a path or a name in the rq-rag cache; None for the embedded corpus."""
    from rqrag.paths import indexes_cache_dir

    if name_or_dir == "embedded":
        return None
    path = Path(name_or_dir).expanduser()
    if path.is_dir():
        return path
    if (indexes_cache_dir() / name_or_dir).is_dir():
        return indexes_cache_dir() / name_or_dir
    raise ConfigError(f"no index folder {path} and no index named {name_or_dir!r} in {indexes_cache_dir()}")


def hit_extras(hits, index_dir: Path | None) -> list[dict]:
    """Each hit's document fields (doc_id, file, page_start, ...): carried by the hit when the retriever keeps
    them, else looked up by docid in the index's own document file."""
    extras = [dict(hit.extra) for hit in hits]
    if index_dir is not None and not all(extras):
        from rqrag.retrieval.corpus_index import DOCS_FILE
        from rqrag.retrieval.passages import read_passages

        documents, _ = read_passages(index_dir / DOCS_FILE)
        by_id = {d.docid: d.extra for d in documents}
        extras = [extra or dict(by_id.get(hit.docid, {})) for hit, extra in zip(hits, extras)]
    return extras


def review_language(said: Iterable[str | None]) -> str | None:
    """The first language in `said` the review has instructions for ("pt-BR" -> "pt"), or None."""
    from rqrag.text.languages import ANSWER_LANGUAGES

    for language in said:
        code = str(language or "").lower()[:2]
        if code in ANSWER_LANGUAGES:
            return code
    return None


def index_language(index_dir: Path | None, extras: Sequence[dict]) -> str | None:
    """The language the index (meta.json `language`) or its chunks (`extra.language`) say they are in."""
    meta = index_dir / "meta.json" if index_dir is not None else None
    said = [json.loads(meta.read_text()).get("language")] if meta is not None and meta.is_file() else []
    return review_language(said + [extra.get("language") for extra in extras])
