"""`SelectionConfig`: how the shown answer is chosen: the selection strategy over the tree's paths and the grounding of the answer a person reads. One concern of `DecodeConfig` (`decode_config.py`), which inherits it, so a field
is still `config.field` and a YAML file a flat mapping; `@concern` gives it its `--help` group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern
from rqrag.inference.decoding.select import StrategyName


@concern(
    "answer: grounding and selection",
    "which trajectory's answer is shown, and when it is quoted instead",
    common=("answerer",),
)
@dataclass
class SelectionConfig:
    strategy: StrategyName = field(
        default="vote",
        metadata={
            "help": "how the answer is chosen among trajectories (vote: best of six on held-out HotpotQA, docs/models.md)",
        },
    )
    answerer: Literal["model", "extractive", "auto"] = field(
        default="model",
        metadata={
            "help": "model: the tree decoder answers (grounded, see --grounded); extractive: no model at all, the "
            "best sentence of the question's own search is quoted (scripts/eval_document_answers.py compares them); "
            "auto: extractive for a question in a language the model was not trained in (all but English), model "
            "otherwise",
        },
    )
    reader: str = field(
        default="features",
        metadata={
            "help": "who reads the pooled evidence for the answer: features (the logistic span reader, no model); "
            "qwen2.5-0.5b or qwen2.5-1.5b (a language model on llama.cpp writes the short answer and points at the "
            "sentences that state it, or says the library does not hold it; docs/answers.md, 'A reader that is a "
            "language model'); or a path to a .gguf chat model",
        },
    )
    reader_sentences: int = field(
        default=12,
        metadata={
            "help": "a model reader reads this many sentences, the best of the pooled evidence by the feature "
            "reader's sentence score (0: every sentence, capped by its context)",
        },
    )
    reader_own_knowledge: bool = field(
        default=True,
        metadata={
            "help": "when nothing read states the answer, ask the reader model without evidence and show its own "
            "answer first, said to be its own, with no quote and no source (answer_kind unsourced); off: only "
            "'nothing found' (docs/answers.md, 'A reader that is a language model')",
        },
    )
    grounded: bool = field(
        default=True,
        metadata={
            "help": "decide over the whole tree: the verifier's most probable answer, shown as generated when its "
            "calibrated p reaches the verifier's threshold, else the evidence span that answers the question's type, "
            "quoted; --no_grounded shows the strategy's selected answer as written",
        },
    )
    min_confidence: float | None = field(
        default=0.4,
        metadata={
            "help": "show the verifier's best answer as generated from this calibrated p on (0-1), below it a quote "
            "of the evidence; every answer says its p. none: the verifier's own threshold, the lowest p whose "
            "answers are >= 80 %% right on held-back training questions. How often each value is right: "
            "docs/answers.md ('Calibrated, but not sharp')"
        },
    )
    on_topic: bool = field(
        default=True,
        metadata={
            "help": "over a corpus, the web or benchmark candidates (not a user's library, judged before the model): an "
            "answer whose question found nothing close to it (best multilingual e5 cosine with any passage found under "
            "a floor) says nothing found is about it instead of showing the passage (answer_kind not_found; rqrag/answer/on_topic.py); "
            "--no_on_topic shows it",
        },
    )
