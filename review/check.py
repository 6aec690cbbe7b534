"""Every field of a literature review passes the check an answer passes, or the document's own words stand in.

    from rqrag.review.check import check_review
    check_review(topic, document, language)     # document.review checked in place; document.provenance filled

A small local model asked to review a Portuguese manual writes loops ("A documentação deve ser criada em uma raiz
deverá ser criada em uma ra…"), runaway identifiers ("1.2.2.1.x86_64.tar.xzaab.tar.xzaab…") and objectives the
excerpts never state. Each field (summary, each objective and conclusion, the relevance reason) goes through
`rqrag.answer.grounding.check_answer` against the document's excerpts: no loop, no identifier the excerpts
lack, the report's language, at least `MIN_SUPPORT` of its content words in the excerpts. A token longer than
`MAX_TOKEN_CHARS` is a runaway too. What passes is shown as generated.

What fails, or is missing (the model's reply was cut, malformed, or left a list empty), is filled with the
sentences of the excerpts that best answer the field's question in the report's language ("Qual é o objetivo
deste documento?"), chosen by the extractive answerer that quotes answers (`rqrag.answer.extractive`), and
marked quoted with their page. A relevance whose reason failed is read from the excerpts instead: the share of
the topic's content words they hold. `document.provenance` says, per field, generated / quoted / retrieval, the
pages of a quote, and why the model's text was not used.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from rqrag.answer import check_answer
from rqrag.text.text_quality import content_words, fold, stem


MAX_TOKEN_CHARS = 40  # longer than any word or real identifier in a sentence: "x86_64.tar.xzaab.tar.xzaab..."
LIST_FIELDS = ("objectives", "conclusions")
# The question each field answers, asked of the excerpts when the model's text cannot be shown.
FIELD_QUESTIONS = {
    "pt": {
        "summary": "Do que trata este documento e para que serve?",
        "objectives": "Qual é o objetivo deste documento, o que ele pretende ensinar ou apresentar?",
        "conclusions": "Quais são as conclusões, os resultados ou as recomendações deste documento?",
    },
    "en": {
        "summary": "What is this document about and what is it for?",
        "objectives": "What is the aim of this document, what does it set out to teach or present?",
        "conclusions": "What are the conclusions, findings or recommendations of this document?",
    },
}
# Words that mark a sentence stating a field (folded stems, both languages): such sentences are preferred for
# its quote, since a question's words ("conclusões") rarely share a stem with the answer's ("concluímos").
FIELD_CUES = {
    "summary": None,
    "objectives": re.compile(r"\b(objetiv|pretend|finalidade|proposit|meta\b|aim|goal|purpose|intend)", re.I),
    "conclusions": re.compile(
        r"\b(conclu|portanto|em resumo|recomend|resultad|therefore|in summary|recommend|finding|result)", re.I
    ),
}
# Share of the topic's content words (by stem) the excerpts hold -> level, when the model's level cannot be used.
RELEVANCE_BY_SHARE = ((0.75, "high"), (0.5, "medium"), (1e-9, "low"))


def field_problem(text: str, hits: Sequence, language: str) -> str | None:
    """Why `text` may not be shown as this document's (None: it may): the answer check, plus runaways."""
    if any(len(token) > MAX_TOKEN_CHARS for token in text.split()):
        return "runaway_identifier"
    verdict = check_answer(text, "", hits, language)
    return None if verdict.ok else verdict.reason


def check_review(topic: str, document, language: str, quoter=None, quote_fields: bool = True) -> None:
    """Check `document.review` (None when the model gave none) field by field against `document.chunks`; fill
    what fails with quotes (`quote_fields` False: leave it empty, for an article, whose fields are read from its
    own sections instead: quoting its excerpts too cost most of a review's time and was never shown). Sets
    `document.review` (always, from here on) and `document.provenance`."""
    # The chunks' page spans ride on the hits, so a quote knows its page.
    hits = [dataclasses.replace(c.hit, extra={**(c.hit.extra or {}), **c.extra}) for c in document.chunks]
    model_said = document.review or {}
    failure = document.error  # the model's reply as a whole was not usable: every field is quoted
    review: dict[str, Any] = {}
    provenance: dict[str, dict[str, Any]] = {}

    def quoted(field: str, why: str | None) -> None:
        if not quote_fields:
            review[field] = [] if field in LIST_FIELDS else ""
            provenance[field] = {"origin": "none", "pages": [], "why": "read from the article's own sections"}
            return
        quote = _quote(FIELD_QUESTIONS[_lang(language)][field], _stating(hits, field), language, quoter)
        text = quote.text if quote is not None else ""
        review[field] = [text] if field in LIST_FIELDS and text else ([] if field in LIST_FIELDS else text)
        provenance[field] = {"origin": "quoted" if text else "none", "pages": _pages(quote), "why": why}

    summary = model_said.get("summary") or ""
    why = failure or (field_problem(summary, hits, language) if summary else "missing")
    if why:
        quoted("summary", why)
    else:
        review["summary"], provenance["summary"] = summary, {"origin": "generated", "pages": [], "why": None}

    for field in LIST_FIELDS:
        items = model_said.get(field) or []
        problems = [field_problem(item, hits, language) for item in items]
        kept = [item for item, problem in zip(items, problems) if problem is None]
        if kept and not failure:
            rejected = [problem for problem in problems if problem]
            review[field] = kept
            provenance[field] = {"origin": "generated", "pages": [], "why": ", ".join(rejected) or None}
        else:
            quoted(field, failure or (", ".join(p for p in problems if p) if items else "none stated"))

    reason = model_said.get("relevance_reason") or ""
    why = failure or (field_problem(reason, hits, language) if reason else "missing")
    if why:
        share = _topic_share(topic, hits, language)
        review["relevance"] = next((level for floor, level in RELEVANCE_BY_SHARE if share >= floor), "none")
        review["relevance_reason"] = _share_sentence(share, language)
        provenance["relevance"] = {"origin": "retrieval", "pages": [], "why": why, "topic_share": round(share, 2)}
    else:
        review["relevance"], review["relevance_reason"] = model_said["relevance"], reason
        provenance["relevance"] = {"origin": "generated", "pages": [], "why": None}
    document.review, document.provenance = review, provenance  # `error` still says why the model's failed


def _stating(hits: Sequence, field: str) -> list:
    """The sentences of `hits` that carry the field's cue words, each a hit of its own (its chunk's pages), or all
    of `hits` when none does."""
    from rqrag.text.sentences import split_sentences

    cue = FIELD_CUES[field]
    if cue is None:
        return list(hits)
    found = [
        dataclasses.replace(hit, docid=f"{hit.docid}#{i}", text=sentence)
        for hit in hits
        for i, sentence in enumerate(split_sentences(hit.text))
        if cue.search(fold(sentence))
    ]
    return found or list(hits)


def _quote(question: str, hits: Sequence, language: str, quoter):
    if quoter is None:
        from rqrag.answer import answerer_for

        return answerer_for(language).quote(question, hits)
    return quoter(question, hits, language)


def _pages(quote) -> list[int]:
    if quote is None:
        return []
    start, end = quote.location.get("page_start"), quote.location.get("page_end")
    if start is None:
        return []
    return list(range(int(start), int(end if end is not None else start) + 1))


def _topic_share(topic: str, hits: Sequence, language: str) -> float:
    wanted = {stem(word) for word in content_words(topic, language)}
    if not wanted:
        return 0.0
    held = {stem(word) for hit in hits for word in content_words(f"{hit.title} {hit.text}", language)}
    return len(wanted & held) / len(wanted)


def _share_sentence(share: float, language: str) -> str:
    if _lang(language) == "pt":
        return f"Os trechos contêm {share:.0%} das palavras do tema (avaliado pelas palavras, não pelo modelo)."
    return f"The excerpts hold {share:.0%} of the topic's words (judged by the words, not by the model)."


def _lang(language: str) -> str:
    return language if language in FIELD_QUESTIONS else "en"
