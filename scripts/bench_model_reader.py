"""Compare readers on the same trees: the feature reader the trees were decided with, and language-model readers.

    python scripts/bench_model_reader.py runs/trees/hotpotqa_eval/rqrag/predictions.jsonl \
        --readers qwen2.5-0.5b:12 qwen2.5-1.5b:12 --limit 60 --out runs/bench_reader

Reads the records of one `rqrag eval` run (each keeps its trajectories' evidence and the question's own search),
gives every reader the same pooled evidence (every passage any path read, then the question's own search) and
decides as the pipeline does (`rqrag.answer.reading.model_decision`: the quote judged, the model's own knowledge labelled).
Prints, per reader, what a person reads: how often the answer or its quote holds the gold, how often a stated answer is right and how many are stated, shown F1, ECE, and
seconds a question, with ratios against the feature reader of the same records. Each reader's records go to
`--out/<reader>.jsonl` (resumable: a rerun skips the ids already there), its summary to `--out/summary.json`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tqdm import tqdm


def replay(records: list[dict], reader_spec: str, out: Path, judge: bool = True) -> list[dict]:
    from rqrag.answer.grounding import ExtractiveQuoter
    from rqrag.answer.reading.model_decision import decide_by_model, judge_for
    from rqrag.answer.reading.model_reader import ModelReader
    from rqrag.fit.decision_fit import pooled_hits
    from rqrag.text.answer_text import answer_f1

    model, _, sentences = reader_spec.partition(":")
    reader = ModelReader(model, int(sentences or 12))
    quoter = ExtractiveQuoter()
    path = out / f"{reader_spec.replace(':', '_')}.jsonl"
    done = {json.loads(line)["id"]: json.loads(line) for line in path.open()} if path.is_file() else {}
    with path.open("a") as sink:
        for record in tqdm(records, desc=reader_spec):
            if record["id"] in done:
                continue
            hits = pooled_hits(record)
            started = time.perf_counter()
            reading = reader.read(record["question"], hits, "en", rank=lambda q, h: quoter.rank_sentences(q, h, "en"))
            shown = decide_by_model(
                reading,
                "en",
                model=reader.name,
                own_knowledge=True,
                recall=reader.recall,
                verify=reader.verify,
                judge=judge_for(model) if judge else None,
            )
            seconds = time.perf_counter() - started
            golds = record["gold"].get("answers") or []
            new = {
                "id": record["id"],
                "question": record["question"],
                "gold": record["gold"],
                "grounded": {**shown.to_dict(), "answer": shown.text, "kind": str(shown.kind)},
                "scores": {"grounded": {"f1": answer_f1(shown.text, golds) if golds else 0.0}},
                "seconds": seconds,
            }
            sink.write(json.dumps(new) + "\n")
            sink.flush()
            done[record["id"]] = new
    return [done[r["id"]] for r in records]


def summary(rows: list[dict]) -> dict:
    from rqrag.eval.benchmark_report import shown_summary

    shown = shown_summary(rows) or {}
    f1 = [r["scores"]["grounded"]["f1"] for r in rows if "grounded" in r.get("scores", {})]
    return {
        "n": len(rows),
        "holds_gold": shown.get("holds_gold"),
        "stated_right": shown.get("stated_precision"),
        "stated_coverage": shown.get("stated_coverage"),
        "shown_f1": 100 * sum(f1) / len(f1) if f1 else None,
        "ece": shown.get("ece"),
        "kinds": shown.get("kinds"),
        "seconds": sum(r.get("seconds", 0.0) for r in rows) / len(rows) if rows else None,
    }


def _fmt(value, scale=100.0, digits=1) -> str:
    return "–" if value is None else f"{scale * value:.{digits}f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("predictions", help="predictions.jsonl of an `rqrag eval` run (system rqrag)")
    parser.add_argument("--readers", nargs="+", default=["qwen2.5-0.5b:12", "qwen2.5-1.5b:12"],
                        help="MODEL:SENTENCES, each read over the same evidence")  # fmt: skip
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--judge", action=argparse.BooleanOptionalAction, default=True,
                        help="decide with the reader's fitted judge (models/reader/<model>/verifier.json) when it "
                        "has one; --no-judge: the yes/no check alone")  # fmt: skip
    parser.add_argument("--out", default="runs/bench_reader")
    args = parser.parse_args(argv)
    records = [json.loads(line) for line in open(args.predictions) if line.strip()]
    records = [r for r in records if r.get("grounded")][: args.limit]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {"features (the records' own decision)": summary(records)}
    for spec in args.readers:
        results[spec] = summary(replay(records, spec, out, judge=args.judge))
    base = results["features (the records' own decision)"]
    print(f"{len(records)} questions of {args.predictions}")
    print(
        "| reader | holds gold | stated right | stated coverage | shown F1 | ECE | s/question | holds gold vs features |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, s in results.items():
        ratio = s["holds_gold"] / base["holds_gold"] if base["holds_gold"] else float("nan")
        print(
            f"| {name} | {_fmt(s['holds_gold'])} % | {_fmt(s['stated_right'])} % | {_fmt(s['stated_coverage'])} % | "
            f"{_fmt(s['shown_f1'], 1.0)} | {_fmt(s['ece'], 1.0, 3)} | {_fmt(s['seconds'], 1.0, 2)} | {ratio:.2f}x |"
        )
    (out / "summary.json").write_text(json.dumps({"predictions": args.predictions, "readers": results}, indent=1))


if __name__ == "__main__":
    main()
