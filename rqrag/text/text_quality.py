"""What a piece of generated text is, read without a model: its content words, whether it loops, which language it
is in, whether it is a heading or the question said back.

The grounded answer (`rqrag.answer.grounding`) and the decoder's refinement guards (`rqrag.inference.decoding.guards`)
both ask these questions of what a small model wrote, so they are answered once, here, in the core. Everything is
accent- and case-folded, so "configuração" and "CONFIGURACAO" are one word.

    content_words("Qual é o endereço IP do tjener?", "pt")  ->  ["endereco", "ip", "tjener"]
    guess_language("What is the IP address of the server")  ->  "en"
    loops("the server in the IP address of the server in the IP address of the server")  ->  True
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import cache

from rqrag.text.answer_text import word_jaccard


_WORD = re.compile(r"\w+(?:[.:/\-]\w+)*", re.UNICODE)  # keeps 10.0.2.2, /etc/fstab, ltsp-server, 09:30 whole
# A number, a version, an address, a path, an option or a name with a digit: what a correct answer must repeat
# exactly (a model that writes 10.0.0.1 where the page says 10.0.2.2 is wrong, however close the words are).
IDENTIFIER = re.compile(r"(?<![\w/])(?:/[\w.\-]+(?:/[\w.\-]*)*|--?[a-z][\w\-]*|\w*\d[\w.:\-/]*)", re.UNICODE)
# A numbered section heading as PDF text shows it: "14.13.1 Como configurar ...", "3.1.2 Servidor principal".
_NUMBERED_HEADING = re.compile(r"^\s*\d+(?:\.\d+)+\.?\s+\S")


def fold(text: str) -> str:
    """Lower case without accents: "Configuração" -> "configuracao"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """Folded word tokens; identifiers such as 10.0.2.2 or /etc/fstab stay one token."""
    return [w.strip(".:-/") or w for w in _WORD.findall(fold(text))]


@cache
def stopwords(language: str) -> frozenset[str]:
    """bm25s's stopword list for `language` (the BM25 analyzer's own), folded; English's for unknown languages."""
    from bm25s import stopwords as lists

    names = {"pt": "STOPWORDS_PORTUGUESE", "es": "STOPWORDS_SPANISH", "en": "STOPWORDS_EN_PLUS"}
    chosen = getattr(lists, names.get(language, "STOPWORDS_EN_PLUS"), None) or lists.STOPWORDS_EN
    return frozenset(fold(w) for w in chosen)


def all_stopwords() -> frozenset[str]:
    return frozenset().union(*(stopwords(language) for language in KNOWN_LANGUAGES))


def content_words(text: str, language: str | None = None) -> list[str]:
    """Words that carry meaning: not a stopword of `language` (of any known language when None), not 1 letter."""
    stop = stopwords(language) if language else all_stopwords()
    return [w for w in words(text) if w not in stop and (len(w) > 1 or w.isdigit())]


def identifiers(text: str) -> list[str]:
    """Numbers, versions, addresses, paths and options in `text`, folded: the tokens an answer must get exact."""
    return [m.strip(".:,;") for m in IDENTIFIER.findall(fold(text)) if m.strip(".:,;")]


def stem(word: str) -> str:
    """A crude shared stem (the first 5 letters) so "configurar" meets "configuração" and "servers" "server"."""
    return word if any(c.isdigit() for c in word) else word[:5]


def guess_language(text: str, min_words: int = 4) -> str | None:
    """The known language whose function words `text` uses most, or None when it is too short to tell (names,
    numbers, commands carry no language) or uses none."""
    tokens = words(text)
    if len(tokens) < min_words:
        return None
    counts = {language: sum(t in _MARKERS[language] for t in tokens) for language in KNOWN_LANGUAGES}
    best = max(counts, key=counts.get)
    if counts[best] == 0 or list(counts.values()).count(counts[best]) > 1:
        return None
    return best


# Function words that are frequent in one language and rare in the others (the stopword lists overlap: "a", "no",
# "se", "para" are both Portuguese and Spanish, "do" both Portuguese and English), so counting them tells apart.
_MARKERS = {
    "pt": frozenset(
        "o os as um uma do da dos das no na nos nas ao aos pelo pela com nao sao e esta isso isto voce ele ela "
        "eles que qual quais como onde quando tem ser foi sobre seu sua seus suas entre ou mas tambem pode ate "
        # the first person and the days around today: short questions about oneself ("O que eu fiz ontem?")
        "eu meu minha meus minhas ontem hoje amanha "
        # the question words Spanish spells otherwise ("quien", "en", "cuantos"): "Quem escreveu Dom Casmurro?"
        "quem em quanto quanta quantos quantas porque".split()
    ),
    "en": frozenset(
        "the of and to in is are was were what which who whom how when where this that these those with for by "
        "from it its be been has have had not an or as at on can does did will would should my yesterday today".split()
    ),
    "es": frozenset(
        "el los las del al una unos unas es son esta estan con por que cual cuales como donde cuando pero "
        "tambien muy mas hay ser fue sobre su sus entre y o puede hasta yo mi mis ayer hoy".split()
    ),
}
# Languages whose function words we know: enough to tell what a sentence is written in (a wider set than
# `rqrag.text.languages.ANSWER_LANGUAGES`: a Spanish question is recognised as not Portuguese).
KNOWN_LANGUAGES = tuple(_MARKERS)


def loops(text: str, n: int = 3, max_repeats: int = 2) -> bool:
    """Whether `text` goes round in circles: some n-gram of words occurs more than `max_repeats` times, or a
    long text uses few distinct words. A small model's runaway ("the server in the IP address of the server in
    the IP address of ...") loops; a real sentence repeats a 3-gram at most twice."""
    tokens = words(text)
    if len(tokens) >= 4 and len(set(tokens)) / len(tokens) <= 0.5:
        return True  # "10.0.0.0/8 (10.0.0.0/8) (10.0.0.0/8) (10.0.0.0/8)": short, and half repeats
    if len(tokens) < n * (max_repeats + 1):
        return False
    grams = Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    if grams.most_common(1)[0][1] > max_repeats:
        return True
    return len(tokens) >= 24 and len(set(tokens)) / len(tokens) < 0.4


def is_heading(text: str) -> bool:
    """A numbered section heading ("3.1.2 Servidor principal", "11.2 Gerenciamento de backup") rather than a
    statement. Short capitalised lines are not counted: "Shirley Temple" is a heading's shape and an answer."""
    return bool(_NUMBERED_HEADING.match(text.strip())) and not text.strip().endswith(".")


def is_question(text: str) -> bool:
    """Ends with a question mark, maybe inside closing quotes or brackets ("...nome?")."""
    return text.strip().rstrip("\"'”»)]").endswith("?")


def new_content(answer: str, question: str, language: str | None = None) -> list[str]:
    """The answer's content words (and identifiers) that the question does not already hold, by stem (stopwords
    of `language`, of every known language when None)."""
    asked = {stem(w) for w in content_words(question, language)}
    return [w for w in dict.fromkeys(content_words(answer, language)) if stem(w) not in asked]


def echoes(answer: str, question: str, min_share: float = 0.5) -> bool:
    """Whether `answer` says the question back instead of answering it: a question itself, nothing new, or a long
    sentence whose distinct content words are mostly the question's ("The woman who portrayed Corliss Archer in
    the film Kiss and Tell was the American actress who played Corliss Archer" names no one)."""
    if is_question(answer):
        return True
    mine = list(dict.fromkeys(content_words(answer)))
    if not mine:
        return False  # "Yes", "No", "1945": too short to echo
    fresh = new_content(answer, question)
    if not fresh:
        # A short span of the question is a choice, not an echo ("Which is older, X or Y?" -> "X"; "...based in
        # what New York city?" -> "New York City"); saying back most of the question is an echo.
        return len(mine) >= max(3, len(set(content_words(question))) // 2)
    asked_share = 1 - len(fresh) / len(mine)
    return len(mine) >= 8 and asked_share > min_share


# Word-set Jaccard at or above which a query says what another text says (the training-data filter's threshold).
RESTATEMENT_JACCARD = 0.8


def restates(query: str, other: str) -> bool:
    """Whether `query` says (nearly) what `other` says: word-set Jaccard >= 0.8 after normalisation. The
    training-data filter (`rqrag.data_construction.query_filter`) drops such refinements; the tree decoder's
    guards (`rqrag.inference.decoding.guards`) do not search them again."""
    return word_jaccard(query, other) >= RESTATEMENT_JACCARD


# A capitalised word: the shape of a name ("Dean", "Martens", "O'Neill", "Saint-Exupéry").
_CAPITALISED = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’-]*\w")
_NOT_NAMES = frozenset(
    "who whom whose what which when where why how is are was were do does did can could will would should has have "
    "had may might must shall the a an of in on at to for and or by with from as this that these those its his her "
    "their".split()
)


def invented_entities(query: str, question: str, seen: Sequence[str]) -> list[str]:
    """The capitalised words of `query` found neither in `question` nor in any of the `seen` texts (the evidence
    and queries read before it), case-insensitively: entities a refinement names out of nowhere ("Dean Martens"
    for a question about Kiss and Tell). Question and function words do not count."""
    known = set(re.findall(r"[\w'’-]+", " ".join([question, *seen]).lower()))
    return [w for w in _CAPITALISED.findall(query) if w.lower() not in _NOT_NAMES and w.lower() not in known]
