"""rqrag search "QUERY" [--retrieval_mode bm25|dense|hybrid] [-k 5] [--index DIR] [--json] [--config YAML]

    rqrag search "Who portrayed Corliss Archer?" --config configs/retrieval/embedded_hybrid.yaml -k 3

Search a local index and print the hits: rank, score, docid, title and the start of the text. Without
`--index` it searches the embedded corpus (~10.7k Wikipedia paragraphs shipped with rq-rag), whose index is
built into the rq-rag cache on first use (BM25 in seconds; the dense side takes a few minutes on a CPU).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import log_config, make_parser, parse, renamed
from rqrag.retrieval.base import Hit
from rqrag.retrieval.registry import SEARCH_MODES


logger = logging.getLogger(__name__)


@dataclass
class SearchConfig:
    retrieval_mode: Literal[SEARCH_MODES] = field(
        default="hybrid",
        metadata={
            "help": "bm25, dense (MiniLM cosine) or hybrid (reciprocal-rank fusion of both); --mode is its "
            "deprecated former name",
            **renamed("mode"),
        },
    )
    k: int = field(default=5, metadata={"help": "number of hits to print", "aliases": ["-k"]})
    index: str | None = field(
        default=None, metadata={"help": "index directory from `rqrag index build` (default: the embedded corpus)"}
    )
    database_url: str | None = field(
        default=None, metadata={"help": "search the corpus `--index NAME` loaded into PostgreSQL at this URL"}
    )
    rrf_k: int = field(default=60, metadata={"help": "hybrid only: the k of RRF, score = sum 1/(rrf_k + rank)"})
    depth: int | None = field(
        default=None, metadata={"help": "hybrid only: hits fetched from each side before fusing (default max(k, 20))"}
    )
    json_lines: bool = field(
        default=False, metadata={"help": "print one JSON object per hit instead of a table", "aliases": ["--json"]}
    )
    text_chars: int = field(default=200, metadata={"help": "characters of passage text to print per hit"})


def _format_hit(rank: int, hit: Hit, text_chars: int) -> str:
    text = " ".join(hit.text.split())
    if len(text) > text_chars:
        text = text[:text_chars].rstrip() + "..."
    return f"{rank:>3}  {hit.score:9.4f}  {hit.docid}  {hit.title}\n     {text}"


def _where(index: str | None):
    """The folder searched: the one given, or the embedded corpus's (built into the cache on first use)."""
    from rqrag.retrieval.embedded import embedded_index_dir

    return index if index is not None else embedded_index_dir()


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(SearchConfig, prog="rqrag search", description=__doc__.split("\n\n")[2])
    parser.add_argument("query", nargs="+", help="the search query (quote it, or give it as several words)")
    config, extra = parse(parser, argv)
    query = " ".join(extra.query)
    log_config("rqrag search", config)

    from rqrag.retrieval.registry import build_retriever

    options = {"rrf_k": config.rrf_k, "depth": config.depth} if config.retrieval_mode == "hybrid" else {}
    retriever = build_retriever(
        "corpus", mode=config.retrieval_mode, index_dir=config.index, database_url=config.database_url, **options
    )
    hits = retriever.search(query, k=config.k)

    if config.json_lines:
        for rank, hit in enumerate(hits, start=1):
            print(json.dumps({"rank": rank, **hit.to_dict()}, ensure_ascii=False))
    else:
        where = f"PostgreSQL corpus {config.index}" if config.database_url else _where(config.index)
        searched = getattr(
            retriever, "search_mode", config.retrieval_mode
        )  # a dense-only index answers "hybrid" densely
        print(f"{len(hits)} hit(s) for {query!r} ({searched}, {where}):")
        for rank, hit in enumerate(hits, start=1):
            print(_format_hit(rank, hit, config.text_chars))
    return 0


if __name__ == "__main__":
    sys.exit(main())
