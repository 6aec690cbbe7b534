"""One decision over the whole tree (rqrag.answer.candidate_answers, verifier, grounding.decide): answers grouped
and their evidence pooled, judged against the question's type, shown as generated only when the verifier is sure,
else the evidence span of the asked type, quoted. The trees are the ones a new user met in the issue that asked
for this; the verifier here is written by hand so each test says which signal it is about (the fitted one is
tested on the shipped model in test_cli_answers.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rqrag.answer.candidate_answers import FEATURES, gather, is_correct
from rqrag.answer.extractive import ExtractiveAnswerer, Weights
from rqrag.answer.grounding import decide
from rqrag.answer.messages import AnswerKind
from rqrag.answer.verifier import Verifier
from rqrag.eval.saved_trees import calibration, refuse_eval_ids
from rqrag.fit.verifier_fit import CandidateTable, choose_threshold, fit_verifier, precision_coverage
from rqrag.inference.decoding.tree import FinishedTrajectory, QuestionResult
from rqrag.retrieval.base import Hit
from rqrag.trajectory import Action, Step, Trajectory


EIFFEL = "What is the capital of the country where the Eiffel Tower stands?"
DEMO = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
PARIS = Hit("w:paris", "Paris", "Paris is the capital and most populous city of France.", 1.0)
CLOCK = Hit(
    "w:clock",
    "Clock Tower of Murshidabad",
    "The Clock Tower of Murshidabad is a tower in Murshidabad, West Bengal, India, built in the 19th century.",
    1.0,
)
EIFFEL_HIT = Hit(
    "w:eiffel", "Eiffel Tower", "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars.", 1.0
)
TEMPLE = Hit(
    "w:temple",
    "Shirley Temple",
    "Shirley Temple Black was an American actress, singer and dancer. As an adult she entered politics. "
    "She was named United States ambassador to Ghana and later served as Chief of Protocol of the United States.",
    1.0,
)
KISS = Hit(
    "w:kiss",
    "Kiss and Tell (1945 film)",
    "Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer.",
    1.0,
)


def hand_verifier(threshold: float = 0.5, **weights: float) -> Verifier:
    """A verifier whose weights are the test's: unscaled features, the named weights, the others 0."""
    n = len(FEATURES)
    coef = tuple(float(weights.get(f, 0.0)) for f in FEATURES)
    return Verifier(tuple(FEATURES), (0.0,) * n, (1.0,) * n, coef, weights.get("intercept", -2.0), threshold)


SIGNALS = hand_verifier(
    vote_share=2.0, supported=2.0, support_relevance=1.0, type_match=1.0, type_mismatch=-3.0, bridge=-2.0, echo=-3.0
)


def path(path_id: str, answer: str, *searches: tuple[str, tuple[Hit, ...]], prob: float = 0.8) -> FinishedTrajectory:
    steps = tuple(Step(Action.DECOMPOSE, query, hits) for query, hits in searches) + (Step(Action.ANSWER, answer),)
    n = max(1, len(answer.split()))
    return FinishedTrajectory(path_id, Trajectory(steps), (math.log(prob),) * (n + 3), (math.log(prob),) * n)


def tree(question: str, *paths: FinishedTrajectory) -> QuestionResult:
    result = QuestionResult("q", question, list(paths), strategy="vote")
    result.selected = {"vote": 0}
    return result


class LexicalQuoter:
    """Quotes with the extractive answerer's lexical signals only (no encoder loads) and ranks no sentences; logs
    what each quote was asked for."""

    def __init__(self, asked_log: list | None = None):
        self.answerer = ExtractiveAnswerer(weights=Weights(dense=0.0), max_sentences=2)
        self.asked_log = asked_log

    def quote(self, question, hits, language, asked=None, answers=(), trust=1.0):
        if self.asked_log is not None:
            self.asked_log.append((asked, list(answers), [h.docid for h in hits]))
        return self.answerer.quote(question, hits, asked=asked, answers=answers, trust=trust)

    def rank_sentences(self, question, hits, language):
        return None


def quoter(asked_log: list | None = None) -> LexicalQuoter:
    return LexicalQuoter(asked_log)


def eiffel_tree() -> QuestionResult:
    # West Bengal first (as the strategy ordered it); eight "Paris", only one of which read the Paris article.
    paths = [path("0.0", "West Bengal", ("Eiffel Tower country", (CLOCK,)))]
    paths += [path(f"0.{i}", "Paris", ("Eiffel Tower location", (EIFFEL_HIT,))) for i in range(1, 8)]
    paths.append(path("0.8", "Paris, France", ("capital of France", (PARIS,))))
    return tree(EIFFEL, *paths)


def test_answers_group_by_form_and_containment_and_pool_their_evidence():
    candidates = gather(eiffel_tree(), EIFFEL, "en")
    texts = [c.text for c in candidates]
    assert texts == ["Paris", "West Bengal"]  # "Paris, France" joined "Paris"; most voted first
    paris = candidates[0]
    assert len(paris.paths) == 8 and {h.docid for h in paris.hits} == {"w:eiffel", "w:paris"}
    assert paris.features["supported"] == 1.0  # by the Paris article one of its paths read
    assert paris.features["vote_share"] == pytest.approx(8 / 9)
    assert [paris.hits[i].docid for i in paris.holding] == ["w:paris"]


def test_the_eiffel_tower_question_answers_paris_not_the_clock_tower():
    shown = decide(eiffel_tree(), EIFFEL, "en", quoter(), SIGNALS)
    assert shown.kind is AnswerKind.GENERATED and shown.text == "Paris"
    assert [h.docid for h in shown.cited] == ["w:paris"]
    assert shown.confidence is not None and shown.confidence >= SIGNALS.threshold
    assert [c["text"] for c in shown.candidates] == ["Paris", "West Bengal"]


def test_the_bridge_entity_is_not_the_answer_and_the_position_is_quoted():
    result = tree(
        DEMO,
        path("0.0", "Shirley Temple", ("Who portrayed Corliss Archer in Kiss and Tell?", (KISS,))),
        path(
            "0.1",
            "Shirley Temple",
            ("Who portrayed Corliss Archer in Kiss and Tell?", (KISS,)),
            ("What government position did Shirley Temple hold?", (TEMPLE,)),
        ),
    )
    (candidate,) = gather(result, DEMO, "en")
    assert candidate.features["type_mismatch"] == 1.0 and candidate.features["bridge"] == 1.0
    asked: list = []
    shown = decide(result, DEMO, "en", quoter(asked), SIGNALS)
    assert shown.kind is AnswerKind.QUOTED and "Chief of Protocol" in shown.text
    assert shown.generated == "Shirley Temple" and shown.confidence < SIGNALS.threshold
    assert asked[0][0] == "position" and set(asked[0][2]) == {"w:kiss", "w:temple"}  # pooled evidence
    assert [h.docid for h in shown.cited] == ["w:temple"]
    assert len(shown.text.split(". ")) <= 2


def test_nothing_of_the_asked_type_in_the_evidence_is_not_found_rather_than_a_quote_off_topic():
    result = tree(DEMO, path("0.0", "Shirley Temple", ("Who portrayed Corliss Archer?", (KISS,))))
    shown = decide(result, DEMO, "en", quoter(), SIGNALS)
    assert shown.kind is AnswerKind.NO_ANSWER and shown.text.startswith("I found nothing")


def test_a_comparison_is_never_answered_from_the_question_alone():
    question = "Which film came out first, Summer Wars or The Secret of Kells?"
    kells = Hit("w:kells", "The Secret of Kells", "The Secret of Kells is a 2009 animated fantasy film.", 1.0)
    wars = Hit("w:wars", "Summer Wars", "Summer Wars is a 2009 Japanese animated film released in August.", 1.0)
    sure = hand_verifier(threshold=0.5, intercept=5.0)  # p ~ 1 for everything: only the veto can stop it
    unread = tree(question, path("0.0", "The Secret of Kells", ("Secret of Kells release", (kells,))))
    shown = decide(unread, question, "en", quoter(), sure)
    assert shown.kind is not AnswerKind.GENERATED and shown.rejected == {"0.0": "options_unread"}
    read = tree(question, path("0.0", "The Secret of Kells", ("release dates", (kells, wars))))
    assert decide(read, question, "en", quoter(), sure).kind is AnswerKind.GENERATED


def test_the_threshold_decides_generated_and_confidence_travels_with_every_kind():
    strict = hand_verifier(threshold=0.99, vote_share=2.0, supported=2.0)
    shown = decide(eiffel_tree(), EIFFEL, "en", quoter(), strict)
    assert shown.kind is AnswerKind.QUOTED and "Paris" in shown.text  # the quote holds the best candidates' answer
    assert 0 < shown.confidence < 0.99


STRASBOURG = Hit(
    "w:strasbourg",
    "Strasbourg",
    "Strasbourg, where a small copy of the Eiffel Tower stands, is the capital of the country's Grand Est region "
    "and the seat of the European Parliament.",
    1.0,
)
PARIS_LEAD = Hit(
    "w:paris2",
    "Paris",
    "Located on the Seine, Paris has been one of Europe's major centres since the 17th century.",
    1.0,
)


def test_a_short_supported_answer_leading_the_tree_picks_the_passages_quoted():
    """The self-trained model's tree for the Eiffel Tower question: "Paris" is read, of the asked type and the most
    likely answer by far, yet under the threshold; the question's words ("capital", "country") favour a sentence
    about Strasbourg. The quote comes from the passages that say "Paris"."""
    paths = [path(f"0.{i}", "Paris", ("Eiffel Tower city", (PARIS_LEAD, STRASBOURG))) for i in range(3)]
    paths.append(path("0.3", "Lyon", ("French cities", (STRASBOURG,))))
    result = tree(EIFFEL, *paths)
    unsure = hand_verifier(threshold=0.99, vote_share=2.0, supported=1.0, intercept=-3.5)
    shown = decide(result, EIFFEL, "en", quoter(), unsure)
    assert shown.kind is AnswerKind.QUOTED and "Paris" in shown.text and "Strasbourg" not in shown.text, shown.text
    # without a clear lead (Strasbourg, read too, as likely as Paris) the quote is the question's best sentence
    even = tree(EIFFEL, *paths[:1], path("0.4", "Strasbourg", ("French cities", (STRASBOURG,))))
    assert "Strasbourg" in decide(even, EIFFEL, "en", quoter(), unsure).text


def test_the_verifier_file_round_trips_and_refuses_unknown_features(tmp_path):
    verifier = hand_verifier(vote_share=1.5, bridge=-1.0)
    verifier.save(tmp_path / "verifier")
    loaded = Verifier.load(tmp_path / "verifier")
    assert loaded.coef == verifier.coef and loaded.threshold == verifier.threshold
    features = dict.fromkeys(FEATURES, 0.0) | {"vote_share": 1.0}
    assert loaded.probability(features) == pytest.approx(1 / (1 + math.exp(-(-2.0 + 1.5))))
    with pytest.raises(ValueError, match="does not compute"):
        Verifier(("made_up",), (0.0,), (1.0,), (1.0,), 0.0, 0.5)


def test_the_label_is_f1_or_the_gold_inside():
    assert is_correct("Chief of Protocol", ["Chief of Protocol"])
    assert is_correct("She served as Chief of Protocol of the United States.", ["Chief of Protocol"])
    assert not is_correct("Shirley Temple", ["Chief of Protocol"])
    assert not is_correct("yes", ["no"])
    comparison = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
    assert not is_correct("Battle of Manila", ["Battle of Guam"], comparison)  # F1 0.67, the other option
    assert is_correct("The Battle of Guam came first.", ["Battle of Guam"], comparison)


def test_the_verifier_is_never_fitted_on_eval_ids():
    from rqrag.benchmarks.splits import load_split

    split = load_split("hotpotqa")
    eval_id, train_id = sorted(split.eval)[0], sorted(split.train)[0]
    refuse_eval_ids([("hotpotqa", {"id": f"hotpotqa:{train_id}"})])
    with pytest.raises(ValueError, match="eval id"):
        refuse_eval_ids([("hotpotqa", {"id": f"hotpotqa:{train_id}"}), ("hotpotqa", {"id": f"hotpotqa:{eval_id}"})])


def test_threshold_calibration_and_fit_on_a_table_where_one_signal_tells():
    rng = np.random.default_rng(0)
    table = CandidateTable()
    for q in range(300):
        for c in range(2):  # two candidates a question; the right one tends to be supported
            right = int(c == 0 and rng.random() < 0.7)
            row = dict.fromkeys(FEATURES, 0.0)
            row["supported"] = float(rng.random() < (0.85 if right else 0.2))
            row["vote_share"] = float(rng.random())
            table.qids.append(f"hotpotqa:{q}")
            table.tasks.append("hotpotqa")
            table.rows.append([row[f] for f in FEATURES])
            table.labels.append(right)
            table.texts.append("x")
    verifier, report = fit_verifier(table)
    assert verifier.coef[FEATURES.index("supported")] > 1.0
    held = report["held_back"]
    assert held["generated_precision"] is None or held["generated_precision"] >= 0.8
    assert held["calibration_all_candidates"]["ece"] < 0.08
    # the threshold: the lowest p whose answered set, and every stricter one, is >= 80 % right
    p = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4] * 5)
    y = np.array([1, 1, 1, 1, 0, 0] * 5)
    assert choose_threshold(p, y, 0.8, min_answered=5) == 0.5  # 20 of 25 right; at 0.4, 20 of 30
    assert choose_threshold(p, y, 0.9, min_answered=5) == 0.6
    assert precision_coverage(p, y)[0] == {"threshold": 0.9, "precision": 1.0, "coverage": 5 / 30, "answered": 5}
    assert calibration(np.array([0.25, 0.25, 0.25, 0.25]), np.array([1, 0, 0, 0]))["ece"] == pytest.approx(0.0)


def test_one_table_says_which_kinds_show_an_answer():
    from rqrag.answer.messages import AnswerKind

    assert {k for k in AnswerKind if k.states_an_answer} == {
        AnswerKind.GENERATED,
        AnswerKind.QUOTED,
        AnswerKind.WRITTEN,
    }
    assert {k for k in AnswerKind if k.is_read_as_answer} == {
        AnswerKind.GENERATED,
        AnswerKind.QUOTED,
        AnswerKind.WRITTEN,  # written by the reader model, every sentence checked against the passage it cites
        AnswerKind.UNSOURCED,  # the reader model's own answer, labelled: read, but never scored as found
    }
