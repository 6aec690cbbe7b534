"""Decide recorded trees again with a verifier and score what a user would read, per benchmark.

    python scripts/replay_decisions.py runs/verifier/selftrain/eval \
        --verifier models/rqrag-smollm2-135m-selftrain/verifier --out runs/verifier/selftrain/decided
    python scripts/replay_decisions.py runs/verifier/shipped/eval --today af6b499 --out runs/verifier/shipped/decided

For every `<task>/rqrag/predictions.jsonl` under the folders (`rqrag eval`, e.g. scripts/verifier_trees.sh), each
tree goes through the answer pipeline's last step with the verifier (rqrag.eval.decision_replay) and the table
gives, per benchmark: the shown answer's F1, vote and the best path's F1 of the same trees, the kinds shown, the
precision of `generated` with its coverage, how often a quote holds a gold answer and its length, and the
calibration error of the best candidate's p. `--today COMMIT` also decides the same trees by the rule of that
commit (its answer/grounding.py `ground`: the first answer the strategy prefers that its own path's passages
support) and adds the paired bootstrap of new minus today. Writes `decided_<task>.jsonl` and `summary.json`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import types
from pathlib import Path

from rqrag.answer.messages import AnswerKind
from rqrag.answer.pipeline import AnswerPipeline
from rqrag.answer.verifier import Verifier
from rqrag.config_loader import save_resolved_config
from rqrag.eval.decision_replay import replay, summarize
from rqrag.eval.significance import paired_bootstrap
from rqrag.records import read_records


def today_rule(commit: str):
    """`ground` of answer/grounding.py at `commit`, loaded from git (it imports only the core)."""
    source = subprocess.run(
        ["git", "show", f"{commit}:answer/grounding.py"], capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType("grounding_at_" + commit)
    sys.modules[module.__name__] = module  # its dataclasses look their module up
    exec(compile(source, f"{commit}:answer/grounding.py", "exec"), module.__dict__)
    return module.ground


def today_scores(records: list[dict], commit: str) -> list[float]:
    """F1 of what the rule of `commit` showed on each recorded tree (its quoter; its answers checked against whole
    passages, as that commit's pipeline did after its first quote: its default quoter, once set, turned the
    relevant-sentence narrowing off)."""
    from rqrag.answer.extractive import ExtractiveAnswerer
    from rqrag.eval.saved_trees import golds
    from rqrag.inference.decoding.tree import QuestionResult
    from rqrag.text.answer_text import answer_f1

    ground = today_rule(commit)
    answerer = ExtractiveAnswerer(language="en", max_sentences=3)  # that commit's quote: up to 3 sentences
    scores = []
    for record in records:
        result = QuestionResult.from_record(record)
        shown = ground(result, record.get("strategy", "vote"), record["question"], "en", answerer.quote)
        text = shown.text if shown.kind.states_an_answer else ""
        scores.append(answer_f1(text, golds(record)) if text else 0.0)
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[2], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("runs", nargs="+", help="folders holding <task>/rqrag/predictions.jsonl")
    parser.add_argument(
        "--verifier", default=None, help="a verifier.json or its folder (default: the default model's)"
    )
    parser.add_argument("--min_confidence", type=float, default=None, help="instead of the verifier's threshold")
    parser.add_argument("--today", default=None, help="a git commit whose grounding rule to compare against")
    parser.add_argument("--out", required=True)
    parser.add_argument("--reader", default=None, help="a reader.json or its folder (default: the shipped reader)")
    parser.add_argument("--no_reader", action="store_true", help="decide without the reader (the rule before it)")
    args = parser.parse_args(argv)
    verifier = Verifier.load(args.verifier) if args.verifier else Verifier.for_model(None)
    from rqrag.answer.reading.span_reader import Reader, ReaderModel

    reader = Reader(ReaderModel.load(args.reader)) if args.reader else Reader.default()
    pipeline = AnswerPipeline(None, verifier=verifier, reader=False if args.no_reader else reader)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    save_resolved_config(out, "scripts/replay_decisions.py")
    threshold = verifier.threshold if args.min_confidence is None else args.min_confidence
    summary = {"verifier": verifier.source, "threshold": threshold, "tasks": {}}
    header = "| task | n | holds gold | shown F1 | vote F1 | best path F1 | generated / quoted / none | precision of generated | coverage | quote holds gold | quote words | ECE |"
    print(header)
    print("|---|" + "---:|" * 11)
    for predictions in sorted(p for run in args.runs for p in Path(run).rglob("predictions.jsonl")):
        task = predictions.parent.parent.name
        records = list(read_records(predictions))
        from rqrag.fit.reader_fit import own_searches

        searched = {} if args.no_reader else own_searches([(task, r) for r in records], 3)
        rows = replay(records, pipeline, min_confidence=args.min_confidence, searched=searched)
        with open(out / f"decided_{task}.jsonl", "w") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        s = summarize(rows)
        if args.today:
            old = today_scores(records, args.today)
            s["today_f1"] = 100 * sum(old) / len(old)
            s["vs_today"] = paired_bootstrap([r["f1"] for r in rows], old)
        summary["tasks"][task] = s
        k = s["kinds"]
        none = k.get(AnswerKind.NO_ANSWER, 0) + k.get(AnswerKind.NOT_FOUND, 0)
        fmt = lambda v, pct=True: "–" if v is None else (f"{100 * v:.1f} %" if pct else f"{v:.1f}")  # noqa: E731
        ece = "–" if s["ece_best_candidate"] is None else f"{s['ece_best_candidate']:.3f}"
        print(
            f"| {task} | {s['n']} | {fmt(s['holds_gold'])} | {s['shown_f1']:.1f} | {s['vote_f1']:.1f} | {s['oracle_f1']:.1f} | "
            f"{k.get('generated', 0)} / {k.get('quoted', 0)} / {none} | {fmt(s['generated_precision'])} | "
            f"{fmt(s['coverage'])} | {fmt(s['quoted_holds_gold'])} | {fmt(s['quote_words'], False)} | "
            f"{ece} |"
        )
        if args.today:
            b = s["vs_today"]
            print(
                f"    today's rule ({args.today}): F1 {s['today_f1']:.1f}; new - today {100 * b['delta']:+.1f} "
                f"(95 % CI {100 * b['ci95'][0]:+.1f}..{100 * b['ci95'][1]:+.1f}, one-sided p {b['p']:.3f})"
            )
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"rows and summary.json in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
