"""What a self-training run kept and dropped, read back from its output files (every run's, so a resumed run
reports the whole): kept per source and per refinement kind, the drop reasons, answer lengths, the direct answers.

    report = build_report(Path("runs/data/self_train"), uids, load_stats)
    print(format_report(report))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rqrag.resumable import ResumableJsonl


DATA_FILE, DIRECT_FILE, DROPPED_FILE, REPORT_FILE = "data.jsonl", "direct.jsonl", "dropped.jsonl", "report.json"


def build_report(out: Path, uids: Sequence[str], load_stats: dict) -> dict:
    """Kept per source and per refinement kind, drop reasons, answer lengths, over both files (every run)."""
    wanted = set(uids)
    kept = [r for r in ResumableJsonl(out / DATA_FILE).read() if r["id"] in wanted]
    dropped = [r for r in ResumableJsonl(out / DROPPED_FILE).read() if r["id"] in wanted]
    per_source: dict[str, Counter] = {}
    for r in kept:
        per_source.setdefault(r["metadata"]["source"], Counter())["kept"] += 1
    for r in dropped:
        per_source.setdefault(r["source"], Counter())["dropped"] += 1
    trajectories: dict[str, Counter] = {}
    for by_kind in [r["metadata"]["by_kind"] for r in kept] + [r["by_kind"] for r in dropped]:
        for refinement, counts in by_kind.items():
            trajectories.setdefault(refinement, Counter()).update(counts)
    # records kept before the key was renamed (a resumed run's) name their refinement `kind`
    kept_kinds = Counter(r["metadata"].get("refinement", r["metadata"].get("kind")) for r in kept)
    for refinement in kept_kinds:
        trajectories.setdefault(refinement, Counter())
    direct = [r for r in ResumableJsonl(out / DIRECT_FILE).read() if r["id"] in wanted]
    return {
        "questions": len(kept) + len(dropped),
        "kept": len(kept),
        "per_source": {
            s: {**c, "kept_rate": round(c["kept"] / max(1, c["kept"] + c["dropped"]), 3)}
            for s, c in sorted(per_source.items())
        },
        "per_kind": {k: {**trajectories[k], "kept": kept_kinds[k]} for k in sorted(trajectories)},
        "drop_reasons": dict(Counter(r["reason"] for r in dropped).most_common()),
        "mean_answer_words": mean_words([r["trajectory"]["steps"][-1]["text"] for r in kept]),
        "mean_model_answer_words": mean_words([r["metadata"]["model_answer"] for r in kept]),
        "mean_searches": round(sum(r["metadata"]["n_searches"] for r in kept) / len(kept), 2) if kept else None,
        "direct": {
            "written": len(direct),
            "per_source": dict(Counter(r["metadata"]["source"] for r in direct)),
            "mean_model_words": mean_words([r["metadata"]["model_answer"] for r in direct]),
            "mean_written_words": mean_words([r["trajectory"]["steps"][-1]["text"] for r in direct]),
        },
        "loaded": load_stats,
    }


def mean_words(texts: Sequence[str | None]) -> float | None:
    """Mean words per text, to 2 decimals (None for no texts)."""
    return round(sum(len((t or "").split()) for t in texts) / len(texts), 2) if texts else None


def format_report(report: dict) -> str:
    lines = [f"self-training: {report['kept']} of {report['questions']} questions kept", ""]
    lines.append(f"{'source':<18}{'kept':>6}{'dropped':>9}{'rate':>7}")
    for source, row in report["per_source"].items():
        lines.append(f"{source:<18}{row.get('kept', 0):>6}{row.get('dropped', 0):>9}{row['kept_rate']:>7.2f}")
    lines += ["", "trajectories per refinement kind (finished / right / right+gold found / passed filter / kept):"]
    for refinement, row in report["per_kind"].items():
        cells = "".join(f"{row.get(k, 0):>8}" for k in ("finished", "right", "found", "passed", "kept"))
        lines.append(f"  {refinement:<34}{cells}")
    lines += ["", "drop reasons: " + (", ".join(f"{k} {v}" for k, v in report["drop_reasons"].items()) or "none")]
    lines.append(
        f"answer words: {report['mean_answer_words']} written (model said {report['mean_model_answer_words']}); "
        f"searches per kept trajectory: {report['mean_searches']}"
    )
    direct = report.get("direct") or {}
    if direct.get("written"):
        lines.append(
            f"direct answers the model knew: {direct['written']} written as the short span "
            f"({direct['mean_written_words']} words; the model said {direct['mean_model_words']})"
        )
    return "\n".join(lines)
