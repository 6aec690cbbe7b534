"""`WritingConfig`: the settings of the written answer (rqrag.answer.writer) and of its claim check
(rqrag.answer.claim_check), one concern of the decode config so that every surface's YAML and flags carry them.

It sits in the core, not in `inference/`: the tree decoder never reads it; only the answering policy does
(`rqrag.answer.written_answer`).

    rqrag ask "Who wrote Dom Casmurro?" --writer qwen2.5-1.5b
    rqrag ask "..." --writer openai --writer_base_url http://127.0.0.1:8080/v1 --writer_model qwen2.5-0.5b
    rqrag ask "..." --writer none          # today's quote or short answer only
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern


@concern(
    "answer: the written answer",
    "who writes what a person reads from the evidence, and how each written sentence is checked",
    common=("writer",),
)
@dataclass
class WritingConfig:
    writer: str = field(
        default="none",
        metadata={
            "help": "the chat model that writes the answer from the evidence, every sentence citing its passages and "
            "checked before it is shown: qwen2.5-1.5b or qwen2.5-0.5b (GGUF on llama.cpp, offline), a path to a .gguf "
            "chat model, openai (any OpenAI-compatible endpoint: --writer_base_url, --writer_model, the key from "
            "--writer_api_key_env), or none (the quote alone). docs/answers.md, 'The answer, written and checked'"
        },
    )
    writer_base_url: str = field(
        default="", metadata={"help": "with --writer openai: the endpoint, ending in /v1 (Ollama, vLLM, llama.cpp)"}
    )
    writer_model: str = field(default="", metadata={"help": "with --writer openai: the model name it serves"})
    writer_api_key_env: str = field(
        default="OPENAI_API_KEY",
        metadata={
            "help": "with --writer openai: the environment variable holding the key (a local server needs none)"
        },
    )
    writer_passages: int = field(
        default=4, metadata={"help": "how many passages the writer reads: the best of everything found"}
    )
    writer_passage_words: int = field(
        default=90,
        metadata={"help": "each passage cut to about this many words around its best sentence (whole sentences)"},
    )
    writer_sentences: int = field(
        default=0,
        metadata={
            "help": "read only the best N sentences of all found (each under its passage's title and page) instead of "
            "whole passages cut to --writer_passage_words; 0: whole passages"
        },
    )
    claim_check: Literal["ordered_cloze", "ordered", "align_cloze", "align_judge", "align", "judge", "words"] = field(
        default="ordered_cloze",
        metadata={
            "help": "how a written sentence is checked against the passages it cites (a word-for-word copy always "
            "passes): ordered_cloze (its names and numbers in the passage sentence it rests on, its words in that "
            "sentence's order, the same negation, then each name and number blanked and read back by the model from "
            "that sentence), ordered (without the model), align_cloze, align_judge (the model's yes/no), align, judge, "
            "words (word overlap only). Measured on hand-labelled pairs: scripts/eval_claim_check.py, docs/answers.md"
        },
    )
    claim_min_p: float = field(
        default=0.5, metadata={"help": "the judge's p(yes) a rewritten sentence needs to be shown (0-1)"}
    )

    def __post_init__(self):
        if self.writer == "openai" and not (self.writer_base_url and self.writer_model):
            raise ValueError("writer openai needs writer_base_url (ending in /v1) and writer_model")
        if not 0.0 <= self.claim_min_p <= 1.0:
            raise ValueError(f"claim_min_p is a probability in [0, 1], got {self.claim_min_p}")
        if self.writer_passages < 1:
            raise ValueError("writer_passages must be at least 1")


def writes(config) -> bool:
    """Whether answers under `config` are written (a writer is named)."""
    return getattr(config, "writer", "none") not in ("none", "", None)
