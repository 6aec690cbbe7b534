"""Comparing the two options of a question by the years the evidence gives them.

A quarter of HotpotQA's questions compare two things by time: "Who is older, Ferdi Taygan or Mahesh Bhupathi?",
"Which band formed first?", "Who died first?". A small model reads both pages and still picks either. The reader
reads each option's year off its own page — the first two sentences of the passage titled by it — and says which option the comparison favours: the earlier year for older / first / earlier / before,
the later for younger / later / more recent; a death year (the second of "(1895 – 1967)") when the question asks
who died first. It says nothing when the question compares something else (or someone the options only point to: "the film whose
director is older"), or a year is missing for either.

    compare_by_years("Who is older, Ferdi Taygan or Mahesh Bhupathi?", hits)
    # -> {"ferdi taygan": 1.0, "mahesh bhupathi": -1.0}
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rqrag.answer.answer_types import options
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import normalize_answer
from rqrag.text.sentences import split_sentences
from rqrag.text.text_quality import fold


_EARLIER = re.compile(r"\b(older|oldest|first|earlier|earliest|before|sooner|mais velh[oa]|primeiro|antes)\b")
_LATER = re.compile(r"\b(younger|youngest|later|latest|more recent(ly)?|newer|newest|mais nov[oa]|depois)\b")
_DIED = re.compile(r"\b(died|death|passed away|morreu|faleceu)\b")
# "Which film whose director is younger...": the years compared belong to someone the options only point to.
_INDIRECT = re.compile(r"\b(whose|director|author|founder|creator|composer|writer|singer|producer)\b")
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_LIFESPAN = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b[^()]{0,30}?[–—-][^()]{0,30}?\b(1[0-9]{3}|20[0-9]{2})\b")


def _title(hit: Hit) -> str:
    return normalize_answer(re.sub(r"\s*\(.*?\)\s*$", "", hit.title or ""))


def _year(option: str, hits: Sequence[Hit], died: bool) -> int | None:
    """The year the evidence gives `option`: from the first two sentences of its own page (the passage titled by it).
    Another page's sentence naming it is not read: its year is often someone else's."""
    norm = normalize_answer(option)
    own = [h for h in hits if norm and _title(h) == norm]
    for sentence in [s for h in own for s in split_sentences(h.text)[:2]]:
        if died:
            span = _LIFESPAN.search(sentence)
            if span:
                return int(span.group(2))
            continue
        found = _YEAR.search(sentence)
        if found:
            return int(found.group(1))
    return None


def compare_by_years(question: str, hits: Sequence[Hit]) -> dict[str, float]:
    """+1 for the option the question's comparison favours by the years read, -1 for the other; {} when the
    question does not compare by time or the evidence lacks a year for either option."""
    named = options(question)
    folded = fold(question)
    earlier, later = bool(_EARLIER.search(folded)), bool(_LATER.search(folded))
    if len(named) != 2 or earlier == later or _INDIRECT.search(folded):
        return {}
    died = bool(_DIED.search(folded))
    years = [_year(o, hits, died) for o in named]
    if None in years or years[0] == years[1]:
        return {}
    first = 0 if (years[0] < years[1]) == earlier else 1
    return {normalize_answer(named[first]): 1.0, normalize_answer(named[1 - first]): -1.0}
