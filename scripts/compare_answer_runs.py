"""Whether a change left the answers alone: two runs of the same questions compared record by record.

    python scripts/compare_answer_runs.py runs/before/hotpotqa runs/after/hotpotqa    # rqrag eval output dirs
    python scripts/compare_answer_runs.py runs/answers/before runs/answers/after      # eval_document_answers.py

Reads every `predictions.jsonl` (rqrag eval: one per system) or `answers.jsonl` (scripts/eval_document_answers.py)
under each folder, pairs records by file and id, and compares what a person reads: the answer shown, its kind and
its confidence (to 1e-6). Prints each difference and a count; exits 1 when any answer, kind or confidence differs
or a record is missing on one side. Timings and other bookkeeping are not compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


# each field compared where either record has it: rqrag eval records (the tree's answer, the answer shown and its
# kind and confidence) and document answers (the answer shown, its kind, the model's answer)
COMPARED = ("prediction", "grounded.text", "grounded.kind", "answer", "answer_kind", "generated_answer")
CONFIDENCE = "grounded.confidence"
TOLERANCE = 1e-6


def _field(record: dict, name: str):
    """`record`'s value at a dotted `name` ("grounded.kind"), None where it has none."""
    value = record
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def records(folder: Path) -> dict[tuple[str, str], dict]:
    found = {}
    for path in sorted([*folder.rglob("predictions.jsonl"), *folder.rglob("answers.jsonl")]):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            found[(str(path.relative_to(folder)), record["id"])] = record
    return found


def differences(before: dict, after: dict) -> list[str]:
    found = [f"{key}: only before" for key in sorted(before.keys() - after.keys())]
    found += [f"{key}: only after" for key in sorted(after.keys() - before.keys())]
    for key in sorted(before.keys() & after.keys()):
        old, new = before[key], after[key]
        for name in COMPARED:
            if _field(old, name) != _field(new, name):
                found.append(f"{key}: {name} {_field(old, name)!r} -> {_field(new, name)!r}")
        p, q = _field(old, CONFIDENCE), _field(new, CONFIDENCE)
        if (p is None) != (q is None) or (p is not None and abs(p - q) > TOLERANCE):
            found.append(f"{key}: confidence {p} -> {q}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    before, after = records(args.before), records(args.after)
    if not before:
        parser.error(f"no predictions.jsonl or answers.jsonl under {args.before}")
    found = differences(before, after)
    print("\n".join(found))
    print(f"{len(before)} records before, {len(after)} after: {len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
