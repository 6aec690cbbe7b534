"""Accuracy against compute for decoding configurations evaluated on the same held-out questions.

    bash scripts/eval_speed.sh                       # runs the configurations, then this script
    python scripts/speed_curve.py runs/speed/today runs/speed/new_fp32 runs/speed/stop_0.7_bf16 ... \
        --baseline today --plot docs/speed_curve.png

Each argument is an `rqrag eval` output directory of the tree system (`rqrag/predictions.jsonl`). Printed per
run: the selected answer's F1 under `--strategy` (vote by default) with its 95 % half-width, seconds per question
(batched evaluation on this machine), expansions per question, the share of questions stopped early by
`stop_confidence`, guarded queries per question, and a paired bootstrap of its F1 against `--baseline` (the
difference, its 95 % interval, and the two-sided p-value). The plot puts F1 against seconds per question, with
the `stop_confidence` runs joined into one curve, so the threshold that buys speed without losing accuracy can
be read off.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np


def load(run: Path) -> dict:
    path = run / "rqrag" / "predictions.jsonl"
    if not path.is_file():
        raise SystemExit(f"error: {path} not found (run `rqrag eval ... --output_dir {run}` first)")
    records = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}
    return {"name": run.name, "records": records, "threshold": _threshold(run.name)}


def summarise(row: dict, ids: set[str], strategy: str, metric: str) -> dict:
    """Means over the questions `ids`: the score, its 95 % half-width, time and saved work."""
    records = [row["records"][i] for i in sorted(ids)]
    scores = np.array([r["scores"][strategy][metric] for r in records])
    return {
        **row,
        "scores": {r["id"]: r["scores"][strategy][metric] for r in records},
        "f1": float(scores.mean()),
        "ci95": float(1.96 * scores.std(ddof=1) / np.sqrt(scores.size)) if scores.size > 1 else 0.0,
        "seconds": float(np.mean([r["seconds"] for r in records])),
        "trajectories": float(np.mean([len(r["trajectories"]) for r in records])),
        "stopped": float(np.mean([r.get("stopped_at") is not None for r in records])),
        "guarded": float(np.mean([r.get("guarded", 0) for r in records])),
    }


def _threshold(name: str) -> float | None:
    match = re.search(r"stop_([0-9.]+)", name)
    return float(match.group(1)) if match else None


def paired(a: dict, b: dict, resamples: int = 10_000, seed: int = 0) -> dict:
    """Paired bootstrap of mean F1 difference a - b on the questions both answered; two-sided p."""
    ids = sorted(set(a["scores"]) & set(b["scores"]))
    diff = np.array([a["scores"][i] - b["scores"][i] for i in ids])
    if not ids:
        return {"n": 0, "delta": None, "ci95": None, "p": None}
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(resamples, diff.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    one_sided = (np.sum(means < 0) + 0.5 * np.sum(means == 0)) / resamples
    return {
        "n": len(ids),
        "delta": float(diff.mean()),
        "ci95": [float(low), float(high)],
        "p": float(min(1.0, 2 * min(one_sided, 1 - one_sided))),
    }


def plot(rows: list[dict], path: Path, strategy: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    curve = sorted((r for r in rows if r["threshold"] is not None), key=lambda r: r["seconds"])
    if curve:
        ax.plot([r["seconds"] for r in curve], [100 * r["f1"] for r in curve], "-o", color="tab:blue",
                label="stop_confidence (threshold beside each point)")  # fmt: skip
        for r in curve:
            ax.annotate(
                f"{r['threshold']:g}", (r["seconds"], 100 * r["f1"]), textcoords="offset points", xytext=(5, 5)
            )
    for r in rows:
        if r["threshold"] is None:
            ax.errorbar(r["seconds"], 100 * r["f1"], yerr=100 * r["ci95"], fmt="s", capsize=3, label=r["name"])
    ax.set_xlabel("seconds per question (batched eval, 2 CPU cores)")
    ax.set_ylabel(f"F1 of the {strategy}-selected answer (%)")
    ax.set_title("Held-out HotpotQA: accuracy against compute")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", type=Path, help="rqrag eval output directories")
    parser.add_argument("--baseline", default=None, help="run name the others are compared with (default: first)")
    parser.add_argument("--strategy", default="vote", help="selection strategy scored (default: %(default)s)")
    parser.add_argument("--metric", default="f1", help="metric (default: %(default)s)")
    parser.add_argument("--common", action="store_true", help="score every run on the questions all of them answered")
    parser.add_argument("--plot", type=Path, default=None, help="write the accuracy-vs-compute chart here")
    args = parser.parse_args(argv)

    loaded = [load(run) for run in args.runs]
    # --common: the same questions for every run (a slow configuration may have been stopped early; runs resume).
    common = set.intersection(*(set(r["records"]) for r in loaded))
    rows = [summarise(r, common if args.common else set(r["records"]), args.strategy, args.metric) for r in loaded]
    base = next((r for r in rows if r["name"] == args.baseline), rows[0])
    print(f"{'run':<18} {'n':>4} {args.metric:>6} {'±95':>5} {'s/q':>5} {'traj/q':>6} {'stopped':>7} "
          f"{'guarded/q':>9}  vs {base['name']}: delta [95 % CI] p")  # fmt: skip
    for r in rows:
        test = paired(r, base)
        versus = (
            "-"
            if r is base
            else f"{100 * test['delta']:+.1f} [{100 * test['ci95'][0]:+.1f}, {100 * test['ci95'][1]:+.1f}] p={test['p']:.2f}"
        )
        print(
            f"{r['name']:<18} {len(r['scores']):>4} {100 * r['f1']:>6.1f} {100 * r['ci95']:>5.1f} {r['seconds']:>5.2f} "
            f"{r['trajectories']:>6.2f} {100 * r['stopped']:>6.0f}% {r['guarded']:>9.2f}  {versus}"
        )
    if args.plot:
        plot(rows, args.plot, args.strategy)
        print(f"chart: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
