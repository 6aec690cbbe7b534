"""rqrag review "TOPIC" --index LIBRARY [--database_url URL] [--k 30] [--per_document 5] [--out DIR]
                      [--language en|pt] [--llm_base_url URL] [--llm_model NAME] [--serve_model MODEL]
                      [--retrieval_mode bm25|dense|hybrid] [--config YAML]

    rqrag review "notas" --index meus_artigos --language pt             # a local model is started for the run
    rqrag review "notas" --index meus_artigos --database_url postgresql://localhost/rqrag
    rqrag review "query refinement for retrieval-augmented generation" --index indexes/my_papers \\
        --llm_base_url https://api.openai.com/v1 --llm_model gpt-4o-mini --out runs/review

A literature review of your own documents: the top `k` chunks of a library (`rqrag docs add`: a folder, or
PostgreSQL + pgvector with `--database_url`) or of an index (`rqrag index build`) for the topic, grouped by
document (at most `per_document` chunks each), and for every document a chat LLM's summary, objectives,
conclusions and relevance to the topic (high / medium / low / none, with the reason), each field checked against
the document's excerpts, or quoted from them with its page where the model's text fails the check. Without
`--llm_base_url` the LLM is `--serve_model`, started on this machine for the run. Writes review.md, review.json
and resolved_config.yaml to `--out`. How: `rqrag.inference.documents.review` and `review_check`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rqrag.config import ConfigError, log_config, make_parser, parse, save_resolved_config
from rqrag.inference.documents.review_report import page_ranges, render_markdown  # noqa: F401  (re-exported)


logger = logging.getLogger(__name__)

# The local model's context: SmolLM2's own 8192 tokens, not the 2048 `rqrag.local_server` starts with, so that
# `per_document` chunks of `passage_chars` (5 x 1500 characters) fit beside the instructions and the reply.
LOCAL_CONTEXT_TOKENS = 8192
# For the model started here, unless told otherwise: each text of the reply bounded (vLLM enforces `maxLength`), as
# SmolLM2-135M loops inside a JSON string until max_tokens without it (and at 300 characters: measured on a pt
# review); and a longer wait per call, since the model shares this machine's CPU (163 s for one reply on 2 busy
# cores, where 120 s is plenty for a hosted endpoint).
LOCAL_FIELD_CHARS = 100
LOCAL_TIMEOUT_S = 600.0
ENDPOINT_TIMEOUT_S = 120.0


@dataclass
class ReviewConfig:
    index: str | None = field(
        default=None,
        metadata={
            "help": "a library (`rqrag docs add --index`: its name or folder; with --database_url, its name in "
            "PostgreSQL), an index folder (`rqrag index build`) or the name of one under the rq-rag cache's "
            "indexes/; 'embedded' for the embedded Wikipedia sample"
        },
    )
    database_url: str | None = field(
        default=None,
        metadata={"help": "PostgreSQL URL of a pgvector library (`rqrag docs add --database_url`)"},
    )
    retrieval_mode: Literal["bm25", "dense", "hybrid"] = field(
        default="hybrid", metadata={"help": "how the index is searched (the index must hold that mode)"}
    )
    k: int = field(default=30, metadata={"help": "chunks retrieved for the topic"})
    per_document: int = field(default=5, metadata={"help": "most chunks of one document given to the LLM"})
    out: str = field(
        default="runs/review", metadata={"help": "output folder: review.md, review.json, resolved config"}
    )
    language: Literal["en", "pt"] | None = field(
        default=None,
        metadata={"help": "language of the instructions and the report (default: the index's when known, else en)"},
    )
    passage_chars: int = field(default=1500, metadata={"help": "characters of each chunk shown to the LLM"})
    max_field_chars: int | None = field(
        default=None,
        metadata={
            "help": "bound each text of the reply to this many characters in the JSON schema (maxLength): small "
            "local models loop inside JSON strings without it; hosted strict modes may reject it (default: "
            f"{LOCAL_FIELD_CHARS} for the model started here, none for an endpoint you give)"
        },
    )
    llm_base_url: str | None = field(
        default=None,
        metadata={
            "help": "OpenAI-compatible chat endpoint, e.g. http://127.0.0.1:8000/v1 or https://api.openai.com/v1 "
            "(default: --serve_model, started on this machine for the run)"
        },
    )
    llm_model: str = field(
        default="smollm2", metadata={"help": "model name sent to the endpoint (the model started here is served so)"}
    )
    serve_model: str = field(
        default="smollm2-135m-instruct",
        metadata={
            "help": "the model started on this machine (vLLM) when no --llm_base_url is given, as `rqrag data "
            "build --serve_model` does: a packaged name or a model folder"
        },
    )
    llm_api_key_env: str = field(default="OPENAI_API_KEY", metadata={"help": "environment variable with the key"})
    temperature: float = field(default=0.0, metadata={"help": "LLM temperature"})
    max_tokens: int = field(default=800, metadata={"help": "max tokens of one document's review"})
    timeout: float | None = field(
        default=None,
        metadata={
            "help": f"seconds per LLM call before it is retried (default: {ENDPOINT_TIMEOUT_S:.0f}; "
            f"{LOCAL_TIMEOUT_S:.0f} for the model started here)"
        },
    )
    max_retries: int = field(default=2, metadata={"help": "retries per call on connection errors, 429 and 5xx"})
    concurrency: int = field(default=4, metadata={"help": "documents reviewed at once"})
    response_format: Literal["json_schema", "json_object", "text"] = field(
        default="json_schema", metadata={"help": "how replies are constrained to JSON (json_object for older models)"}
    )
    cache: str | None = field(default=None, metadata={"help": "SQLite file caching LLM replies across runs"})

    def __post_init__(self):
        if self.k < 1 or self.per_document < 1 or self.passage_chars < 1 or self.concurrency < 1:
            raise ValueError("k, per_document, passage_chars and concurrency must be at least 1")


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
        from rqrag.retrieval.documents import read_documents

        documents, _ = read_documents(index_dir / DOCS_FILE)
        by_id = {d.docid: d.extra for d in documents}
        extras = [extra or dict(by_id.get(hit.docid, {})) for hit, extra in zip(hits, extras)]
    return extras


def review_language(said: Iterable[str | None]) -> str | None:
    """The first language in `said` the review has instructions for ("pt-BR" -> "pt"), or None."""
    from rqrag.inference.documents.review import LANGUAGES

    for language in said:
        code = str(language or "").lower()[:2]
        if code in LANGUAGES:
            return code
    return None


def index_language(index_dir: Path | None, extras: Sequence[dict]) -> str | None:
    """The language the index (meta.json `language`) or its chunks (`extra.language`) say they are in."""
    meta = index_dir / "meta.json" if index_dir is not None else None
    said = [json.loads(meta.read_text()).get("language")] if meta is not None and meta.is_file() else []
    return review_language(said + [extra.get("language") for extra in extras])


async def _review_all(client, topic, documents, language, config: ReviewConfig) -> None:
    from rqrag.inference.documents.review import review_documents, review_schema

    schema = review_schema(config.max_field_chars)
    try:
        await review_documents(client, topic, documents, language, config.passage_chars, schema)
    finally:
        await client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(ReviewConfig, prog="rqrag review", description=__doc__.split("\n\n")[2])
    parser.add_argument("topic", nargs="+", help="the review topic (quote it)")
    config, extra = parse(parser, argv)
    topic = " ".join(" ".join(extra.topic).split())
    if not topic:
        parser.error("the topic is empty")
    if not config.index:
        parser.error("--index is required: a library or index name or folder, or 'embedded'")
    log_config("rqrag review", config)
    with contextlib.ExitStack() as stack:  # the library's connection and the local model live for the run
        return review(config, topic, stack)


def review(config: ReviewConfig, topic: str, stack: contextlib.ExitStack) -> int:
    """Search, start the local model when no endpoint is given, review every document, write the report."""
    import openai

    from rqrag.inference.documents.review import group_by_document, ordered, review_record
    from rqrag.llm_client import ChatClient
    from rqrag.local_server import OpenAIServerError, serve_for_run

    source = open_source(config)
    if source.library is not None:
        stack.callback(source.library.close)
    hits = source.retriever.search(topic, k=config.k)
    if not hits:  # said before any model is started
        print(f"rqrag review: nothing in {source.label} matches {topic!r}", file=sys.stderr)
        return 1
    extras = hit_extras(hits, source.index_dir)
    documents, over_cap = group_by_document(hits, extras, config.per_document)
    language = config.language or review_language([source.language]) or index_language(source.index_dir, extras)
    language = language or "en"
    out = Path(config.out)
    save_resolved_config(out, "rqrag review", config)  # as asked: a rerun starts its own local model again
    settings = dataclasses.replace(config, timeout=config.timeout or ENDPOINT_TIMEOUT_S)
    if config.llm_base_url is None:
        try:
            settings = serve_for_run(config, stack, out / "review_server.log", max_model_len=LOCAL_CONTEXT_TOKENS)
        except OpenAIServerError as error:
            print(f"rqrag review: {error}", file=sys.stderr)
            return 2
        settings = dataclasses.replace(
            settings,
            max_field_chars=config.max_field_chars or LOCAL_FIELD_CHARS,
            timeout=config.timeout or LOCAL_TIMEOUT_S,
        )
    client = ChatClient.from_settings(settings, cache_path=config.cache)
    logger.info("reviewing %d document(s) from %d chunk(s) in %s", len(documents), len(hits), language)
    try:
        asyncio.run(_review_all(client, topic, documents, language, settings))
    except openai.APIStatusError as error:  # 401/403/404: a wrong key, URL or model; no document would pass
        print(f"rqrag review: the LLM endpoint refused the run: HTTP {error.status_code}: {error}", file=sys.stderr)
        return 2
    from rqrag.inference.documents.review_check import check_review

    for document in documents:  # the model's text is shown where it holds up; quotes fill the rest
        check_review(topic, document, language)
    info = {"index": source.label, "model": config.llm_model, "k": config.k}
    if config.llm_base_url is None:
        info["served_model"] = config.serve_model
    record = review_record(
        topic, ordered(documents), language, len(hits), over_cap, per_document=config.per_document, **info
    )
    record["llm"] = client.stats.as_dict()
    (out / "review.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    md_path = out / "review.md"
    md_path.write_text(render_markdown(record))
    reviewed = sum(d["review"] is not None for d in record["documents"])
    quoted = sum(f["kind"] != "generated" for d in record["documents"] for f in (d["provenance"] or {}).values())
    print(f"Reviewed {reviewed} of {len(documents)} document(s) ({len(hits)} chunks retrieved; {quoted} field(s) "
          f"quoted or judged by words, the model's text did not hold up) -> {md_path}")  # fmt: skip
    for doc in record["documents"]:
        if doc["error"]:
            print(f"  no model review for {doc['title']!r} ({doc['error']}): quoted from it instead", file=sys.stderr)
    return 0 if reviewed else 1


if __name__ == "__main__":
    sys.exit(main())
