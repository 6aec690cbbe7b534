"""What a review field may quote: a whole sentence of the article's prose, never a heading, a contents line, a
caption or a reference-list entry, and never a sentence's second half.

    paragraphs = joined_paragraphs(section.paragraphs)   # a sentence a page break or a footnote split, whole again
    prose_sentences(text)                                # its sentences, "Allen et al. (1998) …" in one piece
    why_not_field_sentence("2.5 GERAÇÃO AUMENTADA POR RECUPERAÇÃO 29")   # "contents line"
    is_field_sentence("Foram avaliados três recuperadores (Silva, 2020).")   # True

Why both are needed: the ingestion keeps a PDF's page break as a paragraph break, so a sentence that runs onto the
next page is two paragraphs, the second starting in lower case ("foram avaliados, como …"), and a footnote at the
foot of the page or a running head at the top of the next can sit between the halves; scored apart, either half
may be quoted. And a thesis's table of contents, a table's caption or a reference-list entry is text of a section
like any other: it shares the section's words and carries the cue phrases, so the scorer alone may pick it.

The rules judge the text's shape only (how it starts and ends, what it is laid out like), in Portuguese and English,
and stay narrow: a sentence that cites "(Silva, 2020)" or says "a Tabela 1 mostra" in its middle is a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rqrag.text.sentences import split_sentences
from rqrag.text.text_quality import fold


_UPPER = "A-ZÀ-ÖØ-Þ"
_SUPERSCRIPTS = "¹²³⁴⁵⁶⁷⁸⁹⁰"
# A sentence ends at . ! ? maybe closed by a quote or a bracket; "…" is left out: a quote that trails off is cut.
_SENTENCE_END = re.compile(r"[.!?][\"'”’»)\]]*$")
# A dot that follows these (folded) ends no sentence: the splitter cut after "Souza et al." or "cf.".
_ABBREVIATION_END = re.compile(r"(?:\bet al|\be\.g|\bi\.e|\bcf|\bfig|\bpp|\bvol)\.$")
# Words that open no sentence even capitalised: what is left of a sentence cut at "et al." or after a list.
_CONTINUATIONS = frozenset({"et", "al", "al.", "etc", "etc.", "respectivamente", "respectively"})

# A footnote as its own paragraph: a marker, then its text ("¹ Disponível em https://…", "3 Os acórdãos …", "1Os").
_FOOTNOTE = re.compile(rf"^(?:[{_SUPERSCRIPTS}]+|\d{{1,2}})\s*(?:[^\W\d_]|https?:|www\.)")
# A page's number or a running head's folio: "12", "- 12 -", "Página 3 de 40", "p. 7", "xii".
_PAGE_LINE = re.compile(
    r"^[-–—\s]*(?:(?:p[áa]gina|page|p[áa]g\.|p\.)\s*)?\d{1,4}(?:\s*(?:de|of|/)\s*\d{1,4})?[-–—\s]*$|^[ivxlc]{1,7}$",
    re.I,
)
_FOOTNOTE_WORDS, _RUNNING_HEAD_WORDS, _ASIDES_BETWEEN = 60, 12, 3
# The footnote's marker left at the end of the sentence's first half: "convertidos para texto simples1".
_TRAILING_MARKER = re.compile(rf"(?<=[a-zà-öø-ÿ]{{3}})(?:\d{{1,2}}|[{_SUPERSCRIPTS}]+)$")
_LIST_ITEM = re.compile(r"^[a-z][.)]\s")  # "a) comparar": a list's item, not a sentence's second half

_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}|_{4,}|·{3,}")  # "Introdução ........ 12"
_TRAILING_PAGE = re.compile(r"[^\W\d_][)\]]?\s+\d{1,4}$")  # "… POR RECUPERAÇÃO 29"
_NUMBERED_LABEL = re.compile(rf"^(?:\d{{1,2}}(?:\.\d{{1,2}})+\.?\s*|\d{{1,2}}\s*|[{_SUPERSCRIPTS}]+\s*)[{_UPPER}]")
_CAPTION = re.compile(
    r"^(?i:tabela|table|figura|figure|fig\.|quadro|gr[áa]fico|chart|imagem|ilustra[çc][ãa]o|esquema|fonte|source"
    r"|nota|note)\s*(?:\d+(?:\.\d+)*|[IVX]+)?\s*(?:[:.–—]|\s-\s|$)"
    rf"|^(?i:tabela|table|figura|figure|quadro|gr[áa]fico)\s+\d+(?:\.\d+)*\s+[{_UPPER}]"
)
_REFERENCE = re.compile(
    r"(?i:dispon[íi]vel em:|acesso em:|available (?:at|from):|retrieved from\b|\bdoi:\s*10\.|doi\.org/10\.)"
    r"|\bIn:\s|\[S\.l\.\]|\bv\.\s*\d+,\s*n\.\s*\d+"  # ABNT: "In: CONGRESSO …", "v. 12, n. 3, p. 45-60"
    r"|\b\d+\s*\(\d+\),\s*\d+\s*[-–]\s*\d+"  # APA: "Journal, 12(3), 45–60"
)
# An entry's author first: "SOBRENOME, N. Título", "SOBRENOME, Nome. Título", "Smith, J., & Lee, K. (2020)", "[12] A.",
# "BRASIL. Lei nº 13.709".
_REFERENCE_START = re.compile(
    rf"^(?:[{_UPPER}][\w'’-]+,\s+(?:[{_UPPER}]\.\s*)+|[{_UPPER}]{{3,}}(?:\s[{_UPPER}]{{2,}})*,\s+"
    rf"(?:[{_UPPER}][a-zà-öø-ÿ]+\s+){{0,3}}[{_UPPER}][a-zà-öø-ÿ]*\.|[{_UPPER}]{{3,}}\.\s|\[\d+\]\s)"
)
# Three bare numbers in a row, "0,81 68,8 9,7": a table's row the extraction ran into the text.
_TABLE_ROW = re.compile(r"(?<!\S)(?:[-+−]?\d+(?:[.,]\d+)?%?\s+){2}[-+−]?\d+(?:[.,]\d+)?%?(?!\S)")
_OPENING = "\"'“‘«([¿¡"
_CITATION_START = re.compile(r"^[(\[]\d")  # "(2020) mostraram …": the rest of "Souza et al. (2020) mostraram …"


def _ends_sentence(text: str) -> bool:
    return bool(_SENTENCE_END.search(text)) and not _ABBREVIATION_END.search(fold(text).rstrip("\"'”’»)]"))


def _mostly_capitals(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) > 0.6 * len(letters)


def _capitals_lead(text: str) -> bool:
    """A heading set in capitals and the paragraph it titles run together: "RESULTADOS E DISCUSSÃO A calibração …",
    "METODOLOGIA Este trabalho …" (an acronym before a word, "O BM25", "EUA e", is no heading)."""
    words = text.split()
    run = 0
    while run < len(words) and words[run].isalpha() and words[run].isupper():
        run += 1
    if 0 < run < len(words) and len(words[run - 1]) == 1 and words[run][:1].islower():
        run -= 1  # "… DISCUSSÃO A calibração": the article "A" opens the sentence
    return 0 < run < len(words) and sum(map(len, words[:run])) >= 5 and words[run][:1].isupper()


def _is_aside(text: str) -> bool:
    """A footnote, a page number or a running head: what a page break puts between a sentence's two halves."""
    text = text.strip()
    words = len(text.split())
    if _FOOTNOTE.match(text) and words <= _FOOTNOTE_WORDS:
        return True
    if _PAGE_LINE.match(text):
        return True
    return 0 < words <= _RUNNING_HEAD_WORDS and not _ends_sentence(text) and not text[:1].islower()


def _continues(text: str) -> bool:
    """Whether a paragraph is the rest of a sentence: it opens in lower case or on the punctuation that followed
    the cut (". No total, …" after a footnote's marker), and is not a list's "a) …" item."""
    text = text.lstrip()
    return bool(text) and (text[0].islower() or text[0] in ".,;)]") and not _LIST_ITEM.match(text)


def _open(text: str) -> bool:
    """Whether a paragraph stops mid-sentence. A colon or semicolon ends a list's lead-in or item, not a page."""
    text = text.rstrip()
    return bool(text) and not _ends_sentence(text) and not text.endswith((":", ";"))


def _join(first: str, rest: str) -> str:
    first, rest = first.rstrip(), rest.lstrip()
    if rest[0] in ".,;)]":
        return _TRAILING_MARKER.sub("", first) + rest
    if first.endswith("-") and first[-2:-1].isalpha():
        return first[:-1] + rest  # "per-" + "guntas": a word hyphenated at the page's end
    return _TRAILING_MARKER.sub("", first) + " " + rest


def joined_paragraphs(paragraphs: Sequence[tuple[int | None, str]]) -> list[tuple[int | None, str]]:
    """A section's (page, paragraph) pairs with every sentence a page break split whole again, on its first page.

    A paragraph that stops mid-sentence is continued by the next one that opens in lower case, over up to three
    footnotes, page numbers or running heads between them; those are kept, after the joined paragraph, out of the
    sentence."""
    out: list[tuple[int | None, str]] = []
    i = 0
    while i < len(paragraphs):
        page, text = paragraphs[i]
        asides: list[tuple[int | None, str]] = []
        i += 1
        while _open(text):
            k = i
            while k < len(paragraphs) and k - i < _ASIDES_BETWEEN and _is_aside(paragraphs[k][1]):
                k += 1
            if k >= len(paragraphs) or not _continues(paragraphs[k][1]):
                break
            asides += paragraphs[i:k]
            text = _join(text, paragraphs[k][1])
            i = k + 1
        out += [(page, text), *asides]
    return out


def prose_sentences(text: str) -> list[str]:
    """A paragraph's sentences (`rqrag.text.sentences.split_sentences`), with what it cut after an abbreviation that
    ends no sentence there joined again: "… descrito por Allen et al." + "(1998). …" is one sentence."""
    out: list[str] = []
    for piece in split_sentences(text):
        if out and _CITATION_START.match(piece) and _ABBREVIATION_END.search(fold(out[-1])):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


def why_not_field_sentence(text: str) -> str | None:
    """Why `text` cannot be a field's quote, or None when it reads as a sentence of the article's prose."""
    text = text.strip()
    if not text:
        return "empty"
    ends = _ends_sentence(text)
    numbered = bool(_NUMBERED_LABEL.match(text))
    if _LEADERS.search(text) or (
        not ends and _TRAILING_PAGE.search(text) and (numbered or _mostly_capitals(text) or len(text.split()) <= 12)
    ):
        return "contents line"
    if _CAPTION.match(text):
        return "caption"
    if _REFERENCE.search(text) or _REFERENCE_START.match(text):
        return "reference entry"
    if numbered and ends and _FOOTNOTE.match(text) and not _mostly_capitals(text):
        return "footnote"  # "¹ Disponível em …", "3 Os acórdãos digitalizados …" (a list's "1. Os" has its dot)
    if numbered or _mostly_capitals(text) or _capitals_lead(text):
        return "heading"  # "3.1 Corpus e conjunto de perguntas", "MATERIAIS E MÉTODOS", "METODOLOGIA Este …"
    opened = text.lstrip(_OPENING)
    first_word = fold(opened.split()[0]) if opened.split() else ""
    capital = opened[:1].isupper() or opened[:1].isdigit()
    if not capital or first_word in _CONTINUATIONS or _CITATION_START.match(text):
        return "starts mid-sentence"  # "foram avaliados, …", ", e os …", "(2020) mostraram …", "al. (2020) …"
    if not ends:
        return "does not end a sentence"
    if _TABLE_ROW.search(text):
        return "table row"
    return None


def is_field_sentence(text: str) -> bool:
    """Whether `text` reads as a whole sentence of the article's prose (`why_not_field_sentence` finds nothing)."""
    return why_not_field_sentence(text) is None
