"""Fitting the judge of a model reader's answers on training ids: when is the answer it found shown?

The reader model (`rqrag.answer.reading.model_reader`) reads the pooled evidence of each *training* tree twice:

* **its own evidence** (every passage the tree read and the question's own search): the answer is right or wrong
  against the gold (`is_correct`, the verifier's label);
* **another question's evidence** (the tree `shift` places further on): the library does not hold the answer, so an
  answer shown there is wrong unless it happens to be the gold. These are the cases outside the library, made from
  training data only; the held-out outside-the-library set (tests/data/library_edges) is never seen here.

Each reading whose answer a sentence holds (`model_decision.stating`) becomes a row of `READING_FEATURES` with its
label; `rqrag.fit.verifier_fit.fit_verifier` then fits the same logistic form as the tree's verifier, with
out-of-fold p for the threshold (the precision target) and the calibration. Readings are cached one JSON line each
(resumable: a rerun reads only what is missing).

    rows = collect(records, ModelReader("qwen2.5-1.5b"), Path("runs/judge/readings.jsonl"))
    judge, report = fit_judge(rows, target=0.75)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

from rqrag.answer.candidate_answers import is_correct
from rqrag.answer.verifier import READING_FEATURES
from rqrag.eval.saved_trees import golds, refuse_eval_ids
from rqrag.fit.verifier_fit import CandidateTable, cross_fit, fit_verifier
from rqrag.retrieval.base import Hit


def pooled_hits(record: dict) -> list[Hit]:
    """Every passage any path of an `rqrag eval` record read, each once, then the question's own search."""
    seen: dict[str, Hit] = {}
    passages = [e for t in record.get("trajectories", []) for s in t.get("steps", []) for e in s.get("evidence", [])]
    for e in passages + list(record.get("question_search") or []):
        seen.setdefault(e["docid"], Hit(e["docid"], e.get("title", ""), e["text"], float(e.get("score", 0.0)), {}))
    return list(seen.values())


def without_answer(hits: Sequence[Hit], answers: Sequence[str]) -> list[Hit]:
    """The passages that hold none of `answers` (normalised, as whole words)."""
    from rqrag.text.answer_text import normalize_answer

    wanted = [f" {normalize_answer(a)} " for a in answers if normalize_answer(a)]
    return [h for h in hits if not any(w in f" {normalize_answer(h.title + ' ' + h.text)} " for w in wanted)]


def reading_row(
    question: str, gold: Sequence[str], hits: Sequence[Hit], reader, quoter, language: str, verify: bool = False
) -> dict:
    """One reading of `hits` for `question`, decided without a judge, with its features when an answer was found
    (`verify`: also ask the reader's yes/no check, the "verified" feature; else it reads 0.5)."""
    from rqrag.answer.reading.model_decision import decide_by_model

    reading = reader.read(question, hits, language, rank=lambda q, h: quoter.rank_sentences(q, h, language))
    shown = decide_by_model(reading, language, model=reader.name, verify=reader.verify if verify else None)
    described = shown.candidates[0] if shown.candidates else {}
    features = described.get("features")
    return {
        "answer": reading.answer,
        "reply": reading.reply,
        "p": round(reading.p, 4),
        "features": features,
        "label": int(is_correct(reading.answer, list(gold), question)) if features and reading.answer else None,
        "seconds": round(reading.seconds, 3),
    }


def collect(
    records: Sequence[dict],
    reader,
    out: Path,
    shift: int = 7,
    language: str = "en",
    verify: bool = False,
    distractors: bool = False,
) -> list[dict]:
    """Each training record read on its own evidence and on the evidence of the record `shift` places on (a library
    about something else); with `distractors`, also on its own evidence without the passages that hold a gold
    answer (the same topic, the answer missing: what a question outside the library meets, since search still finds
    pages about its words; the shipped judge was fitted without them)."""
    from rqrag.answer.grounding import ExtractiveQuoter

    refuse_eval_ids([(r["id"].split(":", 1)[0], r) for r in records])
    quoter = ExtractiveQuoter()
    done = {}
    if out.is_file():
        for line in out.open():
            row = json.loads(line)
            done[(row["id"], row["evidence"])] = row
    jobs = [(r, r, "own") for r in records]
    jobs += [(r, records[(i + shift) % len(records)], "other") for i, r in enumerate(records) if len(records) > 1]
    jobs += [(r, r, "distractors") for r in records] if distractors else []
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as sink:
        for record, source, evidence in tqdm(jobs, desc=f"reading with {reader.name}", unit="reading"):
            if (record["id"], evidence) in done:
                continue
            row = {
                "id": record["id"],
                "language": language,
                "evidence": evidence,
                "evidence_of": source["id"],
                "question": record["question"],
            }
            hits = pooled_hits(source)
            if evidence == "distractors":
                hits = without_answer(hits, golds(record))
            row.update(reading_row(record["question"], golds(record), hits, reader, quoter, language, verify))
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            done[(record["id"], evidence)] = row
    return [done[(r["id"], e)] for r, _, e in jobs]


def table_of(rows: Sequence[dict], features: Sequence[str] = READING_FEATURES) -> CandidateTable:
    """The rows whose answer a sentence holds (only those can be shown), one question each ("own" or "other")."""
    table = CandidateTable(features=tuple(features))
    for row in rows:
        if not row.get("features") or row.get("label") is None:
            continue
        table.qids.append(f"{row['id']}#{row['evidence']}")
        table.tasks.append(row["evidence"])
        table.rows.append([float(row["features"][f]) for f in features])
        table.labels.append(int(row["label"]))
        table.texts.append(row["answer"] or "")
    return table


def fit_judge(
    rows: Sequence[dict], target: float = 0.75, C: float = 0.3, features=READING_FEATURES, rule: str = "outside"
):
    """(the fitted judge, its report): `fit_verifier` over `table_of(rows, features)`, plus how many readings found
    nothing. Leaving "verified" out saves the reader's second question at run time.

    `rule` sets the threshold: "precision", the lowest p whose held-back shown answers reach `target` (as the tree's
    verifier); "outside", just above every held-back answer read from another question's evidence, so that on the
    training ids no answer the library does not hold would be shown (the precision rule chose 1.0, nothing shown,
    on the 1.5B's 96 training readings)."""
    table = table_of(rows, features)
    oof = cross_fit(table, C=C)  # once: the report's held-back figures and the outside rule read the same p
    judge, report = fit_verifier(table, C=C, target=target, oof=oof)
    if rule == "outside":
        tasks, y = np.array(table.tasks), table.y
        other = oof[tasks != "own"]  # another question's evidence, and the own evidence without the answer
        threshold = float(min(1.0, (other.max() if len(other) else 0.0) + 0.01))
        judge = dataclasses.replace(judge, threshold=threshold, report=report)
        own = tasks == "own"
        shown = oof >= threshold
        report["held_back"]["rule"] = f"outside: held-back p of another question's evidence < {threshold:.3f}"
        report["held_back"]["generated_precision"] = float(y[shown].mean()) if shown.any() else None
        report["held_back"]["coverage"] = float(shown.mean())
        report["held_back"]["own_evidence_shown"] = int((shown & own).sum())
        report["held_back"]["own_evidence_shown_right"] = int((shown & own & (y == 1)).sum())
        report["held_back"]["other_evidence_shown"] = int((shown & ~own).sum())
        for task in sorted(set(table.tasks)):  # each kind of evidence at this threshold (one row per question here)
            mine = tasks == task
            report["held_back"]["per_task"][task] = {
                "questions": int(mine.sum()),
                "best_candidate_right": float(y[mine].mean()) if mine.any() else None,
                "generated_precision": float(y[mine & shown].mean()) if (mine & shown).any() else None,
                "coverage": float((mine & shown).sum() / mine.sum()) if mine.any() else None,
            }
    elif rule != "precision":
        raise ValueError(f"threshold rule {rule!r}: 'outside' or 'precision'")
    report["languages"] = sorted({r.get("language", "en") for r in rows})  # where the judge may decide
    for evidence in sorted({r["evidence"] for r in rows}):
        mine = [r for r in rows if r["evidence"] == evidence]
        report.setdefault("readings", {})[evidence] = {
            "readings": len(mine),
            "answer_held_by_a_sentence": sum(1 for r in mine if r.get("features")),
            "held_and_right": sum(1 for r in mine if r.get("label") == 1),
        }
    return judge, report
