"""Why a question or a path got no answer: a kind to branch on and a detail to read.

    Failure(FailureKind.QUESTION_TOO_LONG, "its prompt is 4,100 tokens ...")
    str(failure)  ->  "question too long: its prompt is 4,100 tokens ..."

The decoder (and the iterative baselines) write these on each failed leaf (`FinishedTrajectory.error`) and on a
question no path answered (`QuestionResult.error`). Their readers branch on `kind` — the server's status for a
request, the eval engine's "a rerun may succeed", the grounded answer's "the search failed" — and never on the
wording, which is for people and logs. Recorded trees keep both (`error`, `error_kind`); a tree recorded before
kinds existed is read back by its wording, once, in `Failure.from_record`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class FailureKind(str, Enum):
    # the question as a whole
    EMPTY_QUESTION = "empty_question"  # no non-empty user turn to answer
    QUESTION_TOO_LONG = "question_too_long"  # its prompt and answer do not fit the model's context
    OUT_OF_TIME = "out_of_time"  # the time budget ran out before any path finished
    NO_TRAJECTORY_FINISHED = "no_trajectory_finished"  # every path failed (the detail lists why)
    NO_ANSWER = "no_answer"  # an iterative baseline ended without an answer
    # one path
    GENERATION_FAILED = "generation_failed"  # the generator raised or could not be reached
    RETRIEVAL_FAILED = "retrieval_failed"  # the retriever raised or could not be reached
    UNUSABLE_OUTPUT = "unusable_output"  # the model's text could not be parsed as the step it was asked for
    CONTEXT_FULL = "context_full"  # no room left in the context window for the next step
    NOT_GENERATED = "not_generated"  # the expansion was never generated

    @property
    def transient(self) -> bool:
        """Whether the same request may succeed later (a service was unreachable), as opposed to an outcome a
        rerun repeats."""
        return self in (FailureKind.GENERATION_FAILED, FailureKind.RETRIEVAL_FAILED)


# How each kind reads, with its detail: the wording recorded trees and logs have always shown.
_WORDING = {
    FailureKind.EMPTY_QUESTION: "empty question: {detail}",
    FailureKind.QUESTION_TOO_LONG: "question too long: {detail}",
    FailureKind.OUT_OF_TIME: "out of time: {detail}",
    FailureKind.NO_TRAJECTORY_FINISHED: "no trajectory finished ({detail})",
    FailureKind.NO_ANSWER: "no answer: {detail}",
    FailureKind.GENERATION_FAILED: "generation failed: {detail}",
    FailureKind.RETRIEVAL_FAILED: "retrieval failed: {detail}",
    FailureKind.UNUSABLE_OUTPUT: "unusable {detail}",
    FailureKind.CONTEXT_FULL: "context window full: {detail}",
    FailureKind.NOT_GENERATED: "not generated: {detail}",
}
_BARE = {kind: template.split("{detail}")[0].rstrip(" :(") for kind, template in _WORDING.items()}


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    detail: str = ""

    def __str__(self) -> str:
        return _WORDING[self.kind].format(detail=self.detail) if self.detail else _BARE[self.kind]

    def to_record(self) -> dict:
        """The two fields a recorded tree keeps: the wording and the kind."""
        return {"error": str(self), "error_kind": self.kind.value}

    @classmethod
    def from_record(cls, text: str | None, kind: str | None = None) -> Failure | None:
        """A recorded failure back: by its kind when recorded, else (trees recorded before kinds) by its wording."""
        if not text:
            return None
        if kind:
            found = FailureKind(kind)
        else:
            found = next(
                (k for k, bare in sorted(_BARE.items(), key=lambda kv: -len(kv[1])) if text.startswith(bare)),
                FailureKind.NOT_GENERATED,
            )
        template = _WORDING[found]
        head, _, tail = template.partition("{detail}")
        detail = text[len(head) :] if text.startswith(head) else text
        if tail and detail.endswith(tail):
            detail = detail[: -len(tail)]
        return cls(found, detail if text != _BARE[found] else "")
