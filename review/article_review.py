"""One article's review: its fields quoted from its own sections, a model's text shown only where it passes the check.

    review_article(topic, document, language, model_review)   # document.article set from the library's record
    document.article_review   # {"title", "authors", "year", "fields": {field: [quote, ...]}, "defects": [...], ...}

Each field (objective, method, data, main result, conclusion) is the sentence `article_fields` scores best in the
sections it belongs to, with its page and section heading. When a chat model reviewed the document
(`--llm_base_url`), its objectives and conclusions replace the quotes only where every one of them passes both
checks: the answer check (`rqrag.answer.grounding.check_answer`: no loop, the report's language, words the
article holds) and the field check (`field_check`: no invented word, repeated bullet, sentence shown twice, cut
line). Whatever is shown is checked once more as a whole, and its defects are recorded next to it: a review whose
`defects` list is not empty says so in review.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from rqrag.ingest.article import Article
from rqrag.retrieval.base import Hit
from rqrag.review.article_fields import FIELDS, FieldSentence, extract_fields
from rqrag.review.field_check import check_fields


# The model's list that may stand in for a field's quote (its schema: rqrag.review.reviewer).
MODEL_FIELDS = {"objective": "objectives", "conclusion": "conclusions"}


def article_text(article: Article) -> str:
    return "\n".join(text for s in article.sections for _, text in s.paragraphs)


def _quote(sentence: FieldSentence) -> dict:
    return {
        "text": sentence.text,
        "page": sentence.page,
        "section": sentence.section,
        "heading": sentence.heading,
        "origin": "quoted",
    }


def _model_items(model_review: dict | None, field: str, article: Article, language: str) -> list[str] | None:
    """The model's texts for `field` when every one passes the answer check against the article, else None."""
    from rqrag.answer import check_answer

    items = (model_review or {}).get(MODEL_FIELDS.get(field, ""), []) if field in MODEL_FIELDS else []
    if not items:
        return None
    hits = [Hit(f"{i}", s.heading, " ".join(t for _, t in s.paragraphs), 0.0) for i, s in enumerate(article.sections)]
    if all(check_answer(item, "", hits, language).ok for item in items):
        return list(items)
    return None


def review_article(topic: str, document, language: str, model_review: dict | None = None, per_field: int = 1):
    """Fill `document.article_review` (module docstring) from `document.article` (a record's `article` dict)."""
    article = Article.from_dict(document.article)
    text = article_text(article)
    extracted = extract_fields(article, per_field=per_field)
    fields: dict[str, list[dict]] = {field: [_quote(s) for s in extracted[field]] for field in FIELDS}
    why: dict[str, str] = {}
    for field in MODEL_FIELDS:
        generated = _model_items(model_review, field, article, language)
        if generated is None:
            if model_review:
                why[field] = "the model's text failed the answer check"
            continue
        trial = {**{f: [q["text"] for q in fields[f]] for f in FIELDS}, field: generated}
        defects = [d for d in check_fields(trial, text) if d.field == field]
        if defects:
            why[field] = ", ".join(sorted({d.problem for d in defects}))
            continue
        fields[field] = [
            {"text": item, "page": None, "section": None, "heading": None, "origin": "generated"} for item in generated
        ]
    shown = {field: [q["text"] for q in quotes] for field, quotes in fields.items()}
    sources = {field: [q["section"] for q in quotes] for field, quotes in fields.items()}
    defects = check_fields(shown, text, sources)
    document.article_review = {
        "title": article.title,
        "authors": article.authors,
        "year": article.year,
        "language": article.language,
        "sections": [{"role": s.role, "heading": s.heading, "pages": s.pages} for s in article.sections],
        "references": article.references,
        "fields": fields,
        "model_rejected": why,
        "defects": [d.to_dict() for d in defects],
    }
    return document.article_review


def comparison_rows(documents: Sequence) -> list[dict]:
    """One row per reviewed article for the comparison table: title, year and each field's first text."""
    rows = []
    for document in documents:
        review = getattr(document, "article_review", None)
        if not review:
            continue
        row = {"title": review["title"], "authors": review["authors"], "year": review["year"]}
        for field in FIELDS:
            quotes = review["fields"].get(field) or []
            row[field] = quotes[0]["text"] if quotes else ""
        rows.append(row)
    return rows
