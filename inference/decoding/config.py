"""`DecodeConfig`: every knob of the tree decoder, one dataclass made of its concerns (YAML + CLI overrides via
rqrag.config, `--help` grouped by concern).

Defaults follow the original RQ-RAG code where the paper is silent: refined queries are *sampled*
(temperature 1.0) so siblings differ, answers are *greedy* so their confidences are comparable across
paths; 3 documents per search; depth 2 (the paper's setting for single-hop tasks and HotpotQA).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

from rqrag.config import former_names
from rqrag.inference.decoding.config_concerns import (
    BackendConfig,
    BaselinesConfig,
    RetrievalConfig,
    SelectionConfig,
    TreeConfig,
)
from rqrag.trajectory import Action


def _accepts_former_names(cls: type) -> type:
    """A renamed field (`renamed` in rqrag.config) keeps its old keyword, with a warning: `DecodeConfig(mode=...)`,
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


# Bases in reverse of the order their fields are listed in (dataclasses collect fields from the last base
# first): backend, tree, retrieval, answer, baselines, as `--help` and a resolved config show them.
@_accepts_former_names
@dataclass
class DecodeConfig(BaselinesConfig, SelectionConfig, RetrievalConfig, TreeConfig, BackendConfig):
    """Every knob of the tree decoder; each concern's fields are declared in config_concerns.py."""

    def __post_init__(self):
        if self.backend in ("remote", "chat") and not self.remote_base_url:
            raise ValueError(
                f"backend {self.backend!r} needs remote_base_url (the OpenAI-compatible server, ending in /v1)"
            )
        if self.backend == "chat":
            self._check_chat()
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


# The languages the shipped model was trained to refine and answer in (English trajectories only): with
# `answerer: auto` a question in any other language is answered by quoting its own search, no model at all.
MODEL_LANGUAGES = frozenset({"en"})


def quotes_only(answerer: str, language: str | None) -> bool:
    """Whether a question in `language` is answered by the extractive path under `--answerer`."""
    return answerer == "extractive" or (answerer == "auto" and (language or "en") not in MODEL_LANGUAGES)
