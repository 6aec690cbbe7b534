"""What the writer of an article's four texts reads: a few numbered passages of the article, each named by its section.

    passages = article_passages(document, "pt")      # a DocumentGroup with its `article` and `article_review`
    passages[0].extra  # {"page_start": 1, "section": "Resumo"}

In this order, none twice: the abstract in the article's language (up to `ABSTRACT_WORDS`, its keyword line left
out), the paragraph the objective field was quoted from, the one the result was quoted from, the conclusion section
(up to `CONCLUSION_WORDS`, the discussion where there is none), then the article's chunks nearest the topic (at most
`nearest`). Each passage carries its section's own heading ("Conclusões", "Conclusion"): the writer is told to write
the objectives from the objectives' passage and the conclusions from the conclusion's, which a 1.5B otherwise wrote
from the results paragraph (tuning, en_latex: conclusions holding 0 of 3 key facts).
"""

from __future__ import annotations

import re

from rqrag.answer.writer import cut_passage
from rqrag.ingest.article import Article
from rqrag.retrieval.base import Hit


# The abstract is read nearly whole: cut to the first 90 words (the first tuning run) it lost the results, which come
# last in an abstract, and summaries held 0.37 of their key facts.
ABSTRACT_WORDS = 220
# A conclusion section read whole up to here: cut to the 90 words around its quoted sentence, the conclusions of the
# tuning articles missed what their second paragraph says (pt_latex: "métricas separadas", 0 of 3 facts).
CONCLUSION_WORDS = 170
# "Palavras-chave: Dengue; Notificação…" closes many abstracts; the 1.5B copied it into a conclusion as a sentence.
# Only a colon or a dash after the word: "a busca por palavras-chave." ends a sentence, not the abstract.
_KEYWORDS = re.compile(
    r"\s*\b(palavras[- ]chave|keywords?|key words|descritores)\s*[:—–].*$", re.IGNORECASE | re.DOTALL
)
_ROLE_NAMES = {
    "en": {"abstract": "Abstract", "conclusion": "Conclusion", "discussion": "Discussion"},
    "pt": {"abstract": "Resumo", "conclusion": "Conclusão", "discussion": "Discussão"},
}


def article_passages(document, language: str | None = None, max_words: int = 90, nearest: int = 5) -> list[Hit]:
    """The passages of one article the writer reads (module docstring), each cut to about `max_words` words.
    `language`: the article's; by default the one most of its sections' text is in."""
    article, reviewed = document.article or {}, document.article_review or {}
    title = article.get("title") or document.title
    sections = article.get("sections") or []
    language = language or (Article.from_dict(article).language if article else None)
    names = _ROLE_NAMES.get(language or "", _ROLE_NAMES["en"])
    chosen: list[Hit] = []

    def add(text: str, page, section: str | None, around: str | None = None, words: int = max_words) -> None:
        text = " ".join(text.split())
        if not text or any(text[:80] in h.text or h.text[:80] in text for h in chosen):
            return
        extra = {"page_start": page, **({"section": section} if section else {})}
        hit = Hit(f"{document.key}:{len(chosen) + 1}", title, text, 0.0, extra)
        chosen.append(cut_passage(hit, around, words))

    abstract = _section(sections, ("abstract",), language)
    if abstract:
        text = _KEYWORDS.sub("", " ".join(t for _, t in abstract["paragraphs"] if not _KEYWORDS.match(t)))
        add(text, abstract["paragraphs"][0][0], abstract.get("heading") or names["abstract"], words=ABSTRACT_WORDS)
    fields = reviewed.get("fields") or {}

    def add_quoted(name: str) -> None:  # the paragraph the field's sentence was quoted from
        for quoted in fields.get(name, [])[:1]:
            paragraph = _paragraph_holding(sections, quoted.get("text", ""))
            add(paragraph or quoted.get("text", ""), quoted.get("page"), quoted.get("heading"), quoted.get("text"))

    add_quoted("objective")
    add_quoted("result")
    conclusion = _section(sections, ("conclusion",), language) or _section(sections, ("discussion",), language)
    if conclusion:
        add(" ".join(t for _, t in conclusion["paragraphs"]), conclusion["paragraphs"][0][0], conclusion.get("heading") or names[conclusion["role"]],
            words=CONCLUSION_WORDS)  # fmt: skip
    else:
        add_quoted("conclusion")
    for excerpt in document.chunks[:nearest]:
        add(excerpt.hit.text, excerpt.pages[0], None)
    return chosen


def _section(sections: list[dict], roles: tuple[str, ...], language: str | None) -> dict | None:
    """The first section of one of `roles` with paragraphs, in the article's language where it has one (an English
    abstract of a Portuguese article is read only when there is no Portuguese one)."""
    found = [s for s in sections if s.get("role") in roles and s.get("paragraphs")]
    same = [s for s in found if not language or not s.get("language") or s.get("language") == language]
    return (same or found or [None])[0]


def _paragraph_holding(sections, sentence: str) -> str | None:
    probe = " ".join(sentence.split())[:60]
    for section in sections:
        for _, text in section.get("paragraphs") or []:
            if probe and probe in " ".join(text.split()):
                return text
    return None
