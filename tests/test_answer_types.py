"""What a question asks for and whether an answer is that kind of thing (rqrag.answer.answer_types). The questions are the
ones a new user asked in the issue that wanted the decision to check the answer against the question."""

from __future__ import annotations

import pytest

from rqrag.answer.answer_types import (
    DATE,
    KIND,
    NUMBER,
    OPTION,
    OTHER,
    PERSON,
    PLACE,
    POSITION,
    YES_NO,
    asked_type,
    entities,
    fits,
    holds_type,
    options,
    picked_option,
)


@pytest.mark.parametrize(
    "question, asked",
    [
        (
            "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
            POSITION,
        ),
        ("What kind of musician was John Bonham?", KIND),
        ("Are Sutera and Rhodotypos both types of shrub?", YES_NO),
        ("Which film came out first, Summer Wars or The Secret of Kells?", OPTION),
        ("Who is older, Annie Morton or Terry Richardson?", OPTION),
        ("What is the capital of the country where the Eiffel Tower stands?", PLACE),
        ("What year did Guns N Roses perform a promo for a movie starring Arnold Schwarzenegger?", DATE),
        ("When was Poison's album Shut Up, Make Love released?", DATE),
        ("The arena where the Lewiston Maineiacs played can seat how many people?", NUMBER),
        ("2014 S/S is the debut album of a South Korean boy group that was formed by who?", PERSON),
        ("Ralph Hefferline was a psychology professor at a university that is located in what city?", PLACE),
        ("What is the name of the fight song of the university whose main campus is in Lawrence, Kansas?", OTHER),
        ("Quantos usuários o servidor aceita?", NUMBER),
        ("Em que ano foi lançado o Debian Edu?", DATE),
        ("Como configurar a impressora?", OTHER),
    ],
)
def test_the_asked_type_is_read_from_the_question(question, asked):
    assert asked_type(question) == asked


def test_answers_of_the_wrong_kind_do_not_fit():
    assert fits("Shirley Temple", POSITION) is False  # the bridge entity, not her position
    assert fits("Chief of Protocol", POSITION) is True
    assert fits("Led Zeppelin", KIND) is False  # a band's name, not a kind of musician
    assert fits("yes", PERSON) is False and fits("no", YES_NO) is True and fits("Paris", YES_NO) is False
    assert fits("1999", DATE) is True and fits("Arnold Schwarzenegger", DATE) is False
    assert fits("3,677 seated", NUMBER) is True and fits("the arena", NUMBER) is False
    assert fits("Paris", PLACE) is True and fits("1889", PLACE) is False
    assert fits("drummer", KIND) is None  # a common noun may be a kind: cannot tell
    question = "Which film came out first, Summer Wars or The Secret of Kells?"
    assert fits("The Secret of Kells", OPTION, question) is True
    assert fits("Spirited Away", OPTION, question) is False


def test_options_and_the_one_picked():
    question = "Which film came out first, Summer Wars or The Secret of Kells?"
    assert options(question) == ("Summer Wars", "Secret of Kells")
    assert picked_option("The Secret of Kells came out first.", question) == "Secret of Kells"
    assert picked_option("Summer Wars or The Secret of Kells", question) is None  # both named: no pick
    assert options("Are Sutera and Rhodotypos both types of shrub?") == ()


def test_the_named_entities_of_a_question():
    assert entities("Are Sutera and Rhodotypos both types of shrub?") == ["Sutera", "Rhodotypos"]
    assert "Corliss Archer" in entities("Who portrayed Corliss Archer in the film Kiss and Tell?")
    assert "Bank of America" in entities("Where is the Bank of America based?")


def test_a_sentence_holds_the_asked_type_only_with_something_new():
    question = "What government position was held by the woman who portrayed Corliss Archer?"
    assert holds_type("She served as Chief of Protocol of the United States.", POSITION, question)
    assert not holds_type("Shirley Temple was an American actress.", POSITION, question)
    when = "In what year was the film Kiss and Tell released?"
    assert holds_type("Kiss and Tell is a 1945 American comedy film.", DATE, when)
    assert not holds_type("Kiss and Tell is an American comedy film.", DATE, when)
    assert holds_type("anything at all", OTHER, "How does it work?")


class _CountingPattern:
    """A compiled pattern that counts its searches."""

    def __init__(self, pattern):
        self.pattern, self.searches = pattern, 0

    def search(self, text):
        self.searches += 1
        return self.pattern.search(text)


def test_options_reads_a_question_once_and_skips_one_that_names_no_alternative(monkeypatch):
    # The comparison patterns backtrack over the whole question when it has no "or": on the longest question
    # the server takes they cost 35 ms a call, and the reader asks for the options of each candidate. A question
    # without "or"/"ou" is not searched at all, and a question's options are computed once.
    import rqrag.answer.answer_types as answer_types

    counting = [_CountingPattern(answer_types._OPTIONS), _CountingPattern(answer_types._OPTIONS_LOOSE)]
    monkeypatch.setattr(answer_types, "_OPTIONS", counting[0])
    monkeypatch.setattr(answer_types, "_OPTIONS_LOOSE", counting[1])
    answer_types.options.cache_clear()
    long_question = "What does this note say about the history of the river and the old mill? " * 25
    assert options(long_question) == ()
    assert sum(p.searches for p in counting) == 0
    for _ in range(3):
        assert options("Which came first, the chicken or the egg?") == ("chicken", "egg")
    assert sum(p.searches for p in counting) <= 2
    assert options("Quem nasceu primeiro, Pedro ou Paulo?") == ("Pedro", "Paulo")
