"""The state of a search tree: paths addressed by (question id, path id), and what the decoder returns.

A path id spells its ancestry ("0" is the root, "0.2" its third child, "0.2.0" that child's first child),
so a trajectory printed in a report says where in the tree it came from, and nothing ever depends on a
position inside a batch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rqrag.inference.decoding.failures import Failure
from rqrag.inference.decoding.select import Scored, perplexity
from rqrag.trajectory import ParseStatus, Step, Trajectory


@dataclass
class Question:
    """One input of a batch. `messages` ends with the user question; earlier turns are the conversation."""

    qid: str
    messages: list[dict]
    # Steps taken before decoding starts, evidence included: the standard-RAG baseline's one search with the
    # question itself. The tree grows from there; the model is never scored on these tokens.
    steps: tuple[Step, ...] = ()
    # Multiple-choice options as (label, text): answers that pick the same option agree in the ensemble.
    choices: tuple[tuple[str, str], ...] = ()
    # The language prompted mode speaks to the model (rqrag.inference.decoding.prompt_text): over a document library,
    # the library's. Trained models ignore it: they speak the trajectory language.
    language: str = "en"
    # The benchmark task the question comes from (`rqrag eval`), if any: a model trained by the original RQ-RAG
    # code was given each task's own instruction (rqrag.prompt_formats.PromptFormat.task_messages).
    task: str | None = None
    # When its tree must stop growing (time.monotonic() seconds; the server's decode_budget_s): from the next
    # depth on its paths are dropped and it is answered from the trajectories already finished.
    deadline: float | None = None

    @property
    def text(self) -> str:
        return self.messages[-1]["content"] if self.messages else ""


@dataclass
class Path:
    """A partial trajectory that can still be expanded."""

    qid: str
    path_id: str
    steps: tuple[Step, ...] = ()
    prompt_ids: tuple[int, ...] = ()  # trained mode: the exact tokens the model has seen so far
    generated_logprobs: tuple[float, ...] = ()  # every token the model emitted on this path
    parse_statuses: tuple[ParseStatus, ...] = ()
    # Set on the parent of guarded branches kept alive to answer (rqrag.inference.decoding.guards): the path expands
    # its answer, under this id, and nothing else.
    answer_as: str | None = None

    @property
    def depth(self) -> int:
        return len(self.steps)

    def child_id(self, n: int) -> str:
        return f"{self.path_id}.{n}"

    @property
    def running_perplexity(self) -> float:
        # A path that has generated nothing yet is not worse than any other: it ranks first when pruning.
        return perplexity(self.generated_logprobs) if self.generated_logprobs else 1.0


@dataclass
class FinishedTrajectory:
    """A leaf of the tree: an answered trajectory with its scores, or a failed one with the reason."""

    path_id: str
    trajectory: Trajectory
    generated_logprobs: tuple[float, ...]
    answer_logprobs: tuple[float, ...]  # without the answer's terminating token
    parse_statuses: tuple[ParseStatus, ...] = ()
    error: Failure | None = None
    sequence_ids: tuple[int, ...] = ()  # the full token sequence of the last request + answer (for rescoring)

    @property
    def ok(self) -> bool:
        return self.error is None and self.trajectory.is_complete and bool(self.trajectory.answer)

    @property
    def well_formed(self) -> bool:
        return self.ok and all(s is ParseStatus.OK for s in self.parse_statuses)

    def scored(self, question: str = "") -> Scored:
        evidence = tuple(f"{h.title} {h.text}" for step in self.trajectory.steps for h in step.evidence)
        asked = tuple(text for text in (question, *(q for _, q in self.trajectory.queries)) if text)
        return Scored(self.trajectory.answer or "", self.generated_logprobs, self.answer_logprobs, evidence, asked)

    def to_dict(self) -> dict:
        scored = self.scored()
        return {
            "path_id": self.path_id,
            "answer": self.trajectory.answer,
            "steps": [s.to_dict() for s in self.trajectory.steps],
            # None without token scores (a chat endpoint without logprobs: selection went by agreement)
            "perplexity": scored.perplexity if self.ok and self.generated_logprobs else None,  # as `ppl_path` selects
            "answer_perplexity": scored.answer_perplexity if self.ok and self.answer_logprobs else None,  # as `ppl`
            "confidence": scored.confidence if self.ok and self.answer_logprobs else None,
            "num_generated_tokens": len(self.generated_logprobs),
            # the answer's own token logprobs (a few dozen at most): a recorded tree can be decided again exactly
            "answer_logprobs": [round(lp, 5) for lp in self.answer_logprobs],
            "parse_statuses": [s.value for s in self.parse_statuses],
            **(self.error.to_record() if self.error else {"error": None}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> FinishedTrajectory:
        """A recorded leaf as the decision sees it: trajectory, answer logprobs, parse statuses (the path's other
        generated logprobs are not recorded; `num_generated_tokens` of them, each the answer's mean, stand in)."""
        answer = tuple(d.get("answer_logprobs") or ())
        mean = sum(answer) / len(answer) if answer else 0.0
        generated = (mean,) * int(d.get("num_generated_tokens") or len(answer))
        statuses = tuple(ParseStatus(s) for s in d.get("parse_statuses", ()))
        error = Failure.from_record(d.get("error"), d.get("error_kind"))
        return cls(d["path_id"], Trajectory.from_dict(d), generated, answer, statuses, error)


@dataclass
class QuestionResult:
    """Everything the decoder learned about one question."""

    qid: str
    question: str
    trajectories: list[FinishedTrajectory] = field(default_factory=list)
    selected: dict[str, int] = field(default_factory=dict)  # strategy -> index into trajectories
    strategy: str = "ppl"
    error: Failure | None = None
    batch_info: dict = field(default_factory=dict)  # set by the server: size and time of the decode call
    # path id -> the path id whose identical expansion was generated in its place (rqrag.inference.decoding.expansions)
    merged: dict[str, str] = field(default_factory=dict)
    # path id of a guarded query -> {"reason", "query"}: not searched, or not extended (rqrag.inference.decoding.guards)
    guarded: dict[str, dict[str, str]] = field(default_factory=dict)
    stopped_at: int | None = None  # the depth at which a confident answer stopped the tree (stop_confidence)
    out_of_time_at: int | None = None  # the depth its time budget (Question.deadline) stopped the tree at
    # What answering this question cost: model_calls (generation requests made for it, identical ones once),
    # prompt_tokens and generated_tokens. Hardware-independent, so methods compare on any machine.
    cost: Counter[str] = field(default_factory=Counter)

    @property
    def answer(self) -> str | None:
        return self.answer_by(self.strategy)

    @property
    def best(self) -> FinishedTrajectory | None:
        return self.best_by(self.strategy)

    @property
    def best_confidence(self) -> float:
        """The highest answer confidence among the trajectories finished so far (0 if none): what
        `stop_confidence` compares."""
        return max((t.scored().confidence for t in self.trajectories if t.ok), default=0.0)

    def best_by(self, strategy: str) -> FinishedTrajectory | None:
        index = self.selected.get(strategy)
        return self.trajectories[index] if index is not None else None

    def answer_by(self, strategy: str) -> str | None:
        best = self.best_by(strategy)
        return best.trajectory.answer if best is not None else None

    def to_dict(self) -> dict:
        return {
            "qid": self.qid,
            "question": self.question,
            "answer": self.answer,
            "strategy": self.strategy,
            "selected": self.selected,
            "answers_by_strategy": {s: self.answer_by(s) for s in self.selected},
            **(self.error.to_record() if self.error else {"error": None}),
            "merged": self.merged,
            "guarded": self.guarded,
            "stopped_at": self.stopped_at,
            "cost": dict(self.cost),
            "trajectories": [t.to_dict() for t in self.trajectories],
        }

    @classmethod
    def from_record(cls, record: dict) -> QuestionResult:
        """The tree of a recorded answer (`rqrag eval` predictions, `rqrag ask --json`), to decide again offline."""
        result = cls(
            record.get("qid") or record.get("id", ""),
            record["question"],
            [FinishedTrajectory.from_dict(t) for t in record.get("trajectories", ())],
            dict(record.get("selected", {})),
            record.get("strategy", "ppl"),
            Failure.from_record(record.get("error"), record.get("error_kind")),
        )
        return result


@dataclass
class DecodeStats:
    """What one decoder did, summed over its calls: time, searches, expansions shared, guarded queries."""

    generate_seconds: float = 0.0
    retrieval_seconds: float = 0.0
    searches: int = 0  # unique queries sent to the retriever
    queries: int = 0  # queries generated (before de-duplication)
    depth_sizes: list[int] = field(default_factory=list)  # expansions per depth (generated or shared)
    expansions: int = 0  # expansions the tree asked for
    unique_expansions: int = 0  # of those, the ones generated; the others shared an identical one's completion
    guarded: Counter[str] = field(default_factory=Counter)  # queries stopped by a refinement guard, by reason
    answers_for_guarded: int = 0  # parents kept alive to answer for their guarded branches
    stopped: list[int] = field(default_factory=list)  # per depth: questions stopped by stop_confidence

    @property
    def merged(self) -> int:
        return self.expansions - self.unique_expansions

    def as_dict(self) -> dict:
        return {
            "generate_seconds": round(self.generate_seconds, 3),
            "retrieval_seconds": round(self.retrieval_seconds, 3),
            "searches": self.searches,
            "queries": self.queries,
            "depth_sizes": self.depth_sizes,
            "expansions": self.expansions,
            "unique_expansions": self.unique_expansions,
            "merged": self.merged,
            "guarded": dict(self.guarded),
            "answers_for_guarded": self.answers_for_guarded,
            "stopped": self.stopped,
        }
