"""Questions inside and outside the embedded corpus, answered through the Python API, scored by what a person reads.

    python scripts/eval_library_edges.py --readers features qwen2.5-1.5b --out runs/library_edges
    python scripts/eval_library_edges.py --readers qwen2.5-0.5b --extra max_depth=1 --limit 10
    python scripts/eval_library_edges.py --readers features --questions tests/data/library_edges_tuning/questions.jsonl

The 60 questions of `tests/data/library_edges/questions.jsonl` (kept out of all tuning; its README says how they were
made), or of `--questions` (the tuning half, where settings are chosen), are asked one at a time with `Pipeline.from_config(--config, reader=...)`, the documented API. Per reader and
per side (inside / outside the corpus), in English and Portuguese:

* **holds gold** — the answer, or the quote shown under it, holds a gold answer;
* **wrong** — an answer was shown (generated or quoted) that does not hold the gold;
* **wrong as a quote** — of those, shown with a quotation from a source: the confident-looking failure;
* **unsourced** — the model's own answer, shown first and said to have no source (counted in wrong when wrong);
* **says not found** — the answer says the sources do not hold it.

Each answer is written to `--out/<reader>.jsonl` as it comes (a rerun skips the ids already there) and the table to
`--out/summary.json`, with the resolved settings.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tqdm import tqdm


ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "data" / "library_edges" / "questions.jsonl"


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def ask_all(questions: list[dict], reader: str, config: str, extra: dict, out: Path) -> list[dict]:
    from rqrag import Pipeline
    from rqrag.eval.metrics import holds_gold

    path = out / f"{reader.replace('/', '_')}.jsonl"
    done = {}
    if path.is_file():
        done = {r["id"]: r for r in map(json.loads, path.read_text().splitlines()) if r.get("id")}
    pipeline = None
    with path.open("a") as sink:
        for q in tqdm([q for q in questions if q["id"] not in done], desc=reader):
            pipeline = pipeline or Pipeline.from_config(config, reader=reader, **extra)
            started = time.perf_counter()
            answer = pipeline.ask(q["question"])
            seconds = time.perf_counter() - started
            quote = (answer.grounded.quote.text if answer.grounded and answer.grounded.quote else "") or ""
            if answer.kind == "written":  # every cited source's sentence is read under a written answer
                quote = "\n".join(s["quote"] for s in answer.sources if s.get("cited") and s.get("quote"))
            kind = str(answer.kind)
            shown = answer.kind.is_read_as_answer  # the model's own answer is read as an answer too
            holds = shown and (holds_gold(answer.text, q["answers"], q["question"]) or holds_gold(quote, q["answers"]))
            row = {
                **q,
                "reader": reader,
                "text": answer.text,
                "kind": kind,
                "quote": quote,
                "holds": bool(holds),
                "wrong": shown and not holds,
                "wrong_quoted": shown and not holds and bool(quote or kind == "quoted"),
                "not_found": not shown,
                "unsourced": kind == "unsourced",
                "seconds": round(seconds, 2),
                "sources": [{k: s.get(k) for k in ("docid", "title", "text", "cited")} for s in answer.sources],
            }
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
            sink.flush()
            done[q["id"]] = row
    return [done[q["id"]] for q in questions if q["id"] in done]


def table(rows: list[dict]) -> dict:
    out = {}
    for where in ("inside", "outside"):
        for language in ("en", "pt", "all"):
            part = [r for r in rows if r["where"] == where and (language == "all" or r["language"] == language)]
            if not part:
                continue
            n = len(part)
            out[f"{where}/{language}"] = {
                "n": n,
                "holds_gold": sum(r["holds"] for r in part) / n,
                "wrong": sum(r["wrong"] for r in part) / n,
                "wrong_quoted": sum(r["wrong_quoted"] for r in part),
                "not_found": sum(r["not_found"] for r in part) / n,
                "unsourced": sum(r.get("unsourced", False) for r in part),
                "seconds": sum(r["seconds"] for r in part) / n,
            }
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readers", nargs="+", default=["features", "qwen2.5-1.5b"])
    parser.add_argument("--config", default="rqrag_trained", help="a shipped decode config or a YAML path")
    parser.add_argument("--extra", nargs="*", default=[], help="KEY=VALUE DecodeConfig overrides, e.g. max_depth=1")
    parser.add_argument(
        "--questions",
        default=str(QUESTIONS),
        help="a questions file; the tuning half: tests/data/library_edges_tuning",
    )
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each side")
    parser.add_argument("--out", default="runs/library_edges")
    args = parser.parse_args(argv)
    extra = {k: _value(v) for k, v in (item.split("=", 1) for item in args.extra)}
    extra.setdefault("query_temperature", 0.0)  # the same tree every run, as the eval configs
    questions_file = Path(args.questions)
    questions = [json.loads(line) for line in questions_file.read_text().splitlines() if line.strip()]
    if args.limit:
        questions = [q for w in ("inside", "outside") for q in [q for q in questions if q["where"] == w][: args.limit]]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {reader: table(ask_all(questions, reader, args.config, extra, out)) for reader in args.readers}
    print("| reader | side | n | holds gold | wrong | wrong as a quote | unsourced | says not found | s/question |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for reader, sides in results.items():
        for side, s in sides.items():
            print(
                f"| {reader} | {side} | {s['n']} | {100 * s['holds_gold']:.0f} % | {100 * s['wrong']:.0f} % | "
                f"{s['wrong_quoted']} | {s['unsourced']} | {100 * s['not_found']:.0f} % | {s['seconds']:.1f} |"
            )
    settings = {"config": args.config, "extra": extra, "questions": str(questions_file)}
    (out / "summary.json").write_text(json.dumps({"settings": settings, "readers": results}, indent=1))


if __name__ == "__main__":
    main()
