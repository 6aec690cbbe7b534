"""Calendar facts of a moment, and the date range a question's time expression points at.

    describe_moment(datetime(2026, 11, 18, 15, 30))
    # {"date": "2026-11-18", "time": "15:30", "period_of_day": "tarde", "weekday": "quarta-feira",
    #  "season": "primavera"}
    date_range_in("o que eu disse semana passada sobre X?", now=datetime(2026, 11, 18, 15, 30))
    # (date(2026, 11, 9), date(2026, 11, 15), "semana passada")

A memory records when it was made in words a person would use ("na terça à tarde, na primavera"), and a
question such as "what did I say last week?" narrows the memories searched to that week.

Finding the expression is `dateparser.search.search_dates`; how wide the range is comes from the period
`dateparser` reports for the expression (day, week, month, year). Checked against dateparser 1.5.0, whose
quirks are handled here, each for a reason seen in practice:

- Short or ambiguous words are read as dates: "we" (Wednesday), "sun", "may", "march", "Segunda" (Guerra),
  "2 + 2" (February 2nd), "é 10 + 5". Matches are dropped when nothing but stop words, ambiguous words
  without a calendar word next to them, or arithmetic remain.
- A bare year usually qualifies the topic, not the moment something was said ("o artigo de 2019"), so it is
  kept only after "em / in / durante / during".
- "the day before yesterday" comes back as yesterday; "na última semana", "no último mês" and "semana
  retrasada" are not found at all. Those few phrases are matched by keyword first.
- "10/11/2026" is read month first; Portuguese writes the day first, so DATE_ORDER follows the first language.
- Memories lie in the past: an expression pointing only at the future ("amanhã", "next week") describes the
  topic of the question, not when it was said, and narrows nothing.

A memory keeps when its fact HAPPENED besides when it was told (`happened_span`): the user's statement is read
against the telling time, so "Ontem à noite eu jantei com a Marta" told on Wednesday 18 November happened on
Tuesday 17, at night, and "Semana passada comecei a academia" from 9 to 15 November. A statement may name the
future ("amanhã vou ao médico"): a plan is kept on the day it is for (see `happened_span`).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from rqrag.text.languages import ANSWER_LANGUAGES


HEMISPHERES = ("south", "north")

_WEEKDAYS = {
    "pt": ("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo"),
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
}
# (first hour, name): the period that starts at the latest first hour not after the moment's hour.
_PERIODS = {
    "pt": ((0, "madrugada"), (6, "manhã"), (12, "tarde"), (18, "noite")),
    "en": ((0, "night"), (6, "morning"), (12, "afternoon"), (18, "evening")),
}
_SEASON_NAMES = {
    "pt": {"winter": "inverno", "spring": "primavera", "summer": "verão", "autumn": "outono"},
    "en": {"winter": "winter", "spring": "spring", "summer": "summer", "autumn": "autumn"},
}
# Meteorological seasons of the northern hemisphere: whole months, December-February being winter.
_NORTH_SEASON_BY_MONTH = {12: "winter", 1: "winter", 2: "winter", 3: "spring", 4: "spring", 5: "spring",
                          6: "summer", 7: "summer", 8: "summer", 9: "autumn", 10: "autumn", 11: "autumn"}  # fmt: skip
_OPPOSITE_SEASON = {"winter": "summer", "summer": "winter", "spring": "autumn", "autumn": "spring"}


def _check_language(language: str) -> str:
    if language not in ANSWER_LANGUAGES:
        raise ValueError(f"language must be one of {ANSWER_LANGUAGES}, got {language!r}")
    return language


def season_of(month: int, hemisphere: str = "south") -> str:
    """The meteorological season (English key: winter/spring/summer/autumn) of a month in a hemisphere."""
    if hemisphere not in HEMISPHERES:
        raise ValueError(f"hemisphere must be one of {HEMISPHERES}, got {hemisphere!r}")
    north = _NORTH_SEASON_BY_MONTH[month]
    return north if hemisphere == "north" else _OPPOSITE_SEASON[north]


def period_of_day(hour: int, language: str = "pt") -> str:
    name = ""
    for first_hour, period in _PERIODS[_check_language(language)]:
        if hour >= first_hour:
            name = period
    return name


def describe_moment(dt: datetime, hemisphere: str = "south", language: str = "pt") -> dict[str, str]:
    """Date (ISO), time (HH:MM), period of the day, weekday and season of `dt`, named in `language`."""
    language = _check_language(language)
    return {
        "date": dt.date().isoformat(),
        "time": dt.strftime("%H:%M"),
        "period_of_day": period_of_day(dt.hour, language),
        "weekday": _WEEKDAYS[language][dt.weekday()],
        "season": _SEASON_NAMES[language][season_of(dt.month, hemisphere)],
    }


# ------------------------------------------------------------------------------ time expressions

# Words that carry no date on their own; a match made only of them (and of ambiguous words) is noise.
_STOPWORDS = frozenset(
    "a o as os e é de do da dos das em no na nos nas um uma ao à para por que the an and of on in at is to "
    "for by this that it we i you".split()
)
# Words dateparser reads as dates that, in a question, are more often something else (a pronoun, a verb, an
# ordinal, a name). They count only next to a calendar word: "in March", "na segunda passada", "last sat".
_AMBIGUOUS = frozenset({"we", "sun", "sat", "mar", "may", "march", "second", "segunda", "dom", "sab"})
_CALENDAR_CONTEXT = frozenset(
    "em no na on in last this past passada passado última último próxima próximo feira dia day".split()
)
_YEAR_PREPOSITIONS = frozenset({"em", "in", "durante", "during"})
_NUMERIC_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}([-/.]\d{1,4})?$")
_ARITHMETIC = re.compile(r"[+*=×÷%^]")
# Numbers with dots or commas that are never dates: versions and decimals ("10.15", "2.24.1", "3,50"); a date with
# dots carries a four-digit year ("02.01.2024").
_NUMBER_NOT_DATE = re.compile(r"(?<![\d.])\d+[.,]\d+(?:\.\d+)?(?![\d.])(?<!\.\d{4})|\b\d+\.\d+\.\d{1,3}\b")
_DATE_TOKEN = re.compile(r"[\w/.-]+", re.UNICODE)

# Phrases dateparser 1.5.0 misreads or misses: (pattern, period, days or months back from now; negative: ahead).
_KEYWORDS: tuple[tuple[re.Pattern, str, int], ...] = (
    (re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.I), "day", -2),  # read as tomorrow
    (re.compile(r"\bdepois\s+de\s+amanhã\b", re.I), "day", -2),  # read as tomorrow
    (re.compile(r"\bsemana\s+que\s+vem\b", re.I), "week", -7),  # not found
    (re.compile(r"\b(?:the\s+)?day\s+before\s+yesterday\b", re.I), "day", 2),
    (re.compile(r"\b(?:anteontem|antes\s+de\s+ontem)\b", re.I), "day", 2),
    (re.compile(r"\bsemana\s+retrasada\b", re.I), "week", 14),
    (re.compile(r"\bn?a\s+última\s+semana\b", re.I), "week", 7),
    (re.compile(r"\b(?:mês\s+retrasado)\b", re.I), "month", 2),
    (re.compile(r"\bn?o\s+último\s+mês\b", re.I), "month", 1),
    (re.compile(r"\bn?o\s+último\s+ano\b", re.I), "year", 1),
)


def _date_tokens(text: str) -> list[str]:
    """Lower-case tokens as a date is written: 02/01/2024, 2024-01-02 and 02.01.2024 stay one token, accents stay
    (the word lists above carry them), and ':' splits, so a clock time (10:30) reads as two numbers, not a date.
    Not `rqrag.text.text_quality.words`, which keeps 10:30 whole and would let a time of day narrow a search to a day."""
    return [w.lower() for w in _DATE_TOKEN.findall(text)]


def _preceding_word(text: str, start: int) -> str:
    before = _date_tokens(text[:start])
    return before[-1] if before else ""


def _following_word(text: str, end: int) -> str:
    after = _date_tokens(text[end:])
    return after[0] if after else ""


def _plausible(expression: str, text: str, start: int) -> bool:
    """Whether a dateparser match in `text` (at `start`) is a time expression rather than a misread word."""
    if _ARITHMETIC.search(expression) or _NUMBER_NOT_DATE.search(expression):
        return False
    words = _date_tokens(expression)
    content = [w for w in words if w not in _STOPWORDS]
    if not content:
        return False
    context = set(words) | {_preceding_word(text, start), _following_word(text, start + len(expression))}
    if all(w in _AMBIGUOUS for w in content) and not context & _CALENDAR_CONTEXT:
        return False
    if all(w.isdigit() for w in content):
        is_year = len(content) == 1 and len(content[0]) == 4
        before = {w for w in words if w in _STOPWORDS} | {_preceding_word(text, start)}
        return is_year and bool(before & _YEAR_PREPOSITIONS)
    if any(w.isdigit() and len(w) <= 2 for w in content) and len(content) == 1:
        return False  # "3" alone: an amount, not a day
    return True


def _range_of(day: date, period: str) -> tuple[date, date]:
    """The inclusive calendar range of `period` ("day", "week", "month", "year"; "time" counts as day)."""
    if period == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6)
    if period == "month":
        return day.replace(day=1), day.replace(day=calendar.monthrange(day.year, day.month)[1])
    if period == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31)
    return day, day


def _months_back(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 - months
    return date(index // 12, index % 12 + 1, 1)


def _keyword_range(text: str, now: datetime) -> tuple[date, date, str] | None:
    for pattern, period, back in _KEYWORDS:
        match = pattern.search(text)
        if match is None:
            continue
        today = now.date()
        if period == "day" or period == "week":
            anchor = today - timedelta(days=back)
        elif period == "month":
            anchor = _months_back(today, back)
        else:
            anchor = today.replace(year=today.year - back, day=1)
        return (*_range_of(anchor, period), match.group(0).strip())
    return None


def _settings(now: datetime, languages: Sequence[str], prefer: str = "past") -> dict:
    # Day-first numeric dates in Portuguese ("10/11/2026" is 10 November); month-first in English.
    order = "DMY" if languages and languages[0] == "pt" else "MDY"
    return {"RELATIVE_BASE": now, "PREFER_DATES_FROM": prefer, "DATE_ORDER": order}


def _ranges(text: str, now: datetime, languages: Sequence[str], prefer: str) -> Iterator[tuple[date, date, str]]:
    """Every plausible time expression of `text` as (first day, last day, expression), in reading order; an
    ambiguous one ("sábado", "em dezembro") resolved towards `prefer` ("past" or "future") of `now`."""
    if not text or not text.strip():
        return
    found = _keyword_range(text, now)
    if found is not None:
        yield found
        return
    from dateparser.date import DateDataParser
    from dateparser.search import search_dates

    languages = list(languages)
    settings = _settings(now, languages, prefer)
    matches = search_dates(text, languages=languages, settings=settings) or []
    parser = DateDataParser(languages=languages, settings=settings)
    cursor = 0
    for expression, moment in matches:
        start = text.find(expression, cursor)
        start = start if start >= 0 else text.find(expression)
        cursor = max(cursor, start + len(expression)) if start >= 0 else cursor
        if start < 0 or not _plausible(expression, text, start):
            continue
        # search_dates does not say how wide the expression is; parsing it alone again does.
        period = parser.get_date_data(expression).period or "day"
        yield (*_range_of(moment.date(), period), expression.strip())


def date_range_in(
    text: str, now: datetime, languages: Sequence[str] = ANSWER_LANGUAGES
) -> tuple[date, date, str] | None:
    """The inclusive (first day, last day) a time expression in `text` points at, and the expression; or None.

    The width follows the expression: a day ("ontem", "last Tuesday", "10/11/2026"), a Monday-Sunday week
    ("semana passada", "last week"), a month ("mês passado") or a year ("ano passado", "em 2025"). The first
    plausible expression wins; one that lies wholly after `now` is ignored: in a question it names the topic
    ("o que vou fazer amanhã?"), and narrowing to it would hide every plan told for another day. A plan is found
    by its words; `happened_span` is what keeps future days, for the memory itself.
    """
    for first, last, expression in _ranges(text, now, languages, "past"):
        if first <= now.date():
            return first, last, expression
    return None


# ------------------------------------------------------------------------------ when a told fact happened


@dataclass(frozen=True)
class Happened:
    """When a memory's fact happened: its inclusive days and, when known, its period of the day."""

    first: date
    last: date
    period_of_day: str | None  # named in the memory's language; None: neither said nor the telling day
    expression: str | None = None  # the time expression the days were read from; None: the telling day


# A statement about the future resolves an ambiguous day forwards: "No sábado vou à praia" told on a Wednesday is
# the coming Saturday, "No sábado fui à praia" the last one.
_FUTURE = re.compile(
    r"\b(?:vou|vai|vamos|vão|irei|irá|iremos|pretendo|planejo|amanhã|próxim[oa]s?|que\s+vem|will|going\s+to"
    r"|tomorrow|next|plan(?:ning)?\s+to)\b|\w'll\b",
    re.I,
)
# A habit is not one day: "Eu corro aos sábados" or "I swim every Monday" keeps the telling day, not last Saturday.
_HABIT = re.compile(
    r"\btod[oa]s?\s+(?:[oa]s\s+)?(?:dias?|semanas?|m[eê]s|meses|anos?|manhãs?|tardes?|noites?|fins?\s+de\s+semana"
    r"|segundas?|terças?|quartas?|quintas?|sextas?|sábados?|domingos?)\b|\bde\s+segunda\s+a\s+sexta\b"
    r"|\b(?:segundas|terças|quartas|quintas|sextas|sábados|domingos)\b|\bevery\s+\w+"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\bweekends\b",
    re.I,
)
_ARTICLE = r"(?:à|a|de|na|pela|nesta|nessa|esta|essa)"
_EN_WHEN = r"(?:this|in\s+the|yesterday|tomorrow)"
# Phrases naming a period of the day, by the period's index in `_PERIODS` (0 madrugada/night, 1 manhã/morning,
# 2 tarde/afternoon, 3 noite/evening). "last night", "tonight" and "at night" are the evening: dinner, not 3 a.m.
_PERIOD_PHRASES: tuple[tuple[re.Pattern, int], ...] = (
    (re.compile(rf"\b{_ARTICLE}\s+madrugada\b|\bin\s+the\s+(?:middle\s+of\s+the\s+night|small\s+hours)\b", re.I), 0),
    (re.compile(rf"\b{_ARTICLE}\s+manhã\b|\b{_EN_WHEN}\s+morning\b", re.I), 1),
    (re.compile(rf"\b{_ARTICLE}\s+tarde\b|\b{_EN_WHEN}\s+afternoon\b", re.I), 2),
    (re.compile(rf"\b{_ARTICLE}\s+noite\b|\b{_EN_WHEN}\s+evening\b|\b(?:last|at)\s+night\b|\btonight\b", re.I), 3),
)


def named_period(text: str, language: str = "pt") -> str | None:
    """The period of the day `text` names first ("ontem à noite" -> "noite"; "last night" -> "evening" in
    English), in `language`; None when it names none."""
    found = [(match.start(), index) for pattern, index in _PERIOD_PHRASES if (match := pattern.search(text or ""))]
    if not found:
        return None
    return _PERIODS[_check_language(language)][min(found)[1]][1]


def happened_span(statement: str | Sequence[str], told: datetime, language: str = "pt") -> Happened:
    """When the fact of `statement` happened, read against `told` (naive local time, as `date_range_in` wants).

    `statement` may be several texts, best first (the user's own words, then the memory's description): the
    first that names a time gives the days; a period of the day comes from the same text, else from any.
    No time expression: the telling day, at the telling period. A named day other than the telling day without
    a named period: no period (the telling hour says nothing about it). A habit ("aos sábados", "every Monday"):
    the telling day, with only a period it names.

    The future is kept: "amanhã vou ao médico" told on the 18th happened (will happen) on the 19th, so the plan
    is a memory OF the 19th. A question about the 19th asked on the 19th or later ("o que eu fiz ontem?") finds
    it in its day; one asked before ("o que eu tenho amanhã?") is not narrowed (`date_range_in` ignores future
    ranges) and finds it by its words. Dating the plan on the telling day would lose it from the first.
    """
    language = _check_language(language)
    texts = [statement] if isinstance(statement, str) else list(statement)
    texts = [text for text in texts if text and text.strip()]
    languages = (language, *(other for other in ANSWER_LANGUAGES if other != language))
    today = told.date()
    said_period = next((found for text in texts if (found := named_period(text, language))), None)
    for text in texts:
        if _HABIT.search(text):
            return Happened(today, today, said_period)
        prefer = "future" if _FUTURE.search(text) else "past"
        found = next(_ranges(text, told, languages, prefer), None)
        if found is not None:
            first, last, expression = found
            period = named_period(text, language) or said_period
            if period is None and first == last == today:
                period = period_of_day(told.hour, language)
            return Happened(first, last, period, expression)
    return Happened(today, today, said_period or period_of_day(told.hour, language))


# Verbs of telling: "o que eu disse ontem?" asks what was said that day, not what happened then.
_TELLING = re.compile(
    r"\b(?:disse|dissemos|falei|falamos|contei|comentei|mencionei|conversamos|perguntei|"
    r"say|said|tell|told|mention|mentioned|talk|talked|ask|asked)\b",
    re.IGNORECASE,
)


def asks_when_told(question: str) -> bool:
    """Whether a question's time expression is about when something was told (a verb of telling), so memories
    are narrowed by the day they were told rather than the days they happened."""
    return bool(_TELLING.search(question or ""))
