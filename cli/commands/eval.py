"""rqrag eval --config configs/eval/TASK.yaml [--limit N] [--resume | --overwrite] [--systems rqrag ...]

    rqrag eval --config configs/eval/hotpotqa.yaml --limit 200
    rqrag eval --config configs/eval/arc_challenge.yaml --model smollm2-135m-instruct --prompting prompted \\
        --output_dir runs/eval/arc_base --limit 100
    rqrag eval --config configs/eval/hotpotqa.yaml --resume        # after an interruption

Runs the tree decoder and the baselines (no retrieval; standard RAG: one search with the question) on a
benchmark's held-out questions and writes, under --output_dir, one predictions.jsonl per system (appended
question by question), summary.json (every selection strategy, the upper bound, retrieval recall),
strategies.png and resolved_config.yaml. `python -m rqrag.eval.benchmark_report DIR...` prints the table of several runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rqrag.config_loader import log_config, make_parser, parse
from rqrag.eval.eval_config import EvalConfig
from rqrag.inference.decoding.decode_config import DecodeConfig


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(DecodeConfig, EvalConfig, prog="rqrag eval", description=__doc__.split("\n\n")[2])
    decode, config, _ = parse(parser, argv)
    log_config("rqrag eval", decode, config)

    from rqrag.eval.benchmark_report import markdown_table, shown_table
    from rqrag.eval.runner import run_eval

    summary = run_eval(config, decode)
    print(markdown_table([summary]))
    shown = shown_table([summary])
    if shown:
        print("\nWhat a person reads (answer, then its quote):\n" + shown)
    print(f"\npredictions, summary.json, strategies.png and reliability.png in {config.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
