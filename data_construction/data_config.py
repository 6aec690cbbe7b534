"""Settings of `rqrag data build` and `rqrag data import` (YAML under configs/data/, fields overridable on the CLI);
the build's are made of concerns (sources, annotator, retrieval, run), each one group of its `--help`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern


@concern(
    "sources",
    "which datasets are read, from where, and where the records go",
    common=("out_dir", "sources", "split"),
)
@dataclass
class DataSourcesConfig:
    out_dir: str = field(default="runs/data/offline", metadata={"help": "output folder (data.jsonl, report, plots)"})
    sources: list[str] = field(
        default_factory=lambda: ["hotpotqa", "2wikimultihopqa", "musique", "asqa", "arc_challenge", "openbookqa"],
        metadata={"help": "sources to read, each `name` or `name:limit` (first `limit` usable examples)"},
    )
    source_files: list[str] = field(
        default_factory=list,
        metadata={"help": "overrides `name=path`; path is a JSON/JSONL file or hf:<dataset>[:<config>]:<split>"},
    )
    benchmarks_dir: str | None = field(
        default=None,
        metadata={
            "help": "folder of the full files (default: RQRAG_BENCHMARKS_DIR or the cache `rqrag data fetch` fills; "
            "a source not fetched there reads the slice shipped in rqrag/benchmarks/data)"
        },
    )
    split: Literal["train", "eval", "all"] = field(
        default="train", metadata={"help": "ids to use from sources with a split file (train keeps eval ids out)"}
    )


@concern(
    "annotator",
    "the LLM (or the dataset's own refinements) that writes each example's queries and answer, and what is "
    "kept of them",
    common=("annotator", "llm_base_url", "llm_model"),
)
@dataclass
class AnnotatorConfig:
    annotator: Literal["auto", "llm", "gold"] = field(
        default="auto",
        metadata={"help": "auto: the dataset's own refinements where it has them (MuSiQue, ASQA), else the LLM"},
    )
    llm_base_url: str | None = field(
        default=None, metadata={"help": "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (None: OpenAI)"}
    )
    llm_model: str = field(default="gpt-3.5-turbo", metadata={"help": "model name sent to the endpoint"})
    serve_model: str | None = field(
        default=None,
        metadata={
            "help": "start a local vLLM OpenAI-compatible server for this model for the run (sets llm_base_url)"
        },
    )
    llm_api_key_env: str = field(default="OPENAI_API_KEY", metadata={"help": "environment variable with the key"})
    temperature: float = field(default=0.0, metadata={"help": "annotator temperature (the paper used 0)"})
    max_tokens: int = field(default=384, metadata={"help": "max tokens per annotator reply"})
    timeout: float = field(default=60.0, metadata={"help": "seconds per LLM call before it is retried"})
    max_retries: int = field(default=4, metadata={"help": "retries per call on connection errors, 429, 5xx"})
    concurrency: int = field(default=8, metadata={"help": "LLM calls in flight at once"})
    response_format: Literal["json_schema", "json_object", "text"] = field(
        default="json_schema", metadata={"help": "how replies are constrained to JSON (json_object for gpt-3.5)"}
    )
    prompts_dir: str | None = field(default=None, metadata={"help": "prompt templates (default: the shipped ones)"})
    max_queries: int = field(default=4, metadata={"help": "most sub-questions / readings kept per example"})
    query_filter: bool = field(
        default=True,
        metadata={
            "help": "drop refinements that restate the question or an earlier query, are not queries, or find "
            "nothing new (data_construction/query_filter.py); each reason is counted in the report"
        },
    )
    retention_ratio: float = field(
        default=0.0,
        metadata={"help": "share of examples keeping the dataset's answer instead of a regenerated one (paper: 0)"},
    )
    check_answer: bool = field(
        default=True, metadata={"help": "drop regenerated answers that miss every gold answer (QA sources only)"}
    )


@concern("retrieval", "where each refined query is searched", common=("retriever",))
@dataclass
class DataRetrievalConfig:
    retriever: Literal["web", "corpus"] = field(
        default="web",
        metadata={"help": "search for sources without candidate paragraphs: DuckDuckGo or a local index"},
    )
    retriever_mode: str = field(default="hybrid", metadata={"help": "corpus only: bm25, dense or hybrid"})
    index_dir: str | None = field(default=None, metadata={"help": "corpus only: index folder (default: embedded)"})
    multihop_retriever: Literal["candidates", "web", "corpus"] = field(
        default="candidates",
        metadata={"help": "multi-hop sources: their own candidate paragraphs (paper) or as above"},
    )
    candidates_mode: Literal["bm25", "dense"] = field(default="bm25", metadata={"help": "ranking of candidates"})
    docs_per_query: int = field(default=3, metadata={"help": "documents kept per search (paper: top 3)"})
    require_supporting: Literal["all", "any", "none"] = field(
        default="all", metadata={"help": "multi-hop: drop examples whose searches missed the supporting paragraphs"}
    )


@concern("run", "length checks, batching and stopping")
@dataclass
class DataRunConfig:
    tokenizer: str = field(
        default="smollm2-135m-instruct", metadata={"help": "tokenizer for length statistics and the max_length check"}
    )
    max_length: int = field(default=4096, metadata={"help": "drop examples longer than this many tokens"})
    chunk_size: int = field(default=32, metadata={"help": "examples annotated, searched and written together"})
    max_consecutive_failures: int = field(
        default=40, metadata={"help": "stop early when this many examples in a row hit an unreachable endpoint"}
    )
    seed: int = field(default=0, metadata={"help": "seed of the retention draw"})


# Bases in reverse of the order their fields are listed in (dataclasses collect fields from the last base first).
@dataclass
class DataBuildConfig(DataRunConfig, DataRetrievalConfig, AnnotatorConfig, DataSourcesConfig):
    """`rqrag data build`: the offline pipeline from benchmark questions to trajectory records."""


@dataclass
class DataImportConfig:
    """`rqrag data import`: the RQ-RAG authors' released training set -> trajectory records (released_import.py)."""

    input: str = field(
        default="hf:zorowin123/rq_rag:train",
        metadata={"help": "the released data: a JSONL or JSON array file, or hf:<dataset>[:<config>]:<split>"},
    )
    out_dir: str = field(
        default="runs/data/released", metadata={"help": "output folder (data.jsonl, dropped.jsonl, report.json)"}
    )
    limit: int | None = field(default=None, metadata={"help": "import only the first `limit` records (a quick look)"})
