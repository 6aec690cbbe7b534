"""rqrag experiment run|design|report|queries --config configs/experiments/NAME.yaml [--max_questions N] ...

    rqrag experiment run --config configs/experiments/pt_manual_small.yaml
    rqrag experiment run --config configs/experiments/pt_manual_small.yaml --max_questions 5 \\
        --output_dir runs/experiments/pt_manual_try          # a quick look before the whole study
    rqrag experiment design --config configs/experiments/pt_manual_full.yaml   # the cells only, nothing run
    rqrag experiment report --config configs/experiments/pt_manual_small.yaml  # ART ANOVA, plots -> report.md
    rqrag experiment queries --config configs/experiments/pt_manual_small.yaml # retrieval on generated queries

Runs a designed experiment over a document collection and its golden questions: every cell of a full or
fractional factorial design (chunking, search mode, k, generator, refinement none or tree depth, any decode
setting) answers every question, with replicates in a randomised run order. Under
runs/experiments/NAME/ it writes records.jsonl (one line per cell and question, appended as batches finish:
answer, retrieved chunks with pages, EM/F1, evidence-quote recall, answer similarity, Ragas with a judge),
design.csv, resolved_config.yaml, indexes/ (one per chunking, reused) and summary.csv/summary.json. Rerunning
the same command after an interruption, even kill -9, runs only the missing (cell, question) pairs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rqrag.config_loader import log_config, make_parser, parse
from rqrag.eval.experiments.experiment_config import ExperimentConfig
from rqrag.inference.decoding.decode_config import DecodeConfig


ACTIONS = ("run", "design", "report", "queries")


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(DecodeConfig, ExperimentConfig, prog="rqrag experiment", description=__doc__.split("\n\n")[2])
    parser.add_argument(
        "action",
        choices=ACTIONS,
        help="run: run (or finish) the experiment; design: write and print the cells only; report: statistics, "
        "ART ANOVA and plots of a run (report.md); queries: retrieval on generated section queries",
    )
    parser.add_argument("--report_dir", default=None, help="report: where report.md goes (default: RUN/report)")
    parser.add_argument("--llm_base_url", default=None, help="queries: a chat endpoint that writes the queries")
    parser.add_argument("--llm_model", default=None, help="queries: the model name at --llm_base_url")
    decode, config, extra = parse(parser, argv)
    log_config(f"rqrag experiment {extra.action}", decode, config)

    if extra.action == "report":
        from rqrag.config_loader import save_resolved_config
        from rqrag.eval.experiments.analysis import make_report

        path = make_report(config, extra.report_dir)
        save_resolved_config(path.parent, "rqrag experiment report", decode, config)
        print(f"report: {path}")
        return 0
    if extra.action == "queries":
        from rqrag.eval.experiments.analysis import generated_query_retrieval

        table = generated_query_retrieval(config, extra.llm_base_url, extra.llm_model)
        print(table.to_string(index=False) if not table.empty else "no index to search: run the experiment first")
        return 0 if not table.empty else 1

    from rqrag.eval.experiments.design import build_cells, write_design

    if extra.action == "design":
        cells = build_cells(config)
        path = write_design(cells, config.output_path)
        for cell in cells:
            print(f"{cell.run_order:>4}  {cell.cell_id}  r{cell.replicate}  {cell.levels}")
        print(f"\n{len(cells)} runs; design written to {path}")
        return 0

    from rqrag.eval.experiments.runner import run_experiment

    summary = run_experiment(config, decode)
    missing = {m: n for m, n in summary["missing_scores"].items() if n}
    print(
        f"{summary['records']} of {summary['cells'] * summary['questions']} answers recorded "
        f"({summary['cells']} cells x {summary['questions']} questions); missing scores: {missing or 'none'}"
    )
    if summary["transient_failures"]:
        print(f"{summary['transient_failures']} answers failed on an unreachable server: run the command again")
    print(f"records, design.csv, summary.csv and resolved_config.yaml in {config.output_path}")
    return 0 if summary["complete"] else 1


if __name__ == "__main__":
    sys.exit(main())
