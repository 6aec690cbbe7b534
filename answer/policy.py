"""How rq-rag answers: the one answering policy every surface calls.

    policy = AnsweringPolicy.for_config(config)                  # the pipeline, its decoder built on first need
    answers = policy.answer(questions, source, language="pt")   # the CLI, the Python API, the server, eval ...
    settings = policy.settings(source, depth=1, strategy="vote") # what one call runs with (the server's batches)

A surface passes only what is its own: the evidence it answers from (`EvidenceSource`: the embedded corpus, a user's
library, their memories, a benchmark's candidate paragraphs), the answer's language, and the per-request choices a
person may make (depth, strategy, retriever). Everything else is decided here, once, from the decode config:

* **search first** — a question asked of a user's own library or memories is searched with its own words before the
  tree (those passages are what they asked about); elsewhere the tree decides when to search, as the model was
  trained to. An evaluated *baseline* may say otherwise (`standard_rag` always searches first, `no_retrieval`
  never): that is the only override, and the evaluated `rqrag` system uses the rule above.
* **the reader reads the question's own search** — every reader reads it beside what the tree found, on every
  surface (it is what the measured numbers in docs/answers.md were measured with).
* **grounded** — as the config says; self-training alone asks for the tree's own answers (`grounded=False`).
* **a message that only tells something** (the chat page's memories) is answered by `acknowledge`: noted, and the
  day it was understood to have happened.

So a served answer, a CLI answer and an evaluated answer to the same question with the same config are the same
(tests/test_same_answer_everywhere.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Sequence

from rqrag.answer.messages import AnswerKind, Message, answer_language, said
from rqrag.answer.pipeline import AnswerPipeline
from rqrag.answer.results import AnswerSettings, EvidenceSource, PipelineAnswer, Prepared
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.retrieval.registry import SEARCH_FIRST_KINDS


def searches_first(source: EvidenceSource | None) -> bool:
    """Whether questions asked of `source` are searched with their own words before the tree: a user's library or
    memories (`SEARCH_FIRST_KINDS`, or any source with a document library behind it)."""
    if source is None:
        return False
    return source.library is not None or source.personal or source.retriever_name in SEARCH_FIRST_KINDS


class AnsweringPolicy:
    """One decode config's way of answering (module docstring); owns the answer pipeline (retriever, decoder,
    reader and decision)."""

    def __init__(self, config: DecodeConfig, pipeline: AnswerPipeline | None = None):
        self.config = config
        self.pipeline = pipeline if pipeline is not None else AnswerPipeline()

    @classmethod
    def for_config(cls, config: DecodeConfig, retriever=None, **options) -> AnsweringPolicy:
        """The policy of `config`; its decoder (model, backend, `retriever` or the configured one) is built on the
        first question that needs it."""
        return cls(config, AnswerPipeline.for_config(config, retriever=retriever, **options))

    @classmethod
    def for_decoder(cls, decoder, config: DecodeConfig | None = None) -> AnsweringPolicy:
        """The policy over an already built tree decoder (eval and self-training build theirs for the task)."""
        return cls(config if config is not None else decoder.config, AnswerPipeline(decoder))

    def settings(
        self,
        source: EvidenceSource | None = None,
        *,
        language: str | None = None,
        depth: int | None = None,
        strategy: str | None = None,
        retriever: str | None = None,
        search_first: bool | None = None,
        method: str = "tree",
        grounded: bool | None = None,
    ) -> AnswerSettings:
        """The settings of one call. `depth`, `strategy`, `retriever`: a request's own choices over the config's;
        `search_first`: an evaluated baseline's fixed choice (None: the rule of the module docstring); `method`:
        the tree or an iterative baseline; `grounded`: None follows the config."""
        changes = {"max_depth": depth, "strategy": strategy, "retriever": retriever}
        changes = {k: v for k, v in changes.items() if v is not None and v != getattr(self.config, k)}
        decode = dataclasses.replace(self.config, **changes) if changes else self.config
        return AnswerSettings(
            decode,
            search_first=searches_first(source) if search_first is None else search_first,
            grounded=decode.grounded if grounded is None else grounded,
            language=language,
            method=method,
            reader_search=True,
        )

    def answer(
        self,
        questions: Sequence[Question],
        source: EvidenceSource,
        settings: AnswerSettings | None = None,
        *,
        on_event=None,
        run_tree=None,
        **choices,
    ) -> list[PipelineAnswer]:
        """One answer per question, in order (`AnswerPipeline.answer`): the one way every surface answers. The
        settings are those of `choices` (the keywords of `settings`), or `settings` already made by this policy for
        a surface that needs them before it answers (the server's scheduler groups questions by them, a study
        makes a cell's once for all its batches). `on_event`: the decode's events as they happen; `run_tree`: how
        the surface runs the tree (the server's scheduler), else the decoder's own."""
        if settings is None:
            settings = self.settings(source, **choices)
        elif choices:
            raise TypeError(f"settings made already: {sorted(choices)} would be ignored")
        return self.pipeline.answer(questions, source, settings, on_event=on_event, run_tree=run_tree)

    def decide(self, prepared: Prepared, result: QuestionResult, language: str | None = None) -> PipelineAnswer:
        """The answer shown for a tree already decoded (a replay of saved trees: `rqrag.eval.decision_replay`), judged
        as a live answer over the same candidates would be (`rqrag.answer.on_topic`)."""
        settings = self.settings(language=language)
        answer = self.pipeline.finish(prepared, result, settings)
        if settings.decode.on_topic:
            self.pipeline.on_topic.apply([answer], EvidenceSource(retriever=None, retriever_name="candidates"))
        return answer

    @staticmethod
    def acknowledge(
        question: str, memory: dict, language: str | None = None, earlier: Sequence[str] = ()
    ) -> PipelineAnswer:
        """The reply to a message that only told something (`kind: remembered`): noted (or not, if storing
        failed), and the day it was understood to have happened when that is not the day it was told. In the
        language every answer is in (`answer_language`: the request's, else the message's own, else that of the
        conversation's `earlier` messages)."""
        language = answer_language(question, language, earlier=earlier)
        if not memory.get("stored"):
            text = said(Message.NOT_KEPT, language)
            return PipelineAnswer(uuid.uuid4().hex, question, text, AnswerKind.REMEMBERED, language, strategy="")
        text = said(Message.NOTED, language)
        told_day = dt.datetime.fromtimestamp(memory["told_at"]).date().isoformat()
        if (memory["happened_first"], memory["happened_last"]) != (told_day, told_day):
            text += " " + said(Message.NOTED_ON, language, when=memory["happened"])
        return PipelineAnswer(uuid.uuid4().hex, question, text, AnswerKind.REMEMBERED, language, strategy="")
