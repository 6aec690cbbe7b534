"""`DecodeConfig`: every knob of the tree decoder, one dataclass made of its concerns (YAML + CLI overrides via
rqrag.config_loader, `--help` grouped by concern).

Defaults follow the original RQ-RAG code where the paper is silent: refined queries are *sampled*
(temperature 1.0) so siblings differ, answers are *greedy* so their confidences are comparable across
paths; 3 documents per search; depth 2 (the paper's setting for single-hop tasks and HotpotQA).

`evidence_max_words` defaults to what the model read in training: training/sft.py records its cut in the output
folder's resolved_config.yaml, and the decoder cuts passages the same way unless `--evidence_max_words` says
otherwise (a model with no record, e.g. a plain instruct model: DEFAULT_EVIDENCE_MAX_WORDS).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from pathlib import Path

import yaml

from rqrag.config_loader import RESOLVED_CONFIG_NAME, former_names
from rqrag.inference.decoding.backend_config import BackendConfig
from rqrag.inference.decoding.baselines_config import BaselinesConfig
from rqrag.inference.decoding.retrieval_config import RetrievalConfig
from rqrag.inference.decoding.selection_config import SelectionConfig
from rqrag.inference.decoding.tree_config import TreeConfig
from rqrag.trajectory import Action
from rqrag.writing_config import WritingConfig


def _accepts_former_names(cls: type) -> type:
    """A renamed field (`renamed` in rqrag.config_loader) keeps its old keyword, with a warning: `DecodeConfig(mode=...)`,
    and an experiment's generator preset that still says `mode:` (applied with `dataclasses.replace`)."""
    init, former = cls.__init__, former_names([cls])

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        for old, name in former.items():
            if old in kwargs:
                warnings.warn(f"{old} is deprecated; use {name}", FutureWarning, stacklevel=2)
                kwargs[name] = kwargs.pop(old)  # over the current value `dataclasses.replace` passes
        init(self, *args, **kwargs)

    cls.__init__ = __init__
    return cls


# The evidence cut of a model that recorded none (a packaged or hub model, a plain instruct model in prompted mode):
# the cut the shipped models were trained with.
DEFAULT_EVIDENCE_MAX_WORDS = 60


class CheckpointCut(int):
    """An `evidence_max_words` the config was not given: what `model` was trained with (the default when it recorded
    none). A copy of the config for another model (`dataclasses.replace(config, model=...)`, an experiment's
    generator) reads that model's own instead of keeping this one."""

    def __new__(cls, words: int, model: str):
        cut = super().__new__(cls, words)
        cut.model = model
        return cut

    def __reduce__(self):
        return CheckpointCut, (int(self), self.model)


def trained_evidence_max_words(model: str) -> int | None:
    """The evidence cut `model` was trained with: `evidence_max_words` in its folder's resolved_config.yaml (written by
    training/sft.py and training/grpo.py), or None when the name is no local folder or the folder records none."""
    folder = _model_folder(model)
    record = folder / RESOLVED_CONFIG_NAME if folder is not None else None
    if record is None or not record.is_file():
        return None
    return _recorded_evidence_max_words(str(record), record.stat().st_mtime_ns)


def _model_folder(name: str) -> Path | None:
    """The local folder a model name stands for, looked up as `rqrag.models.resolve_model` does (a folder under
    models/ by its name, else a path) but without materialising anything; None for any other name."""
    from rqrag.paths import ModelsNotInstalled, models_dir

    if "/" not in name and not name.startswith("."):
        try:
            shipped = models_dir() / name
        except ModelsNotInstalled:  # loading the model says so; the default cut stands meanwhile
            shipped = None
        if shipped is not None and shipped.is_dir():
            return shipped
    path = Path(name).expanduser()
    return path if path.is_dir() else None


@functools.lru_cache(maxsize=16)
def _recorded_evidence_max_words(path: str, _mtime_ns: int) -> int | None:
    with open(path) as f:
        record = yaml.safe_load(f) or {}
    for section in record.values():  # the training script's own arguments (ScriptArguments) hold it
        words = section.get("evidence_max_words") if isinstance(section, dict) else None
        if isinstance(words, int) and not isinstance(words, bool):
            return words
    return None


# Bases in reverse of the order their fields are listed in (dataclasses collect fields from the last base
# first): backend, tree, retrieval, answer, the written answer, baselines, as `--help` and a resolved config show
# them. The written answer's settings are the answering policy's, kept in the core (rqrag/writing_config.py).
@_accepts_former_names
@dataclass
class DecodeConfig(BaselinesConfig, WritingConfig, SelectionConfig, RetrievalConfig, TreeConfig, BackendConfig):
    """Every knob of the tree decoder; each concern's fields are declared in its own module (backend_config.py, tree_config.py, retrieval_config.py, selection_config.py, baselines_config.py)."""

    def __post_init__(self):
        WritingConfig.__post_init__(self)
        if self.backend in ("remote", "chat") and not self.remote_base_url:
            raise ValueError(
                f"backend {self.backend!r} needs remote_base_url (the OpenAI-compatible server, ending in /v1)"
            )
        if self.backend == "chat":
            self._check_chat()
        cut, model = self.evidence_max_words, self.model_to_load
        if cut is None or (isinstance(cut, CheckpointCut) and cut.model != model):
            recorded = trained_evidence_max_words(model)
            self.evidence_max_words = CheckpointCut(
                DEFAULT_EVIDENCE_MAX_WORDS if recorded is None else recorded, model
            )
        if (
            self.max_depth < 0
            or self.width < 1
            or self.max_paths < 1
            or self.docs_per_search < 1
            or (self.evidence_max_words < 0)
            or self.ircot_max_steps < 0
            or self.iter_retgen_rounds < 1
        ):
            raise ValueError(
                "max_depth >= 0, width >= 1, max_paths >= 1, docs_per_search >= 1, evidence_max_words >= 0, "
                "ircot_max_steps >= 0 and iter_retgen_rounds >= 1 are required"
            )
        if self.min_confidence is not None and not 0.0 <= self.min_confidence <= 1.0:
            raise ValueError(f"min_confidence is a probability in [0, 1], got {self.min_confidence}")
        if self.stop_confidence is not None:
            if not 0.0 < self.stop_confidence <= 1.0:
                raise ValueError(f"stop_confidence is a probability in (0, 1], got {self.stop_confidence}")
            if not self.answer_at_every_depth:
                raise ValueError(
                    "stop_confidence needs answer_at_every_depth: a question can only stop on an answer, and "
                    "without answers before the last depth there is none to stop on"
                )
        for name in self.actions:
            if not Action.from_name(name).is_query:
                raise ValueError(f"`actions` lists query actions only; the answer is always available, got {name!r}")

    def _check_chat(self) -> None:
        if not self.remote_model:
            raise ValueError("backend 'chat' needs remote_model, the model name the endpoint serves")
        if self.prompting == "trained":
            raise ValueError("backend 'chat' runs prompted mode only: a chat model has no RQ-RAG tokens")
        self.prompting = "prompted"  # auto would look at the local tokenizer, which is not the endpoint's model
        if self.stop_confidence is not None and not self.chat_logprobs:
            raise ValueError("stop_confidence compares token confidences: it needs chat_logprobs")
        if self.chat_concurrency < 1:
            raise ValueError("chat_concurrency must be at least 1")
