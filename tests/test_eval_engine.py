"""The evaluation engine behind `rqrag eval` and `rqrag experiment run`, with a scripted pipeline (no model): a run
killed between batches loses nothing and repeats nothing when run again, answers lost to an unreachable server
are left for the rerun, and cells of a server run on the pool beside the local ones."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import pytest

from rqrag.answer import AnsweringPolicy, Failure
from rqrag.eval.engine import Answerer, Study, StudyCell, StudyQuestion, failed_for_now, run_study
from rqrag.eval.systems import NO_RETRIEVAL, RQRAG, STANDARD_RAG, answer_settings, refinement_system
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.tree import Question
from rqrag.resumable import ResumableJsonl


class Killed(Exception):
    """What stops the run in the middle, as a kill would."""


class ScriptedPolicy:
    """The call of `AnsweringPolicy` the engine makes (`answer`); `fail(qid)` says how a question fails this time."""

    def __init__(self, log: list, fail=lambda qid: None):
        self.log = log
        self.fail = fail

    def answer(self, questions, source, settings):
        answers = []
        for question in questions:
            qid = question.qid
            self.log.append((threading.current_thread().name.startswith("cell"), qid))
            error = self.fail(qid)
            if error == "kill":
                raise Killed(qid)
            result = SimpleNamespace(trajectories=[SimpleNamespace(error=error and Failure.from_record(error))])
            answers.append(SimpleNamespace(qid=qid, text=f"answer to {qid}", result=result))
        return answers


class ScriptedStudy(Study):
    """Two cells in one shared file (as an experiment writes) or one file per cell (as a benchmark does)."""

    def __init__(self, tmp_path, fail=lambda qid: None, shared=True, remote=()):
        self.log: list = []
        self.fail = fail
        self.batch_size = 2
        self.concurrency = 2
        self.opened = 0
        shared_writer = ResumableJsonl(tmp_path / "records.jsonl") if shared else None
        self.cells = [
            StudyCell(
                name,
                {"system": name},
                shared_writer or ResumableJsonl(tmp_path / name / "predictions.jsonl"),
                remote=name in remote,
            )
            for name in ("a", "b")
        ]
        self.questions = [StudyQuestion(f"q{i}", Question(f"q{i}", []), i) for i in range(5)]

    def record_id(self, cell, question):
        return f"{cell.cell_id}:{question.qid}"

    def open(self, cells):
        self.opened += 1

    def answerer(self, cell):
        return Answerer(ScriptedPolicy(self.log, self.fail), None, None)

    def records(self, cell, batch, answers, seconds):
        return [{"id": self.record_id(cell, q), "answer": a.text, "item": q.item} for q, a in zip(batch, answers)]


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_run_killed_between_batches_loses_and_repeats_nothing(tmp_path):
    with pytest.raises(Killed):  # cell a answers q0-q1, q2-q3, then dies on the batch holding q4
        run_study(ScriptedStudy(tmp_path, fail=lambda qid: "kill" if qid == "q4" else None))
    records = tmp_path / "records.jsonl"
    done = _lines(records)
    assert [r["id"] for r in done] == ["a:q0", "a:q1", "a:q2", "a:q3"]  # every finished batch is on disk
    with records.open("a") as f:  # what a kill in the middle of a write leaves
        f.write('{"id": "a:q4", "answ')

    study = ScriptedStudy(tmp_path)
    stats = run_study(study)
    final = _lines(records)
    ids = [r["id"] for r in final]
    assert len(ids) == len(set(ids)) == 10 and final[:4] == done  # kept as they were, none twice
    assert [qid for _, qid in study.log] == ["q4", "q0", "q1", "q2", "q3", "q4"]  # only what was missing
    assert (stats.cells_run, stats.answers_written, stats.transient_failures) == (2, 6, 0)

    again = ScriptedStudy(tmp_path)
    assert run_study(again).answers_written == 0 and again.opened == 0 and again.log == []  # nothing to load


def test_answers_lost_to_an_unreachable_server_are_left_for_the_rerun(tmp_path):
    reasons = {"q1": "generation failed: ConnectionError", "q3": "retrieval failed: timeout", "q2": "unusable"}
    stats = run_study(ScriptedStudy(tmp_path, fail=reasons.get, shared=False))
    assert stats.transient_failures == 4  # q1 and q3 in both cells; q2's outcome would repeat: recorded
    for cell in ("a", "b"):
        assert [r["id"] for r in _lines(tmp_path / cell / "predictions.jsonl")] == [f"{cell}:q{i}" for i in (0, 2, 4)]
    study = ScriptedStudy(tmp_path, shared=False)
    assert run_study(study).answers_written == 4 and sorted(qid for _, qid in study.log) == ["q1", "q1", "q3", "q3"]
    assert not failed_for_now(None)  # an answer the pipeline gave before any model ran (not found)


def test_cells_of_a_server_run_on_the_pool_and_local_ones_in_order(tmp_path):
    study = ScriptedStudy(tmp_path, remote=("b",))
    run_study(study)
    assert [qid for pooled, qid in study.log if not pooled] == [f"q{i}" for i in range(5)]  # cell a, in order
    assert sum(pooled for pooled, _ in study.log) == 5  # cell b, on a "cell" thread
    assert len(_lines(tmp_path / "records.jsonl")) == 10


def test_one_definition_of_standard_rag_for_both_studies():
    decode = DecodeConfig(prompting="trained", max_depth=2)
    assert refinement_system("none") is STANDARD_RAG  # the experiment's `refinement: none`
    assert (STANDARD_RAG.max_depth, STANDARD_RAG.search_first) == (0, True)
    assert (NO_RETRIEVAL.max_depth, NO_RETRIEVAL.search_first) == (0, False)
    policy = AnsweringPolicy(decode)
    assert answer_settings(RQRAG, policy, None, "en").decode is decode
    assert answer_settings(STANDARD_RAG, policy, None, "en").decode.max_depth == 0
    tree = refinement_system("tree:3")
    assert (tree.max_depth, tree.search_first) == (3, True)
    with pytest.raises(ValueError, match="none or tree:DEPTH"):
        refinement_system("deep")
