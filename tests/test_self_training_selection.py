"""Self-training's selection (self_training/selection.py) on hand-built trajectories: which path is kept, why one is
dropped, how a short answer is written. The run itself is tests/test_self_training.py."""

from __future__ import annotations

import json
from pathlib import Path

from rqrag.retrieval.base import Hit
from rqrag.self_training.loop import DATA_FILE
from rqrag.self_training.selection import (
    DROP_REASONS,
    SelectionRules,
    choose,
    knew_directly,
    refinement_kind,
    score_trajectory,
    short_answer,
    states_gold,
    training_trajectory,
)
from rqrag.trajectory import Action, Step, Trajectory


ROOT = Path(__file__).resolve().parent.parent
SLICE = ROOT / "rqrag/benchmarks/data/hotpotqa.jsonl"
QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
GOLDS = ("Chief of Protocol",)
GOLD_DOCS = {"q::1", "q::2"}


def _hit(docid: str) -> Hit:
    return Hit(docid, f"title {docid}", f"Kiss and Tell starred Shirley Temple ({docid}).", 1.0)


def _traj(*queries: tuple[Action, str, tuple[str, ...]], answer: str = "Chief of Protocol") -> Trajectory:
    steps = [Step(action, text, tuple(_hit(d) for d in docs)) for action, text, docs in queries]
    return Trajectory((*steps, Step(Action.ANSWER, answer)))


def _score(path_id, trajectory, confidence=0.5, finished=True):
    return score_trajectory(
        path_id,
        trajectory,
        finished=finished,
        confidence=confidence,
        question=QUESTION,
        golds=GOLDS,
        supporting=GOLD_DOCS,
    )


SHIRLEY = (Action.DECOMPOSE, "Who portrayed Corliss Archer in Kiss and Tell?", ("q::1", "q::5"))
TEMPLE = (Action.DECOMPOSE, "Which government positions did Shirley Temple hold?", ("q::2",))
BOTH = (Action.REWRITE, "Shirley Temple actress Corliss Archer diplomat career", ("q::1", "q::2"))


# ------------------------------------------------------------------------------------------ selection


def test_refinement_and_short_answer():
    assert refinement_kind(_traj(BOTH, SHIRLEY)) == "rewrite+decompose"
    assert refinement_kind(_traj(SHIRLEY, TEMPLE)) == "decompose"
    assert refinement_kind(_traj()) == "direct"
    golds = ["Chief of Protocol of the United States", "Chief of Protocol"]
    assert short_answer("She was Chief of Protocol", golds) == "Chief of Protocol"
    assert short_answer("Chief of Protocol of the United States", golds) == golds[0]


def test_fewest_searches_first_then_confidence_and_short_answer_written():
    two = _score("0.0.1", _traj(SHIRLEY, TEMPLE), confidence=0.99)
    one_low = _score("0.3", _traj(BOTH, answer="She served as the Chief of Protocol"), confidence=0.4)
    one_high = _score("0.4", _traj(BOTH, answer="Chief of Protocol."), confidence=0.7)
    choice = choose([two, one_low, one_high], SelectionRules(min_f1=0.5))
    assert choice.kept is one_high and choice.reason is None
    choice = choose([two, one_low], SelectionRules(min_f1=0.5))
    assert choice.kept is one_low  # one search beats two, whatever the confidence
    written = training_trajectory(choice.kept)
    assert written.answer == "Chief of Protocol" and written.queries == one_low.trajectory.queries
    assert choice.by_kind == {
        "decompose": {"finished": 1, "right": 1, "found": 1, "passed": 1},
        "rewrite": {"finished": 1, "right": 1, "found": 1, "passed": 1},
    }


def test_min_f1_decides_what_is_right():
    sentence = _traj(BOTH, answer="The woman who played her later became Chief of Protocol in the government")
    assert choose([_score("0.1", sentence)], SelectionRules(min_f1=0.8)).reason == "no_right_answer"
    assert choose([_score("0.1", sentence)], SelectionRules(min_f1=0.3)).kept is not None


def test_gold_paragraphs_required_and_direct_answers_only_under_none():
    direct = _score("0.0", _traj())
    half = _score("0.1", _traj(SHIRLEY))  # found q::1 of {q::1, q::2}
    assert half.recall == 0.5
    choice = choose([direct, half], SelectionRules(require_supporting="all"))
    assert choice.kept is None and choice.reason == "gold_not_found"
    assert choose([direct, half], SelectionRules(require_supporting="any")).kept is half
    assert choose([direct], SelectionRules(require_supporting="any")).reason == "gold_not_found"
    assert choose([direct, half], SelectionRules(require_supporting="none")).kept is direct


def test_a_direct_answer_is_written_short_only_where_the_model_knew():
    sentence = _score("0.0", _traj(answer="Shirley Temple later served as Chief of Protocol of the United States"))
    knew = knew_directly([sentence, _score("0.1", _traj(SHIRLEY))], QUESTION, GOLDS)
    assert knew is not None and knew.path_id == "0.0" and training_trajectory(knew).answer == "Chief of Protocol"
    guess = _score("0.0", _traj(answer="She was an ambassador to Ghana"))
    assert knew_directly([guess], QUESTION, GOLDS) is None  # not known: no direct record, however short
    searched = _score("0.1", _traj(SHIRLEY, answer="Chief of Protocol"))
    assert knew_directly([searched], QUESTION, GOLDS) is None  # read, not known
    unfinished = _score("0.0", _traj(answer="Chief of Protocol"), finished=False)
    assert knew_directly([unfinished], QUESTION, GOLDS) is None


def test_a_yes_no_gold_must_open_the_direct_answer():
    def direct(answer):
        return score_trajectory(
            "0.0",
            _traj(answer=answer),
            finished=True,
            confidence=0.5,
            question=QUESTION,
            golds=["no"],
            supporting=set(),
        )

    assert knew_directly([direct("No, they were born in different countries.")], QUESTION, ["no"]).short_answer == "no"
    assert knew_directly([direct("There is no record of that film.")], QUESTION, ["no"]) is None


def test_an_option_the_question_names_counts_only_as_a_decision():
    """2Wiki's comparison questions: an answer restating the options, or naming the gold second, knew nothing."""
    q = "Which film was released earlier, Molokai: The Story Of Father Damien or Brahma – The Creator?"
    gold = "Molokai: The Story Of Father Damien"
    assert states_gold("Molokai: The Story of Father Damien was released first.", q, gold)
    assert not states_gold("Molokai: The Story of Father Damien or Brahma – The Creator", q, gold)
    q = "Which film has the director died earlier, Payment On Demand or My Cousin From Warsaw?"
    assert not states_gold(
        "Payment On Demand is the director of the film My Cousin From Warsaw.", q, "My Cousin From Warsaw"
    )
    q = "Which film came first, Mr. Fix-It or People Not As Bad As They Seem?"
    assert not states_gold("Mr. Fix-It and People Not As Bad As They Seem", q, "Mr. Fix-It")
    assert states_gold(
        "Keith Bostic is a 22-year-old actor who is younger than Jerry Glanville.",
        "who is younger Keith Bostic or Jerry Glanville ?",
        "Keith Bostic",
    )
    # A gold the question does not name is found anywhere in the answer.
    assert states_gold(
        "John Lennon was born in Liverpool, England.", "Where was the performer of Well Well Well born?", "Liverpool"
    )


def test_query_filter_rejects_restatements_repeats_and_searches_finding_nothing_new():
    restated = _score("0.1", _traj((Action.REWRITE, QUESTION, ("q::1", "q::2"))))
    assert restated.filter_reason == "restates_question"
    repeated = _score("0.2", _traj(BOTH, (Action.REWRITE, BOTH[1], ("q::1", "q::2"))))
    assert repeated.filter_reason == "repeats_query"
    same_hits = (Action.DECOMPOSE, "Kiss and Tell film cast members", ("q::1", "q::2"))
    nothing_new = _score("0.3", _traj(BOTH, same_hits))
    assert nothing_new.filter_reason == "nothing_new"
    choice = choose([restated, repeated, nothing_new], SelectionRules())
    assert choice.reason == "filtered_query" and "restates_question 1" in choice.detail
    assert choose([restated], SelectionRules(query_filter=False)).kept is restated


def test_a_query_naming_someone_nowhere_to_be_read_is_filtered():
    # "Dean Martens": not in the question, not in anything read before, not in what its own search found.
    invented = _score("0.1", _traj((Action.DECOMPOSE, "Dean Martens film director", ("q::1", "q::2"))))
    assert invented.filter_reason == "invents_entity"
    # "Shirley Temple" from the model's memory, confirmed by its own search's evidence: kept.
    assert _score("0.2", _traj(BOTH)).filter_reason is None
    assert choose([invented], SelectionRules()).reason == "filtered_query"


def test_nothing_finished_is_its_own_reason():
    failed = _score("0.1", Trajectory((Step(Action.DECOMPOSE, "a query", ()),)), finished=False)
    assert choose([failed], SelectionRules()).reason == "no_finished_trajectory"
    assert choose([], SelectionRules()).reason == "no_finished_trajectory"
    assert {"no_finished_trajectory", "no_right_answer", "gold_not_found", "filtered_query"} <= set(DROP_REASONS)


def test_the_report_reads_records_kept_before_refinement_was_named(tmp_path):
    """A resumed run's earlier records call their refinement `kind`; the report counts them with today's."""
    from rqrag.self_training.run_report import build_report

    def kept(uid: str, key: str, refinement: str) -> dict:
        metadata = {"source": "hotpotqa", key: refinement, "by_kind": {refinement: {"finished": 1, "passed": 1}}}
        metadata.update(n_searches=1, model_answer="Paris")
        return {"id": uid, "trajectory": {"steps": [{"text": "Paris"}]}, "metadata": metadata}

    rows = [kept("old", "kind", "decompose"), kept("new", "refinement", "decompose")]
    (tmp_path / DATA_FILE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = build_report(tmp_path, ["old", "new"], {})
    assert report["kept"] == 2 and report["per_kind"]["decompose"]["kept"] == 2
