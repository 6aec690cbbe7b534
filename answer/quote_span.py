"""The span of a quote: the shortest run of whole clauses of a sentence that still holds what the question asks.

    shortest_span("She was named ambassador to Ghana and later served as Chief of Protocol of the United States.",
                  "What government position was held by ...", "position", answers=[])
    # -> "later served as Chief of Protocol of the United States."

Used by the decision (`answer/grounding.py`) on a reader's quote of over 40 words, cut no shorter than the clause
that holds the reader's answer. The extractive answerer's quotes stay whole sentences: cut to the clauses holding
the asked type, they read "and, in 2009" (docs/answers.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rqrag.answer_text import normalize_answer
from rqrag.answer_types import DATE, NUMBER, POSITION, holds_type


# Types a sentence can be checked for on its own (a year, a number, a position word): only these filter what may
# be quoted. A name or a place is recognised only as one of the tree's candidates (a capitalised word proves
# nothing, and a manual's "onde fica" is answered by a path).
SPECIFIC_TYPES = (DATE, NUMBER, POSITION)
# Where a sentence may be cut into clauses: after , ; : and around a dash or a parenthesis.
_CLAUSE_BREAK = re.compile(r"(?<=[,;:])\s+|\s+(?=\()|(?<=\))\s+|\s+[—–-]\s+")
MIN_SPAN_WORDS = 3


def share_held(phrases: Sequence[str], normalised: str) -> float:
    """The share of `phrases` (normalised, space-padded) that a normalised text holds."""
    return sum(p in f" {normalised} " for p in phrases) / len(phrases) if phrases else 0.0


def shortest_span(text: str, question: str, asked: str, answers: Sequence[str] = ()) -> str:
    """The shortest run of whole clauses of `text` (verbatim) that still holds the asked-for thing — and one of the
    tree's candidate `answers` when the text holds one — so a quote for "which position" reads "later served as
    Chief of Protocol of the United States", not the actress's whole biography. The text itself when no shorter
    run qualifies."""
    cuts = [0] + [m.end() for m in _CLAUSE_BREAK.finditer(text)] + [len(text)]
    starts = [m.start() for m in _CLAUSE_BREAK.finditer(text)]
    ends = starts + [len(text)]
    phrases = [f" {normalize_answer(a)} " for a in answers if normalize_answer(a)]
    phrases = [p for p in phrases if p in f" {normalize_answer(text)} "]
    if not phrases and asked not in SPECIFIC_TYPES:
        return text  # a capitalised word is no evidence of a person or a place: without an answer, keep it whole
    best = text
    for i in range(len(ends)):
        for j in range(i, len(ends)):
            span = text[cuts[i] : ends[j]].strip(" ,;:")
            if len(span.split()) < MIN_SPAN_WORDS or len(span) >= len(best):
                continue
            if phrases and not any(p in f" {normalize_answer(span)} " for p in phrases):
                continue
            if holds_type(span, asked, question):
                best = span
    return best
