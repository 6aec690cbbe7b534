"""The answer's kinds, the wording of what is said without an answer, and the failures the tree reports: typed,
in one table, and read back from recorded trees."""

from __future__ import annotations

import json

import pytest

from rqrag.answer import AnswerKind, Failure, FailureKind, Message, said
from rqrag.answer.messages import MESSAGES
from rqrag.inference.decoding.tree import FinishedTrajectory, QuestionResult
from rqrag.text.languages import ANSWER_LANGUAGES
from rqrag.trajectory import Trajectory


@pytest.mark.parametrize("message", list(Message))
def test_every_message_has_wording_in_exactly_the_answer_languages(message):
    assert set(MESSAGES[message]) == set(ANSWER_LANGUAGES)


def test_a_language_without_wording_reads_english_and_fields_are_filled():
    assert said(Message.NO_ANSWER, "es") == MESSAGES[Message.NO_ANSWER]["en"]
    assert said(Message.NO_ANSWER, None) == MESSAGES[Message.NO_ANSWER]["en"]
    text = said(Message.COULD_NOT_SEARCH, "pt", reason="busca na web indisponível")
    assert "busca na web indisponível" in text and text.startswith("Não consegui")


def test_an_answer_kind_is_its_value_in_json():
    assert json.dumps({"kind": AnswerKind.QUOTED}) == '{"kind": "quoted"}'
    assert AnswerKind("not_found") is AnswerKind.NOT_FOUND


@pytest.mark.parametrize(
    ("failure", "text"),
    [
        (
            Failure(FailureKind.QUESTION_TOO_LONG, "its prompt is 400 tokens"),
            "question too long: its prompt is 400 tokens",
        ),
        (Failure(FailureKind.UNUSABLE_OUTPUT, "decompose output: empty"), "unusable decompose output: empty"),
        (
            Failure(FailureKind.NO_TRAJECTORY_FINISHED, "retrieval failed: offline"),
            "no trajectory finished (retrieval failed: offline)",
        ),
        (Failure(FailureKind.NO_TRAJECTORY_FINISHED), "no trajectory finished"),
        (Failure(FailureKind.CONTEXT_FULL), "context window full"),
    ],
)
def test_a_failure_reads_as_before_and_comes_back_from_its_record(failure, text):
    assert str(failure) == text
    assert Failure.from_record(**{"text": text, "kind": failure.kind.value}) == failure
    assert Failure.from_record(text) == failure  # a tree recorded before kinds: read by its wording


def test_only_unreachable_services_are_transient():
    transient = {kind for kind in FailureKind if kind.transient}
    assert transient == {FailureKind.GENERATION_FAILED, FailureKind.RETRIEVAL_FAILED}


def test_a_recorded_tree_keeps_its_failures_typed():
    leaf = FinishedTrajectory("0.0", Trajectory(()), (), (), error=Failure(FailureKind.RETRIEVAL_FAILED, "timeout"))
    result = QuestionResult("q", "Who?", [leaf], error=Failure(FailureKind.NO_TRAJECTORY_FINISHED, str(leaf.error)))
    record = json.loads(json.dumps(result.to_dict()))
    assert (
        record["error_kind"] == "no_trajectory_finished"
        and record["trajectories"][0]["error"] == "retrieval failed: timeout"
    )
    back = QuestionResult.from_record(record)
    assert back.error == result.error and back.trajectories[0].error == leaf.error
