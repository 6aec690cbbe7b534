"""The `rqrag` command: one entry point, one subcommand per job.

    rqrag --help
    rqrag ask "Who portrayed Corliss Archer in Kiss and Tell, and what office did she hold?" --show-tree
    rqrag search "Who portrayed Corliss Archer?" --retrieval_mode hybrid -k 5
    rqrag data build --config configs/data/offline.yaml
    rqrag eval --config configs/eval/hotpotqa.yaml --limit 200
    rqrag index build --corpus my_docs.jsonl --out indexes/my_docs
    rqrag model materialize
    rqrag config list

The CLI is a room of its own: the top-level folder cli/ of the checkout, installed as `rqrag.cli` (pyproject's
package-dir), above every stage; the core imports none of it. Each subcommand lives in the module SUBCOMMANDS
names, `cli/commands/<name>.py` (`rqrag.cli.commands.<name>`) unless its name alone would not say what the module
holds (`rqrag config`: `config_catalog.py`, the shipped configs), and exposes `main(argv) -> int`; this file only
dispatches, importing the chosen module lazily so `rqrag --help` answers in well under a second. `python -m
rqrag.cli` runs `cli/__main__.py`.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Sequence


# name -> (module, one-line help). Only subcommands that exist are listed; later stages add theirs here.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ask": ("rqrag.cli.commands.ask", "answer a question with the RQ-RAG tree decoder (refine, retrieve, select)"),
    "serve": (
        "rqrag.cli.commands.serve",
        "OpenAI-compatible HTTP server with sources and conversations (`rqrag serve --config configs/serve/default.yaml`)",
    ),
    "search": (
        "rqrag.cli.commands.search",
        "search a local index (the embedded corpus by default) and print the hits",
    ),
    "data": (
        "rqrag.cli.commands.data",
        "build search-augmented training trajectories with an LLM annotator (`rqrag data build`)",
    ),
    "eval": (
        "rqrag.cli.commands.eval",
        "benchmark the tree decoder and its baselines on a QA task (`rqrag eval --config configs/eval/TASK.yaml`)",
    ),
    "rag-metrics": (
        "rqrag.eval.rag_metrics",
        "Ragas metrics (faithfulness, relevancy, context precision/recall, correctness) of an eval run file",
    ),
    "index": ("rqrag.cli.commands.index", "build a local BM25 / dense index from a corpus file (`rqrag index build`)"),
    "experiment": (
        "rqrag.cli.commands.experiment",
        "factorial experiments over your documents and their ART analysis (`rqrag experiment run --config ...`)",
    ),
    "docs": (
        "rqrag.cli.commands.docs",
        "add, list and remove your own documents (PDF, HTML, Markdown, text, DOCX) in a library (`rqrag docs add`)",
    ),
    "review": (
        "rqrag.cli.commands.review",
        "literature review of a library: per-document summary, objectives, conclusions, relevance (`rqrag review`)",
    ),
    "users": (
        "rqrag.cli.commands.users",
        "the people who may use a server, each with their own API key (`rqrag users add NAME --file users.json`)",
    ),
    "fit": (
        "rqrag.cli.commands.fit",
        "fit a learned part from its recipe: verifier, reader, decision, memory-floor (`rqrag fit --help`)",
    ),
    "model": (
        "rqrag.cli.commands.model",
        "materialise the default model and print its folder (`rqrag model materialize`)",
    ),
    "config": (
        "rqrag.cli.commands.config_catalog",
        "the shipped configs, which every --config takes by name (`rqrag config list`, `rqrag config show NAME`)",
    ),
}


def _usage() -> str:
    width = max(len(n) for n in SUBCOMMANDS)
    lines = [
        "usage: rqrag <command> [options]   (rqrag <command> --help for its options)",
        "",
        "RQ-RAG: learning to refine queries for retrieval-augmented generation.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if argv[0] in ("-V", "--version"):
        from rqrag import __version__

        print(f"rqrag {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f"rqrag: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("faiss", "sentence_transformers", "httpx", "httpx2", "urllib3", "filelock", "bm25s", "openai"):
        logging.getLogger(noisy).setLevel(logging.WARNING)  # their INFO lines drown ours
    from rqrag.config_loader import ConfigError

    module = importlib.import_module(SUBCOMMANDS[name][0])
    try:
        return int(module.main(rest) or 0)
    except ConfigError as err:
        print(f"rqrag {name}: error: {err}", file=sys.stderr)
        return 2
