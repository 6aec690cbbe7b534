"""Read what a model did on held-out questions: each question's tree, path by path, as a person would read it.

Run from the project root on an `rqrag eval` output directory (the tree's system):

    .venv/bin/python scripts/read_trajectories.py runs/eval/selftrain_r1/hotpotqa [--first 5] [--skip 0] \\
        [--ids hotpotqa:5a8c... ...] [--strategy vote] [--evidence_words 12] [--system rqrag]

For each question: the gold answer, the answer the strategy picked (with its F1), then every trajectory — its
queries, the titles its searches found (gold paragraphs marked `*`), and its answer. A score tells how often;
reading tells why (a query naming someone nowhere in the question, a right answer the vote passed over).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rqrag.records import ReadStats, read_records


def describe(record: dict, strategy: str, evidence_words: int) -> str:
    """One question's tree as text: question, gold, the pick and its score, then each path."""
    gold = record.get("gold") or {}
    answers = gold.get("answers") or []
    supporting = set(gold.get("supporting") or [])
    picked = (record.get("selected") or {}).get(strategy)
    score = (record.get("scores") or {}).get(strategy) or {}
    trajectories = record.get("trajectories") or []
    lines = [f"[{record['id']}] {record.get('question', '')}", f"  gold: {' | '.join(answers) or '-'}"]
    if picked is not None and 0 <= picked < len(trajectories):
        shown = ", ".join(f"{k} {100 * v:.0f}" for k, v in score.items())
        lines.append(f"  {strategy} picked path {trajectories[picked]['path_id']} ({shown})")
    for i, t in enumerate(trajectories):
        mark = "→" if i == picked else " "
        lines.append(f"  {mark} path {t['path_id']}")
        for step in t["steps"]:
            if step["action"] == "answer":
                lines.append(f"      answer: {step['text']!r}")
                continue
            lines.append(f"      {step['action']}: {step['text']!r}")
            for hit in step.get("evidence") or []:
                star = "*" if hit.get("docid") in supporting else " "
                words = " ".join(hit.get("text", "").split()[:evidence_words])
                lines.append(f"        {star} {hit.get('title', '')}: {words}…")
        if t.get("error"):
            lines.append(f"      error: {t['error']}")
    return "\n".join(lines)


def pick(records: Sequence[dict], ids: Sequence[str], skip: int, first: int) -> list[dict]:
    """The records asked for: by id (in the order given), else `first` after `skip` in file order."""
    if ids:
        by_id = {r["id"]: r for r in records}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise SystemExit(f"not in the run: {', '.join(missing)}")
        return [by_id[i] for i in ids]
    return list(records[skip : skip + first])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="an `rqrag eval` output directory")
    parser.add_argument("--system", default="rqrag", help="system directory in the run (default rqrag)")
    parser.add_argument("--strategy", default="vote", help="whose pick is marked (default vote)")
    parser.add_argument("--first", type=int, default=5, help="how many questions (default 5)")
    parser.add_argument("--skip", type=int, default=0, help="questions skipped first, in file order")
    parser.add_argument("--ids", nargs="*", default=[], help="these question ids instead")
    parser.add_argument("--evidence_words", type=int, default=12, help="words shown of each passage (default 12)")
    args = parser.parse_args(argv)
    path = args.run / args.system / "predictions.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path} does not exist: is {args.run} an `rqrag eval` output directory?")
    records = list(read_records(path, ReadStats()))
    for record in pick(records, args.ids, args.skip, args.first):
        print(describe(record, args.strategy, args.evidence_words), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
