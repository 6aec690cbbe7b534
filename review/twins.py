"""Twins: one article stored twice in a library (uploaded as DOCX and as PDF, say), listed once in a review.

    kept = merge_twins(documents)      # documents: DocumentGroup with `.article` (the library record's) set
    kept[0].twins                      # [{"key": "<doc_id>", "file": "artigo.docx"}]: the other copies

Two files with different bytes get different ids in the library, so the review would read the article twice and
show it twice. Twins are found by content: the same article's text, read from two formats, shares nearly all its
word triples (a PDF's running heads and hyphenation, a DOCX's tables, change a few); two different articles, even on
one topic by one group, share few. Articles only: a review reads other documents by their excerpts, which differ
from search to search. The copy kept is the PDF when there is one (its pages can be shown beside a quote), else the
first found.
"""

from __future__ import annotations

from collections.abc import Sequence

from rqrag.text.text_quality import fold


# Share of word triples two copies of one article have in common (Jaccard). Measured on the tuning articles: the
# DOCX and the PDF of pt_docx share 0.96; of the 14 pairs of different articles, the most alike share 0.018.
TWIN_OVERLAP = 0.6
WORDS_READ = 3000  # enough text to tell articles apart; a long thesis is not read whole for this


def _triples(article: dict) -> set[tuple[str, str, str]]:
    words: list[str] = []
    for section in article.get("sections") or []:
        for _, text in section.get("paragraphs") or []:
            words.extend(fold(text).split())
            if len(words) >= WORDS_READ:
                break
    words = words[:WORDS_READ]
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def overlap(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def merge_twins(documents: Sequence) -> list:
    """`documents` with each article's twins folded into one entry (see the module docstring), in their order."""
    kept: list = []
    shingles: list[set] = []
    for document in documents:
        document.twins = getattr(document, "twins", None) or []
        article = getattr(document, "article", None)
        mine = _triples(article) if article else set()
        twin_of = next((i for i, other in enumerate(shingles) if overlap(mine, other) >= TWIN_OVERLAP), None)
        if twin_of is None:
            kept.append(document)
            shingles.append(mine)
            continue
        first = kept[twin_of]
        if _is_pdf(document) and not _is_pdf(first):  # the PDF stands for both: its pages can be shown
            document.twins = [*first.twins, _copy(first)]
            first.twins = []
            document.chunks = [*document.chunks, *first.chunks]
            kept[twin_of] = document
        else:
            first.twins.append(_copy(document))
            first.chunks = [*first.chunks, *document.chunks]
    return kept


def _is_pdf(document) -> bool:
    return str(document.file or "").lower().endswith(".pdf")


def _copy(document) -> dict:
    return {"key": document.key, "file": document.file}
