"""Ask rq-rag from Python: a notebook, a script, another service.

    from rqrag import Pipeline

    pipeline = Pipeline.from_config("rqrag_trained", max_depth=1)     # a shipped config by name, or a YAML path
    answer = pipeline.ask("What is the capital of France?")
    answer.text, answer.kind, answer.confidence, answer.sources    # what a person reads, and what it stands on
    answer.tree                                                     # every trajectory, scored (None: no tree ran)
    answers = pipeline.ask_many(["Who wrote Hamlet?", "Where is Kilimanjaro?"])   # one batched decode
    hits = pipeline.search("Eiffel Tower height")                  # the configured retriever, no model

`rqrag ask` is this class and a printer. The model is loaded on the first question that needs it (never for
`answerer="extractive"`), and reused by every later call; `search` never loads it. Over a document library
(`index=` a library made by `rqrag docs add`), questions are searched first, in the library's language, and a
question far from every document is answered "not found", as the server does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rqrag.answer.pipeline import AnswerSettings, EvidenceSource, PipelineAnswer
from rqrag.answer.policy import AnsweringPolicy
from rqrag.config_loader import ConfigError, load_yaml_config, resolve_config
from rqrag.inference import build
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.base import Hit


DEFAULT_CONFIG = "rqrag_trained"  # the shipped decode settings of the default model (`rqrag config show`)


class Pipeline:
    """Questions to cited answers with one decode config; see the module's docstring."""

    def __init__(self, config: DecodeConfig):
        self.config = config
        self.library = build.open_index_library(config)  # a document library named by `index`, else None
        if self.library is not None:
            retriever = self.library.retriever(config.retrieval_mode)
        else:
            retriever = build.retriever_for(config)
        name = "documents" if self.library is not None else config.retriever
        self.source = EvidenceSource(retriever, self.library, name)
        self.policy = AnsweringPolicy.for_config(config, retriever=retriever)  # how every surface answers
        self.answers = self.policy.pipeline

    @classmethod
    def from_config(cls, name_or_path: str = DEFAULT_CONFIG, **overrides) -> Pipeline:
        """The pipeline of a shipped config (`rqrag config list`) or a YAML file, with `overrides` (any
        `DecodeConfig` field: `max_depth=1`, `index="my-library"`, `answerer="extractive"`) over its keys."""
        data = load_yaml_config(resolve_config(name_or_path), [DecodeConfig])
        data.pop("env", None)
        known = {f.name for f in dataclasses.fields(DecodeConfig)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(f"unknown setting(s) {unknown}; DecodeConfig has: {', '.join(sorted(known))}")
        return cls(DecodeConfig(**{**data, **overrides}))

    @property
    def decoder(self):
        """The tree decoder if a question has needed it so far (None: no model loaded)."""
        return self.answers.loaded_decoder

    def ask(self, question: str, history: Sequence[dict] = (), language: str | None = None) -> PipelineAnswer:
        """One question's answer. `history`: earlier {"role", "content"} turns of the conversation; `language`:
        the answer's (pt, en); default: the library's, else the question's."""
        return self.ask_many([question], history, language)[0]

    def ask_many(
        self, questions: Sequence[str], history: Sequence[dict] = (), language: str | None = None
    ) -> list[PipelineAnswer]:
        """One answer per question, in order: searched in one batched call, decoded in one batched tree."""
        if isinstance(questions, str):
            raise TypeError("ask_many takes a list of questions; use ask() for one")
        asked = [Question(f"q{i}", [*history, {"role": "user", "content": q}]) for i, q in enumerate(questions)]
        return self.policy.answer(asked, self.source, language=language)

    def search(self, query: str, k: int | None = None) -> list[Hit]:
        """The configured retriever's top `k` passages for `query` (default: `docs_per_search`); no model."""
        return list(self.source.retriever.search(" ".join(query.split()), k=k or self.config.docs_per_search))

    def settings(self, language: str | None = None) -> AnswerSettings:
        """What a question is answered with here (`AnsweringPolicy.settings`: over documents searched first)."""
        return self.policy.settings(self.source, language=language)
