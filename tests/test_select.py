"""Selection strategies on hand-computed logprobs."""

from __future__ import annotations

import math

import pytest

from rqrag.answers import normalize_answer
from rqrag.inference.select import (
    Scored,
    ensemble_groups,
    select,
    select_confidence,
    select_ensemble,
    select_ppl,
)


ln = math.log


def test_perplexity_and_confidence_by_hand():
    c = Scored("Paris", (ln(0.5), ln(0.25), ln(0.5)), (ln(0.5),))
    # PPL = exp(-(ln .5 + ln .25 + ln .5)/3) = exp(ln 16 / 3) = 16 ** (1/3)
    assert c.perplexity == pytest.approx(16 ** (1 / 3))
    assert c.confidence == pytest.approx(0.5)
    two = Scored("x", (), (ln(0.9), ln(0.1)))
    assert two.confidence == pytest.approx(0.5)  # mean of probabilities, not of logprobs
    assert Scored("", (), ()).perplexity == math.inf and Scored("", (), ()).confidence == 0.0


def _cands():
    return [
        # ppl: exp(-(ln .9 + ln .9)/2) = 1/0.9 = 1.111 ; confidence 0.6
        Scored("Paris", (ln(0.9), ln(0.9)), (ln(0.6),)),
        # ppl: 1/0.5 = 2 ; confidence 0.95
        Scored("Lyon", (ln(0.5), ln(0.5)), (ln(0.95),)),
        # ppl: 1/0.8 = 1.25 ; confidence 0.5
        Scored("paris.", (ln(0.8), ln(0.8)), (ln(0.5),)),
    ]


def test_each_strategy_picks_the_hand_computed_winner():
    cands = _cands()
    assert select_ppl(cands) == 0  # 1.111 < 1.25 < 2
    assert select_confidence(cands) == 1  # 0.95
    # groups: paris -> 0.6 + 0.5 = 1.1 ; lyon -> 0.95 ; best member of "paris" is index 0 (0.6 > 0.5)
    assert ensemble_groups(cands) == pytest.approx({"paris": 1.1, "lyon": 0.95})
    assert select_ensemble(cands) == 0
    assert [select(cands, s) for s in ("ppl", "confidence", "ensemble")] == [0, 1, 0]


def test_ties_go_to_the_earlier_candidate():
    same = [Scored("a", (ln(0.5),), (ln(0.5),)), Scored("b", (ln(0.5),), (ln(0.5),))]
    assert select_ppl(same) == 0 and select_confidence(same) == 0 and select_ensemble(same) == 0


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
        select(_cands(), "vote")
