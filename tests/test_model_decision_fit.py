"""The judge of a model reader's answers, fitted on readings (`rqrag.fit.decision_fit`): only readings whose
answer a sentence holds become rows, the fitted p orders right above wrong, the report counts both kinds of evidence,
and held-out (eval) ids are refused before any model is asked."""

from __future__ import annotations

import numpy as np
import pytest

from rqrag.answer.verifier import READING_FEATURES
from rqrag.fit.decision_fit import collect, fit_judge, pooled_hits, table_of


def _row(qid: str, evidence: str, log_p: float, label: int | None, held: bool = True) -> dict:
    features = dict.fromkeys(READING_FEATURES, 0.0) | {"log_p": log_p, "cited_holds": 1.0}
    return {
        "id": qid,
        "evidence": evidence,
        "answer": "x",
        "features": features if held else None,
        "label": label if held else None,
    }


def _rows(n: int = 40, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):  # right answers come with a sure model, wrong ones (mostly on other evidence) without
        rows.append(_row(f"q{i}", "own", float(rng.normal(-0.2, 0.2)), 1))
        rows.append(_row(f"q{i}", "other", float(rng.normal(-2.5, 0.5)), 0))
    rows.append(_row("q-none", "other", 0.0, None, held=False))
    return rows


def test_only_readings_a_sentence_holds_become_rows():
    table = table_of(_rows(5))
    assert len(table.labels) == 10 and table.features == READING_FEATURES
    assert table.X.shape == (10, len(READING_FEATURES))
    assert set(table.tasks) == {"own", "other"}


def test_the_judge_orders_sure_answers_above_unsure_ones_and_reports_each_evidence():
    judge, report = fit_judge(_rows(), target=0.75)
    sure = dict.fromkeys(READING_FEATURES, 0.0) | {"log_p": -0.1, "cited_holds": 1.0}
    unsure = sure | {"log_p": -3.0}
    assert judge.probability(sure) > judge.threshold > judge.probability(unsure)
    assert report["readings"]["own"] == {"readings": 40, "answer_held_by_a_sentence": 40, "held_and_right": 40}
    assert report["readings"]["other"]["readings"] == 41 and report["readings"]["other"]["held_and_right"] == 0
    assert report["held_back"]["generated_precision"] >= 0.75


def test_eval_ids_are_refused_before_any_reading(tmp_path):
    from rqrag.benchmarks.splits import load_split

    split = load_split("hotpotqa")
    held_out = sorted(split.eval)[0]
    record = {"id": f"hotpotqa:{held_out}", "question": "q?", "gold": {"answers": ["a"]}, "trajectories": []}

    class NeverAsked:
        name = "never"

        def read(self, *args, **kwargs):
            raise AssertionError("an eval id reached the reader")

    with pytest.raises(ValueError, match="eval id"):
        collect([record], NeverAsked(), tmp_path / "readings.jsonl")


def test_pooled_hits_keep_each_passage_once_then_the_question_search():
    passage = {"docid": "a", "title": "A", "text": "A is a thing."}
    record = {
        "trajectories": [{"steps": [{"evidence": [passage]}, {"evidence": [passage]}]}],
        "question_search": [passage, {"docid": "b", "title": "B", "text": "B too."}],
    }
    assert [h.docid for h in pooled_hits(record)] == ["a", "b"]


def test_the_shipped_judge_of_the_15b_refuses_a_sure_answer_from_a_page_about_something_else():
    import math

    from rqrag.answer.reading.model_decision import judge_for

    judge = judge_for("qwen2.5-1.5b")
    assert judge is not None and set(judge.features) <= set(READING_FEATURES) and 0 < judge.threshold < 1
    on_topic = dict.fromkeys(READING_FEATURES, 0.0) | {"log_p": math.log(0.9), "passage_overlap": 0.8}
    off_topic = on_topic | {"log_p": math.log(0.99), "passage_overlap": 0.0}  # "PepsiCo" p 0.91 from another page
    assert judge.probability(on_topic) >= judge.threshold > judge.probability(off_topic)
    assert judge_for("a-reader-without-a-judge") is None


def test_the_distractors_are_the_passages_that_do_not_hold_the_answer():
    from rqrag.fit.decision_fit import without_answer
    from rqrag.retrieval.base import Hit

    hits = [
        Hit("a", "Kiss and Tell", "Shirley Temple played Corliss Archer.", 1.0),
        Hit("b", "Shirley Temple", "She served as Chief of Protocol of the United States.", 0.9),
        Hit("c", "Protocol", "A protocol chief is not the same words.", 0.8),
    ]
    assert [h.docid for h in without_answer(hits, ["Chief of Protocol"])] == ["a", "c"]
