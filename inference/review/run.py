"""One review run: search the topic, start the local model when no endpoint is given, review every document, check
each field against its excerpts, write review.json, review.md and the resolved config.

    rqrag review "notas" --index meus_artigos --language pt      # the command line: rqrag/commands/review.py
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import sys
from pathlib import Path

from rqrag.config import save_resolved_config
from rqrag.inference.review.config import (
    ENDPOINT_TIMEOUT_S,
    LOCAL_CONTEXT_TOKENS,
    LOCAL_FIELD_CHARS,
    LOCAL_TIMEOUT_S,
    ReviewConfig,
)
from rqrag.inference.review.report import render_markdown
from rqrag.inference.review.sources import hit_extras, index_language, open_source, review_language


logger = logging.getLogger(__name__)


async def _review_all(client, topic, documents, language, config: ReviewConfig) -> None:
    from rqrag.inference.review.reviewer import review_documents, review_schema

    schema = review_schema(config.max_field_chars)
    try:
        await review_documents(client, topic, documents, language, config.passage_chars, schema)
    finally:
        await client.close()


def review(config: ReviewConfig, topic: str, stack: contextlib.ExitStack) -> int:
    """Search, start the local model when no endpoint is given, review every document, write the report."""
    from rqrag.inference.review.reviewer import group_by_document, ordered, review_record
    from rqrag.llm_client import ChatClient
    from rqrag.local_server import OpenAIServerError, serve_for_run
    from rqrag.openai_endpoint import EndpointRefused

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
    except EndpointRefused as error:  # 401/403/404: a wrong key, URL or model; no document would pass
        print(f"rqrag review: the LLM endpoint refused the run: {error}", file=sys.stderr)
        return 2
    from rqrag.inference.review.check import check_review

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
