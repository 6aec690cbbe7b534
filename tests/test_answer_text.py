"""`rqrag.text.answer_text.contains_phrase`: the one whole-word containment test of choice labels and answer types."""

from __future__ import annotations

import pytest

from rqrag.text.answer_text import choice_label, contains_phrase


@pytest.mark.parametrize(
    ("text", "phrase", "found"),
    [
        ("the cat sat", "cat", True),
        ("the cat sat", "cat sat", True),
        ("concatenate", "cat", False),  # whole words only
        ("the cat sat", "", False),  # an empty phrase names nothing
        ("", "", False),
    ],
)
def test_contains_phrase_finds_whole_words_and_never_an_empty_phrase(text, phrase, found):
    assert contains_phrase(text, phrase) is found


def test_an_option_that_normalises_to_nothing_is_never_the_one_picked():
    assert choice_label("It is Paris", [("A", "The"), ("B", "Paris")]) == "B"
    assert choice_label("It is Lyon", [("A", "The"), ("B", "Paris")]) is None
