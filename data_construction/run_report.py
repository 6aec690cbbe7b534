"""The run report: what was kept, what was dropped and why, and how augmentation changed example lengths.

Computed from the output files themselves (not from in-memory counters), so a run resumed three times
reports on the whole dataset. Writes `report.json` and `lengths.png` (token lengths before and after
augmentation, the paper's Fig. 6) next to `data.jsonl`.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from rqrag.data_construction.pipeline import DATA_FILE, DROPPED_FILE, RunResult
from rqrag.resumable import ResumableJsonl


def _length_summary(values: list[int]) -> dict[str, float]:
    if not values:
        return {}
    arr = np.asarray(values)
    return {
        "mean": round(float(arr.mean()), 1),
        "median": float(np.median(arr)),
        "p95": float(np.percentile(arr, 95)),
        "max": int(arr.max()),
    }


def summarise(out_dir: Path) -> dict[str, Any]:
    kept_by_category: Counter[str] = Counter()
    kept_by_source: Counter[str] = Counter()
    refinement: Counter[str] = Counter()
    annotator: Counter[str] = Counter()
    queries: Counter[int] = Counter()
    filtered: dict[str, Counter[str]] = defaultdict(Counter)  # source -> refinements the query filter dropped
    before, after = [], []
    for record in ResumableJsonl(out_dir / DATA_FILE).read():
        meta = record["metadata"]
        kept_by_category[meta["category"]] += 1
        kept_by_source[meta["source"]] += 1
        refinement[meta["refinement"]] += 1
        annotator[f"queries:{meta['annotator']}/answer:{meta['answer_source']}"] += 1
        queries[meta["n_queries"]] += 1
        filtered[meta["source"]].update(meta.get("queries_filtered") or {})
        filtered[meta["source"]]["kept"] += meta["n_queries"]
        before.append(meta["n_tokens_original"])
        after.append(meta["n_tokens"])
    drops: dict[str, Counter[str]] = defaultdict(Counter)
    for record in ResumableJsonl(out_dir / DROPPED_FILE).read():
        drops[record["category"]][record["reason"]] += 1
        filtered[record["source"]].update(record.get("queries_filtered") or {})
    categories = sorted(set(kept_by_category) | set(drops))
    return {
        "kept": sum(kept_by_category.values()),
        "dropped": sum(sum(c.values()) for c in drops.values()),
        "per_category": {
            c: {
                "kept": kept_by_category[c],
                "dropped": sum(drops[c].values()),
                "drop_reasons": dict(drops[c].most_common()),
            }
            for c in categories
        },
        "kept_per_source": dict(kept_by_source.most_common()),
        "refinement": dict(refinement.most_common()),
        "annotator": dict(annotator.most_common()),
        "queries_per_example": {str(k): v for k, v in sorted(queries.items())},
        "query_filter": {source: dict(c.most_common()) for source, c in sorted(filtered.items()) if c},
        "tokens_before": _length_summary(before),
        "tokens_after": _length_summary(after),
        "_lengths": (before, after),
    }


def plot_lengths(before: list[int], after: list[int], path: Path) -> Path | None:
    if not after:
        return None
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    bins = np.histogram_bin_edges(np.concatenate([before, after]), bins=40)
    ax.hist(before, bins=bins, alpha=0.6, label=f"original (median {np.median(before):.0f})")
    ax.hist(after, bins=bins, alpha=0.6, label=f"search-augmented (median {np.median(after):.0f})")
    ax.set_xlabel("tokens per example (chat prompt + assistant turn)")
    ax.set_ylabel("examples")
    ax.set_title(f"Example length before and after augmentation (n = {len(after)})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_report(result: RunResult) -> dict[str, Any]:
    out_dir = result.out_dir
    report = summarise(out_dir)
    before, after = report.pop("_lengths")
    report["this_run"] = {
        "written": result.written,
        "dropped": result.dropped,
        "pending_endpoint_unreachable": result.pending,
        "already_done": result.skipped_done,
        "stopped_early": result.stopped_early,
        "llm": result.llm_stats,
    }
    report["inputs"] = {
        name: {
            "records_read": st.read.read,
            "malformed_lines": st.read.skipped,
            "malformed_examples": [f"line {n}: {why}" for n, why in st.read.malformed[:5]],
            "unusable_records": st.unusable,
            "outside_split": st.outside_split,
            "selected": st.selected,
        }
        for name, st in result.sources.items()
    }
    plot = plot_lengths(before, after, out_dir / "lengths.png")
    report["plot"] = plot.name if plot else None
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def format_report(report: dict[str, Any]) -> str:
    lines = [f"kept {report['kept']}, dropped {report['dropped']}"]
    lines.append(f"{'category':<14}{'kept':>7}{'dropped':>9}  drop reasons")
    for category, row in report["per_category"].items():
        reasons = ", ".join(f"{r} {n}" for r, n in row["drop_reasons"].items()) or "-"
        lines.append(f"{category:<14}{row['kept']:>7}{row['dropped']:>9}  {reasons}")
    if report.get("query_filter"):
        lines.append("refinements kept / dropped by the query filter, per source:")
        for source, counts in report["query_filter"].items():
            reasons = ", ".join(f"{r} {n}" for r, n in counts.items() if r != "kept") or "none dropped"
            lines.append(f"  {source:<18} kept {counts.get('kept', 0):>4}  dropped: {reasons}")
    if report["tokens_after"]:
        b, a = report["tokens_before"], report["tokens_after"]
        lines.append(
            f"tokens per example: median {b['median']:.0f} -> {a['median']:.0f}, p95 {b['p95']:.0f} -> {a['p95']:.0f}"
        )
    bad = {n: s["malformed_lines"] for n, s in report["inputs"].items() if s["malformed_lines"]}
    if bad:
        lines.append(f"malformed input lines skipped: {bad}")
    return "\n".join(lines)
