"""Selection strategies on hand-computed logprobs."""

from __future__ import annotations

import math
from typing import get_args

import pytest

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.select import (
    DEFINITIONS,
    STRATEGIES,
    Scored,
    StrategyName,
    ensemble_groups,
    select,
    select_confidence,
    select_ensemble,
    select_ppl,
    select_ppl_path,
    select_support,
    select_vote,
    supported,
    vote_groups,
)
from rqrag.inference.decoding.tree import FinishedTrajectory
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import normalize_answer
from rqrag.trajectory import Action, Step, Trajectory


ln = math.log


def test_perplexity_and_confidence_by_hand():
    c = Scored("Paris", (ln(0.5), ln(0.25), ln(0.5)), (ln(0.5),))
    # path PPL = exp(-(ln .5 + ln .25 + ln .5)/3) = exp(ln 16 / 3) = 16 ** (1/3)
    assert c.perplexity == pytest.approx(16 ** (1 / 3))
    assert c.answer_perplexity == pytest.approx(2.0)  # exp(-ln .5) = 1/0.5
    assert c.confidence == pytest.approx(0.5)
    # answer PPL over two tokens = exp(-(ln .5 + ln .25)/2) = exp(ln 8 / 2) = sqrt(8)
    assert Scored("x", (), (ln(0.5), ln(0.25))).answer_perplexity == pytest.approx(math.sqrt(8))
    two = Scored("x", (), (ln(0.9), ln(0.1)))
    assert two.confidence == pytest.approx(0.5)  # mean of probabilities, not of logprobs
    empty = Scored("", (), ())
    assert empty.perplexity == empty.answer_perplexity == math.inf and empty.confidence == 0.0


def _cands():
    return [
        # path ppl: exp(-(ln .9 + ln .9)/2) = 1/0.9 = 1.111 ; answer ppl 1/0.6 = 1.667 ; confidence 0.6
        Scored("Paris", (ln(0.9), ln(0.9)), (ln(0.6),)),
        # path ppl: 1/0.5 = 2 ; answer ppl 1/0.95 = 1.053 ; confidence 0.95
        Scored("Lyon", (ln(0.5), ln(0.5)), (ln(0.95),)),
        # path ppl: 1/0.8 = 1.25 ; answer ppl 1/0.5 = 2 ; confidence 0.5
        Scored("paris.", (ln(0.8), ln(0.8)), (ln(0.5),)),
    ]


def test_each_strategy_picks_the_hand_computed_winner():
    cands = _cands()
    assert select_ppl_path(cands) == 0  # path: 1.111 < 1.25 < 2
    assert select_ppl(cands) == 1  # answer: 1.053 < 1.667 < 2
    assert select_confidence(cands) == 1  # 0.95
    # groups: paris -> 0.6 + 0.5 = 1.1 ; lyon -> 0.95 ; best member of "paris" is index 0 (0.6 > 0.5)
    assert ensemble_groups(cands) == pytest.approx({"paris": 1.1, "lyon": 0.95})
    assert select_ensemble(cands) == 0
    # No candidate has evidence: support is confidence, vote is ensemble.
    assert select_support(cands) == 1 and select_vote(cands) == 0
    assert {s: select(cands, s) for s in STRATEGIES} == {
        "ppl": 1, "ppl_path": 0, "confidence": 1, "ensemble": 0, "support": 1, "vote": 0,
    }  # fmt: skip


def test_answer_ppl_does_not_charge_a_path_for_its_queries():
    # The measured failure: whole-path perplexity prefers the path that never searched.
    direct = Scored("Lyon", (ln(0.6), ln(0.9)), (ln(0.6),))  # answer, [EOS]
    # query (2 tokens), [EOS], answer, [EOS]
    searched = Scored("Paris", (ln(0.2), ln(0.2), ln(0.5), ln(0.8), ln(0.9)), (ln(0.8),))
    # path: direct exp(-(ln .6 + ln .9)/2) = .54 ** -.5 = 1.361 ; searched .0144 ** -.2 = 2.335
    assert direct.perplexity == pytest.approx(0.54**-0.5) and searched.perplexity == pytest.approx(0.0144**-0.2)
    assert select_ppl_path([direct, searched]) == 0
    # answer: direct 1/.6 = 1.667 ; searched 1/.8 = 1.25
    assert select_ppl([direct, searched]) == 1 and select_ppl([searched, direct]) == 0


def test_ties_go_to_the_earlier_candidate():
    same = [Scored("a", (ln(0.5),), (ln(0.5),)), Scored("b", (ln(0.5),), (ln(0.5),))]
    assert {s: select(same, s) for s in STRATEGIES} == dict.fromkeys(STRATEGIES, 0)
    # Both supported by their evidence, same confidence: still the earlier one.
    backed = [Scored("x", (), (ln(0.5),), ("x",)), Scored("y", (), (ln(0.5),), ("y",))]
    assert all(supported(c) for c in backed)
    assert {s: select(backed, s) for s in STRATEGIES} == dict.fromkeys(STRATEGIES, 0)


PARIS = "Paris Paris is the capital and largest city of France."
CAPITAL = "France The capital of France is Paris."


def test_support_is_whole_normalised_words_of_the_own_evidence():
    assert supported(Scored("Paris", (), (), (PARIS,)))
    assert supported(Scored("the capital", (), (), (PARIS,)))  # "capital" in "paris paris is capital and ..."
    assert supported(Scored("largest city", (), (), ("x", PARIS)))  # any passage of the trajectory
    assert not supported(Scored("Par", (), (), (PARIS,)))  # a prefix of a word is not the word
    assert not supported(Scored("Paris", (), (), ()))  # no evidence, no support
    assert not supported(Scored("Lyon", (), (), (PARIS,)))
    assert not supported(Scored("", (), (), (PARIS,)))  # an empty answer is in every text; it counts as none
    # Multiple choice: the option's words are looked for, not its label.
    choices = (("A", "Lyon"), ("B", "Paris"))
    assert supported(Scored("B", (), (), (PARIS,)), choices)
    assert not supported(Scored("A", (), (), (PARIS,)), choices)
    assert not supported(Scored("B", (), (), (PARIS,)))  # without the options "B" is just a letter


def test_an_answer_that_echoes_the_question_or_its_query_is_not_support():
    """Evidence retrieved for a question contains the question's own words, so repeating them finds them."""
    asked = ("Which city is the capital of France?", "capital city France")
    assert not supported(Scored("capital of France", (), (), (CAPITAL,), asked))  # inside the question
    assert not supported(Scored("France", (), (), (CAPITAL,), asked))  # inside the query as well
    assert supported(Scored("Paris", (), (), (CAPITAL,), asked))  # new words the evidence holds
    # An option's text may well be in the question ("... Paris or Lyon?"); a chosen option still counts.
    choices = (("A", "Lyon"), ("B", "Paris"))
    assert supported(Scored("B", (), (), (CAPITAL,), ("Is the capital Paris or Lyon?",)), choices)
    # The tree passes the question and each trajectory's own queries.
    trajectory = Trajectory(
        (
            Step(Action.REWRITE, "capital city France", (Hit("d", "France", "The capital of France is Paris.", 1.0),)),
            Step(Action.ANSWER, "France"),
        )
    )
    finished = FinishedTrajectory("0.0", trajectory, (ln(0.5),), (ln(0.5),))
    assert finished.scored("Which city is the capital of France?").asked == asked
    assert not supported(finished.scored("Which city is the capital of France?"))


def _evidence_cands():
    return [
        Scored("Lyon", (ln(0.9),), (ln(0.9),)),  # 0: no evidence, conf 0.9
        Scored("Lyon", (ln(0.9),), (ln(0.8),)),  # 1: no evidence, conf 0.8
        Scored("Paris", (ln(0.5),), (ln(0.6),), (PARIS,)),  # 2: supported, conf 0.6
        Scored("paris", (ln(0.5),), (ln(0.5),), (CAPITAL,)),  # 3: supported, conf 0.5
        Scored("Marseille", (ln(0.5),), (ln(0.65),), ("Marseille A port city.",)),  # 4: supported, conf 0.65
        Scored("Nice", (ln(0.5),), (ln(0.7),), (PARIS,)),  # 5: searched but not supported, conf 0.7
    ]


def test_support_and_vote_on_hand_computed_evidence():
    cands = _evidence_cands()
    assert [supported(c) for c in cands] == [False, False, True, True, True, False]
    assert select_confidence(cands) == 0  # 0.9, an answer no evidence backs
    # support: the supported ones are 2 (0.6), 3 (0.5), 4 (0.65) -> 4
    assert select_support(cands) == 4
    # ensemble: lyon 0.9 + 0.8 = 1.7 ; paris 0.6 + 0.5 = 1.1 ; marseille 0.65 ; nice 0.7 -> lyon, member 0
    assert ensemble_groups(cands) == pytest.approx({"lyon": 1.7, "paris": 1.1, "marseille": 0.65, "nice": 0.7})
    assert select_ensemble(cands) == 0
    # vote: lyon 0.9 + 0.8 = 1.7 ; paris 2 * 0.6 + 2 * 0.5 = 2.2 ; marseille 2 * 0.65 = 1.3 ; nice 0.7
    assert vote_groups(cands) == pytest.approx({"lyon": 1.7, "paris": 2.2, "marseille": 1.3, "nice": 0.7})
    assert select_vote(cands) == 2  # paris; its best member by (supported, confidence) is 2 (0.6 > 0.5)
    # Unsupported agreement can still win the vote: a third "Lyon" at 0.6 makes lyon 2.3 > 2.2.
    assert select_vote([*cands, Scored("Lyon", (), (ln(0.6),))]) == 0


def test_vote_represents_a_group_by_its_supported_member_first():
    # One answer key; member 0 is more confident but unsupported, member 1 is supported -> 1.
    cands = [Scored("Paris", (), (ln(0.9),)), Scored("Paris.", (), (ln(0.4),), (PARIS,))]
    assert select_ensemble(cands) == 0 and select_vote(cands) == 1 and select_support(cands) == 1


def test_finished_trajectory_hands_its_evidence_to_selection():
    hit = Hit("d1", "Mount Kilimanjaro", "A dormant volcano in Tanzania.", 1.0)
    steps = (Step(Action.REWRITE, "volcano Tanzania", (hit,)), Step(Action.ANSWER, "Kilimanjaro"))
    scored = FinishedTrajectory("0.0.0", Trajectory(steps), (ln(0.5),), (ln(0.5),)).scored()
    assert scored.evidence == ("Mount Kilimanjaro A dormant volcano in Tanzania.",)
    assert supported(scored)  # found in the title, which the model read too


def test_every_strategy_is_named_defined_and_configurable():
    assert list(STRATEGIES) == list(DEFINITIONS) == list(get_args(StrategyName))
    assert list(STRATEGIES) == ["ppl", "ppl_path", "confidence", "ensemble", "support", "vote"]
    assert DecodeConfig(strategy="vote").strategy == "vote"


CHOICES = (("A", "mammal"), ("B", "reptile"), ("C", "bird"))


def test_ensemble_groups_multiple_choice_answers_by_the_option_they_pick():
    cands = [
        Scored("B", (ln(0.9),), (ln(0.4),)),  # option B by label
        Scored("The answer is B.", (ln(0.9),), (ln(0.3),)),  # option B in other words
        Scored("reptile", (ln(0.9),), (ln(0.2),)),  # option B by its text
        Scored("A. mammal", (ln(0.9),), (ln(0.8),)),  # option A, alone the most confident
    ]
    # By option: B = 0.4 + 0.3 + 0.2 = 0.9 > A = 0.8; by text, four groups of one and A (0.8) would win.
    assert ensemble_groups(cands, CHOICES) == pytest.approx({"option:B": 0.9, "option:A": 0.8})
    assert select_ensemble(cands, CHOICES) == 0
    assert select(cands, "ensemble", CHOICES) == 0
    assert select_ensemble(cands) == 3  # without the options, free text cannot agree


def test_normalisation_and_errors():
    assert normalize_answer("  The Eiffel-Tower! ") == "eiffeltower"
    assert normalize_answer("An apple a day") == "apple day"
    with pytest.raises(ValueError):
        select([], "ppl")
    with pytest.raises(ValueError, match="unknown selection"):
        select(_cands(), "majority")
