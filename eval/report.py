"""Summaries, the strategy chart (paper Fig. 3) and the results table, all rebuilt from prediction files.

    python -m rqrag.eval.report runs/eval/hotpotqa_trained runs/eval/hotpotqa_base ...   # markdown table

`summarize_task` turns the per-question records of each system into means: every selection strategy's
scores, the oracle upper bound, retrieval recall/MR/MRR/P@1 where gold paragraphs are known, the share of
well-formed trajectories and the time per question. `write_reports` saves `summary.json` and
`strategies.png`; `markdown_table` lays several summaries side by side for docs/eval.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from rqrag.eval import metrics
from rqrag.inference.decoding.select import DEFINITIONS, STRATEGIES


SUMMARY = "summary.json"
CHART = "strategies.png"


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def summarize_system(task, examples, records: Sequence[dict]) -> dict:
    wanted = {ex.uid for ex in examples}
    rows = [r for r in records if r["id"] in wanted]
    # Records written before a strategy existed have no score for it: its mean covers the newer records only.
    by_strategy = {
        s: {m: _mean([r["scores"][s][m] for r in rows if s in r["scores"]]) for m in task.metric_names}
        for s in (*STRATEGIES, "grounded")
        if s != "grounded" or any("grounded" in r["scores"] for r in rows)
    }
    summary = {
        "questions": len(rows),
        "missing": len(wanted) - len(rows),
        "errors": sum(r["error"] is not None for r in rows),
        "strategies": by_strategy,
        "oracle": {m: _mean([r["oracle"][m] for r in rows]) for m in task.metric_names},
        # How far the ppl-selected mean could move with another sample of questions of this size.
        "ci95": {m: metrics.ci95_half_width([r["scores"]["ppl"][m] for r in rows]) for m in task.metric_names},
        "trajectories_per_question": _mean([len(r["trajectories"]) for r in rows]),
        "well_formed": _mean([r["well_formed"] for r in rows]),
        "seconds_per_question": _mean([r["seconds"] for r in rows]),
        # Saved work; records written before these fields existed count as nothing saved.
        "merged_per_question": _mean([r.get("merged", 0) for r in rows]),
        "guarded_per_question": _mean([r.get("guarded", 0) for r in rows]),
        "stopped_early": _mean([r.get("stopped_at") is not None for r in rows]),
        # What a question cost (rqrag.inference.decoding.tree.QuestionResult.cost); records from before: None.
        "cost_per_question": {
            key: _mean([r["cost"].get(key, 0) for r in rows if "cost" in r])
            for key in ("model_calls", "prompt_tokens", "generated_tokens")
        },
    }
    with_gold = [r["retrieval"] for r in rows if "retrieval" in r]
    if with_gold:
        ranks = [rank for r in with_gold for rank in r["ranks"]]
        summary["retrieval"] = {
            "recall": _mean([r["recall"] for r in with_gold]),
            "recall_max": _mean([r["recall_max"] for r in with_gold]),
            **metrics.rank_metrics(ranks),
            "searches": len(ranks),
        }
    return summary


def summarize_task(task, examples, records_by_system: Mapping[str, Sequence[dict]], label: str) -> dict:
    return {
        "task": task.name,
        "label": label,
        "metric_names": list(task.metric_names),
        "primary_metric": task.primary_metric,
        "strategy_definitions": dict(DEFINITIONS),
        "questions": len(examples),
        "systems": {s: summarize_system(task, examples, rows) for s, rows in records_by_system.items()},
    }


def chart_bars(summary: dict) -> list[tuple[str, float]]:
    """(bar label, primary score) pairs: each baseline once, the tree per strategy, then its upper bound."""
    metric = summary["primary_metric"]
    bars: list[tuple[str, float]] = []
    # Baselines first, then the tree: the chart reads left to right as "more search, better selection".
    for system, s in sorted(summary["systems"].items(), key=lambda item: item[0] == "rqrag"):
        if system == "rqrag":
            bars += [(f"RQ-RAG {name}", s["strategies"][name][metric] or 0.0) for name in STRATEGIES]
            bars.append(("RQ-RAG upper bound", s["oracle"][metric] or 0.0))
        else:
            bars.append((system.replace("_", " "), s["strategies"]["ppl"][metric] or 0.0))
    return bars


def plot_strategies(summary: dict, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = chart_bars(summary)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(bars) + 2), 3.8))
    colors = ["#9e9e9e" if not name.startswith("RQ-RAG") else "#1f77b4" for name, _ in bars]
    colors = ["#2ca02c" if name.endswith("upper bound") else c for (name, _), c in zip(bars, colors)]
    positions = range(len(bars))
    ax.bar(positions, [100 * v for _, v in bars], color=colors)
    for x, (_, v) in zip(positions, bars):
        ax.text(x, 100 * v + 0.5, f"{100 * v:.1f}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(positions), [name for name, _ in bars], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(f"{summary['primary_metric']} (%)")
    ax.set_title(f"{summary['task']}: {summary['label']}, {summary['questions']} questions", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_reports(out_dir: Path, summary: dict) -> None:
    (out_dir / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    plot_strategies(summary, out_dir / CHART)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def markdown_table(summaries: Sequence[dict]) -> str:
    """One row per (run, system): the primary metric under each strategy, the upper bound, the task's other
    metrics under ppl selection (EM beside F1), gold recall, well-formed share, time and cost per question."""
    names = list(STRATEGIES)
    columns = ["task", "model", "system", "n", names[0], "±95 %", *names[1:], "upper bound", "other (ppl)"]
    columns += ["gold recall", "well-formed", "s/question", "model calls/q", "tokens/q (prompt + generated)"]
    lines = ["| " + " | ".join(columns) + " |", "|---|---|---|" + "---:|" * (len(columns) - 3)]
    for summary in summaries:
        metric = summary["primary_metric"]
        others = [m for m in summary["metric_names"] if m != metric]
        for system, s in summary["systems"].items():
            strategies = [_pct(s["strategies"].get(name, {}).get(metric)) for name in names]
            strategies.insert(1, _pct(s.get("ci95", {}).get(metric)))  # summaries written before it existed: –
            other = ", ".join(f"{m} {_pct(s['strategies']['ppl'][m])}" for m in others) or "–"
            # A system that never searched has no recall to report (0 % would read as "searched and missed").
            searched = "retrieval" in s and s["retrieval"]["searches"] > 0
            recall = _pct(s["retrieval"]["recall"]) if searched else "–"
            seconds = f"{s['seconds_per_question']:.1f}" if s["seconds_per_question"] is not None else "–"
            cost = s.get("cost_per_question") or {}
            calls = f"{cost['model_calls']:.1f}" if cost.get("model_calls") is not None else "–"
            tokens = "–"
            if cost.get("prompt_tokens") is not None:
                tokens = f"{cost['prompt_tokens']:.0f} + {cost['generated_tokens']:.0f}"
            lines.append(
                f"| {summary['task']} ({metric}) | {summary['label']} | {system} | {s['questions']} | "
                + " | ".join(strategies)
                + f" | {_pct(s['oracle'][metric])} | {other} | {recall} | {_pct(s['well_formed'])} | {seconds} |"
                + f" {calls} | {tokens} |"
            )
    return "\n".join(lines)


def plot_overview(summaries: Sequence[dict], path: Path) -> Path:
    """One group of bars per (task, model): baselines, the tree's strategies and its upper bound."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Labels on three short lines (task, model, mode) so that neighbouring groups do not overlap.
    labels = [s["task"] + "\n" + s["label"].replace(" (", "\n(") for s in summaries]
    groups = [(label, dict(chart_bars(s))) for label, s in zip(labels, summaries)]
    names = list(dict.fromkeys(name for _, bars in groups for name in bars))
    width = 0.8 / max(1, len(names))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(groups) + 2), 4.6))
    for k, name in enumerate(names):
        xs = [i + k * width for i in range(len(groups))]
        ax.bar(xs, [100 * bars.get(name, 0.0) for _, bars in groups], width, label=name)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], [g for g, _ in groups], fontsize=7)
    ax.set_ylabel("primary metric (%)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print the results table of one or more `rqrag eval` runs.")
    parser.add_argument("runs", nargs="+", help="output directories of rqrag eval (each holds summary.json)")
    parser.add_argument("--plot", type=Path, default=None, help="also draw every run's bars into this PNG")
    args = parser.parse_args(argv)
    summaries = []
    for run in args.runs:
        path = Path(run) / SUMMARY
        if not path.is_file():
            print(f"skipping {run}: no {SUMMARY}", file=sys.stderr)
            continue
        summaries.append(json.loads(path.read_text()))
    print(markdown_table(summaries))
    if args.plot and summaries:
        print(f"chart: {plot_overview(summaries, args.plot)}")
    return 0 if summaries else 1


if __name__ == "__main__":
    sys.exit(main())
