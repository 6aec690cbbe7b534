"""Which claim check lets no unsupported sentence through: every mode of `rqrag.answer.claim_check` on hand-labelled
(sentence, passage) pairs, English and Portuguese, with swapped roles, dates, places and merged sentences.

    python scripts/eval_claim_check.py                                  # the 1.5B judge, both halves
    python scripts/eval_claim_check.py --model qwen2.5-0.5b --out runs/claim_check/05b

For each mode and each half (tuning, held out): supported pairs shown (recall), unsupported pairs shown (what must be
0), per kind; and for the judged modes the p(yes) of every pair, so the floor (`--claim_min_p`) is chosen on the
tuning half as the lowest p that shows no unsupported tuning pair. Writes results.json and the table to --out.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

from rqrag.answer.claim_check import CHECK_MODES, ClaimCheck
from rqrag.answer.writer_models import LocalChatModel
from rqrag.retrieval.base import Hit


ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "tests" / "data" / "claim_pairs" / "pairs.jsonl"


def load_pairs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def run_mode(mode: str, pairs: list[dict], model) -> list[dict]:
    """Each pair's verdict under `mode` (judged modes with a floor of 0: the p is kept, the floor applied later)."""
    check = ClaimCheck(model.yes_probability if "judge" in mode else None, mode, min_p=0.0, ask=model.complete)
    if mode == "ordered":
        check.ask = None  # the model is not asked: the order check is read off the words
    out = []
    for pair in tqdm(pairs, desc=mode, unit="pair"):
        hit = Hit(pair["id"], pair.get("title", ""), pair["passage"], 1.0)
        verdict = check.check(pair["sentence"], [hit], "", pair["language"])
        out.append(
            {"id": pair["id"], "ok": verdict.ok, "reason": verdict.reason, "p": verdict.p, "term": verdict.term}
        )
    return out


def shown(row: dict, floor: float) -> bool:
    """Whether a pair is shown at `floor`: passed the steps before the judge, and a judged p at the floor or above."""
    return row["ok"] and (row["p"] is None or row["p"] >= floor)


def floor_for(rows: list[dict], pairs: list[dict]) -> float:
    """The lowest floor that shows no unsupported tuning pair (p's just above the highest unsupported one)."""
    worst = [r["p"] for r, p in zip(rows, pairs) if p["label"] == "unsupported" and r["ok"] and r["p"] is not None]
    return min(1.0, max(worst) + 1e-6) if worst else 0.5


def tally(rows: list[dict], pairs: list[dict], floor: float) -> dict:
    counts: dict = defaultdict(lambda: [0, 0])
    for row, pair in zip(rows, pairs):
        key = (pair["split"], pair["language"], pair["label"])
        counts[key][0] += shown(row, floor)
        counts[key][1] += 1
    return {" ".join(k): f"{a}/{b}" for k, (a, b) in sorted(counts.items())}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", default=str(PAIRS), help="the labelled pairs (JSONL)")
    parser.add_argument("--model", default="qwen2.5-1.5b", help="the judge: a reader model key or a .gguf path")
    parser.add_argument("--modes", nargs="+", default=list(CHECK_MODES), help="claim check modes to compare")
    parser.add_argument("--out", default="runs/claim_check/15b", help="where results.json and table.md go")
    args = parser.parse_args(argv)
    pairs = load_pairs(Path(args.pairs))
    model = LocalChatModel(args.model)
    tuning = [i for i, p in enumerate(pairs) if p["split"] == "tuning"]
    results, lines = (
        {},
        ["| mode | floor (from tuning) | half | shown: supported | shown: unsupported | seconds a pair |"],
    )
    lines.append("|---|---:|---|---:|---:|---:|")
    for mode in args.modes:
        started = time.perf_counter()
        rows = run_mode(mode, pairs, model)
        seconds = (time.perf_counter() - started) / max(len(pairs), 1)
        floor = floor_for([rows[i] for i in tuning], [pairs[i] for i in tuning]) if "judge" in mode else 0.0
        results[mode] = {"floor": floor, "rows": rows, "tally": tally(rows, pairs, floor), "seconds": seconds}
        for half in ("tuning", "heldout"):
            idx = [i for i, p in enumerate(pairs) if p["split"] == half]
            sup = [i for i in idx if pairs[i]["label"] == "supported"]
            uns = [i for i in idx if pairs[i]["label"] == "unsupported"]
            a = sum(shown(rows[i], floor) for i in sup)
            b = sum(shown(rows[i], floor) for i in uns)
            lines.append(f"| {mode} | {floor:.3f} | {half} | {a}/{len(sup)} | {b}/{len(uns)} | {seconds:.2f} |")
        leaked = [
            pairs[i]["id"] + ":" + pairs[i]["kind"]
            for i in range(len(pairs))
            if pairs[i]["label"] == "unsupported" and shown(rows[i], floor)
        ]
        results[mode]["unsupported_shown"] = leaked
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    table = "\n".join(lines)
    (out / "table.md").write_text(table + "\n")
    print(table)
    for mode, r in results.items():
        print(mode, "unsupported shown:", ", ".join(r["unsupported_shown"]) or "none")


if __name__ == "__main__":
    main()
