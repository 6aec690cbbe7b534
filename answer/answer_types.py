"""What kind of thing a question asks for, and whether an answer (or an evidence sentence) is that kind of thing.

A small model often answers the wrong thing from the right page: the person for "which government position did
she hold", the band for "what kind of musician was he", a sentence for "what year". Read without a model, from the
question's cue words (English and Portuguese), the asked type is one of

    person · place · date · number · position · kind · yes_no · option · other

and `fits(answer, asked)` says whether an answer has that shape: True, False, or None when it cannot be told
(free text against an open question). `options(question)` gives the two named options of a comparison ("Which
came first, Summer Wars or The Secret of Kells?"), `holds_type(sentence, asked)` whether an evidence sentence holds
a thing of the asked type (how a quote is chosen), and `entities(question)` the names a question is about.

    asked_type("What government position was held by the woman who portrayed Corliss Archer?")  ->  "position"
    fits("Shirley Temple", "position")  ->  False
    fits("Chief of Protocol", "position")  ->  True
    options("Are Sutera and Rhodotypos both types of shrub?")  ->  ()   (a yes/no question, not a choice)
"""

from __future__ import annotations

import functools
import re

from rqrag.text.answer_text import contains_phrase, normalize_answer
from rqrag.text.text_quality import fold


PERSON, PLACE, DATE, NUMBER, POSITION, KIND, YES_NO, OPTION, OTHER = (
    "person",
    "place",
    "date",
    "number",
    "position",
    "kind",
    "yes_no",
    "option",
    "other",
)
ASKED_TYPES = (PERSON, PLACE, DATE, NUMBER, POSITION, KIND, YES_NO, OPTION, OTHER)

# A yes/no question opens with an auxiliary verb (folded; pt: "É verdade que...", "O X é ...?" are rarer and left out).
_YES_NO_OPENING = re.compile(
    r"^(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|may|might|must|e verdade)\b"
)
# "X or Y?" after a comma or after "which/who/what ..." — the two options of a comparison.
_OPTIONS = re.compile(r"(?:,|:|\bbetween\b|\bentre\b)\s*(?:the\s+)?(.+?)\s+(?:or|ou)\s+(?:the\s+)?(.+?)\s*\??$", re.I)
_NAMES_ALTERNATIVE = re.compile(r"\s(?:or|ou)\s", re.I)  # what both patterns need; cheap to look for first
_OPTIONS_LOOSE = re.compile(
    r"^\s*(?:which|who|what|qual|quem)\b.*?\b(?:is|was|are|were|came|e|foi)?\s*(.+?)\s+(?:or|ou)\s+(.+?)\s*\??$", re.I
)

# Words naming an office, a rank or a title: what "which position / title / office / role" asks for.
POSITION_WORDS = frozenset(
    """ambassador chief secretary minister president vice governor senator mayor chairman chairwoman chair director
    head commissioner representative congressman congresswoman delegate judge justice attorney general admiral
    colonel captain lieutenant major sergeant commander officer chancellor premier prime king queen prince princess
    duke duchess emperor empress pope bishop cardinal archbishop dean provost rector professor speaker treasurer
    advisor adviser consul envoy councillor councilor alderman sheriff marshal lord baron count earl knight sultan
    emir president ceo founder manager coach captain editor producer protocol cabinet deputy assistant undersecretary
    embaixador embaixadora chefe secretario secretaria ministro ministra presidente governador governadora senador
    senadora prefeito prefeita diretor diretora deputado deputada juiz juiza rei rainha""".split()
)
# Words naming a kind of person or thing: "what kind of musician" wants "drummer", not "Led Zeppelin".
_KIND_CUE = re.compile(r"\b(what|which) (kind|type|sort|genre|form) of\b|\bque (tipo|especie) de\b")
_PERSON_CUE = re.compile(
    r"^(who|whom|whose|quem)\b|\bby whom\b|\bby who\s*\??$|\b(which|what) (\w+ ){0,2}(person|man|woman|actor|actress|singer|author|writer|director|"
    r"player|artist|musician|composer|politician|scientist|poet|novelist|screenwriter|producer|founder|architect|"
    r"painter|philosopher|king|queen|athlete|footballer|comedian|band member)\b|\bwho (is|was|were|are)\b"
)
_PLACE_CUE = re.compile(
    r"^(where|onde)\b|\b(which|what) (\w+ ){0,2}(city|country|"
    r"state|county|town|village|region|continent|province|island|river|mountain|location|place|capital|district|"
    r"neighborhood|borough|nation)\b|\bem que (cidade|pais|estado)\b|\b(qual|que) (cidade|pais|estado|capital)\b"
)
_DATE_CUE = re.compile(
    r"^(when|quando)\b|\b(what|which|in which|in what) (year|date|decade|century|month|day|era)\b|\bwhat years\b|"
    r"\b(em )?que (ano|data|dia|mes|seculo)\b|\b(qual|que) (ano|data)\b|\bhow long ago\b"
)
_NUMBER_CUE = re.compile(
    r"\bhow (many|much|old|long|tall|high|far|large|big|deep|wide)\b|\b(quant[oa]s?)\b|\bpopulation\b|"
    r"\b(what|which) (is|was|were|are) the (\w+ )?(number|capacity|height|length|area|size|total)\b|"
    r"\b(populacao|numero de)\b|"
    # "que valor…", "what value…": a setting's value is a number far more often than a word
    r"\b(que|qual|quais|what|which)( e| is| are)?( o| os| the)? (valor|valores|value|values)\b"
)
_POSITION_CUE = re.compile(
    r"\b(what|which) (\w+ ){0,2}(position|office|title|role|post|rank|job|occupation|profession)s?\b|"
    r"\b(qual|que) (\w+ ){0,2}(cargo|posicao|titulo|profissao)\b"  # not "funcao": a program's function, in a manual
)

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b")
_MONTH = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|janeiro|fevereiro|"
    r"marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)\b"
)
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand "
    "million billion dozen um dois tres quatro cinco seis sete oito nove dez cem mil milhao milhoes".split()
)
_DIGIT = re.compile(r"\d")
_NUMBER_TOKEN = re.compile(r"(?<!\w)\d")  # a digit that opens a token, not one inside a name
_CAPITALISED = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’.-]*")
_QUESTION_WORDS = frozenset(
    "who whom whose what which when where why how is are was were do does did can could has have had the a an in "
    "of on at for and or but by with from as this that these those quem qual quais quando onde como o a os as".split()
)


def asked_type(question: str, choices=()) -> str:
    """The kind of thing `question` asks for (see the module docstring); a multiple-choice question is `option`."""
    if choices:
        return OPTION
    folded = " ".join(fold(question).split())
    if _YES_NO_OPENING.match(folded):
        return OPTION if options(question) else YES_NO
    if options(question):
        return OPTION
    if _KIND_CUE.search(folded):
        return KIND
    if _DATE_CUE.search(folded):
        return DATE
    if _POSITION_CUE.search(folded) and not _PERSON_CUE.match(folded):
        return POSITION
    if _NUMBER_CUE.search(folded):
        return NUMBER
    if _PLACE_CUE.search(folded):
        return PLACE
    if _PERSON_CUE.search(folded):
        return PERSON
    return OTHER


@functools.lru_cache(maxsize=1024)
def options(question: str) -> tuple[str, ...]:
    """The two options a comparison question names ("..., X or Y?"), as written; () when it names none.
    "Are X and Y both ...?" is a yes/no question, not a choice. Cached: the reader asks it of every candidate, and
    on a long question without "or" the two patterns backtrack over the whole text (tens of ms, holding the GIL
    that the model thread needs), so such a question is not searched at all."""
    text = " ".join(question.split())
    if not _NAMES_ALTERNATIVE.search(text):
        return ()
    for pattern in (_OPTIONS, _OPTIONS_LOOSE):
        found = pattern.search(text)
        if found:
            first, second = (part.strip(" ,\"'“”?") for part in found.groups())
            first = re.split(r",\s*|\b(?:is|was|are|were|came)\s+", first)[-1].strip()
            if first and second and len(first.split()) <= 8 and len(second.split()) <= 8:
                return (first, second)
    return ()


def picked_option(answer: str, question: str) -> str | None:
    """The option of `question` that `answer` names (the one whose words it holds and the other's it does not)."""
    named = [o for o in options(question) if contains_phrase(normalize_answer(answer), normalize_answer(o))]
    return named[0] if len(named) == 1 else None


def is_yes_no(answer: str) -> bool:
    first = fold(answer).strip().split(maxsplit=1)
    return bool(first) and first[0].strip(".,!;:") in {"yes", "no", "sim", "nao"}


def fits(answer: str, asked: str, question: str = "") -> bool | None:
    """Whether `answer` has the shape of what was asked: True, False, or None when its shape cannot be told."""
    text = " ".join((answer or "").split())
    if not text:
        return False
    folded = fold(text)
    yes_no = is_yes_no(text)
    if asked == YES_NO:
        return yes_no
    if yes_no:
        return False  # "yes" to a question that asks for a name, a year or a choice
    if asked == OPTION:
        return picked_option(text, question) is not None if options(question) else None
    if asked == DATE:
        return bool(_YEAR.search(folded) or _MONTH.search(folded))
    if asked == NUMBER:
        # a digit inside a name ("GOsa2", "x86") is not a number
        return bool(_NUMBER_TOKEN.search(folded)) or any(w in _NUMBER_WORDS for w in folded.split())
    if asked == POSITION:
        return any(w in POSITION_WORDS for w in re.findall(r"\w+", folded))
    if asked in (PERSON, PLACE):
        if _DIGIT.search(folded) and not _CAPITALISED.search(text):
            return False  # a number or a date for "who" / "where"
        return True if _CAPITALISED.search(text) else None
    if asked == KIND:
        # a kind is a common noun ("drummer", "shrub"): an answer that is only capitalised names is a name
        names = [w for w in text.split() if w[:1].isupper()]
        return None if len(names) < len(text.split()) else False
    return None


def holds_type(sentence: str, asked: str, question: str = "") -> bool:
    """Whether an evidence sentence holds a thing of the asked type that the question does not already say (a
    year for "when", a position word for "which position"): what a quote that answers must hold."""
    folded = fold(sentence)
    asked_words = set(re.findall(r"\w+", fold(question)))
    if asked == DATE:
        return any(m.group(1) not in asked_words for m in _YEAR.finditer(folded)) or bool(_MONTH.search(folded))
    if asked == NUMBER:
        numbers = re.findall(r"\d[\d,.]*", folded)
        return any(n.strip(",.") not in asked_words for n in numbers) or any(
            w in _NUMBER_WORDS and w not in asked_words for w in folded.split()
        )
    if asked == POSITION:
        return any(w in POSITION_WORDS and w not in asked_words for w in re.findall(r"\w+", folded))
    if asked in (PERSON, PLACE):
        return any(w.lower() not in asked_words for w in _CAPITALISED.findall(sentence)[1:]) or bool(
            [w for w in _CAPITALISED.findall(sentence)[:1] if fold(w) not in asked_words]
        )
    if asked == OPTION:
        return any(contains_phrase(normalize_answer(sentence), normalize_answer(o)) for o in options(question))
    return True


def entities(question: str) -> list[str]:
    """The names `question` is about: runs of capitalised words (not the question's own opening word), and
    quoted titles. "Are Sutera and Rhodotypos both types of shrub?" -> ["Sutera", "Rhodotypos"] ("and" splits
    names, so "Kiss and Tell" is two: both are in any passage about the film)."""
    found = [m.strip() for m in re.findall(r"[\"“']([^\"”']{2,60})[\"”']", question)]
    run: list[str] = []
    tokens = question.replace("?", " ").split()
    for position, token in enumerate(tokens):
        word = token.strip(",.;:()\"“”'")
        capitalised = bool(word) and word[:1].isupper() and not (position == 0 and fold(word) in _QUESTION_WORDS)
        if capitalised and fold(word) not in _QUESTION_WORDS or (run and word.lower() in {"of", "de", "the"}):
            run.append(word)
            continue
        if run:
            found.append(" ".join(w for w in run).strip())
        run = []
    if run:
        found.append(" ".join(run))
    cleaned = []
    for name in found:
        words_ = name.split()
        while words_ and words_[-1].lower() in {"of", "de", "the"}:
            words_.pop()
        if words_ and " ".join(words_) not in cleaned:
            cleaned.append(" ".join(words_))
    return cleaned
