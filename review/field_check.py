"""The check a review's fields must pass before a person reads them: no invented word, no repeated bullet, no
sentence shown twice, no line cut mid-word, no field taken from the wrong section.

    defects = check_fields({"objective": [...], "conclusion": [...]}, article_text, sources={...})
    # [Defect("objective", "invented_word", "aperuam"), Defect("objective", "repeated", "..."), ...]

A small model asked for a review in Portuguese writes words that exist in no language ("deversa", "aperuam",
"imparadura"), the same bullet four times, and text cut at its token limit ("que ao-", "não cont"). Each of these
is caught here from the text alone:

* **invented word** — a word in neither the article nor the Portuguese or English lexicon. The lexicon is
  `wordfreq`'s (word frequencies of both languages from large corpora, shipped in its wheel, so it works offline
  and anywhere). Chosen by measurement over Debian's hunspell dictionaries read by `spylls` (docs/review.md):
  on 19 invented words it caught 18 against 16 (hunspell knows "aperuam"), with 27 false alarms among 1,945
  distinct words of a Portuguese software guide against 30, 476 against 1,458 among 8,525 English Wikipedia
  words, and 20x faster;
* **repeated** — a bullet that says what an earlier bullet of its field says (same words once normalised);
* **twice** — a sentence shown in two fields (the summary that is the objective again);
* **cut** — text ending in a hyphen, a sentence-long text with no closing punctuation, or a last word that is the
  start of one of the article's words but not a word of its own ("cont" for "contém");
* **wrong section** — a field whose sentence sits in the article in a section it may not come from (a conclusion
  quoted from the introduction); `sources` says where each shown sentence was found.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rqrag.text.answer_text import normalize_answer
from rqrag.text.text_quality import fold


LANGUAGES = ("pt", "en")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_CLOSES = (".", "!", "?", "…", ")", '"', "»", "”", "]")
SENTENCE_WORDS = 8  # a text this long is a sentence, and a sentence ends on its punctuation
# Where each field may be taken from (section roles of rqrag.ingest.article).
ALLOWED_SECTIONS = {
    "objective": ("abstract", "introduction", "objectives"),
    "method": ("method", "abstract"),
    "data": ("method", "abstract", "results"),
    "result": ("results", "discussion", "abstract", "conclusion"),
    "conclusion": ("conclusion", "discussion"),
}


@dataclass(frozen=True)
class Defect:
    field: str
    problem: str  # what is wrong with it: invented_word | repeated | twice | cut | wrong_section
    detail: str

    def to_dict(self) -> dict:
        return {"field": self.field, "problem": self.problem, "detail": self.detail}


@functools.lru_cache(maxsize=200_000)
def known_word(word: str) -> bool:
    """Whether `word` (any case) is a Portuguese or English word in wordfreq's lists."""
    from wordfreq import zipf_frequency

    lowered = word.lower()
    return any(zipf_frequency(lowered, language) > 0 for language in LANGUAGES)


def article_words(text: str) -> frozenset[str]:
    """The article's own words, folded: its names and terms are words wherever they are not in a lexicon."""
    return frozenset(fold(w) for w in _WORD.findall(text))


def invented_words(text: str, own: frozenset[str]) -> list[str]:
    """Words of `text` in neither the article (`own`, from `article_words`) nor the lexicon, in order, once each."""
    found: list[str] = []
    for word in _WORD.findall(text):
        if len(word) < 3 or fold(word) in own or known_word(word) or word in found:
            continue
        found.append(word)
    return found


def is_cut(text: str, own: frozenset[str]) -> bool:
    """Whether `text` stops mid-word or mid-sentence (module docstring)."""
    text = text.strip()
    if not text:
        return False
    if text.endswith(("-", "—", "–")) or text.endswith(("(", ",", " e", " de", " que", " a", " o")):
        return True
    words = text.split()
    if len(words) >= SENTENCE_WORDS and not text.endswith(_CLOSES) and not text.endswith(":"):
        return True
    last = fold(words[-1].strip('.,;:!?"»”)'))
    if len(last) >= 2 and last.isalpha() and last not in own:
        return any(w.startswith(last) and w != last for w in own)
    return False


def _same(a: str, b: str) -> bool:
    x, y = normalize_answer(a), normalize_answer(b)
    if not x or not y:
        return False
    if x == y:
        return True
    sx, sy = set(x.split()), set(y.split())
    return len(sx & sy) / max(1, len(sx | sy)) >= 0.8


def check_fields(
    fields: Mapping[str, Sequence[str] | str],
    article_text: str,
    sources: Mapping[str, Sequence[str | None]] | None = None,
) -> list[Defect]:
    """Every defect of a review's `fields` (name -> text or list of texts), checked against the article's text;
    `sources[field][i]`: the section role the i-th text of the field was quoted from (None: not found in it)."""
    own = article_words(article_text)
    defects: list[Defect] = []
    shown: list[tuple[str, str]] = []  # (field, text) of every text, for "twice"
    for field, value in fields.items():
        items = [value] if isinstance(value, str) else list(value)
        for index, text in enumerate(t for t in items if t and t.strip()):
            for word in invented_words(text, own):
                defects.append(Defect(field, "invented_word", word))
            if is_cut(text, own):
                defects.append(Defect(field, "cut", text[-40:]))
            if any(_same(text, earlier) for name, earlier in shown if name == field):
                defects.append(Defect(field, "repeated", text[:80]))
            elif any(_same(text, earlier) for name, earlier in shown if name != field):
                other = next(name for name, earlier in shown if name != field and _same(text, earlier))
                defects.append(Defect(field, "twice", f"also in {other}: {text[:60]}"))
            allowed = ALLOWED_SECTIONS.get(field)
            roles = (sources or {}).get(field) or []
            role = roles[index] if index < len(roles) else None
            if allowed is not None and role is not None and role not in allowed:
                defects.append(Defect(field, "wrong_section", f"from {role}"))
            shown.append((field, text))
    return defects


def defect_problems(defects: Iterable[Defect]) -> set[str]:
    return {d.problem for d in defects}
