"""The answer a person reads: one decision over the whole tree, a calibrated confidence, and a label that means
what it says.

A small local model picks the right page and then writes something else — the question said back, a section
heading, the bridge entity instead of its attribute ("Shirley Temple" for "which government position did she
hold"). So the tree's answers are first grouped into candidates with pooled evidence
(`rqrag.answer.candidate_answers`), a learned verifier gives each a calibrated p(correct)
(`rqrag.answer.verifier`), and `decide` shows:

1. **generated** — the candidate with the highest p, when p reaches the verifier's threshold (chosen for >= 80 %
   precision on held-back training questions) and `check_answer` finds nothing wrong with it;
2. **quoted** — otherwise the shortest evidence span (at most two sentences) that holds what the question asks
   for (a position for "which position", a year for "when"), from the pooled evidence of the best candidates,
   quoted with file and page (`rqrag.answer.extractive`);
3. **no_answer** — otherwise "I found nothing…" in the question's language.

`confidence`, the best candidate's p, travels with every answer. A candidate is shown only if
`rqrag.answer.answer_check.check_answer` finds nothing wrong with it, whatever p says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rqrag.answer.answer_check import MIN_SUPPORT, Verdict, check_answer  # noqa: F401  (re-exported)
from rqrag.answer.answer_types import OPTION, asked_type, entities, options
from rqrag.answer.candidate_answers import gather, trajectory_hits
from rqrag.answer.extractive import Quote, answerer_for, lexical_answerer_for
from rqrag.answer.messages import AnswerKind, Message, said
from rqrag.answer.sentence_cues import share_held
from rqrag.inference.decoding.failures import FailureKind
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import normalize_answer
from rqrag.text.sentences import split_sentences
from rqrag.trajectory import ParseStatus


# Under the threshold, a short best answer leading the runner-up by this factor picks the passages quoted.
LEAD_RATIO = 1.1
LEAD_WORDS = 5


class Quoter(Protocol):
    """How the evidence is read when no answer is shown as generated: `quote` picks the span shown instead (None:
    nothing quotable), `rank_sentences` scores the tree's evidence sentences for the verifier's sentence features
    (None: this quoter ranks none, and the verifier judges by whole passages)."""

    def quote(
        self,
        question: str,
        hits: Sequence[Hit],
        language: str | None,
        *,
        asked: str | None = None,
        answers: Sequence[str] = (),
        trust: float = 1.0,
    ) -> Quote | None: ...

    def rank_sentences(
        self, question: str, hits: Sequence[Hit], language: str | None
    ) -> list[tuple[float, str]] | None: ...


class ExtractiveQuoter:
    """The default quoter: the extractive answerer of the language (`rqrag.answer.extractive`), with its hand-set
    sentence score: the reader's learned sentence model quoted fewer key facts on the two tuning manuals (0.57-0.63
    against 0.70 over their 60 questions, 5-fold, whatever its mix with the hand-set score; docs/answers.md). For
    the verifier's sentence features, sentences are ranked by the hand-set scorer without the dense part: how well each answers the question. Lexical on purpose: a tree
    reads ~40 sentences, and embedding them for every question cost more than the decision is worth (the quote,
    made only when no answer is confident, still uses the dense part)."""

    def quote(self, question, hits, language, **asked) -> Quote | None:
        return answerer_for(language).quote(question, hits, **asked)

    def rank_sentences(self, question, hits, language) -> list[tuple[float, str]]:
        return [(score, c.text) for score, c in lexical_answerer_for(language).scored([question], [hits])[0]]


@dataclass(frozen=True)
class QuoteFunction:
    """A caller's own `quote(question, hits, language, asked=..., answers=..., trust=...)` as a quoter. It brings no
    sentence scorer: its answers are checked against whole passages."""

    function: Callable[..., Quote | None]

    def quote(self, question, hits, language, **asked) -> Quote | None:
        return self.function(question, hits, language, **asked)

    def rank_sentences(self, question, hits, language) -> None:
        return None


def search_failure(result) -> str | None:
    """Why the tree's searches failed ("web search is unavailable"), if any did: the retriever's own words up to
    its first colon (what follows names hosts and errnos, not for a reader)."""
    for trajectory in result.trajectories:
        if trajectory.error is not None and trajectory.error.kind is FailureKind.RETRIEVAL_FAILED:
            return trajectory.error.detail.split(":")[0].strip() or "the search failed"
    return None


@dataclass
class GroundedAnswer:
    """What the user reads: the text, which kind it is, how sure the verifier is, and the passages it stands on."""

    text: str
    kind: str  # generated | quoted | not_found | no_answer
    cited: list[Hit] = field(default_factory=list)  # the passages the text comes from or is supported by
    path_id: str | None = None  # the trajectory whose answer (or evidence) is shown
    generated: str | None = None  # the tree's best candidate answer, also when it was not shown
    rejected: dict[str, str] = field(default_factory=dict)  # path id -> why its answer was not shown
    confidence: float | None = None  # the verifier's calibrated p that the best candidate is right
    candidates: list[dict] = field(default_factory=list)  # every candidate answer with its p and features
    verifier: str = ""  # which verifier judged (its file)
    quote: Quote | None = None  # the sentence(s) that state a generated answer, read after it
    read_by_model: bool = False  # decided by a reader model (`--reader`, `verifier` names it), not the verifier

    def quote_dict(self) -> dict | None:
        """The quote a person reads after the short answer: its text and where it is (title, file, pages)."""
        if self.quote is None:
            return None
        where = {k: v for k, v in (self.quote.location or {}).items() if k in ("file", "page_start", "page_end")}
        return {"text": self.quote.text, "docid": self.quote.docid, "title": self.quote.title, **where}

    def to_dict(self) -> dict:
        return {
            "quote": self.quote_dict(),
            "text": self.text,
            "kind": self.kind,
            "confidence": None if self.confidence is None else round(self.confidence, 4),
            "path_id": self.path_id,
            "generated": self.generated,
            "rejected": self.rejected,
            "cited": [h.docid for h in self.cited],
            "candidates": self.candidates,
            "verifier": self.verifier,
        }


def all_hits(result) -> list[Hit]:
    """Every passage any path of the tree read, each once."""
    hits: dict[str, Hit] = {}
    for t in result.trajectories:
        for hit in trajectory_hits(t.trajectory):
            hits.setdefault(hit.docid, hit)
    return list(hits.values())


def pooled_evidence(result, searched: Sequence[Hit] = ()) -> list[Hit]:
    """Everything a reader reads: every path's passages (none without a tree), then the question's own search, each
    passage once."""
    read = all_hits(result) if result is not None else []
    seen = {h.docid for h in read}
    return read + [h for h in searched if h.docid not in seen and not seen.add(h.docid)]


def read_and_gather(
    result, question: str, language: str | None, quoter: Quoter, choices: Sequence = (), reader=None, searched=()
) -> tuple[list[Hit], list]:
    """Everything read (every path's passages, then the question's own search) and the candidate answers over it:
    the tree's answers, then the reader's spans (`candidates.gather`), featurised for the verifier."""
    read = pooled_evidence(result, searched)
    sentences = quoter.rank_sentences(question, read, language) if read else None
    readings = reader.read([question], [read], [language])[0] if reader is not None and read else []
    return read, gather(result, question, language, choices, sentences, readings, read)


def decide(
    result,
    question: str,
    language: str | None,
    quoter: Quoter,
    verifier,
    choices: Sequence = (),
    quote_candidates: int = 2,
    min_confidence: float | None = None,
    reader=None,
    searched: Sequence[Hit] = (),
) -> GroundedAnswer:
    """What to show for a decoded question (`QuestionResult`), decided over its candidate answers (module
    docstring). `quoter` ranks the tree's evidence sentences for the verifier and quotes the evidence when no
    answer is shown; `min_confidence` replaces the verifier's threshold. `reader` (`rqrag.answer.reading.span_reader.Reader`)
    reads every passage any path read plus the question's own search (`searched`): its spans join the tree's
    answers as candidates, and its quotes state the answer shown."""
    threshold = verifier.threshold if min_confidence is None else min_confidence
    read, gathered = read_and_gather(result, question, language, quoter, choices, reader, searched)
    candidates = verifier.score(gathered)
    asked = asked_type(question, choices)
    described = [c.to_dict() for c in candidates]
    if asked == OPTION and options(question) and not choices:
        # a comparison is answered with one of its two options ("Caesalpinia", not a sentence about the genus)
        candidates = [c for c in candidates if c.key.startswith("option:")] or candidates
    best = candidates[0] if candidates else None
    rejected: dict[str, str] = {}
    for candidate in candidates:
        if candidate.p is None or candidate.p < threshold:
            break  # sorted by p: no later candidate reaches the threshold either
        reason = _veto(candidate, question, language, asked)
        if reason is None:
            # the quote carries its own location (`quote_dict`); the citations stay the passages holding the answer
            stating = _stating(candidate, question, language, quoter, asked)
            return GroundedAnswer(
                candidate.text,
                AnswerKind.GENERATED,
                _cited(candidate),
                candidate.path_id,
                best.text,
                rejected,
                candidate.p,
                described,
                verifier.source,
                stating,
            )
        rejected[candidate.path_id or f"reader:{candidate.text}"] = reason
    return _quoted(result, question, language, quoter, asked, candidates, read, quote_candidates, rejected, described,
                   verifier.source)  # fmt: skip


def _quoted(
    result, question, language, quoter, asked, candidates, read, quote_candidates, rejected, described, source
) -> GroundedAnswer:
    """No candidate may be shown as generated: the evidence sentence that best says the most probable answer,
    quoted (`quoted`), else nothing found (`no_answer`)."""
    best = candidates[0] if candidates else None
    confidence = best.p if best is not None else None
    # The quote: from the evidence of the best candidates (a direct answer read none: everything the tree read).
    pooled: dict[str, Hit] = {}
    for candidate in candidates[:quote_candidates]:
        for hit in candidate.hits:
            pooled.setdefault(hit.docid, hit)
    evidence = list(pooled.values()) or read
    # the quote should say the most probable answer, read in the pooled evidence of the best candidates
    answers = key_phrases(best.text, question) if best is not None and not best.features.get("yes_no") else []
    # trusted as much as the verifier trusts it: a document question's unlikely answer must not pick the quote
    trust = best.p if best is not None and best.p is not None else 0.0
    found = None
    if best is not None and best.reading is not None and not best.features.get("yes_no"):
        # the reader's quote of the most probable answer: the sentence that states it, whole (a long one cut to the
        # clauses holding the answer read "and, in 2009")
        found = best.reading.quote
        evidence = [h for h in read if h.docid == found.docid] + evidence
    if found is None and _leads(candidates):
        # A short, supported answer of the asked type that clearly leads the tree, though under the threshold: the
        # quote is taken from the passages that say it ("Paris" p 0.38 over a sentence about Strasbourg's capital
        # status that the question's words favoured), so the reader sees the evidence for the tree's answer.
        saying = _sentences_saying(evidence, answers)
        found = quoter.quote(question, saying, language, asked=asked, answers=answers, trust=1.0) if saying else None
    if found is None and evidence:
        found = quoter.quote(question, evidence, language, asked=asked, answers=answers, trust=trust)
    generated = best.text if best is not None else None
    if found is None:
        failure = None if read else search_failure(result)
        text = (
            said(Message.COULD_NOT_SEARCH, language, reason=failure) if failure else said(Message.NO_ANSWER, language)
        )
        kind = AnswerKind.NO_ANSWER
        return GroundedAnswer(text, kind, [], None, generated, rejected, confidence, described, source)
    cited = [h for h in evidence if h.docid == found.docid][:1]
    # The trajectory shown beside a quote is one that read the quoted passage (none: the question's own search).
    holder = next((t for t in result.trajectories if found.docid in _docids(t)), None)
    text = found.text
    if best is not None and best.key.startswith("option:") and options(question):
        # a comparison names the option its evidence favours before the quote, still labelled as quoted
        text = best.text
        found = _stating(best, question, language, quoter, asked) or found
        cited = [h for h in read if h.docid == found.docid][:1] or cited
    return GroundedAnswer(
        text,
        AnswerKind.QUOTED,
        cited,
        holder.path_id if holder else (best.path_id if best else None),
        generated,
        rejected,
        confidence,
        described,
        source,
        found,
    )


def _stating(candidate, question: str, language: str | None, quoter: Quoter, asked: str) -> Quote | None:
    """The sentence(s) that state a shown answer: the reader's quote of it, else the quoter's best among the
    sentences of its evidence that hold it (a yes/no: its evidence's best sentence)."""
    if candidate.reading is not None:
        return candidate.reading.quote
    if candidate.features.get("yes_no"):
        return quoter.quote(question, candidate.hits[:3], language) if candidate.hits else None
    answers = key_phrases(candidate.text, question)
    saying = _sentences_saying(candidate.hits, answers)
    return quoter.quote(question, saying, language, asked=asked, answers=answers, trust=1.0) if saying else None


def _leads(candidates: Sequence) -> bool:
    """Whether the best candidate is a short answer (at most LEAD_WORDS words), read in its evidence, of the type
    asked, not an echo, and at least LEAD_RATIO times as likely as the runner-up. Being searched for by a later
    query (the `bridge` feature) does not disqualify it: the verifier already weighs that in p, and the answer
    itself is often what a good path looks up last ("Paris" for the Eiffel Tower question)."""
    if not candidates or candidates[0].p is None:
        return False
    best, features = candidates[0], candidates[0].features
    runner_up = candidates[1].p if len(candidates) > 1 and candidates[1].p is not None else 0.0
    return (
        len(best.text.split()) <= LEAD_WORDS
        and features.get("supported", 0.0) >= 1.0
        and features.get("type_match", 0.0) >= 1.0
        and not features.get("echo") and not features.get("yes_no")
        and best.p >= LEAD_RATIO * runner_up
    )  # fmt: skip


def _sentences_saying(hits: Sequence[Hit], phrases: Sequence[str]) -> list[Hit]:
    """Each hit cut to its sentences that hold one of the phrases (same docid, so the citation is the passage):
    a passage that names Paris once may hold its best sentence about somewhere else."""
    padded = [f" {normalize_answer(p)} " for p in phrases if normalize_answer(p)]  # as the quote scorer holds them
    out = []
    for hit in hits:
        kept = [s for s in split_sentences(hit.text) if share_held(padded, normalize_answer(s)) > 0]
        if kept:
            out.append(Hit(hit.docid, hit.title, " ".join(kept), hit.score, hit.extra))
    return out


def key_phrases(answer: str, question: str) -> list[str]:
    """What a quote should hold of a candidate answer: the answer itself when it is short, else the names and
    numbers it states that the question does not, the last one twice: a statement ends on what it says ("The
    capital of France is Paris." -> France, Paris, Paris)."""
    if len(answer.split()) <= 5:
        return [answer]
    asked = f" {normalize_answer(question)} "
    found = [m.group() for m in re.finditer(r"\b\d[\d,.]*\b", answer)] + entities(answer)
    found = sorted(dict.fromkeys(found), key=answer.find)
    phrases = [p for p in found if f" {normalize_answer(p)} " not in asked and normalize_answer(p)]
    return phrases + phrases[-1:]


def _veto(candidate, question: str, language: str | None, asked: str) -> str | None:
    """Why a confident candidate may still not be shown as generated, or None."""
    best = candidate.paths[0] if candidate.paths else None
    if best is not None and best.parse_statuses and best.parse_statuses[-1] is ParseStatus.TRUNCATED:
        return "truncated"
    if asked == OPTION and candidate.features.get("option_read", 0.0) < 1.0 and options(question):
        return "options_unread"
    verdict = check_answer(candidate.text, question, candidate.hits, language)
    return None if verdict.ok else verdict.reason or "rejected"


def _cited(candidate) -> list[Hit]:
    """The passages that hold the answer, the most about the question first; else the first passage read."""
    if candidate.holding:
        return [candidate.hits[i] for i in candidate.holding][:2]
    return candidate.hits[:1]


def _docids(trajectory) -> set[str]:
    return {h.docid for h in trajectory_hits(trajectory.trajectory)}
