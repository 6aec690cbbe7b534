"""The literature review reads scientific articles as articles: title, authors, year and sections from Markdown,
HTML, DOCX and PDF (LaTeX and word processor); fields quoted from the right sections; a check that catches what a
small model wrote (invented words, repeated bullets, cut lines); review.md, review.json, articles.bib/.csv.

The articles are tests/data/articles (written for this project, see its SOURCES.md files): `tuning` chose the
scorer's weights, `heldout` was never tuned on and is measured here against the issue's bar.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import pytest

from rqrag.inference.review.field_check import check_fields, invented_words, is_cut


ROOT = Path(__file__).resolve().parents[1]
ARTICLES = ROOT / "tests" / "data" / "articles"
FAILURE = ROOT / "tests" / "data" / "review_failures" / "small_model_review.md"
sys.path.insert(0, str(ROOT / "scripts"))


def references(name: str) -> list[dict]:
    return [json.loads(line) for line in (ARTICLES / name / "references.jsonl").read_text().splitlines() if line]


def small_model_fields() -> tuple[dict, str]:
    """The issue's review as fields: the first summary, its objectives, and the second article's summary."""
    text = FAILURE.read_text()
    summary = re.search(r"^\*\*Resumo\.\*\* (.+)$", text, re.M).group(1)
    objectives = re.findall(r"^- (.+)$", text, re.M)
    second = re.search(r"^\*\*Resumo 2\.\*\* (.+)$", text, re.M).group(1)
    return {"summary": summary, "objectives": objectives}, second


def test_the_check_flags_every_defect_of_the_small_models_review():
    from rqrag.inference.review.article_review import article_text
    from rqrag.ingest.article import Article
    from rqrag.ingest.article import read_article as read
    from rqrag.ingest.extract import Page

    # the article the fields claim to describe: one of ours, in Portuguese, about RAG
    source = (ARTICLES / "tuning" / "pt_markdown" / "article.md").read_bytes()
    article = read(source, "markdown", "article.md", [Page(1, source.decode())])
    assert isinstance(article, Article)
    own = article_text(article)
    fields, second = small_model_fields()
    defects = check_fields(fields, own)
    invented = {d.detail for d in defects if d.kind == "invented_word"}
    assert {"deversa", "aumentação", "aperuam"} <= invented, invented
    assert sum(d.kind == "repeated" for d in defects) == 3  # the same bullet four times
    assert any(d.kind == "twice" and d.field == "objectives" for d in defects)  # the summary is the objective
    assert sum(d.kind == "cut" for d in defects) == 6  # every "que ao-"
    second_defects = check_fields({"summary": second}, own)
    assert {d.kind for d in second_defects} == {"invented_word", "cut"}, second_defects  # "imparadura", "não cont"


def test_good_fields_and_real_terms_pass_the_check():
    own = "O BERTimbau e o BM25 foram comparados com reranking sobre 1.840 acórdãos."
    assert invented_words("Comparamos o BERTimbau ao BM25 com reranking em acórdãos do STF.", frozenset()) == ["BERTimbau"]
    from rqrag.inference.review.field_check import article_words

    assert invented_words("Comparamos o BERTimbau ao BM25 com reranking em acórdãos.", article_words(own)) == []
    assert not is_cut("O objetivo deste trabalho é avaliar sistemas RAG em português.", article_words(own))
    assert not is_cut("Avaliar sistemas RAG em português", article_words(own))  # a short bullet needs no period
    assert is_cut("O objetivo deste trabalho é avaliar sistemas RAG em", article_words(own))
    defects = check_fields(
        {"objective": ["O objetivo é comparar recuperadores."], "conclusion": ["O BM25 venceu."]},
        own,
        sources={"objective": ["introduction"], "conclusion": ["introduction"]},
    )
    assert [(d.field, d.kind) for d in defects] == [("conclusion", "wrong_section")]


@pytest.mark.parametrize("reference", references("tuning"), ids=lambda r: r["id"])
def test_each_layout_is_read_as_an_article(reference):
    from rqrag.ingest import ingest_path
    from rqrag.ingest.article import Article

    document = ingest_path(ARTICLES / "tuning" / reference["file"])
    assert document.article is not None, reference["file"]
    article = Article.from_dict(document.article)
    from eval_review import folded

    assert folded(article.title) == folded(reference["title"]), article.title
    assert [folded(a) for a in article.authors] == [folded(a) for a in reference["authors"]], article.authors
    assert article.year == reference["year"]
    found = set(article.kinds())
    expected = {s["kind"] for s in reference["sections"]} - {"references", "keywords"}
    assert expected <= found, (expected - found, [(s.kind, s.heading) for s in article.sections])
    assert "references" not in found and article.references > 0  # counted, never evidence
