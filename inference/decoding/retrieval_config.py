"""`RetrievalConfig`: where the tree's searches go and how many passages each brings. One concern of `DecodeConfig` (`decode_config.py`), which inherits it, so a field
is still `config.field` and a YAML file a flat mapping; `@concern` gives it its `--help` group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern
from rqrag.retrieval.registry import RETRIEVER_KINDS, SEARCH_MODES


@concern(
    "retrieval",
    "what is searched, how, and how much of each passage the model reads",
    common=("retriever", "retrieval_mode", "index", "docs_per_search"),
)
@dataclass
class RetrievalConfig:
    retriever: Literal[RETRIEVER_KINDS] = field(
        default="corpus",
        metadata={"help": "corpus (local index), candidates (per-question paragraphs) or web"},
    )
    retrieval_mode: Literal[SEARCH_MODES] = field(
        default="hybrid",
        metadata={"help": "corpus/candidates retrievers: bm25, dense or hybrid (corpus only)"},
    )
    index: str | None = field(default=None, metadata={"help": "corpus index directory (default: the embedded corpus)"})
    index_database_url: str | None = field(
        default=None,
        metadata={"help": "PostgreSQL URL holding the corpus --index names (`rqrag index build --database_url`)"},
    )
    candidates_file: str | None = field(
        default=None,
        metadata={"help": "IRCoT/MuSiQue-format JSONL whose paragraphs the candidates retriever searches"},
    )
    docs_per_search: int = field(default=3, metadata={"help": "documents retrieved per query (paper: 3)"})
    retrieval_cache: str | None = field(default=None, metadata={"help": "SQLite file caching search results"})
    evidence_max_words: int | None = field(
        default=None,
        metadata={
            "help": "cut each retrieved passage to its first N words before the model reads it; 0 keeps whole "
            "passages (the paper). Default: the cut the model was trained with (evidence_max_words in its "
            "folder's resolved_config.yaml, which training/sft.py writes), else 60"
        },
    )
