"""Fit the answer verifier on a model's own trees over training ids, and save it beside the model.

    rqrag fit verifier runs/verifier/selftrain/train \
        --out models/rqrag-smollm2-135m-selftrain/verifier --plots docs

Reads every `predictions.jsonl` under the given folders (`rqrag eval --split train`, made by
scripts/verifier_trees.sh), refuses eval ids, fits a logistic regression over the candidate features with
5-fold out-of-fold predictions for the threshold (>= --target precision of the shown answer on held-back training
questions) and the calibration, then on all questions; writes `verifier.json` (features, scaling, weights,
threshold, report), `report.json` and `resolved_config.yaml` to --out, and with --plots the reliability diagram
and the precision/coverage curve of the held-back training questions as PNGs.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from rqrag.answer.candidate_answers import FEATURES
from rqrag.config_loader import save_resolved_config
from rqrag.eval.saved_trees import load_trees
from rqrag.fit.verifier_fit import PRECISION_TARGET, CandidateTable, candidate_table, fit_verifier, save_report


TABLE_FILE = "table.jsonl.gz"


def plot_reliability(bins: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=1, label="perfectly calibrated")
    xs = [b["p"] for b in bins]
    ys = [b["accuracy"] for b in bins]
    sizes = [20 + 4 * b["n"] for b in bins]
    ax.scatter(xs, ys, s=sizes, color="tab:blue", alpha=0.8, label="shown answers (dot size: count)")
    ax.plot(xs, ys, color="tab:blue", lw=1)
    ax.set_xlabel("verifier p (mean in bin)")
    ax.set_ylabel("share right")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def plot_precision_coverage(curves: dict[str, list[dict]], threshold: float, target: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    for name, curve in curves.items():
        ax.plot([c["coverage"] for c in curve], [c["precision"] for c in curve], lw=1.4, label=name)
        chosen = [c for c in curve if c["threshold"] >= threshold]
        if chosen:
            ax.scatter([chosen[-1]["coverage"]], [chosen[-1]["precision"]], s=25, zorder=3)
    ax.axhline(target, ls="--", color="grey", lw=1, label=f"target precision {target:.0%}")
    ax.set_xlabel("coverage (share of questions answered as generated)")
    ax.set_ylabel("precision of generated answers")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title(f"dots: the shipped threshold p >= {threshold:.2f}", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv: list[str] | None = None, prog: str = "rqrag fit verifier") -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__.split("\n\n")[2], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("trees", nargs="*", help="folders with predictions.jsonl of `rqrag eval --split train`")
    parser.add_argument(
        "--table",
        default=None,
        help=f"refit from the candidate table a fit saved ({TABLE_FILE} beside its verifier.json), not from trees",
    )
    parser.add_argument("--out", required=True, help="where verifier.json goes (a model's verifier/ folder)")
    parser.add_argument("--C", type=float, default=1.0, help="inverse L2 strength of the logistic regression")
    parser.add_argument("--target", type=float, default=PRECISION_TARGET, help="precision of generated answers")
    parser.add_argument("--plots", default=None, help="folder for reliability.png and precision_coverage.png")
    parser.add_argument(
        "--reader_reads",
        default=None,
        help="the featurised trees of rqrag fit reader --reads_cache: the reader's spans join the candidates, "
        "each training question read by a reader fitted without its fold",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")

    if bool(args.trees) == bool(args.table):
        parser.error("give the trees' folders or --table, one of them")
    table = CandidateTable.load(Path(args.table)) if args.table else featurised(args)
    verifier, report = fit_verifier(table, C=args.C, target=args.target)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    verifier.save(out)
    save_report(out, report)
    table.save(out / TABLE_FILE)  # what it was fitted on, beside it: `--table` refits the same verifier
    save_resolved_config(out, "rqrag fit verifier")  # the command line and git commit
    summarise(verifier, report)
    if args.plots:
        plot(report, verifier, args.target, Path(args.plots))
    print(f"verifier in {out}")
    return 0


def featurised(args) -> CandidateTable:
    """The candidate table of the trees under `args.trees` (with `--reader_reads`, the reader's spans join)."""
    trees = load_trees(args.trees)
    reader_of, searched = None, None
    if args.reader_reads:
        from rqrag.fit.reader_fit import OutOfFoldReader, load_reads

        items, reads = load_reads(args.reader_reads)
        reader = OutOfFoldReader(items, reads)
        searched = {i.qid: i.hits for i in items}  # everything the reader read, the question's own search included
        reader_of = lambda qid: reader  # noqa: E731
    return candidate_table(trees, reader_of=reader_of, searched=searched)


def summarise(verifier, report: dict) -> None:
    held = report["held_back"]
    print(f"{report['questions']} training questions, {report['candidates']} candidates ({len(FEATURES)} features)")
    print(
        f"held-back shown answer right {held['shown_right']:.1%}; threshold p >= {verifier.threshold:.3f}: "
        f"generated precision {held['generated_precision'] or 0:.1%} at coverage {held['coverage']:.1%}; "
        f"ECE (shown) {held['calibration_shown']['ece']:.3f}, (all candidates) {held['calibration_all_candidates']['ece']:.3f}"
    )
    for task, row in held["per_task"].items():
        print(f"  {task}: {json.dumps(row)}")
    weights = sorted(zip(verifier.features, verifier.coef), key=lambda fw: -abs(fw[1]))
    print("weights (standardised): " + ", ".join(f"{f} {w:+.2f}" for f, w in weights))


def plot(report: dict, verifier, target: float, plots: Path) -> None:
    """The held-back reliability diagram and precision/coverage curves, as PNGs in `plots`."""
    held = report["held_back"]
    plots.mkdir(parents=True, exist_ok=True)
    plot_reliability(
        held["calibration_shown"]["bins"],
        plots / "verifier_reliability.png",
        f"held-back training questions (n={report['questions']}), ECE {held['calibration_shown']['ece']:.3f}",
    )
    curves = {"all (held-back training)": held["curve"], **held["curve_by_task"]}
    plot_precision_coverage(curves, verifier.threshold, target, plots / "verifier_precision_coverage.png")
    print(f"plots in {plots}")


if __name__ == "__main__":
    raise SystemExit(main())
