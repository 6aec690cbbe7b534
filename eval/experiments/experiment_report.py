"""The analysis of a factorial RAG experiment: descriptive statistics, plots, ART ANOVA and ART-C contrasts,
written as `report.md` with CSVs a statistician can reload.

    rqrag experiment report runs/experiments/pt_manual_small          # after `rqrag experiment run`

Answer-quality scores are bounded (0-1) and far from normal — most answers score 0 or 1 — so the effects are
tested with the Aligned Rank Transform (Wobbrock et al., CHI 2011; `eval/experiments/art.py`), with the question as the
subject: every cell answers the same questions, so each factor is a within-question factor and question
difficulty is taken out of the error term. Replicates of a cell are averaged per question first. Post-hoc
contrasts of the significant effects use ART-C (Elkin et al., 2021; `eval/experiments/art_contrasts.py`) with Holm's
correction by default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd


SUBJECT = "question_id"
ALPHA = 0.05


def varying_factors(data: pd.DataFrame, factors: Sequence[str]) -> list[str]:
    """The factors with more than one level in the data: a factor held fixed has no effect to test."""
    return [f for f in factors if data[f].nunique(dropna=False) > 1]


def describe(data: pd.DataFrame, factors: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Per factor, level and metric: n, mean, SD and the 95 % t-interval of the mean; NaNs are counted, not used."""
    from scipy import stats

    rows = []
    for factor in factors:
        for level, group in data.groupby(factor, sort=True):
            for metric in metrics:
                values = group[metric].to_numpy(dtype=float)
                finite = values[~np.isnan(values)]
                n = len(finite)
                mean = float(finite.mean()) if n else math.nan
                sd = float(finite.std(ddof=1)) if n > 1 else math.nan
                half = float(stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)) if n > 1 else math.nan
                rows.append(
                    {
                        "factor": factor,
                        "level": level,
                        "metric": metric,
                        "n": n,
                        "nan": int(len(values) - n),
                        "mean": mean,
                        "sd": sd,
                        "ci95_low": mean - half,
                        "ci95_high": mean + half,
                    }
                )
    return pd.DataFrame(rows)


def per_question(data: pd.DataFrame, factors: Sequence[str], metric: str) -> tuple[pd.DataFrame, int]:
    """One score per (cell, question): replicates averaged; questions missing the metric in any cell dropped so
    the design stays balanced. Returns the table and how many questions were dropped."""
    table = data.groupby([*factors, SUBJECT], as_index=False, dropna=False)[metric].mean()
    cells = table.groupby(list(factors), dropna=False).ngroups
    complete = table.dropna(subset=[metric]).groupby(SUBJECT)[metric].count()
    keep = set(complete[complete == cells].index)
    dropped = table[SUBJECT].nunique() - len(keep)
    return table[table[SUBJECT].isin(keep)].reset_index(drop=True), dropped


def analyse_metric(
    data: pd.DataFrame, factors: Sequence[str], metric: str, max_order: int = 4, adjust: str = "holm"
) -> dict:
    """ART ANOVA of one metric over the varying factors, and ART-C contrasts of each significant effect."""
    from rqrag.eval.experiments.art import art_anova
    from rqrag.eval.experiments.art_contrasts import art_contrasts

    factors = varying_factors(data, factors)
    table, dropped = per_question(data, factors, metric)
    out = {"metric": metric, "factors": factors, "questions": int(table[SUBJECT].nunique()), "dropped": dropped}
    if not factors or table.empty:
        return {**out, "anova": pd.DataFrame(), "contrasts": {}, "skipped": "no varying factor or no complete data"}
    if table[metric].nunique() < 2:
        return {**out, "anova": pd.DataFrame(), "contrasts": {}, "skipped": f"{metric} is constant: nothing to rank"}
    anova = art_anova(table, metric, list(factors), subject=SUBJECT, max_order=max_order)
    contrasts = {}
    for term in anova.loc[anova["p"] < ALPHA, "term"]:
        contrasts[term] = art_contrasts(table, metric, list(factors), term, subject=SUBJECT, adjust=adjust)
    return {**out, "anova": anova, "contrasts": contrasts}


def plot_histograms(data: pd.DataFrame, metrics: Sequence[str], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.0), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        values = data[metric].dropna().to_numpy(dtype=float)
        ax.hist(values, bins=20, range=(0, 1) if values.size and values.min() >= 0 and values.max() <= 1 else None)
        ax.set_title(f"{metric} (n={values.size})", fontsize=10)
        ax.set_xlabel("score")
    axes[0][0].set_ylabel("answers")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_interactions(data: pd.DataFrame, factors: Sequence[str], metric: str, path: Path) -> Path:
    """One panel per pair of factors: the metric's mean per level of the first, one line per level of the second
    (parallel lines: no interaction), with 95 % intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = [(a, b) for i, a in enumerate(factors) for b in factors[i + 1 :]]
    if not pairs:
        pairs = [(factors[0], factors[0])] if factors else []
    columns = min(3, max(1, len(pairs)))
    rows = math.ceil(len(pairs) / columns) if pairs else 1
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.3 * rows), squeeze=False)
    for ax, (x, line) in zip(axes.flat, pairs):
        levels = sorted(data[x].dropna().unique(), key=str)
        for value, group in data.groupby(line, sort=True):
            stats = group.groupby(x)[metric].agg(["mean", "std", "count"]).reindex(levels)
            half = 1.96 * stats["std"] / np.sqrt(stats["count"].clip(lower=1))
            positions = np.arange(len(levels))
            ax.errorbar(positions, stats["mean"], yerr=half, marker="o", capsize=3, label=f"{line}={value}")
        ax.set_xticks(np.arange(len(levels)), [str(v) for v in levels])
        ax.set_xlabel(x)
        ax.set_ylabel(f"mean {metric}")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(pairs) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _markdown(table: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a Markdown table (no `tabulate` dependency)."""
    if table.empty:
        return "_(empty)_"

    def cell(value) -> str:
        if isinstance(value, float):
            return "NaN" if math.isnan(value) else (f"{value:.2e}" if 0 < abs(value) < 1e-4 else f"{value:.{digits}f}")
        return str(value)

    head = "| " + " | ".join(map(str, table.columns)) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write_report(
    data: pd.DataFrame,
    factors: Sequence[str],
    metrics: Sequence[str],
    out: Path,
    title: str,
    primary: str | None = None,
    adjust: str = "holm",
) -> Path:
    """`report.md`, `descriptives.csv`, `anova_<metric>.csv`, `contrasts_<metric>.csv` and the plots in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    primary = primary or metrics[0]
    data.to_csv(out / "scores.csv", index=False)
    varying = varying_factors(data, factors)
    descriptives = describe(data, varying, metrics)  # a factor held at one level describes nothing new
    descriptives.to_csv(out / "descriptives.csv", index=False)
    plot_histograms(data, metrics, out / "histograms.png")
    plot_interactions(data, varying, primary, out / f"interactions_{primary}.png")

    lines = [f"# {title}", "", f"{data[SUBJECT].nunique()} questions, {len(data)} answers. Factors: "]
    lines[-1] += ", ".join(f"**{f}** ({', '.join(map(str, sorted(data[f].unique(), key=str)))})" for f in factors)
    lines += ["", "## Descriptive statistics (mean, SD, 95 % interval)", ""]
    for metric in metrics:
        part = descriptives[descriptives["metric"] == metric].drop(columns="metric")
        lines += [f"### {metric}", "", _markdown(part), ""]
    lines += ["![histograms](histograms.png)", "", f"![interactions](interactions_{primary}.png)", ""]
    lines += ["## Aligned Rank Transform ANOVA (question as subject)", ""]
    for metric in metrics:
        result = analyse_metric(data, factors, metric, adjust=adjust)
        lines += [f"### {metric}", ""]
        if "skipped" in result:
            lines += [f"_Not analysed: {result['skipped']}._", ""]
            continue
        result["anova"].to_csv(out / f"anova_{metric}.csv", index=False)
        note = f"{result['questions']} questions" + (
            f" ({result['dropped']} dropped: missing in some cell)" if result["dropped"] else ""
        )
        lines += [note, "", _markdown(result["anova"]), ""]
        if result["contrasts"]:
            frames = [c.assign(term=t) for t, c in result["contrasts"].items()]
            pd.concat(frames).to_csv(out / f"contrasts_{metric}.csv", index=False)
            for term, table in result["contrasts"].items():
                lines += [f"ART-C contrasts of `{term}` ({adjust}):", "", _markdown(table), ""]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    return out / "report.md"
