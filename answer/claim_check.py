"""The check a written sentence passes before a person reads it: does what it claims stand in the passages it cites?

Words alone cannot tell: "Ana founded the project in 2009" uses only words of a passage that says "Ana joined in
2009; Rui founded the project". So a sentence is judged in two steps:

1. **Alignment** (`align`): the sentence is laid over every window of its cited passages — one sentence, or two
   adjacent ones (a pronoun resolved across them) — and the window holding most of its content words (by a shared
   stem) is the one it rests on. Every name, number, identifier and quoted term of the sentence must be *in that
   window* (or in the question, or the window's page title), not anywhere in the passage; and most of its content
   words too (`MIN_COVERAGE`). A subject taken from one part of a page and a year from another fails here. The
   window is what is shown under the answer as its quote.
A sentence copied word for word from a cited sentence passes at once: it claims what its passage claims.

2. **Judgment** (`judge`): a chat model is asked whether the window states the sentence, who did what, when and
   where; its probability of "yes" must reach `min_p`. Swapped roles inside one sentence ("B defeated A") pass the
   alignment and are the judge's to catch.

    check = ClaimCheck(judge=writer_model.yes_probability, mode="align_judge")
    verdict = check.check("Shirley Temple served as Chief of Protocol.", cited_hits, question, "en")
    verdict.ok, verdict.reason, verdict.window, verdict.p

`mode` picks the steps: `words` (the answer check's word overlap over the whole cited passages, the baseline),
`align`, `judge` (the judge over whole passages), `align_judge` (both, the judge over the aligned window). Which one
ships was measured on hand-labelled pairs (tests/data/claim_pairs; scripts/eval_claim_check.py; docs/answers.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rqrag.retrieval.base import Hit
from rqrag.sentences import split_sentences
from rqrag.text_quality import content_words, fold, identifiers, stem


CHECK_MODES = ("words", "align", "judge", "align_judge")
# Share of a sentence's content words (by stem) its window must hold: a written sentence may add a connective or a
# paraphrased verb ("was born" for "birth"), not a fact. Set on the tuning half of tests/data/claim_pairs.
MIN_COVERAGE = 0.6
_QUOTED = re.compile(r"[\"“«']([^\"”»']{2,80})[\"”»']")
_URL = re.compile(r"https?://\S+|www\.\S+")
# A name: a capitalised word, or a run of them ("Ana Lima", "Chief of Protocol"); a sentence's first word counts
# unless it is a function word ("The", "Para").
_NAME = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’\-]*(?:\s+(?:of|de|da|do|dos|das|von|van|the)?\s*[A-ZÀ-ÖØ-Þ][\w'’\-]*)*")
# A sentence that goes on from the one before ("He was ...", "Ela ..."): only then do two sentences make one window.
_GOES_ON = re.compile(
    r"^\W*(he|she|it|they|his|her|its|their|this|these|that|those|there|the (film|band|song|album|book|company|"
    r"project|city|town|group|series|show|team|game)|ele|ela|eles|elas|seu|sua|seus|suas|esse|essa|este|esta|isso|"
    r"isto|nele|nela|o mesmo|a mesma|também|tambem|além disso|alem disso)\b",
    re.IGNORECASE,
)

JUDGE_PROMPTS = {
    "en": {
        "system": "You check claims against a source. Reply with one word: yes or no.",
        "task": "Source ({title}):\n{window}\n\nClaim: {sentence}\n\nDoes the source state this claim, with the same "
        "people, things, dates, places and numbers in the same roles? Reply yes or no.",
    },
    "pt": {
        "system": "Você confere afirmações contra uma fonte. Responda com uma palavra: sim ou não.",
        "task": "Fonte ({title}):\n{window}\n\nAfirmação: {sentence}\n\nA fonte afirma isso, com as mesmas pessoas, "
        "coisas, datas, lugares e números nos mesmos papéis? Responda sim ou não.",
    },
}


@dataclass(frozen=True)
class Window:
    """The part of a cited passage a sentence rests on: one sentence or two adjacent ones, verbatim."""

    hit: Hit
    text: str
    coverage: float  # share of the claim's content words (by stem) it holds


@dataclass(frozen=True)
class ClaimVerdict:
    ok: bool
    reason: str | None = None  # no_citation | unsupported_term | unaligned | judged_unsupported
    window: Window | None = None
    p: float | None = None  # the judge's p(yes), when it was asked
    term: str | None = None  # the name or number no window holds

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "reason": self.reason,
            "p": None if self.p is None else round(self.p, 4),
            "quote": self.window.text if self.window else None,
            "term": self.term,
        }


def key_terms(sentence: str) -> list[str]:
    """What the sentence must not get wrong, folded: numbers and identifiers, names (capitalised words past the
    first), quoted terms and addresses."""
    terms = identifiers(sentence)
    terms += [fold(m.group(1)).strip() for m in _QUOTED.finditer(sentence)]
    terms += [fold(u).rstrip(".,;)") for u in _URL.findall(sentence)]
    for match in _NAME.finditer(sentence.strip()):
        terms += [w for w in content_words(match.group(0)) if not w.isdigit()]  # a lone "The" is no name
    return list(dict.fromkeys(t for t in terms if t))


def windows(hit: Hit) -> list[str]:
    """Every sentence of a passage, and every two adjacent ones where the second goes on from the first (it opens
    with a pronoun: "He was ..."). Two unrelated neighbours are not one window: "Rui founded it. Ana joined in 2015."
    must not support "Ana founded it"."""
    sentences = split_sentences(hit.text) or [hit.text]
    pairs = [f"{a} {b}" for a, b in zip(sentences, sentences[1:]) if _GOES_ON.match(b)]
    return sentences + pairs


def _holds(term: str, folded_text: str) -> bool:
    return bool(re.search(rf"(?<!\w){re.escape(term)}(?!\w)", folded_text)) if term[:1].isalnum() else term in folded_text


def align(sentence: str, cited: Sequence[Hit], language: str | None = None) -> Window | None:
    """The window of `cited` holding most of the sentence's content words (ties: the shorter, then the earlier)."""
    wanted = {stem(w) for w in content_words(sentence, language)}
    best: tuple[tuple, Window] | None = None
    for rank, hit in enumerate(cited):
        for text in windows(hit):
            held = {stem(w) for w in content_words(f"{hit.title} {text}", language)}
            coverage = len(wanted & held) / len(wanted) if wanted else 1.0
            key = (coverage, -len(text), -rank)
            if best is None or key > best[0]:
                best = (key, Window(hit, text, coverage))
    return best[1] if best else None


def _verbatim(sentence: str, cited: Sequence[Hit]) -> Window | None:
    """The cited sentence a written one copies word for word (case, accents and spacing aside), if any."""
    wanted = " ".join(fold(sentence).split()).rstrip(" .")
    if len(wanted.split()) < 3:
        return None
    for hit in cited:
        for text in split_sentences(hit.text) or [hit.text]:
            if wanted in " ".join(fold(text).split()):
                return Window(hit, text, 1.0)
    return None


class ClaimCheck:
    def __init__(
        self,
        judge: Callable[[list[dict]], float] | None = None,
        mode: str = "align_judge",
        min_p: float = 0.5,
        min_coverage: float = MIN_COVERAGE,
    ):
        """`judge(messages) -> p(yes)`: a chat model's probability of yes (`rqrag.answer.writer_models`); needed by
        the `judge` and `align_judge` modes."""
        if mode not in CHECK_MODES:
            raise ValueError(f"claim check mode must be one of {CHECK_MODES}, got {mode!r}")
        if mode in ("judge", "align_judge") and judge is None:
            raise ValueError(f"claim check mode {mode!r} needs a judge model")
        self.judge, self.mode, self.min_p, self.min_coverage = judge, mode, min_p, min_coverage

    def check(self, sentence: str, cited: Sequence[Hit], question: str = "", language: str | None = None) -> ClaimVerdict:
        """Whether `sentence` may be shown, citing `cited` (module docstring)."""
        if not cited:
            return ClaimVerdict(False, "no_citation")
        asked = fold(question)
        if self.mode == "words":
            from rqrag.answer.answer_check import check_answer

            verdict = check_answer(sentence, question, cited, language)
            window = align(sentence, cited, language)
            return ClaimVerdict(verdict.ok, None if verdict.ok else "unsupported_term", window)
        window = align(sentence, cited, language)
        copied = _verbatim(sentence, cited)
        if copied is not None:  # the passage's own words: it states exactly this, nothing to judge
            return ClaimVerdict(True, None, copied, p=None)
        if self.mode == "judge":
            whole = Window(cited[0], " ".join(h.text for h in cited), 1.0)
            return self._judged(sentence, whole, language, shown=window)
        scope = fold(f"{window.hit.title} {window.text}")
        for term in key_terms(sentence):
            if not _holds(term, scope) and not _holds(term, asked):
                return ClaimVerdict(False, "unsupported_term", window, term=term)
        if window.coverage < self.min_coverage:
            return ClaimVerdict(False, "unaligned", window)
        if self.mode == "align":
            return ClaimVerdict(True, None, window)
        return self._judged(sentence, window, language)

    def _judged(self, sentence: str, window: Window, language: str | None, shown: Window | None = None) -> ClaimVerdict:
        words = JUDGE_PROMPTS.get(language or "en", JUDGE_PROMPTS["en"])
        task = words["task"].format(title=window.hit.title or "-", window=window.text.strip(), sentence=sentence)
        p = self.judge([{"role": "system", "content": words["system"]}, {"role": "user", "content": task}])
        ok = p >= self.min_p
        return ClaimVerdict(ok, None if ok else "judged_unsupported", shown or window, p=p)
