"""The four texts written by the real writer (Qwen2.5-1.5B on llama.cpp, offline) for a real article: in the
article's language, every sentence shown has passed the check and cites pages of the article, and the summary and
the objectives are not empty. How much of the article they hold is measured by scripts/eval_article_texts.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rqrag.text.text_quality import guess_language


pytestmark = [pytest.mark.slow, pytest.mark.heavy]
ARTICLES = Path(__file__).parent / "data" / "articles" / "tuning"


def test_the_real_writer_writes_checked_texts_in_the_articles_language():
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
    from eval_article_texts import article_document

    from rqrag.answer.writer import model_and_check
    from rqrag.review.article_passages import article_passages
    from rqrag.review.article_texts import ArticleWriter
    from rqrag.writing_config import WritingConfig

    gold = next(r for r in map(json.loads, (ARTICLES / "text_references.jsonl").open()) if r["id"] == "pt_markdown")
    document = article_document(ARTICLES / "pt_markdown" / "article.md", gold["topic"], "pt")
    passages = article_passages(document, "pt")
    model, check = model_and_check(WritingConfig(writer="qwen2.5-1.5b"))
    texts = ArticleWriter(model, check).write(gold["topic"], document.article["title"], passages, "pt")
    record = texts.to_dict()["texts"]
    assert record["summary"]["sentences"] and record["objectives"]["sentences"], texts.reply
    pages = {h.extra.get("page_start") for h in passages}
    for text in record.values():
        for sentence in text["sentences"]:
            assert sentence["check"]["ok"] and set(sentence["pages"]) <= pages, sentence
            cited = [passages[n - 1] for n in sentence["cites"]]
            assert check.check(sentence["text"], cited, gold["topic"], "pt").ok, sentence  # judged again: the same
    said = " ".join(s["text"] for t in record.values() for s in t["sentences"])
    assert guess_language(said) == "pt", said
