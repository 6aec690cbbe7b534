"""rqrag data build --config configs/data/<variant>.yaml [--out_dir DIR] [--sources hotpotqa:50 ...]

    rqrag data build --config configs/data/offline.yaml
    rqrag data build --config configs/data/paper.yaml --llm_model gpt-3.5-turbo   # OPENAI_API_KEY set

Build search-augmented training trajectories (paper §2.1): read the raw tasks, refine each question into
queries (an LLM through any OpenAI-compatible endpoint, or the dataset's own refinements), search, write a
grounded answer, and append one JSONL record per example (HF chat `messages` plus `trajectory` and
`metadata`). Rerunning the same command resumes: finished records are kept, none is written twice, and the
LLM and search caches make repeated calls free. Output folder: data.jsonl, dropped.jsonl, report.json,
lengths.png, resolved_config.yaml.

    rqrag data self-train --config configs/data/self_train.yaml   # the model's own trajectories (self_training/loop.py)
    rqrag data import --input rq_rag.jsonl --out_dir runs/data/released   # the RQ-RAG authors' released data
    # as trajectory records, with a parse report (data_construction/released_import.py)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from rqrag.cli.commands import run_verb
from rqrag.config_loader import log_config, make_parser, parse, save_resolved_config


logger = logging.getLogger(__name__)


def build(argv: Sequence[str]) -> int:
    from rqrag.data_construction.data_config import DataBuildConfig

    parser = make_parser(DataBuildConfig, prog="rqrag data build", description=__doc__.split("\n\n")[2])
    (config, _extra) = parse(parser, argv)
    log_config("rqrag data build", config)
    out_dir = Path(config.out_dir)
    save_resolved_config(out_dir, "rqrag data build", config)

    from rqrag.data_construction.pipeline import run_build
    from rqrag.data_construction.run_report import format_report, write_report
    from rqrag.models import load_tokenizer

    tokenizer = load_tokenizer(config.tokenizer, add_rqrag_tokens=True)
    with contextlib.ExitStack() as stack:
        if config.serve_model:  # a local annotator for the length of the run
            from rqrag.local_servers.local_server import serve_for_run

            config = serve_for_run(config, stack, out_dir / "annotator_server.log")
        result = asyncio.run(run_build(config, out_dir, tokenizer))
    report = write_report(result)
    print(format_report(report))
    print(json.dumps({"out_dir": str(out_dir), **report["this_run"]}))
    if result.pending:
        print(
            f"rqrag data build: {result.pending} example(s) could not reach the endpoint or the search engine; "
            "rerun the same command to finish them (finished records are kept)",
            file=sys.stderr,
        )
        return 1
    return 0


def self_train(argv: Sequence[str]) -> int:
    """rqrag data self-train --config configs/data/self_train.yaml [--sources hotpotqa:20 ...] [--model PATH]"""
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.self_training import loop as self_training

    description = self_training.__doc__.split("\n\n")[2]
    parser = make_parser(
        DecodeConfig, self_training.SelfTrainConfig, prog="rqrag data self-train", description=description
    )
    (decode, config, _extra) = parse(parser, argv)
    log_config("rqrag data self-train", decode, config)
    report = self_training.run_self_training(config, decode)
    print(self_training.format_report(report))
    print(json.dumps({"out_dir": config.out_dir, "kept": report["kept"], **report["this_run"]}))
    return 1 if report["this_run"]["transient_failures"] else 0


def import_released(argv: Sequence[str]) -> int:
    """rqrag data import --input rq_rag.jsonl --out_dir runs/data/released [--limit N]"""
    from rqrag.data_construction import released_import
    from rqrag.data_construction.data_config import DataImportConfig

    description = released_import.__doc__.split("\n\n")[2]
    parser = make_parser(DataImportConfig, prog="rqrag data import", description=description)
    (config, _extra) = parse(parser, argv)
    log_config("rqrag data import", config)
    try:
        report = released_import.run_import(config)
    except (FileNotFoundError, ValueError) as err:  # a missing file, a JSON array that does not parse
        print(f"rqrag data import: {err}", file=sys.stderr)
        return 2
    save_resolved_config(config.out_dir, "rqrag data import", config)
    print(released_import.format_report(report, config.out_dir))
    summary = {k: report[k] for k in ("records_read", "imported", "dropped", "malformed_lines")}
    print(json.dumps({"out_dir": config.out_dir, **summary}))
    if not report["imported"]:
        print("rqrag data import: no record imported; is this the released RQ-RAG data?", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    verbs = {
        "build": ("annotate raw tasks into trajectory records (resumable)", build),
        "self-train": ("keep the model's own right, gold-finding tree trajectories as training data", self_train),
        "fetch": ("download full benchmark files (the package ships slices)", _fetch),
        "import": ("the RQ-RAG authors' released data (zorowin123/rq_rag) as trajectory records", import_released),
    }
    return run_verb("data", verbs, argv)


def _fetch(argv: Sequence[str]) -> int:
    from rqrag.benchmarks.fetch import main as fetch_main

    return fetch_main(argv)


if __name__ == "__main__":
    sys.exit(main())
