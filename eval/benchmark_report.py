"""Summaries, the strategy chart (paper Fig. 3) and the results table, all rebuilt from prediction files.

    python -m rqrag.eval.benchmark_report runs/eval/hotpotqa_trained runs/eval/hotpotqa_base ...   # markdown table

`summarize_task` turns the per-question records of each system into means: every selection strategy's
scores, the oracle upper bound, retrieval recall/MR/MRR/P@1 where gold paragraphs are known, the share of
well-formed trajectories and the time per question. `write_reports` saves `summary.json` and
`strategies.png`; `markdown_table` lays several summaries side by side for docs/eval.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from rqrag.answer.messages import AnswerKind
from rqrag.eval import metrics
from rqrag.inference.decoding.select import DEFINITIONS, STRATEGIES


SUMMARY = "summary.json"
CHART = "strategies.png"


def mean_present(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None (a record without the score); None when none is. The one mean of
    eval's summaries, the experiment's cells and scripts/query_quality.py."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def summarize_system(task, examples, records: Sequence[dict]) -> dict:
    wanted = {ex.uid for ex in examples}
    rows = [r for r in records if r["id"] in wanted]
    # Records written before a strategy existed have no score for it: its mean covers the newer records only.
    by_strategy = {
        s: {m: mean_present([r["scores"][s][m] for r in rows if s in r["scores"]]) for m in task.metric_names}
        for s in (*STRATEGIES, "grounded")
        if s != "grounded" or any("grounded" in r["scores"] for r in rows)
    }
    summary = {
        "questions": len(rows),
        "missing": len(wanted) - len(rows),
        "errors": sum(r["error"] is not None for r in rows),
        "strategies": by_strategy,
        "oracle": {m: mean_present([r["oracle"][m] for r in rows]) for m in task.metric_names},
        # How far the ppl-selected mean could move with another sample of questions of this size.
        "ci95": {m: metrics.ci95_half_width([r["scores"]["ppl"][m] for r in rows]) for m in task.metric_names},
        "trajectories_per_question": mean_present([len(r["trajectories"]) for r in rows]),
        "well_formed": mean_present([r["well_formed"] for r in rows]),
        "seconds_per_question": mean_present([r["seconds"] for r in rows]),
        # Saved work; records written before these fields existed count as nothing saved.
        "merged_per_question": mean_present([r.get("merged", 0) for r in rows]),
        "guarded_per_question": mean_present([r.get("guarded", 0) for r in rows]),
        "stopped_early": mean_present([r.get("stopped_at") is not None for r in rows]),
        # What a question cost (rqrag.inference.decoding.tree.QuestionResult.cost); records from before: None.
        "cost_per_question": {
            key: mean_present([r["cost"].get(key, 0) for r in rows if "cost" in r])
            for key in ("model_calls", "prompt_tokens", "generated_tokens")
        },
    }
    shown = shown_summary(rows)
    if shown:
        summary["shown"] = shown
    with_gold = [r["retrieval"] for r in rows if "retrieval" in r]
    if with_gold:
        ranks = [rank for r in with_gold for rank in r["ranks"]]
        summary["retrieval"] = {
            "recall": mean_present([r["recall"] for r in with_gold]),
            "recall_max": mean_present([r["recall_max"] for r in with_gold]),
            **metrics.rank_metrics(ranks),
            "searches": len(ranks),
        }
    return summary


def shown_summary(rows: Sequence[dict]) -> dict | None:
    """What a person reads (records with a `grounded` answer): how often the answer, or the quote read after it,
    holds the gold answer; the kinds shown; the precision and coverage of answers stated as the answer
    (`generated`); the calibration of the confidence shown beside them (best candidate's p against whether it is
    right), with its reliability bins."""
    import numpy as np

    from rqrag.answer.candidate_answers import is_correct
    from rqrag.eval.metrics import holds_gold
    from rqrag.eval.saved_trees import calibration

    decided = [r for r in rows if r.get("grounded")]
    if not decided:
        return None

    def golds(r):
        gold = r.get("gold", {})
        return list(gold.get("answers") or gold.get("aliases") or ([gold["answer"]] if "answer" in gold else []))

    holds, stated, right, p, best_right, words = [], 0, 0, [], [], []
    for r in decided:
        g, answer, kind = golds(r), r["grounded"].get("answer") or "", r["grounded"].get("kind")
        quote = (r["grounded"].get("quote") or {}).get("text") or ""
        if r["grounded"].get("cited_sources"):  # under a written answer: every cited source's sentence is read
            quote = "\n".join(s.get("quote") or "" for s in r["grounded"]["cited_sources"])
        read = bool(kind) and AnswerKind(kind).is_read_as_answer  # an own answer is read too
        holds.append(read and (holds_gold(answer, g, r["question"]) or holds_gold(quote, g)))
        if read:
            words.append(len(answer.split()))
        short = r["grounded"].get("short_answer")
        if kind == AnswerKind.GENERATED or (kind == AnswerKind.WRITTEN and short):
            stated += 1  # a written answer states its short answer
            right += is_correct(short if kind == AnswerKind.WRITTEN else answer, g, r["question"])
        candidates = r["grounded"].get("candidates") or []
        if r["grounded"].get("confidence") is not None and candidates:
            p.append(r["grounded"]["confidence"])
            best_right.append(is_correct(candidates[0]["text"], g, r["question"]))
    calibrated = calibration(np.array(p), np.array(best_right, dtype=int)) if p else None
    kinds: dict[str, int] = {}
    for r in decided:
        kinds[r["grounded"].get("kind")] = kinds.get(r["grounded"].get("kind"), 0) + 1
    return {
        "questions": len(decided),
        "holds_gold": sum(holds) / len(decided),
        "kinds": kinds,
        "stated_precision": right / stated if stated else None,
        "stated_coverage": stated / len(decided),
        "median_words": float(np.median(words)) if words else None,
        "ece": calibrated["ece"] if calibrated else None,
        "reliability": calibrated["bins"] if calibrated else [],
    }


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


RELIABILITY = "reliability.png"


def write_reports(out_dir: Path, summary: dict) -> None:
    (out_dir / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    plot_strategies(summary, out_dir / CHART)
    shown = {name: s["shown"] for name, s in summary["systems"].items() if s.get("shown", {}).get("reliability")}
    if shown:
        plot_reliability(shown, out_dir / RELIABILITY, summary["task"])


def plot_reliability(shown: Mapping[str, dict], path: Path, task: str) -> Path:
    """The confidence shown beside each answer against how often the best candidate is right, per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=1, label="perfectly calibrated")
    for name, s in shown.items():
        bins = s["reliability"]
        ax.plot(
            [b["p"] for b in bins],
            [b["accuracy"] for b in bins],
            marker="o",
            lw=1,
            label=f"{name} (ECE {s['ece']:.3f})",
        )
    ax.set_xlabel("confidence shown (verifier p)")
    ax.set_ylabel("share right")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"{task}: held-out questions", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def shown_table(summaries: Sequence[dict]) -> str:
    """What a person reads, one row per (run, system) that decided its answers: share holding the gold answer,
    the kinds, precision and coverage of stated answers, median words and the confidence's calibration."""
    lines = [
        "| task | model | system | n | holds gold | shown F1 | written / generated / quoted / none | stated right | stated "
        "coverage | median words | ECE |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for summary in summaries:
        metric = summary["primary_metric"]
        for system, s in summary["systems"].items():
            shown = s.get("shown")
            if not shown:
                continue
            k = shown["kinds"]
            none = k.get(AnswerKind.NO_ANSWER, 0) + k.get(AnswerKind.NOT_FOUND, 0)
            f1 = s["strategies"].get("grounded", {}).get(metric)
            words = "–" if shown["median_words"] is None else f"{shown['median_words']:.0f}"
            ece = "–" if shown["ece"] is None else f"{shown['ece']:.3f}"
            lines.append(
                f"| {summary['task']} | {summary['label']} | {system} | {shown['questions']} | "
                f"{_pct(shown['holds_gold'])} | {_pct(f1)} | {k.get('written', 0)} / {k.get('generated', 0)} / {k.get('quoted', 0)} / {none} | "
                f"{_pct(shown['stated_precision'])} | {_pct(shown['stated_coverage'])} | {words} | {ece} |"
            )
    return "\n".join(lines) if len(lines) > 2 else ""


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
    shown = shown_table(summaries)
    if shown:
        print("\n" + shown)
    if args.plot and summaries:
        print(f"chart: {plot_overview(summaries, args.plot)}")
    return 0 if summaries else 1


if __name__ == "__main__":
    sys.exit(main())
