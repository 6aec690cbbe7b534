"""Calendar facts of a moment, and time expressions in questions read into date ranges (real dateparser)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from rqrag.serve.memory.dates import date_range_in, describe_moment, period_of_day, season_of


NOW = datetime(2026, 11, 18, 15, 30)  # a Wednesday afternoon
LAST_WEEK = (date(2026, 11, 9), date(2026, 11, 15))
OCTOBER = (date(2026, 10, 1), date(2026, 10, 31))
YEAR_2025 = (date(2025, 1, 1), date(2025, 12, 31))


def test_describe_moment_in_portuguese_for_the_southern_hemisphere():
    assert describe_moment(NOW) == {
        "date": "2026-11-18",
        "time": "15:30",
        "period_of_day": "tarde",
        "weekday": "quarta-feira",
        "season": "primavera",
    }


def test_describe_moment_in_english_for_the_northern_hemisphere():
    facts = describe_moment(datetime(2026, 7, 4, 23, 5), hemisphere="north", language="en")
    assert facts == {
        "date": "2026-07-04",
        "time": "23:05",
        "period_of_day": "evening",
        "weekday": "Saturday",
        "season": "summer",
    }


@pytest.mark.parametrize(
    ("hour", "pt", "en"),
    [(0, "madrugada", "night"), (5, "madrugada", "night"), (6, "manhã", "morning"), (11, "manhã", "morning")]
    + [(12, "tarde", "afternoon"), (17, "tarde", "afternoon"), (18, "noite", "evening"), (23, "noite", "evening")],
)
def test_period_of_day_boundaries(hour, pt, en):
    assert period_of_day(hour, "pt") == pt and period_of_day(hour, "en") == en


def test_meteorological_seasons_flip_between_hemispheres():
    north = [season_of(m, "north") for m in range(1, 13)]
    south = [season_of(m, "south") for m in range(1, 13)]
    assert north == ["winter"] * 2 + ["spring"] * 3 + ["summer"] * 3 + ["autumn"] * 3 + ["winter"]
    assert south == ["summer"] * 2 + ["autumn"] * 3 + ["winter"] * 3 + ["spring"] * 3 + ["summer"]
    assert describe_moment(datetime(2026, 1, 10, 8), "south", "pt")["season"] == "verão"
    assert describe_moment(datetime(2026, 1, 10, 8), "north", "pt")["season"] == "inverno"
    with pytest.raises(ValueError, match="hemisphere"):
        season_of(1, "east")
    with pytest.raises(ValueError, match="language"):
        describe_moment(NOW, language="fr")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # days
        ("o que falamos ontem?", (date(2026, 11, 17),) * 2),
        ("e anteontem, o que foi?", (date(2026, 11, 16),) * 2),
        ("o que eu disse na terça passada?", (date(2026, 11, 17),) * 2),
        ("o que eu disse em 10/11/2026?", (date(2026, 11, 10),) * 2),  # day first in Portuguese
        ("o que eu disse em 3 de novembro?", (date(2026, 11, 3),) * 2),
        ("o que eu disse há 3 dias?", (date(2026, 11, 15),) * 2),
        ("what did we discuss yesterday?", (date(2026, 11, 17),) * 2),  # "we" is not read as Wednesday
        ("what did I say the day before yesterday?", (date(2026, 11, 16),) * 2),
        ("what did I say last Tuesday?", (date(2026, 11, 17),) * 2),
        ("what did I say on 2026-11-10?", (date(2026, 11, 10),) * 2),
        ("what did I say on November 3?", (date(2026, 11, 3),) * 2),
        # weeks, Monday to Sunday
        ("o que eu disse semana passada sobre X?", LAST_WEEK),
        ("o que eu disse na semana passada sobre X?", LAST_WEEK),
        ("o que eu disse na última semana?", LAST_WEEK),
        ("o que eu disse na semana retrasada?", (date(2026, 11, 2), date(2026, 11, 8))),
        ("what did I say last week about X?", LAST_WEEK),
        # months and years
        ("o que conversamos no mês passado sobre o projeto?", OCTOBER),
        ("o que falei no último mês?", OCTOBER),
        ("what did I say last month?", OCTOBER),
        ("o que eu disse no ano passado?", YEAR_2025),
        ("what did I say last year?", YEAR_2025),
        ("o que eu disse em 2025?", YEAR_2025),
        ("what did I say in March?", (date(2026, 3, 1), date(2026, 3, 31))),
    ],
)
def test_time_expressions_become_date_ranges(question, expected):
    found = date_range_in(question, NOW)
    assert found is not None, question
    first, last, expression = found
    assert (first, last) == expected
    assert expression and expression.lower() in question.lower()


def test_the_matched_expression_is_returned():
    assert date_range_in("o que eu disse semana passada sobre X?", NOW)[2] == "semana passada"
    assert date_range_in("what did I say last Tuesday?", NOW)[2] == "last Tuesday"


def test_last_weekday_on_that_weekday_is_the_week_before():
    tuesday = datetime(2026, 11, 17, 10)
    assert date_range_in("what did I say last Tuesday?", tuesday)[:2] == (date(2026, 11, 10),) * 2
    assert date_range_in("o que eu disse na terça passada?", tuesday)[:2] == (date(2026, 11, 10),) * 2


def test_month_first_numeric_dates_in_english_first_mode():
    assert date_range_in("what did I say on 11/10/2026?", NOW, languages=("en", "pt"))[:2] == (date(2026, 11, 10),) * 2
    assert date_range_in("what did I say on 11/10/2026?", NOW, languages=("pt", "en"))[:2] == (date(2026, 10, 11),) * 2


@pytest.mark.parametrize(
    "question",
    [
        "qual é a capital da França?",
        "quanto é 10 + 5?",  # dateparser: October 5th
        "what is 2 + 2",  # dateparser: February 2nd
        "o que eu disse sobre o artigo de 2019?",  # the year qualifies the topic
        "the 2019 paper on retrieval",
        "o que eu disse sobre a Segunda Guerra?",  # dateparser: Monday
        "what does sun tzu say?",  # dateparser: Sunday
        "I may go to the lab",  # dateparser: May
        "tenho 2 gatos e 1 cachorro",
        "what did I do at 10:30?",  # a time of day, not a day: its ':' splits it into two numbers
        "my plans for next week",  # in the future: memories are all in the past
        "o que vou fazer amanhã?",
        "",
    ],
)
def test_no_time_expression_or_a_misread_one_narrows_nothing(question):
    assert date_range_in(question, NOW) is None
