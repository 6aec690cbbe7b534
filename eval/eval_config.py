"""`EvalConfig`: what to evaluate and where the results go. The model and decoding are a `DecodeConfig`;
one YAML under `configs/eval/` holds both (unknown keys are an error), and flags override either."""

from __future__ import annotations

from dataclasses import dataclass, field

from rqrag.config_loader import concern
from rqrag.eval.systems import BENCHMARK_SYSTEMS, DEFAULT_SYSTEMS


SYSTEMS = tuple(BENCHMARK_SYSTEMS)  # defined in rqrag.eval.systems, as the experiment's refinement levels are


@concern(
    "benchmark",
    "the task, its split and the systems compared; where predictions go",
    common=("task", "split", "limit", "systems", "output_dir"),
)
@dataclass
class EvalConfig:
    task: str = field(
        default="hotpotqa",
        metadata={"help": "hotpotqa, 2wikimultihopqa, musique, arc_challenge, openbookqa, popqa or asqa"},
    )
    data_file: str | None = field(
        default=None,
        metadata={
            "help": "questions file (JSONL/JSON, or hf:name[:config]:split); default: the shipped benchmark file"
        },
    )
    split: str = field(
        default="eval",
        metadata={
            "help": "eval: held-out ids only (never trained on); train: training ids only (trees to fit the "
            "answer verifier on: rqrag fit verifier); all: every question of data_file"
        },
    )
    limit: int | None = field(default=None, metadata={"help": "first N questions of the split (file order)"})
    systems: list[str] = field(
        default_factory=lambda: list(DEFAULT_SYSTEMS),
        metadata={
            "help": "rqrag: the tree decoder; no_retrieval: answer directly (depth 0); standard_rag: search "
            "with the question once, then answer; ircot: IRCoT (a thought, a search, ...); iter_retgen: "
            "Iter-RetGen (answer, search with question + answer, answer again). All by the same model and retriever"
        },
    )
    output_dir: str = field(default="runs/eval/hotpotqa", metadata={"help": "where predictions and summaries go"})
    resume: bool = field(
        default=False, metadata={"help": "keep the questions already in the output files, run only the rest"}
    )
    overwrite: bool = field(default=False, metadata={"help": "start over, deleting earlier predictions"})
    batch_size: int = field(
        default=8, metadata={"help": "questions per decoder call (each written out as soon as its batch ends)"}
    )
    label: str | None = field(default=None, metadata={"help": "name of this model in reports (default: model + mode)"})

    def __post_init__(self):
        unknown = sorted(set(self.systems) - set(SYSTEMS))
        if unknown or not self.systems:
            raise ValueError(f"systems must be a non-empty subset of {list(SYSTEMS)}, got {self.systems}")
        if self.resume and self.overwrite:
            raise ValueError("--resume and --overwrite exclude each other")
        if self.batch_size < 1 or (self.limit is not None and self.limit < 1):
            raise ValueError("batch_size and limit must be positive")
