"""Sentences of a passage, for quoting evidence: `split_sentences` cuts cleaned chunk text into its sentences
(headings, list items and code lines stand alone; "e.g." and 10.0.2.2 never end one), and `is_title` tells a line
that titles what follows from a statement.

`is_title` is broader than `rqrag.text.text_quality.is_heading`, which judges an *answer*: a quote must not be a short
capitalised title ("Alguma história e o porquê de dois nomes"), while an answer of that shape ("Shirley Temple")
is often right.
"""

from __future__ import annotations

import re

from rqrag.text.text_quality import fold


_BULLET = re.compile(r"^\s*(?:[•●▪◦‣∙·*–—-]|\d{1,2}[.)]|[a-z][.)])\s+")
# "3.1.2 Servidor principal", "4 Requisitos": a number, then words, never a final stop.
_NUMBERED_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[^\W\d_]")
# A sentence ends at . ! ? … (maybe closed by a quote or bracket) before a space and a capital, digit, bullet or
# opening quote; dots with no space after (10.0.2.2, e.g., www.debian.org) never end one.
_BOUNDARY = re.compile(r"(?<=[.!?…])[\"'”»)\]]*\s+(?=[\"'“«(\[]?[A-ZÀ-ÖØ-Þ0-9•●▪])")
_INLINE_BULLET = re.compile(r"\s+(?=[•●▪]\s)")
# Words a dot follows without ending the sentence (folded; "e.g" is what precedes the final dot of "e.g.").
_ABBREVIATIONS = frozenset(
    "e.g i.e ex p.ex cf vs sr sra dr dra prof aprox approx obs pag fig cap vol seg art num tel al"
    " lit st mt mr mrs ms jr".split()  # English ones a name follows: "( lit. My Dear Bandit)", "St. Louis"
)
_TERMINAL = (".", "!", "?", "…", ":", ";", '."', ".)")
_CODE_START = re.compile(r"^\s*(?:[$#>]\s|sudo\s|apt\s|/\w)")


def _lines(text: str) -> list[str]:
    """Lines of `text`, a margin's soft wrap (a long line ending mid-sentence, the next in lower case) rejoined.

    Cleaned chunks (rqrag.ingest.clean) keep one paragraph per line and a code line per line, so most lines are
    units already; raw text from elsewhere still wraps at the margin."""
    out: list[str] = []
    for raw in text.replace("\r", "").split("\n"):
        line = raw.strip()
        if not line:
            out.append("")
            continue
        previous = out[-1] if out else ""
        wrapped = (
            len(previous) >= 50
            and not previous.endswith(_TERMINAL)
            and line[:1].islower()
            and not _BULLET.match(line)
            and not _CODE_START.match(previous)
        )
        if wrapped:
            out[-1] = previous[:-1] if previous.endswith("-") and previous[-2:-1].isalpha() else previous + " "
            out[-1] += line
        else:
            out.append(line)
    return [line for line in out if line]


def _sentences_of_line(line: str) -> list[str]:
    pieces: list[str] = []
    for part in _INLINE_BULLET.split(line):
        start = 0
        for match in _BOUNDARY.finditer(part):
            before = part[start : match.start()].rstrip("\"'”»)]")
            last = fold(before.split()[-1]).lstrip("\"'“«([") if before.split() else ""
            if last.rstrip(".") in _ABBREVIATIONS or re.fullmatch(r"[a-z]\.?", last.rstrip(".")):
                continue  # "e.g. Firefox", "Sr. Silva", '"Mr. Show"', an initial
            if part[match.start() - 1] in "?!" and part[match.start() : match.start() + 1] == ")":
                continue  # "Konpyūta?)": a mark inside brackets (Wikipedia's transliterations) ends no sentence
            pieces.append(part[start : match.start()].strip())
            start = match.end()
        pieces.append(part[start:].strip())
    return [p for p in pieces if p]


def split_sentences(text: str) -> list[str]:
    """The sentences of a passage in order: paragraphs and lines first (headings, list items and code lines
    stand alone), then sentence ends inside a line. Text is kept verbatim (whitespace inside a line aside)."""
    return [s for line in _lines(text) for s in _sentences_of_line(line)]


def is_title(sentence: str) -> bool:
    """A section title rather than a statement: "3.1.2 Servidor principal", or a short capitalised line with no
    final punctuation, no digits and nothing code-like ("Alguma história e o porquê de dois nomes")."""
    text = sentence.strip()
    words = text.split()
    if not words or text.endswith(_TERMINAL) or _BULLET.match(text):
        return False
    if _NUMBERED_HEADING.match(text) and len(words) <= 14:
        return True
    code_like = any(c in text for c in "/=_<>$") or any(c.isdigit() for c in text)
    return len(words) <= 8 and text[:1].isupper() and not code_like
