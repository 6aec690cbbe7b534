"""How good are the tree's refined queries, and how much do the selectors get out of the tree?

Run from the project root on one or more `rqrag eval` output directories (each holds `<system>/predictions.jsonl`):

    .venv/bin/python scripts/query_quality.py runs/eval/hotpotqa_trained [runs/eval/hotpotqa_base ...] \\
        [--out runs/eval/query_quality.json] [--metric f1] [--resamples 10000] [--seed 0]

Per run it prints a markdown table to stdout and writes everything to a JSON file (default: `query_quality.json`
in the first run's parent directory, i.e. next to the runs):

* queries of the tree (`rqrag` system; each tree node counted once, however many trajectories pass through it):
  the share that *restate* the question or an earlier query of their trajectory (word-set Jaccard >= 0.8 after
  `normalize_answer`), the share phrased as questions, and the *new-evidence rate*: the share of queries that
  retrieve a gold supporting paragraph the question-alone search missed (that search is the `standard_rag`
  record of the same question when the run has one, else the tree's first search, which is then not counted).
  Only questions whose task knows the gold paragraphs count for the rate.
* the *invented-entity rate*: the share of query nodes that name an entity out of nowhere — a capitalised word
  (`invented_entities`) present neither in the question nor in the evidence (titles and text) read before the query
  on its path, nor in an earlier query of that path ("Dean Martens" for a question about Kiss and Tell). Words
  that are capitalised only as question or function words ("What", "The") do not count.
* per selection strategy: EM/F1 (every metric the records hold), the selected trajectory's gold recall, how
  often it searched, its answer length in words, the *gap closed* (selector - ppl) / (upper bound - ppl), and a
  paired bootstrap of its per-question `--metric` against `standard_rag` and `no_retrieval`: the mean difference,
  its 95 % interval and the one-sided p-value of "the tree is no better" (share of resamples whose mean
  difference is below 0, ties counted half, so identical systems give 0.5).
* per system: answer length in words and gold recall, beside the tree's upper bound.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rqrag.eval.benchmark_report import mean_present
from rqrag.eval.significance import paired_bootstrap
from rqrag.inference.decoding.select import STRATEGIES
from rqrag.records import read_records
from rqrag.text.answer_text import word_jaccard
from rqrag.text.text_quality import invented_entities, restates


TREE, STANDARD, DIRECT = "rqrag", "standard_rag", "no_retrieval"
QUESTION_WORDS = frozenset(
    "who whom whose what which when where why how is are was were do does did can could will would should "
    "has have had may might must shall".split()
)


# ------------------------------------------------------------------------------------------------ pure


jaccard = word_jaccard  # the same test the data construction's query filter applies


def restates_any(query: str, earlier: Sequence[str]) -> bool:
    """Whether the query is (nearly) the same words as one of `earlier` (the question and preceding queries): the
    core's `restates`, the test the data filter and the decoder's guards apply."""
    return any(restates(query, text) for text in earlier)


def phrased_as_question(text: str) -> bool:
    """A query written as a question (a question mark, or a question word first) rather than as search terms."""
    stripped = text.strip()
    first = stripped.split(maxsplit=1)[0].lower().strip("\"'(") if stripped else ""
    return stripped.endswith("?") or first in QUESTION_WORDS


def query_nodes(record: dict) -> list[dict]:
    """The record's queries, one per tree node, each with its evidence docids, the queries before it, and the
    entities it invents (`invented_entities` against the question and everything read before it on its path)."""
    nodes: dict[str, dict] = {}
    for t in record["trajectories"]:
        parts = t["path_id"].split(".")
        earlier: list[str] = []
        seen: list[str] = []
        for i, step in enumerate(t["steps"]):
            if step["action"] == "answer":
                break
            # Step i was generated at node parts[:i+2]; steps given before decoding have no node of their own.
            node = ".".join(parts[: i + 2]) if len(parts) >= i + 2 else f"given.{i}"
            if node not in nodes:
                docids = [h["docid"] for h in step["evidence"]]
                nodes[node] = {
                    "node": node,
                    "text": step["text"],
                    "docids": docids,
                    "earlier": list(earlier),
                    "invented": invented_entities(step["text"], record["question"], seen),
                }
            earlier.append(step["text"])
            seen += [step["text"], *(f"{h.get('title', '')} {h.get('text', '')}" for h in step["evidence"])]
    return [nodes[k] for k in sorted(nodes, key=lambda n: [int(p) if p.isdigit() else -1 for p in n.split(".")])]


def query_stats(records: Sequence[dict], baseline_docids: dict[str, list[str]] | None = None) -> dict:
    """Restatement, question-phrasing and new-evidence shares over every query node of the records.

    `baseline_docids`: question id -> docids of the question-alone search; without it the first query node of
    each question stands in for that search and is left out of the new-evidence rate."""
    n = restated = questions = measured = new = invented = 0
    for r in records:
        nodes = query_nodes(r)
        for q in nodes:
            n += 1
            restated += restates_any(q["text"], [r["question"], *q["earlier"]])
            questions += phrased_as_question(q["text"])
            invented += bool(q["invented"])
        gold = set(r.get("gold", {}).get("supporting", ()))
        if baseline_docids is None:
            given, rated = (nodes[0]["docids"], nodes[1:]) if nodes else (None, [])
        else:
            given, rated = baseline_docids.get(r["id"]), nodes
        if gold and given is not None:
            missed = gold - set(given)
            measured += len(rated)
            new += sum(bool(missed & set(q["docids"])) for q in rated)
    return {
        "queries": n,
        "restated": restated / n if n else None,
        "question_phrased": questions / n if n else None,
        "invented_entity_rate": invented / n if n else None,
        "new_evidence_queries": measured,
        "new_evidence_rate": new / measured if measured else None,
        "baseline": "first_search" if baseline_docids is None else STANDARD,
    }


def gap_closed(selector: float | None, ppl: float | None, upper: float | None) -> float | None:
    """Share of the distance from `ppl` selection to the upper bound that the selector covers."""
    if selector is None or ppl is None or upper is None or upper == ppl:
        return None
    return (selector - ppl) / (upper - ppl)


def question_alone_docids(standard_records: Sequence[dict]) -> dict[str, list[str]]:
    """Question id -> docids of standard RAG's one search with the question itself (its given first step)."""
    found = {}
    for r in standard_records:
        steps = r["trajectories"][0]["steps"] if r["trajectories"] else []
        if steps and steps[0]["action"] != "answer":
            found[r["id"]] = [h["docid"] for h in steps[0]["evidence"]]
    return found


def _word_count(text: str | None) -> int | None:
    return None if text is None else len(text.split())


def _own_score(record: dict, metric: str) -> float:
    """A baseline's score: its single trajectory makes every strategy agree; take the one it ran with."""
    scores = record["scores"]
    return scores.get(record.get("strategy"), next(iter(scores.values())))[metric]


def summarize_run(systems: dict[str, list[dict]], metric: str, resamples: int = 10_000, seed: int = 0) -> dict:
    """Everything the report shows for one run, from its records by system."""
    out: dict = {"systems": {}}
    for name, records in systems.items():
        retrieval = [r["retrieval"] for r in records if "retrieval" in r]
        # A system that never searched has no recall to report, not 0 %.
        searched = any(st["action"] != "answer" for r in records for t in r["trajectories"] for st in t["steps"])
        out["systems"][name] = {
            "questions": len(records),
            "answer_words": mean_present(_word_count(r["prediction"]) for r in records),
            "gold_recall": mean_present(x["recall"] for x in retrieval) if searched else None,
        }
    tree = systems.get(TREE)
    if not tree:
        return out
    by_id = {name: {r["id"]: r for r in records} for name, records in systems.items()}
    out["queries"] = query_stats(tree, question_alone_docids(systems[STANDARD]) if STANDARD in systems else None)
    metrics = list(tree[0]["oracle"])
    out["upper_bound"] = {m: mean_present(r["oracle"][m] for r in tree) for m in metrics}
    out["upper_bound"]["gold_recall"] = mean_present(r["retrieval"]["recall_max"] for r in tree if "retrieval" in r)
    names = [s for s in STRATEGIES if all(s in r["scores"] for r in tree)]  # runs older than a strategy lack it
    out["strategies"] = {}
    for s in names:
        chosen = [r["trajectories"][r["selected"][s]] if s in r["selected"] else None for r in tree]
        row = {m: mean_present(r["scores"][s][m] for r in tree) for m in metrics}
        row["gold_recall"] = mean_present(
            r["retrieval"]["recall_by_trajectory"][r["selected"][s]]
            for r in tree
            if "retrieval" in r and s in r["selected"]
        )
        row["searched"] = mean_present(
            None if t is None else any(st["action"] != "answer" for st in t["steps"]) for t in chosen
        )
        row["answer_words"] = mean_present(None if t is None else _word_count(t["answer"]) for t in chosen)
        for other in (STANDARD, DIRECT):
            pairs = [
                (r["scores"][s][metric], _own_score(by_id[other][r["id"]], metric))
                for r in tree
                if r["id"] in by_id.get(other, {})
            ]
            if pairs:
                row[f"vs_{other}"] = paired_bootstrap(*zip(*pairs), resamples=resamples, seed=seed)
        out["strategies"][s] = row
    ppl = out["strategies"].get("ppl", {}).get(metric)
    for row in out["strategies"].values():
        row["gap_closed"] = gap_closed(row.get(metric), ppl, out["upper_bound"].get(metric))
    return out


# ----------------------------------------------------------------------------------------------- I/O


def read_run(run: Path) -> dict[str, list[dict]]:
    systems = {}
    for path in sorted(run.glob("*/predictions.jsonl")):
        # A run killed mid-write leaves a torn last line (`rqrag eval --resume` cuts it); skip it here too.
        records = list(read_records(path))
        if records:
            systems[path.parent.name] = records
    return systems


def pick_metric(systems: dict[str, list[dict]], wanted: str) -> str:
    """`wanted` if the records score it (EM/F1 tasks), else the first metric they do (acc, match, str_em)."""
    scores = next(iter(next(iter(systems.values()))[0]["scores"].values()))
    return wanted if wanted in scores else next(iter(scores))


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _num(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _test(result: dict | None) -> str:
    if not result:
        return "–"
    return f"{100 * result['delta']:+.1f} (p={result['p']:.3f})"


def markdown(run: str, summary: dict, metric: str) -> str:
    lines = [f"## {run}", ""]
    q = summary.get("queries")
    if q:
        lines += [
            f"Tree queries: {q['queries']}; restate question/earlier query {_pct(q['restated'])} %; phrased as "
            f"questions {_pct(q['question_phrased'])} %; inventing an entity {_pct(q.get('invented_entity_rate'))} %; "
            f"new-evidence rate {_pct(q['new_evidence_rate'])} % of "
            f"{q['new_evidence_queries']} (question-alone search: {q['baseline']}).",
            "",
        ]
    lines += ["| system | n | answer words | gold recall |", "|---|---:|---:|---:|"]
    for name, s in summary["systems"].items():
        lines.append(f"| {name} | {s['questions']} | {_num(s['answer_words'])} | {_pct(s['gold_recall'])} |")
    strategies = summary.get("strategies")
    if strategies:
        metrics = [m for m in summary["upper_bound"] if m != "gold_recall"]
        head = ["strategy", *metrics, "gold recall", "searched", "answer words", "gap closed"]
        head += [f"Δ{metric} vs {STANDARD}", f"Δ{metric} vs {DIRECT}"]
        lines += ["", "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        for name, row in strategies.items():
            cells = [_pct(row[m]) for m in metrics] + [_pct(row["gold_recall"]), _pct(row["searched"])]
            cells += [_num(row["answer_words"]), _num(row["gap_closed"])]
            cells += [_test(row.get(f"vs_{STANDARD}")), _test(row.get(f"vs_{DIRECT}"))]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        upper = summary["upper_bound"]
        cells = (
            [_pct(upper[m]) for m in metrics] + [_pct(upper["gold_recall"])] + ["–"] * (len(head) - len(metrics) - 2)
        )
        lines.append("| upper bound | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="rqrag eval output directories")
    parser.add_argument("--out", type=Path, default=None, help="JSON summary (default: next to the first run)")
    parser.add_argument("--metric", default="f1", help="metric compared by the bootstrap and the gap (default f1)")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    args = parser.parse_args(argv)
    report = {"metric": args.metric, "resamples": args.resamples, "seed": args.seed, "runs": {}}
    for run in args.runs:
        systems = read_run(run)
        if not systems:
            print(f"skipping {run}: no <system>/predictions.jsonl", file=sys.stderr)
            continue
        metric = pick_metric(systems, args.metric)
        summary = {"metric": metric, **summarize_run(systems, metric, args.resamples, args.seed)}
        report["runs"][str(run)] = summary
        print(markdown(str(run), summary, metric))
    if not report["runs"]:
        return 1
    out = args.out or args.runs[0].resolve().parent / "query_quality.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"summary: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
