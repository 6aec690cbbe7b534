"""`rqrag review`'s settings (YAML keys and flags), and the local model's limits when no endpoint is given."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.writing_config import WritingConfig


# The local model's context: SmolLM2's own 8192 tokens, not the 2048 `rqrag.local_servers.local_server` starts with, so that
# `per_document` chunks of `passage_chars` (5 x 1500 characters) fit beside the instructions and the reply.
LOCAL_CONTEXT_TOKENS = 8192
# For the model started here, unless told otherwise: each text of the reply bounded (vLLM enforces `maxLength`), as
# SmolLM2-135M loops inside a JSON string until max_tokens without it (and at 300 characters: measured on a pt
# review); and a longer wait per call, since the model shares this machine's CPU (163 s for one reply on 2 busy
# cores, where 120 s is plenty for a hosted endpoint).
LOCAL_FIELD_CHARS = 100
LOCAL_TIMEOUT_S = 600.0
ENDPOINT_TIMEOUT_S = 120.0


@dataclass
class ReviewConfig(WritingConfig):  # --writer: four written texts per article (review/article_texts.py)
    index: str | None = field(
        default=None,
        metadata={
            "help": "a library (`rqrag docs add --index`: its name or folder; with --database_url, its name in "
            "PostgreSQL), an index folder (`rqrag index build`) or the name of one under the rq-rag cache's "
            "indexes/; 'embedded' for the embedded Wikipedia sample"
        },
    )
    database_url: str | None = field(
        default=None,
        metadata={"help": "PostgreSQL URL of a pgvector library (`rqrag docs add --database_url`)"},
    )
    retrieval_mode: Literal["bm25", "dense", "hybrid"] = field(
        default="hybrid", metadata={"help": "how the index is searched (the index must hold that mode)"}
    )
    k: int = field(default=30, metadata={"help": "chunks retrieved for the topic"})
    doc_ids: list[str] | None = field(
        default=None,
        metadata={
            "help": "review only these documents of the library (their ids, `rqrag docs list`), each one even when "
            "the topic's search does not find it (an article is read whole); default: what the search finds"
        },
    )
    per_document: int = field(default=5, metadata={"help": "most chunks of one document given to the LLM"})
    out: str = field(
        default="runs/review", metadata={"help": "output folder: review.md, review.json, resolved config"}
    )
    language: Literal["en", "pt"] | None = field(
        default=None,
        metadata={"help": "language of the instructions and the report (default: the index's when known, else en)"},
    )
    passage_chars: int = field(default=1500, metadata={"help": "characters of each chunk shown to the LLM"})
    max_field_chars: int | None = field(
        default=None,
        metadata={
            "help": "bound each text of the reply to this many characters in the JSON schema (maxLength): small "
            "local models loop inside JSON strings without it; hosted strict modes may reject it (default: "
            f"{LOCAL_FIELD_CHARS} for the model started here, none for an endpoint you give)"
        },
    )
    llm_base_url: str | None = field(
        default=None,
        metadata={
            "help": "OpenAI-compatible chat endpoint, e.g. http://127.0.0.1:8000/v1 or https://api.openai.com/v1 "
            "(default: --serve_model when given, else no model: the review is extractive)"
        },
    )
    llm_model: str = field(
        default="smollm2", metadata={"help": "model name sent to the endpoint (the model started here is served so)"}
    )
    serve_model: str | None = field(
        default=None,
        metadata={
            "help": "a model to start on this machine (vLLM) for the run when no --llm_base_url is given, as "
            "`rqrag data build --serve_model` does: a packaged name (smollm2-135m-instruct) or a model folder "
            "(default: none, the review is extractive: every field quoted from the article's own sections)"
        },
    )
    per_field: int = field(default=1, metadata={"help": "sentences quoted for each field of an article"})
    llm_api_key_env: str = field(default="OPENAI_API_KEY", metadata={"help": "environment variable with the key"})
    temperature: float = field(default=0.0, metadata={"help": "LLM temperature"})
    max_tokens: int = field(default=800, metadata={"help": "max tokens of one document's review"})
    timeout: float | None = field(
        default=None,
        metadata={
            "help": f"seconds per LLM call before it is retried (default: {ENDPOINT_TIMEOUT_S:.0f}; "
            f"{LOCAL_TIMEOUT_S:.0f} for the model started here)"
        },
    )
    max_retries: int = field(default=2, metadata={"help": "retries per call on connection errors, 429 and 5xx"})
    concurrency: int = field(default=4, metadata={"help": "documents reviewed at once"})
    response_format: Literal["json_schema", "json_object", "text"] = field(
        default="json_schema", metadata={"help": "how replies are constrained to JSON (json_object for older models)"}
    )
    cache: str | None = field(default=None, metadata={"help": "SQLite file caching LLM replies across runs"})

    def __post_init__(self):
        WritingConfig.__post_init__(self)
        if min(self.k, self.per_document, self.passage_chars, self.concurrency, self.per_field) < 1:
            raise ValueError("k, per_document, passage_chars, concurrency and per_field must be at least 1")

    @property
    def uses_model(self) -> bool:
        """Whether a chat model writes a review to check (else the review is extractive)."""
        return self.llm_base_url is not None or self.serve_model is not None
