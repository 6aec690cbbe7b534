"""Benchmark metrics on cases computed by hand."""

from __future__ import annotations

import pytest

from rqrag.eval import metrics


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  an   Apple, a day ", "apple day"),
        ("U.S.A.", "usa"),
        ("Theatre", "theatre"),  # "the" inside a word stays
    ],
)
def test_normalization(text, normalized):
    assert metrics.normalize_answer(text) == normalized


def test_exact_match_uses_normalization_and_aliases():
    assert metrics.exact_match("the Beatles.", ["Beatles"]) == 1.0
    assert metrics.exact_match("Beatles band", ["Beatles"]) == 0.0
    assert metrics.exact_match("JFK", ["John F. Kennedy", "JFK"]) == 1.0
    assert metrics.exact_match("", ["x"]) == 0.0


def test_f1_on_partial_overlap():
    # prediction tokens: [barack, obama, president] ; gold: [president, obama] -> overlap 2
    # precision 2/3, recall 2/2 -> F1 = 2 * (2/3 * 1) / (2/3 + 1) = 0.8
    assert metrics.f1("Barack Obama, the president", ["President Obama"]) == pytest.approx(0.8)
    # Counts are clipped: "new new york" vs "new york" -> overlap 2, precision 2/3, recall 1 -> 0.8
    assert metrics.f1("new new york", ["New York"]) == pytest.approx(0.8)
    # Best alias wins: "paris" vs ["city of light", "paris france"] -> 2 * (1 * 0.5) / 1.5 = 2/3
    assert metrics.f1("Paris", ["City of Light", "Paris, France"]) == pytest.approx(2 / 3)
    assert metrics.f1("Berlin", ["Paris"]) == 0.0


def test_f1_yes_no_needs_exact_match():
    assert metrics.f1("yes", ["yes"]) == 1.0
    assert metrics.f1("no", ["no it is not"]) == 0.0  # a yes/no answer never scores by overlap
    assert metrics.f1("yes it is", ["yes"]) == 0.0


def test_match_is_word_aligned_containment():
    assert metrics.match("He was born in Paris, France.", ["Paris"]) == 1.0
    assert metrics.match("Parisian", ["Paris"]) == 0.0
    assert metrics.match("anything", ["", "  "]) == 0.0
    assert metrics.match("The author is J. K. Rowling", ["Rowling", "JK Rowling"]) == 1.0


CHOICES = (("A", "cold"), ("B", "very cold"), ("C", "hot"), ("D", "warm and wet"))


@pytest.mark.parametrize(
    ("prediction", "label"),
    [
        ("B", "B"),
        ("B. very cold", "B"),
        ("(C) hot", "C"),
        ("The answer is D.", "D"),
        ("answer: A", "A"),
        ("hot", "C"),  # by option text
        ("It is very cold there", "B"),  # "cold" is inside "very cold": the longer option is the pick
        ("warm and wet", "D"),
        ("hot or cold", None),  # two separate options named
        ("E", None),  # not an option
        ("", None),
        ("I think so", None),
    ],
)
def test_choice_label(prediction, label):
    assert metrics.choice_label(prediction, CHOICES) == label


def test_choice_accuracy():
    assert metrics.choice_accuracy("C. hot", CHOICES, "C") == 1.0
    assert metrics.choice_accuracy("C. hot", CHOICES, "A") == 0.0


def test_str_em_counts_readings_covered():
    sets = [["Ali Daei", "Daei"], ["Josef Bican"], ["Christine Sinclair", "Sinclair"]]
    assert metrics.str_em("Daei leads men's internationals; Sinclair women's.", sets) == pytest.approx(2 / 3)
    assert metrics.str_em("nobody", sets) == 0.0
    assert metrics.str_em("x", []) == 0.0


def test_supporting_recall():
    assert metrics.supporting_recall(["q::1", "q::4", "q::1"], {"q::1", "q::2"}) == 0.5
    assert metrics.supporting_recall(["q::1"], set()) is None


def test_rank_metrics():
    supporting = {"g1", "g2"}
    ranks = metrics.retrieval_ranks([["g1", "x", "y"], ["x", "y", "g2"], ["x", "y", "z"], ["x", "g1"]], supporting)
    assert ranks == [1, 3, None, 2]
    out = metrics.rank_metrics(ranks)
    assert out["mr"] == pytest.approx((1 + 3 + 2) / 3)
    assert out["mrr"] == pytest.approx((1 + 1 / 3 + 0 + 1 / 2) / 4)
    assert out["p@1"] == pytest.approx(1 / 4)
    assert metrics.rank_metrics([]) == {"mr": None, "mrr": None, "p@1": None}
    assert metrics.rank_metrics([None])["mr"] is None


def test_ci95_half_width():
    # 0/1 scores, 2 of 4 right: sample variance 1/3, standard error sqrt(1/12).
    assert metrics.ci95_half_width([1.0, 0.0, 1.0, 0.0]) == pytest.approx(1.96 * (1 / 12) ** 0.5)
    assert metrics.ci95_half_width([0.5, 0.5, 0.5]) == 0.0
    assert metrics.ci95_half_width([1.0]) is None


def test_choice_label_keyword_is_case_insensitive_but_the_label_is_not():
    choices = (("A", "fish"), ("B", "mammal"), ("C", "bird"))
    # "a" is an article here, not option A: the reply names option B by its text.
    assert metrics.choice_label("The answer is a mammal.", choices) == "B"
    assert metrics.choice_label("ANSWER: C", choices) == "C"
    assert metrics.choice_label("the Option B seems right", choices) == "B"


def test_mean_present_skips_the_records_without_the_score():
    from rqrag.eval.benchmark_report import mean_present

    assert mean_present([1.0, None, 0.0]) == 0.5
    assert mean_present(v for v in (None, None)) is None
    assert mean_present([]) is None
