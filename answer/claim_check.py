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

from rqrag.answer.claim_terms import key_terms, name_runs, ordinal
from rqrag.retrieval.base import Hit
from rqrag.text.sentences import split_sentences
from rqrag.text.text_quality import content_words, fold, identifiers, stem


CHECK_MODES = ("words", "align", "judge", "align_judge", "align_cloze", "ordered", "ordered_cloze")
# `ordered`: the sentence says what its window says in the window's own order — nearly all its content words in the
# window (`MIN_ORDERED_COVERAGE`), those words in the window's order (`MIN_IN_ORDER`: "B defeated A" over "A defeated
# B" is out of order), the same negation. Strict by design: a paraphrase that reorders a sentence is not shown.
MIN_ORDERED_COVERAGE = 0.85
MIN_IN_ORDER = 0.85
# Share of a sentence's content words (by stem) its window must hold: a written sentence may add a connective or a
# paraphrased verb ("was born" for "birth"), not a fact. Set on the tuning half of tests/data/claim_pairs.
MIN_COVERAGE = 0.6
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
    # no_citation | unsupported_term | unaligned | judged_unsupported | negation_differs | filled_otherwise |
    # out_of_order | qualifier_dropped
    reason: str | None = None
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


def unsupported_name(sentence: str, window: Window, asked: str) -> str | None:
    """The first name of the sentence that its window does not hold: every word of it must be in the page (its title
    or text) or the question, and one at least in the window itself ("Lewis Hamilton" over a window that says
    "Hamilton", on a page that names him in full). The page's title stands in for the window's subject only when the
    window names none of its own: "Madtown debuted as Pro C" is not what "Two of the members, Moos and Buffy, debuted
    as Pro C" says on Madtown's page."""
    page = fold(f"{window.hit.title} {window.hit.text}")
    with_title = fold(f"{window.hit.title} {window.text}")
    # the title may be the claim's subject when the window speaks of it by a pronoun, or names no one of its own
    title_as_subject = bool(_PRONOUN.search(window.text)) or not name_runs(window.text, window.hit.text)
    for number, run in enumerate(name_runs(sentence, window.hit.text)):
        words = [w for w in content_words(run.group(0)) if not w.isdigit()]
        words = [re.sub(r"'s$|’s$", "", w) for w in words]
        if not all(_holds(w, page) or _holds(w, asked) for w in words):
            return run.group(0)
        scope = with_title if number > 0 or title_as_subject else fold(window.text)
        if not any(_holds(w, scope) or _holds(w, asked) for w in words):
            return run.group(0)
    return None


_PRONOUN = re.compile(r"\b(he|she|it|they|his|her|its|their|ele|ela|eles|elas|seu|sua|seus|suas)\b", re.IGNORECASE)


def windows(hit: Hit) -> list[str]:
    """Every sentence of a passage, and every two adjacent ones where the second goes on from the first (it opens
    with a pronoun: "He was ..."). Two unrelated neighbours are not one window: "Rui founded it. Ana joined in 2015."
    must not support "Ana founded it"."""
    sentences = split_sentences(hit.text) or [hit.text]
    pairs = [f"{a} {b}" for a, b in zip(sentences, sentences[1:]) if _GOES_ON.match(b) and _neighbours(hit.text, a, b)]
    return sentences + pairs


def _neighbours(text: str, first: str, second: str) -> bool:
    """Whether `second` follows `first` on the page with nothing but spaces between (a passage cut to its best
    sentences marks a gap with a line break)."""
    end = text.find(first)
    start = text.find(second, end + len(first)) if end >= 0 else -1
    return start >= 0 and "\n" not in text[end + len(first) : start]


def _holds(term: str, folded_text: str) -> bool:
    return (
        bool(re.search(rf"(?<!\w){re.escape(term)}(?!\w)", folded_text)) if term[:1].isalnum() else term in folded_text
    )


def align(sentence: str, cited: Sequence[Hit], language: str | None = None, question: str = "") -> Window | None:
    """The window of `cited` holding most of the sentence's numbers and exact terms, then of its content words (ties:
    the shorter, then the earlier). Words the sentence takes from the question count like any other: excused, one
    was enough for "Sullivan County is the county seat of Sullivan County" to rest on "Lempster is a town in Sullivan
    County" ("seat" came from the question), and four hung a license on a sentence that only named a book."""
    wanted = {stem(w) for w in content_words(sentence, language)}
    exact = key_terms(sentence)  # the sentence's, once: each window is only asked which it holds
    best: tuple[tuple, Window] | None = None
    for rank, hit in enumerate(cited):
        for text in windows(hit):
            held = {stem(w) for w in content_words(f"{hit.title} {text}", language)}
            coverage = len(wanted & held) / len(wanted) if wanted else 1.0
            scope = fold(f"{hit.title} {text}")
            terms = sum(_holds(t, scope) for t in exact)  # "85" decides between two sentences on quality
            key = (terms, coverage, -len(text), -rank)
            if best is None or key > best[0]:
                best = (key, Window(hit, text, coverage))
    return best[1] if best else None


def in_order(sentence: str, window: str, language: str | None = None, question: str = "") -> float:
    """Share of the sentence's content words (found in the window) that keep the window's order: the longest run of
    them whose window positions rise, over how many were found (1.0 when fewer than two are). Words of the question
    and a fronted date or place ("Em 2001, o projeto ...") move freely: only what the sentence claims keeps order."""
    places = [stem(w) for w in content_words(window, language)]
    asked = {stem(w) for w in content_words(question, language)}
    positions = []
    for word in content_words(_unfronted(sentence), language):
        key = stem(word)
        if key in asked:
            continue
        if key in places:
            positions.append(places.index(key))
    positions = [p for i, p in enumerate(positions) if p not in positions[:i]]  # a word said twice counts once
    if len(positions) < 2:
        return 1.0
    longest = [1] * len(positions)
    for i in range(len(positions)):
        for j in range(i):
            if positions[j] < positions[i]:
                longest[i] = max(longest[i], longest[j] + 1)
    return max(longest) / len(positions)


# A run of this many words of the window, inside the stretch the sentence covers, left out of it with no comma
# between them: "Strasbourg is the capital and largest city of [the Grand Est region of] France" claims something
# else. Items of a list may go ("an actress, singer, dancer, and diplomat" -> "an actress and diplomat").
MAX_DROPPED_RUN = 3
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def dropped_run(sentence: str, window: str, language: str | None = None) -> int:
    """The longest run of the window's content words, between the first and the last of the sentence's, that the
    sentence leaves out with no comma between them (bracketed asides do not count)."""
    claimed = {stem(w) for w in content_words(sentence, language)}
    tokens: list[str | None] = []  # content words in order; None where a comma (or stop) separates them
    for piece in re.split(r"[,;:]", _BRACKETED.sub(" ", window)):
        tokens += [stem(w) for w in content_words(piece, language)] + [None]
    matched = [i for i, t in enumerate(tokens) if t is not None and t in claimed]
    if len(matched) < 2:
        return 0
    longest = run = 0
    for token in tokens[matched[0] : matched[-1] + 1]:
        run = run + 1 if token is not None and token not in claimed else 0
        longest = max(longest, run)
    return longest


_FRONTED = re.compile(
    r"^\s*((?:in|on|at|em|no|na|nos|nas|desde|since|after|before|após|antes de)\s+[^,]{1,40}),\s*(.+)$", re.I
)


def _unfronted(sentence: str) -> str:
    """ "In 2001, X was founded" as "X was founded In 2001": a fronted phrase read where a passage would put it."""
    found = _FRONTED.match(sentence)
    return f"{found.group(2)} {found.group(1)}" if found else sentence


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
        mode: str = "ordered_cloze",
        min_p: float = 0.5,
        min_coverage: float = MIN_COVERAGE,
        ask: Callable[[list[dict], int], str] | None = None,
    ):
        """`judge(messages) -> p(yes)`: a chat model's probability of yes, for the `judge` and `align_judge` modes;
        `ask(messages, max_tokens) -> reply`: its greedy reply, for `align_cloze` (`rqrag.answer.writer_models`)."""
        if mode not in CHECK_MODES:
            raise ValueError(f"claim check mode must be one of {CHECK_MODES}, got {mode!r}")
        if mode in ("judge", "align_judge") and judge is None:
            raise ValueError(f"claim check mode {mode!r} needs a judge model")
        if mode.endswith("_cloze") and ask is None:
            raise ValueError(f"claim check mode {mode!r} needs a model to ask")
        self.judge, self.mode, self.min_p, self.min_coverage, self.ask = judge, mode, min_p, min_coverage, ask

    def check(
        self, sentence: str, cited: Sequence[Hit], question: str = "", language: str | None = None
    ) -> ClaimVerdict:
        """Whether `sentence` may be shown, citing `cited` (module docstring)."""
        if not cited:
            return ClaimVerdict(False, "no_citation")
        asked = fold(question)
        if self.mode == "words":
            from rqrag.answer.answer_check import check_answer

            verdict = check_answer(sentence, question, cited, language)
            window = align(sentence, cited, language)
            return ClaimVerdict(verdict.ok, None if verdict.ok else "unsupported_term", window)
        window = align(sentence, cited, language, question)
        copied = _verbatim(sentence, cited)
        if copied is not None:  # the passage's own words: it states exactly this, nothing to judge
            return ClaimVerdict(True, None, copied, p=None)
        if self.mode == "judge":
            whole = Window(cited[0], " ".join(h.text for h in cited), 1.0)
            return self._judged(sentence, whole, language, shown=window)
        scope = fold(f"{window.hit.title} {window.text}")
        scope = f"{scope} {' '.join(ordinal(t) for t in identifiers(scope))}"
        for term in key_terms(sentence):
            if not _holds(term, scope) and not _holds(term, asked):
                return ClaimVerdict(False, "unsupported_term", window, term=term)
        name = unsupported_name(sentence, window, asked)
        if name is not None:
            return ClaimVerdict(False, "unsupported_term", window, term=name)
        if window.coverage < self.min_coverage:
            return ClaimVerdict(False, "unaligned", window)
        if self.mode == "align":
            return ClaimVerdict(True, None, window)
        if self.mode == "align_cloze":
            return self._filled(sentence, window, language, question)
        if self.mode in ("ordered", "ordered_cloze"):
            verdict = self._ordered(sentence, window, language, question)
            if verdict.ok and self.mode == "ordered_cloze":
                return self._filled(sentence, window, language, question)
            return verdict
        return self._judged(sentence, window, language)

    def _ordered(self, sentence: str, window: Window, language: str | None, question: str = "") -> ClaimVerdict:
        from rqrag.answer.cloze_check import negation_differs

        if negation_differs(sentence, window.text, language):
            return ClaimVerdict(False, "negation_differs", window)
        if window.coverage < MIN_ORDERED_COVERAGE:
            return ClaimVerdict(False, "unaligned", window)
        if in_order(sentence, window.text, language, question) < MIN_IN_ORDER:  # the title has no place in it
            return ClaimVerdict(False, "out_of_order", window)
        if dropped_run(sentence, window.text, language) >= MAX_DROPPED_RUN:
            return ClaimVerdict(False, "qualifier_dropped", window)
        return ClaimVerdict(True, None, window)

    def _filled(self, sentence: str, window: Window, language: str | None, question: str) -> ClaimVerdict:
        from rqrag.answer.cloze_check import cloze_supported, negation_differs

        if negation_differs(sentence, window.text, language):
            return ClaimVerdict(False, "negation_differs", window)
        ok, filled = cloze_supported(sentence, window.text, window.hit.title, self.ask, language, question)
        wrong = next((f"{claimed} -> {got}" for claimed, got, same in filled if not same), None)
        return ClaimVerdict(ok, None if ok else "filled_otherwise", window, term=wrong)

    def _judged(
        self, sentence: str, window: Window, language: str | None, shown: Window | None = None
    ) -> ClaimVerdict:
        words = JUDGE_PROMPTS.get(language or "en", JUDGE_PROMPTS["en"])
        task = words["task"].format(title=window.hit.title or "-", window=window.text.strip(), sentence=sentence)
        p = self.judge([{"role": "system", "content": words["system"]}, {"role": "user", "content": task}])
        ok = p >= self.min_p
        return ClaimVerdict(ok, None if ok else "judged_unsupported", shown or window, p=p)
