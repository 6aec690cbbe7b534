"""Is the retrained model better than the one it would replace? Paired, on the same held-out questions.

Run from the project root on two `rqrag eval` output directories of the same task (the old model first):

    .venv/bin/python scripts/compare_models.py runs/eval_small/hotpotqa_trained runs/eval/hotpotqa_selftrain \\
        [--system rqrag] [--strategy vote] [--metric f1] [--resamples 10000] [--seed 0]
    .venv/bin/python scripts/compare_models.py RUN RUN --old_system no_retrieval   # the tree vs its direct answer

For the questions both runs answered, it prints the mean score of each (`--metric`, with the tree's `--strategy`
selection), the paired bootstrap of new − old (`rqrag.eval.significance`: the difference, its 95 % interval and the
one-sided p of "the new model is no better"), and the mean words of the selected answers, every answer step
counted, so "short answers at every depth" is measured too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rqrag.eval.significance import paired_bootstrap
from rqrag.records import ReadStats, read_records


def load(run: Path, system: str) -> dict[str, dict]:
    """Question id -> record of `system` in `run` (a torn last line is skipped)."""
    path = run / system / "predictions.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path} does not exist: is {run} an `rqrag eval` output directory with {system}?")
    return {r["id"]: r for r in read_records(path, ReadStats())}


def score(record: dict, strategy: str, metric: str) -> float:
    scores = record["scores"]
    return scores.get(strategy, scores.get(record.get("strategy"), next(iter(scores.values()))))[metric]


def answer_step_words(records: Sequence[dict]) -> float | None:
    """Mean words over every answer step of every trajectory (the direct answer included)."""
    counts = [
        len(step["text"].split())
        for r in records
        for t in r.get("trajectories", [])
        for step in t["steps"]
        if step["action"] == "answer"
    ]
    return sum(counts) / len(counts) if counts else None


def compare(old: dict[str, dict], new: dict[str, dict], strategy: str, metric: str, resamples: int, seed: int):
    shared = sorted(set(old) & set(new))
    a = [score(new[q], strategy, metric) for q in shared]
    b = [score(old[q], strategy, metric) for q in shared]
    return {
        "questions": len(shared),
        "old": sum(b) / len(b) if b else None,
        "new": sum(a) / len(a) if a else None,
        "new_minus_old": paired_bootstrap(a, b, resamples=resamples, seed=seed),
        "answer_step_words": {
            "old": answer_step_words([old[q] for q in shared]),
            "new": answer_step_words([new[q] for q in shared]),
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the run of the model in use")
    parser.add_argument("new", type=Path, help="the run of the candidate model")
    parser.add_argument("--system", default="rqrag", help="system directory in both runs (default rqrag)")
    parser.add_argument(
        "--old_system", default=None, help="system directory in the old run when it differs (e.g. no_retrieval)"
    )
    parser.add_argument("--strategy", default="vote", help="the tree's selection compared (default vote)")
    parser.add_argument("--metric", default="f1", help="per-question score compared (default f1)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = compare(
        load(args.old, args.old_system or args.system),
        load(args.new, args.system),
        args.strategy,
        args.metric,
        args.resamples,
        args.seed,
    )
    test = result["new_minus_old"]
    if result["questions"] == 0:
        print("the two runs share no question", file=sys.stderr)
        return 1
    print(
        f"{result['questions']} questions, {args.system}/{args.strategy} {args.metric}"
        + (f" (old: {args.old_system})" if args.old_system else "")
        + f": old {100 * result['old']:.1f}, "
        f"new {100 * result['new']:.1f}; new - old {100 * test['delta']:+.1f} "
        f"(95 % CI {100 * test['ci95'][0]:+.1f} .. {100 * test['ci95'][1]:+.1f}, one-sided p = {test['p']:.3f})"
    )
    words = result["answer_step_words"]
    print(f"answer steps: {words['old']:.1f} words (old), {words['new']:.1f} (new)")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
