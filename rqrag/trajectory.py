"""The trajectory language: one definition of RQ-RAG's format, used by every stage.

A trajectory is what the model writes in its assistant turn: zero or more search steps, each an action
token, a query and `[EOS]`, followed by evidence the *system* inserts, and then one answer step::

    [S_Decomposed_Query] Who directed Titanic?[EOS]
    [R_Evidences]Title: Titanic (1997 film)
    Text: ...[/R_Evidences]
    [A_Response] James Cameron[EOS]

This module holds the special tokens, the typed `Step`/`Trajectory` and `parse_*` (model output back to steps,
never raising, always with a countable status); `rqrag.trajectory_render` writes them out: `render_example` /
`render_prompt` (text framed by the tokenizer's own chat template) and `tokenize_segments` (input ids + labels
from one tokenization of the whole text, each token labelled by its segment).

Every segment boundary sits next to a special token, and special tokens are atomic in the tokenizer, so no
token straddles two segments (tested).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rqrag.retrieval.base import Hit, shorten_hits


class Action(str, enum.Enum):
    """What the model decides to do next; the value is the special token that announces it."""

    REWRITE = "[S_Rewritten_Query]"
    DECOMPOSE = "[S_Decomposed_Query]"
    DISAMBIGUATE = "[S_Disambiguated_Query]"
    ANSWER = "[A_Response]"

    @property
    def is_query(self) -> bool:
        return self is not Action.ANSWER

    @property
    def short(self) -> str:
        """The name used in configs and CLIs: rewrite, decompose, disambiguate, answer."""
        return self.name.lower()

    @classmethod
    def from_name(cls, name: str) -> Action:
        for action in cls:
            if name in (action.short, action.value, action.name):
                return action
        raise ValueError(f"unknown action {name!r}; expected one of {[a.short for a in cls]}")


EVIDENCE_START = "[R_Evidences]"
EVIDENCE_END = "[/R_Evidences]"
EOS = "[EOS]"
SPECIAL_TOKENS: tuple[str, ...] = (*(a.value for a in Action), EVIDENCE_START, EVIDENCE_END, EOS)

_SPECIAL_RE = re.compile("|".join(re.escape(t) for t in SPECIAL_TOKENS))
_ACTION_BY_TOKEN = {a.value: a for a in Action}


def clean_text(text: str) -> str:
    """Collapse whitespace and drop our special tokens from free text (queries, answers, evidence).

    Retrieved web text must never smuggle control tokens into the model's context, and collapsed
    whitespace keeps the evidence block unambiguous to parse.
    """
    return " ".join(_SPECIAL_RE.sub(" ", text).split())


@dataclass(frozen=True)
class Step:
    """One action of a trajectory: a query with the evidence it retrieved, or the final answer."""

    action: Action
    text: str
    evidence: tuple[Hit, ...] = ()
    # The question's own search, made before the tree (standard RAG's step): the model reads it as a rewrite it
    # made (it was trained on that language), but it was given, not generated, and surfaces show it as the
    # question's search, not as a refinement.
    given: bool = False

    def to_dict(self) -> dict:
        out = {"action": self.action.short, "text": self.text, "evidence": [h.to_dict() for h in self.evidence]}
        return {**out, "given": True} if self.given else out

    @classmethod
    def from_dict(cls, d: dict) -> Step:
        hits = tuple(Hit.from_dict(h) for h in d.get("evidence", ()))
        return cls(Action.from_name(d["action"]), d["text"], hits, bool(d.get("given", False)))


@dataclass(frozen=True)
class Trajectory:
    """Search steps followed (when complete) by one answer step."""

    steps: tuple[Step, ...] = ()

    @property
    def answer(self) -> str | None:
        if self.steps and self.steps[-1].action is Action.ANSWER:
            return self.steps[-1].text
        return None

    @property
    def is_complete(self) -> bool:
        return self.answer is not None

    @property
    def queries(self) -> list[tuple[Action, str]]:
        return [(s.action, s.text) for s in self.steps if s.action.is_query]

    def extend(self, step: Step) -> Trajectory:
        if self.is_complete:
            raise ValueError("cannot extend a trajectory that already has an answer")
        return Trajectory((*self.steps, step))

    def with_evidence_cut(self, max_words: int | None) -> Trajectory:
        """The same steps with each evidence passage cut to `max_words` words (`shorten_hits`)."""
        if not max_words:
            return self
        return Trajectory(
            tuple(Step(s.action, s.text, tuple(shorten_hits(s.evidence, max_words))) for s in self.steps)
        )

    def to_dict(self) -> dict:
        return {"steps": [s.to_dict() for s in self.steps]}

    @classmethod
    def from_dict(cls, d: dict) -> Trajectory:
        return cls(tuple(Step.from_dict(s) for s in d["steps"]))


# --------------------------------------------------------------------------------------------- render


# ---------------------------------------------------------------------------------------------- parse


class ParseStatus(str, enum.Enum):
    """What went wrong in a model's output, in increasing order of severity. OK means nothing did."""

    OK = "ok"
    REPEATED_TOKEN = "repeated_token"  # e.g. the forced action token emitted again; text still usable
    STRAY_TEXT = "stray_text"  # text outside any step (before the first action or after the answer)
    STRAY_TOKEN = "stray_token"  # a special token where it does not belong; text cut there
    MISSING_EOS = "missing_eos"  # the step ended without [EOS] (stopped by another token or the turn's end)
    TRUNCATED = "truncated"  # ran out of tokens mid-step
    EMPTY = "empty"  # nothing usable: empty query or answer
    NO_ANSWER = "no_answer"  # a full trajectory without a final answer step

    @property
    def severity(self) -> int:
        return list(ParseStatus).index(self)


def _worst(statuses: Iterable[ParseStatus]) -> ParseStatus:
    return max(statuses, key=lambda s: s.severity, default=ParseStatus.OK)


@dataclass(frozen=True)
class ParsedStep:
    action: Action
    text: str
    status: ParseStatus

    @property
    def usable(self) -> bool:
        return self.status is not ParseStatus.EMPTY


def parse_generation(action: Action, generated: str, finish_reason: str | None = None) -> ParsedStep:
    """Parse what the model wrote after the decoder forced `action`'s token.

    Small models repeat the forced token, run past `[EOS]` into another action, or stop at the chat
    template's end of turn; each case yields the usable text and a status, never an exception.
    `finish_reason`: "stop" means the backend stopped on `[EOS]` (and may have left it out of the text),
    "length" means it ran out of tokens; anything else (e.g. "eos", the model's own end of turn) without
    an `[EOS]` in the text counts as a missing `[EOS]`.
    """
    statuses: list[ParseStatus] = []
    pieces = _SPECIAL_RE.split(generated)
    tokens = _SPECIAL_RE.findall(generated)
    text = pieces[0]
    if not text.strip() and tokens and tokens[0] == action.value:
        # "[S_Rewritten_Query][S_Rewritten_Query] foo": skip the echoed token and read on.
        statuses.append(ParseStatus.REPEATED_TOKEN)
        text, tokens, pieces = pieces[1], tokens[1:], pieces[1:]
    if tokens and tokens[0] == EOS:
        pass
    elif tokens:
        statuses.append(ParseStatus.STRAY_TOKEN)
    elif finish_reason == "stop":
        pass  # the backend stopped on [EOS] and left it out of the text
    elif finish_reason == "length":
        statuses.append(ParseStatus.TRUNCATED)
    else:
        statuses.append(ParseStatus.MISSING_EOS)
    text = clean_text(text)
    if not text:
        statuses.append(ParseStatus.EMPTY)
    return ParsedStep(action, text, _worst(statuses))


@dataclass(frozen=True)
class ParseResult:
    trajectory: Trajectory
    status: ParseStatus
    issues: tuple[ParseStatus, ...] = field(default_factory=tuple)

    @property
    def well_formed(self) -> bool:
        return self.status is ParseStatus.OK


_EVIDENCE_ITEM_RE = re.compile(r"Title: (.*?)\nText: (.*?)(?=\nTitle: |\Z)", re.DOTALL)


def parse_evidence(body: str) -> tuple[Hit, ...]:
    """Hits back from an evidence block's body; docids and scores are not rendered, so they are blank."""
    return tuple(Hit(docid="", title=t.strip(), text=x.strip(), score=0.0) for t, x in _EVIDENCE_ITEM_RE.findall(body))


def parse_trajectory(text: str, finish_reason: str | None = None) -> ParseResult:
    """Parse a whole assistant turn (free-running output or a stored example) into a trajectory."""
    issues: list[ParseStatus] = []
    steps: list[Step] = []
    parts = _SPECIAL_RE.split(text)
    tokens = _SPECIAL_RE.findall(text)
    if parts[0].strip():
        issues.append(ParseStatus.STRAY_TEXT)
    consumed = {0}  # indices of `parts` already accounted for (step bodies, evidence bodies)
    i = 0
    while i < len(tokens):
        if i not in consumed and parts[i].strip():
            issues.append(ParseStatus.STRAY_TEXT)  # text between steps that belongs to none
        token = tokens[i]
        if token not in _ACTION_BY_TOKEN:
            issues.append(ParseStatus.STRAY_TOKEN)
            i += 1
            continue
        action = _ACTION_BY_TOKEN[token]
        body = parts[i + 1]
        consumed.add(i + 1)
        i += 1
        if i < len(tokens) and tokens[i] == EOS:
            i += 1
        elif i < len(tokens):
            issues.append(ParseStatus.MISSING_EOS)
        else:
            issues.append(ParseStatus.TRUNCATED if finish_reason == "length" else ParseStatus.MISSING_EOS)
        query_text = clean_text(body)
        if not query_text:
            issues.append(ParseStatus.EMPTY)
            continue
        evidence: tuple[Hit, ...] = ()
        if action.is_query and i < len(tokens) and tokens[i] == EVIDENCE_START:
            if i + 1 < len(tokens) and tokens[i + 1] == EVIDENCE_END:
                evidence = parse_evidence(parts[i + 1])
                consumed.add(i + 1)
                i += 2
            else:
                issues.append(ParseStatus.TRUNCATED)
                i += 1
        steps.append(Step(action, query_text, evidence))
        if action is Action.ANSWER:
            trailing = "".join(parts[i:]) if i < len(parts) else ""
            if i < len(tokens) or trailing.strip():
                issues.append(ParseStatus.STRAY_TEXT)
            break
    trajectory = Trajectory(tuple(steps))
    if not trajectory.is_complete:
        issues.append(ParseStatus.NO_ANSWER)
    return ParseResult(trajectory, _worst(issues), tuple(issues))
