"""One review run: search the topic, read each document found (an article by its sections), ask a model only when
one is configured, check every field, write review.json, review.md, articles.bib, articles.csv and the config.

    rqrag review "avaliação de RAG" --index meus_artigos --language pt   # the command line: cli/commands/review.py
    run_review(config, topic, progress=job.progress)  # the server's review jobs: the same run, each article as done

Without `--llm_base_url` or `--serve_model` no model is started: an article's fields are quoted from its sections
(`article_review`), any other document's from its excerpts (`check.check_review`). With a model, its text is shown
only where it passes the checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rqrag.config_loader import ConfigError, save_resolved_config
from rqrag.review.review_config import (
    ENDPOINT_TIMEOUT_S,
    LOCAL_CONTEXT_TOKENS,
    LOCAL_FIELD_CHARS,
    LOCAL_TIMEOUT_S,
    ReviewConfig,
)
from rqrag.review.review_markdown import render_markdown
from rqrag.review.sources import hit_extras, index_language, library_source, open_source, review_language


logger = logging.getLogger(__name__)
PICKED_K = 200  # chunks searched when documents are picked: enough to find each picked one's best
# (stage, done, total, finished=None): "searching", "reviewing", "writing"; while reviewing, `finished` is the article
# just done ({"title", "seconds", "written"}: its texts with a sentence shown), so a page or a terminal can list each
# one as it ends. A raised exception stops the run (a cancelled job).
ReviewProgress = Callable[..., None]


class ReviewFailed(RuntimeError):
    """The run could not produce a review; the message says why (no match, the model refused, ...)."""


@dataclass
class ReviewOutcome:
    record: dict
    out: Path
    message: str  # the summary line the command prints

    @property
    def reviewed(self) -> int:
        return sum(d["review"] is not None or d.get("article") is not None for d in self.record["documents"])


async def _review_all(client, topic, documents, language, config: ReviewConfig) -> None:
    from rqrag.review.reviewer import review_documents, review_schema

    schema = review_schema(config.max_field_chars)
    try:
        await review_documents(client, topic, documents, language, config.passage_chars, schema)
    finally:
        await client.close()


def _ask_model(config: ReviewConfig, topic, documents, language, out: Path, stack: contextlib.ExitStack):
    """The model's reviews of every document (into each `document.review` / `.error`); returns the client stats."""
    from rqrag.llm.client import ChatClient
    from rqrag.llm.openai_endpoint import EndpointRefused
    from rqrag.local_servers.local_server import OpenAIServerError, serve_for_run

    settings = dataclasses.replace(config, timeout=config.timeout or ENDPOINT_TIMEOUT_S)
    if config.llm_base_url is None:
        try:
            settings = serve_for_run(config, stack, out / "review_server.log", max_model_len=LOCAL_CONTEXT_TOKENS)
        except OpenAIServerError as error:
            raise ReviewFailed(str(error)) from None
        settings = dataclasses.replace(
            settings,
            max_field_chars=config.max_field_chars or LOCAL_FIELD_CHARS,
            timeout=config.timeout or LOCAL_TIMEOUT_S,
        )
    client = ChatClient.from_settings(settings, cache_path=config.cache)
    try:
        asyncio.run(_review_all(client, topic, documents, language, settings))
    except EndpointRefused as error:  # 401/403/404: a wrong key, URL or model; no document would pass
        raise ReviewFailed(f"the LLM endpoint refused the run: {error}") from None
    return client.stats.as_dict()


def run_review(
    config: ReviewConfig, topic: str, progress: ReviewProgress | None = None, library=None
) -> ReviewOutcome:
    """Search, read, (ask,) check and write; `ReviewFailed` or `ConfigError` when no review can be made.
    `library`: an open library to review (a server's, named by `config.index`; left open), instead of opening
    the one `config.index` names."""
    from rqrag.review.bibliography import write_bibliography
    from rqrag.review.reviewer import DocumentGroup, group_by_document, ordered, review_record
    from rqrag.review.twins import merge_twins

    report = progress or (lambda stage, done, total, finished=None: None)
    with contextlib.ExitStack() as stack:  # the library's connection and a local model live for the run
        if library is not None:
            source = library_source(library, config)
        else:
            source = open_source(config)
            if source.library is not None:
                stack.callback(source.library.close)
        report("searching", 0, 1)
        from rqrag.retrieval.base import RetrieverError

        records = {r["doc_id"]: r for r in source.library.list()} if source.library is not None else {}
        picked = _picked(config, records)
        try:
            # picked documents: searched wider, as a picked one may rank below the topic's first k chunks
            hits = source.retriever.search(topic, k=config.k if picked is None else max(config.k, PICKED_K))
        except RetrieverError as error:  # said as a reason, never a traceback (hosts and paths left out)
            raise ReviewFailed(f"could not search {source.label}: {str(error).split(':')[0]}") from None
        extras = hit_extras(hits, source.index_dir)
        if picked is not None:
            kept = [i for i, extra in enumerate(extras) if extra.get("doc_id") in picked]
            hits, extras = [hits[i] for i in kept], [extras[i] for i in kept]
        elif not hits:  # said before any model is started
            raise ReviewFailed(f"nothing in {source.label} matches {topic!r}")
        documents, over_cap = group_by_document(hits, extras, config.per_document)
        found = {d.key for d in documents}
        documents += [DocumentGroup(doc_id, records[doc_id]["name"], records[doc_id]["name"])
                      for doc_id in picked or () if doc_id not in found]  # fmt: skip
        language = config.language or review_language([source.language]) or index_language(source.index_dir, extras)
        language = language or "en"
        # an article is read whole, from its sections, not from the chunks found; the catalogue is read once
        # (`library.get` lists every record per call: one query per document on PostgreSQL)
        for document in documents:
            document.article = records.get(document.key, {}).get("article")
        documents = merge_twins(documents)
        report("searching", 1, 1)
        out = Path(config.out)
        save_resolved_config(out, "rqrag review", config)
        llm_stats = None
        if config.uses_model:
            report("reviewing", 0, len(documents))
            llm_stats = _ask_model(config, topic, documents, language, out, stack)
        _read_each(config, topic, documents, language, report)
        info = {"index": source.label, "model": config.llm_model if config.uses_model else None, "k": config.k}
        if config.llm_base_url is None and config.serve_model:
            info["served_model"] = config.serve_model
        record = review_record(
            topic, ordered(documents), language, len(hits), over_cap, per_document=config.per_document, **info
        )
        record["llm"] = llm_stats
        report("writing", 0, 1)
        (out / "review.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        (out / "review.md").write_text(render_markdown(record))
        write_bibliography(record, out)
        report("writing", 1, 1)
    articles = sum(d["article"] is not None for d in record["documents"])
    defects = sum(len(d["article"]["defects"]) for d in record["documents"] if d["article"])
    message = (
        f"Reviewed {len(record['documents'])} document(s), {articles} read as articles ({len(hits)} chunks "
        f"retrieved; {defects} defect(s) found by the check) -> {out / 'review.md'}"
    )
    return ReviewOutcome(record, out, message)


def _read_each(config: ReviewConfig, topic: str, documents, language: str, report) -> None:
    """Each document checked, each article read as one (its fields quoted) and, with a writer, its four texts
    written; progress after each."""
    from rqrag.review.article_review import review_article
    from rqrag.review.check import check_review

    article_writer = _article_writer(config)
    for done, document in enumerate(documents, start=1):
        started = time.perf_counter()
        # relevance for all; the excerpts' quotes only for documents that are not articles
        check_review(topic, document, language, quote_fields=not document.article)
        title = (document.article or {}).get("title") or document.title
        if document.article:
            review_article(topic, document, language, document.review if config.uses_model else None,
                           per_field=config.per_field)  # fmt: skip
            if article_writer is not None:
                document.texts = _written_texts(article_writer, topic, title, document, language)
        written = sum(bool(text["sentences"]) for text in (document.texts or {}).get("texts", {}).values())
        finished = {"title": title, "seconds": round(time.perf_counter() - started, 1), "written": written}
        report("reviewing", done, len(documents), finished=finished)


def _article_writer(config: ReviewConfig):
    """The writer of each article's four texts when `--writer` names one (review/article_texts.py), else None."""
    from rqrag.writing_config import writes

    if not writes(config):
        return None
    from rqrag.answer.writer import model_and_check
    from rqrag.review.article_texts import ArticleWriter

    return ArticleWriter(*model_and_check(config))


def _written_texts(writer, topic: str, title: str, document, language: str) -> dict:
    """One article's four texts, in the article's own language (its passages'), from its own passages."""
    from rqrag.review.article_passages import article_passages
    from rqrag.text.languages import ANSWER_LANGUAGES, question_language

    passages = article_passages(document)  # in the article's own language
    sample = " ".join(h.text for h in passages[:2])
    own = question_language(sample, default=language, among=ANSWER_LANGUAGES) if sample else language
    return writer.write(topic, title, passages, own).to_dict()


def _picked(config: ReviewConfig, records: dict) -> list[str] | None:
    """The documents `config.doc_ids` picks, in the library's order; `ReviewFailed` naming any it does not hold."""
    if config.doc_ids is None:
        return None
    missing = [doc_id for doc_id in config.doc_ids if doc_id not in records]
    if missing or not config.doc_ids:
        raise ReviewFailed(f"the library holds no document {', '.join(missing) or '(none picked)'}")
    return [doc_id for doc_id in records if doc_id in set(config.doc_ids)]


class _TerminalProgress:
    """The command's progress: a bar over the articles, and a line for each as it ends (title, seconds, texts)."""

    def __init__(self):
        self.bar = None

    def __call__(self, stage: str, done: int, total: int, finished: dict | None = None) -> None:
        from tqdm.auto import tqdm

        if stage != "reviewing":
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            return
        if self.bar is None:
            self.bar = tqdm(total=total, desc="reviewing", unit="article")
        if finished is not None:
            written = f", {finished['written']} of 4 texts written" if finished["written"] else ""
            line = f"  done {done}/{total}: {finished['title']} ({finished['seconds']} s{written})"
            self.bar.write(line, file=sys.stderr)
        self.bar.update(done - self.bar.n)


def review(config: ReviewConfig, topic: str, stack: contextlib.ExitStack | None = None) -> int:
    """The command's run: the review, its summary line, and an exit code (1: nothing reviewed, 2: a failure)."""
    try:
        outcome = run_review(config, topic, progress=_TerminalProgress())
    except ReviewFailed as error:
        print(f"rqrag review: {error}", file=sys.stderr)
        return 1 if "matches" in str(error) else 2
    except ConfigError:
        raise
    print(outcome.message)
    for doc in outcome.record["documents"]:
        if doc["error"]:
            print(f"  no model review for {doc['title']!r} ({doc['error']}): quoted from it instead", file=sys.stderr)
    return 0 if outcome.record["documents"] else 1
