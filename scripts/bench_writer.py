"""What writing the answer costs: the same questions through `rqrag.Pipeline` without a writer and with one, in one
run, on this machine.

    python scripts/bench_writer.py                                   # 8 held-out HotpotQA questions, the 1.5B writer
    python scripts/bench_writer.py --writer qwen2.5-0.5b --limit 4 --out runs/bench_writer_05b

For each question, the tree alone (`--writer none`) and then the tree and the writer (`--writer W`) — the same
config (configs/decode/rqrag_trained.yaml), the same greedy tree — and prints the median seconds a question of each,
the seconds the writer adds (the issue's budget: at most 12 s more than the tree alone over the embedded corpus), the
median time to the first checked sentence, and how many answers were written (at least one sentence passed).
Writes rows.jsonl and summary.json to --out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from tqdm import tqdm


def questions(limit: int) -> list[str]:
    from rqrag.eval.tasks import get_task

    task = get_task("hotpotqa")
    examples, _ = task.load(None, "eval", limit)
    return [ex.question for ex in examples]


def timed(pipeline, question: str) -> tuple[float, object]:
    started = time.perf_counter()
    answer = pipeline.ask(question)
    return time.perf_counter() - started, answer


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writer", default="qwen2.5-1.5b", help="the writer to time against none")
    parser.add_argument("--config", default="rqrag_trained", help="the decode config both runs use")
    parser.add_argument("--limit", type=int, default=8, help="how many held-out HotpotQA questions")
    parser.add_argument("--out", default="runs/bench_writer", help="where rows.jsonl and summary.json go")
    args = parser.parse_args(argv)
    from rqrag import Pipeline

    asked = questions(args.limit)
    plain = Pipeline.from_config(args.config, writer="none", query_temperature=0.0)
    written = Pipeline.from_config(args.config, writer=args.writer, query_temperature=0.0)
    timed(plain, asked[0])  # load the tree's model once, outside the timings
    timed(written, asked[0])  # and the writer's
    rows = []
    for question in tqdm(asked, desc="questions"):
        alone, _ = timed(plain, question)
        both, answer = timed(written, question)
        rows.append(
            {
                "question": question,
                "tree_seconds": round(alone, 2),
                "with_writer_seconds": round(both, 2),
                "first_sentence_seconds": answer.timings.get("first_sentence_seconds"),
                "kind": str(answer.kind),
                "answer": answer.text,
            }
        )
    firsts = [r["first_sentence_seconds"] for r in rows if r["first_sentence_seconds"] is not None]
    summary = {
        "writer": args.writer,
        "questions": len(rows),
        "median_tree_seconds": statistics.median(r["tree_seconds"] for r in rows),
        "median_with_writer_seconds": statistics.median(r["with_writer_seconds"] for r in rows),
        "median_added_seconds": statistics.median(r["with_writer_seconds"] - r["tree_seconds"] for r in rows),
        "median_first_sentence_seconds": statistics.median(firsts) if firsts else None,
        "written": sum(r["kind"] == "written" for r in rows),
    }
    summary["ratio"] = round(summary["median_with_writer_seconds"] / summary["median_tree_seconds"], 2)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "rows.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(
        f"tree alone {summary['median_tree_seconds']:.1f} s · with the {args.writer} writer "
        f"{summary['median_with_writer_seconds']:.1f} s (x{summary['ratio']}, +{summary['median_added_seconds']:.1f} s) · "
        f"first checked sentence {summary['median_first_sentence_seconds']} s · written {summary['written']}/{len(rows)}"
    )


if __name__ == "__main__":
    main()
