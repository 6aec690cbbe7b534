"""Whether an answer may be shown at all, whatever a verifier's p says: `check_answer` against the passages it
stands on.

`check_answer` rejects:

* `empty` / `loops` — nothing, or a runaway that repeats itself;
* `echoes_question` — a question, nothing the question did not already hold, or mostly the question's words;
* `heading` — a section title ("14.13.1 Como configurar o encerramento à noite?"), not a statement;
* `wrong_language` — a sentence in another language than the question's;
* `unsupported_identifier` — a number, version, address, path or option no cited passage holds;
* `unsupported` — fewer than `min_support` of its new content words (by a shared stem) are in the passages.

(`rqrag.answer.grounding.decide` also refuses a tree answer cut by the token cap, `truncated`, and one of a
comparison's two options when the evidence does not mention both, `options_unread`.)


"The passages" are everything the candidate's paths read, pooled: whether they are about the question is the
verifier's to weigh (support in passages and sentences that share the question's words). Narrowing them to the
few sentences most similar to the question rejected "The capital of France is Paris." because those sentences were
about Strasbourg.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rqrag.retrieval.base import Hit
from rqrag.text.text_quality import (
    content_words,
    echoes,
    fold,
    guess_language,
    identifiers,
    is_heading,
    loops,
    new_content,
    stem,
    words,
)


# Share of an answer's new content words that the cited passages must hold (by stem). Below it the answer says
# things the evidence does not; 0.6 lets a fluent answer add a connective word or two of its own.
MIN_SUPPORT = 0.6
_YES_NO = {"yes", "no", "sim", "nao", "si"}


@dataclass(frozen=True)
class Verdict:
    """Whether an answer may be shown, why not, and which passages (indices into the hits) support it."""

    ok: bool
    reason: str | None = None
    support: float = 0.0
    cited: tuple[int, ...] = ()


def check_answer(answer: str, question: str, hits: Sequence[Hit], language: str | None = None) -> Verdict:
    """Whether `answer` is supported by `hits` and reads as an answer to `question` (see the module docstring)."""
    text = " ".join((answer or "").split())
    if not text:
        return Verdict(False, "empty")
    if loops(text):
        return Verdict(False, "loops")
    folded = fold(text).strip(" .!")
    if folded in _YES_NO:
        return Verdict(True, support=1.0)  # a yes/no answer states nothing a passage could be searched for
    if echoes(text, question):
        return Verdict(False, "echoes_question")
    if is_heading(text):
        return Verdict(False, "heading")
    expected = language or guess_language(question)
    written = guess_language(text)
    if expected and written and written != expected:
        return Verdict(False, "wrong_language")
    passages = [fold(f"{h.title} {h.text}") for h in hits]
    passage_words = [set(words(p)) for p in passages]
    asked = set(identifiers(question))
    for ident in identifiers(text):
        if ident not in asked and not any(ident in p for p in passages):
            return Verdict(False, "unsupported_identifier")
    fresh = new_content(text, question)
    if not fresh:
        return Verdict(True, support=1.0, cited=_best_passages(content_words(text), passage_words))
    passage_stems = [{stem(w) for w in ws} for ws in passage_words]
    found = [w for w in fresh if any(stem(w) in s for s in passage_stems)]
    support = len(found) / len(fresh)
    if support < MIN_SUPPORT:
        return Verdict(False, "unsupported", support)
    return Verdict(True, support=round(support, 3), cited=_best_passages(fresh, passage_words))


def _best_passages(answer_words: Sequence[str], passage_words: Sequence[set[str]]) -> tuple[int, ...]:
    """The passage holding most of the answer's words (ties: the earliest, the better ranked)."""
    if not passage_words:
        return ()
    stems = {stem(w) for w in answer_words}
    overlap = [len(stems & {stem(w) for w in ws}) for ws in passage_words]
    best = max(range(len(overlap)), key=lambda i: (overlap[i], -i))
    return (best,) if overlap[best] else ()
