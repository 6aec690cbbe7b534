"""The grounded answer: a generated answer is shown only when the evidence it cites says it; otherwise the
evidence is quoted.

A small local model picks the right page and then writes something else — the question said back, a section
heading, a licence paragraph in another language, a sentence that names no one. So before anyone reads an answer
it is checked against the passages of its own trajectory (`check_answer`):

* `empty` / `loops` / `truncated` — nothing, a runaway that repeats itself, or an answer cut by the token cap;
* `echoes_question` — a question, nothing the question did not already hold, or mostly the question's words;
* `heading` — a section title ("14.13.1 Como configurar o encerramento à noite?"), not a statement;
* `wrong_language` — a sentence in another language than the question's;
* `unsupported_identifier` — a number, version, address, path or option no cited passage holds;
* `unsupported` — fewer than `min_support` of its new content words (by a shared stem) are in the passages.

What counts as "the passages" is narrower than everything the path read: the sentences of its evidence that best
answer the question (`relevant`, the extractive scorer's top sentences with the one after each). A sentence copied
from the right page that is about something else ("Debian Edu é uma distribuição Linux…" for a question about
the umask) is in the evidence, but not in what answers the question.

`ground` walks the tree's answers in the order the selection strategy prefers them and shows the first one that
passes, as `generated`; when none does, the sentence(s) of the evidence that best answer the question, quoted with
file and page (`rqrag.inference.extractive`), as `quoted`. A capable chat model's supported answers pass, so
they are shown as written; a tiny model never shows nonsense. Which kind the user got is part of every response.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rqrag.retrieval.base import Hit
from rqrag.text_quality import (
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
from rqrag.trajectory import ParseStatus


# Share of an answer's new content words that the cited passages must hold (by stem). Below it the answer says
# things the evidence does not; 0.6 lets a fluent answer add a connective word or two of its own.
MIN_SUPPORT = 0.6
_YES_NO = {"yes", "no", "sim", "nao", "si"}

GENERATED, QUOTED, NOT_FOUND, NO_ANSWER = "generated", "quoted", "not_found", "no_answer"
# Said, in the question's language, when no answer is supported and no passage could be quoted: nothing is made up.
NOTHING_FOUND = {
    "pt": "Não encontrei nas fontes consultadas nada que responda a isso.",
    "es": "No encontré en las fuentes consultadas nada que responda a esto.",
    "en": "I found nothing in the sources I searched that answers this.",
}


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


@dataclass
class GroundedAnswer:
    """What the user reads: the text, which kind it is, and the passages it stands on."""

    text: str
    kind: str  # generated | quoted | not_found | no_answer
    cited: list[Hit] = field(default_factory=list)  # the passages the text comes from or is supported by
    path_id: str | None = None  # the trajectory whose answer (or evidence) is shown
    generated: str | None = None  # the selected trajectory's own answer, also when it was not shown
    rejected: dict[str, str] = field(default_factory=dict)  # path id -> why its answer was not shown

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "kind": self.kind,
            "path_id": self.path_id,
            "generated": self.generated,
            "rejected": self.rejected,
            "cited": [h.docid for h in self.cited],
        }


def trajectory_hits(trajectory) -> list[Hit]:
    """Every passage a trajectory read, in reading order, each once."""
    seen: dict[str, Hit] = {}
    for step in trajectory.steps:
        for hit in step.evidence:
            seen.setdefault(hit.docid, hit)
    return list(seen.values())


def ground(
    result,
    strategy: str,
    question: str,
    language: str | None,
    quote: Callable[[str, Sequence[Hit]], object | None],
    choose: Callable[[list, str], int] | None = None,
    relevant: Callable[[str, Sequence[Hit]], list[Hit]] | None = None,
) -> GroundedAnswer:
    """The answer to show for a decoded question (`QuestionResult`): the first answer the strategy prefers that
    `check_answer` accepts, else a quote of the selected trajectory's evidence (`quote(question, hits)` returns an
    `extractive.Quote` or None), else `no_answer`. `choose(candidates, strategy)` re-runs the selection among the
    answers not yet rejected (default: `rqrag.inference.decoding.select.select_all` over their scores). `relevant(question,
    hits)` narrows a path's passages to what answers the question (default: all of them)."""
    best = result.best_by(strategy)
    generated = best.trajectory.answer if best is not None else None
    rejected: dict[str, str] = {}
    remaining = [t for t in result.trajectories if t.ok]
    current = best
    while current is not None:
        read = trajectory_hits(current.trajectory)
        hits = relevant(question, read) if relevant is not None and read else read
        truncated = current.parse_statuses and current.parse_statuses[-1] is ParseStatus.TRUNCATED
        verdict = (
            Verdict(False, "truncated")
            if truncated
            else check_answer(current.trajectory.answer or "", question, hits, language)
        )
        if verdict.ok:
            by_id = {h.docid: h for h in read}  # cite the passage, not the sentence that supported the answer
            cited = [by_id.get(hits[i].docid, hits[i]) for i in verdict.cited] or read[:1]
            return GroundedAnswer(
                current.trajectory.answer.strip(), GENERATED, cited, current.path_id, generated, rejected
            )
        rejected[current.path_id] = verdict.reason or "rejected"
        remaining = [t for t in remaining if t.path_id != current.path_id]
        current = _next_choice(remaining, strategy, question, choose)
    # The selected path's own evidence; a direct answer read none, so then everything the tree read.
    evidence = (trajectory_hits(best.trajectory) if best is not None else []) or _all_hits(result)
    found = quote(question, evidence) if evidence else None
    if found is None:
        said = NOTHING_FOUND.get(language or "en", NOTHING_FOUND["en"])
        return GroundedAnswer(said, NO_ANSWER, [], None, generated, rejected)
    cited = [h for h in evidence if h.docid == found.docid][:1]
    # The trajectory shown beside a quote is one that read the quoted passage (a direct answer read nothing).
    holder = next((t for t in ([best] if best else []) + result.trajectories if found.docid in _docids(t)), best)
    return GroundedAnswer(found.text, QUOTED, cited, holder.path_id if holder else None, generated, rejected)


def _docids(trajectory) -> set[str]:
    return {h.docid for h in trajectory_hits(trajectory.trajectory)}


def _all_hits(result) -> list[Hit]:
    hits: dict[str, Hit] = {}
    for t in result.trajectories:
        for hit in trajectory_hits(t.trajectory):
            hits.setdefault(hit.docid, hit)
    return list(hits.values())


def _next_choice(remaining, strategy: str, question: str, choose) -> object | None:
    if not remaining:
        return None
    if choose is not None:
        return remaining[choose(remaining, strategy)]
    from rqrag.inference.decoding.select import STRATEGIES, select_all

    # select_all, not select: without logprobs (a chat endpoint) the strategies read answer agreement instead
    chosen = select_all([t.scored(question) for t in remaining])
    return remaining[chosen[strategy if strategy in STRATEGIES else "ppl"]]
