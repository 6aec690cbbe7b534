"""`TreeConfig`: the refinement tree's shape, and the sampling of its queries and answers. One concern of `DecodeConfig` (`decode_config.py`), which inherits it, so a field
is still `config.field` and a YAML file a flat mapping; `@concern` gives it its `--help` group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern
from rqrag.inference.backends.base import SamplingParams
from rqrag.trajectory import Action


@concern("tree", "the refinement tree's shape, and the sampling of its queries and answers", common=("max_depth",))
@dataclass
class TreeConfig:
    max_depth: int = field(
        default=2,
        metadata={
            "help": "search steps allowed before the answer is forced (paper: 2, or 4 for 2Wiki/MuSiQue)",
        },
    )
    actions: list[str] = field(
        default_factory=lambda: ["rewrite", "decompose", "disambiguate"],
        metadata={"help": "query actions to expand at each depth (the answer action is always available)"},
    )
    width: int = field(default=1, metadata={"help": "samples per query action at each node"})
    answer_at_every_depth: bool = field(
        default=True,
        metadata={"help": "also expand an answer at depths before the last (trajectories of 0..max_depth searches)"},
    )
    max_paths: int = field(
        default=32, metadata={"help": "cap on live paths per question; the lowest-perplexity ones are kept"}
    )
    merge_expansions: bool = field(
        default=True,
        metadata={
            "help": "generate identical expansions (same context, action and sampling parameters; same seed too "
            "when sampling) once and share the completion, e.g. the width samples of a greedy action; the "
            "trajectories are those of the unmerged tree"
        },
    )
    refinement_guards: bool = field(
        default=True,
        metadata={
            "help": "a query that repeats an earlier query of its path, or restates the question once the path or "
            "a sibling searched it, is not searched; one whose hits the path has all read is not extended (the "
            "data filter's tests); the parent's answer stands in for the branch"
        },
    )
    stop_confidence: float | None = field(
        default=None,
        metadata={
            "help": "adaptive expansion: at each depth answer first, and stop a question (no queries at that depth, "
            "no deeper levels) once its best answer's confidence (mean token probability) reaches this; "
            "needs answer_at_every_depth. None: expand every question to max_depth"
        },
    )
    schedule: Literal["batched", "per_action", "sequential"] = field(
        default="batched",
        metadata={
            "help": "batched: one generate call per depth; per_action: one per action per depth (FlashRAG); "
            "sequential: one path at a time (the original code) — the last two exist for benchmarking"
        },
    )
    seed: int = field(default=0, metadata={"help": "base seed; each expansion derives its own from its path id"})
    query_temperature: float = field(default=1.0, metadata={"help": "temperature of refined queries"})
    query_top_p: float = field(default=1.0, metadata={"help": "top-p of refined queries"})
    query_max_tokens: int = field(default=48, metadata={"help": "max new tokens of one query (or IRCoT thought)"})
    answer_temperature: float = field(default=0.0, metadata={"help": "temperature of answers (0 = greedy)"})
    answer_top_p: float = field(default=1.0, metadata={"help": "top-p of answers"})
    answer_max_tokens: int = field(default=48, metadata={"help": "max new tokens of one answer"})

    @property
    def query_actions(self) -> list[Action]:
        return [Action.from_name(a) for a in self.actions]

    def sampling_for(self, action: Action) -> SamplingParams:
        if action is Action.ANSWER:
            return SamplingParams(self.answer_temperature, self.answer_top_p, self.answer_max_tokens)
        return SamplingParams(self.query_temperature, self.query_top_p, self.query_max_tokens)
