"""The words a written claim must get exactly, read without a model: its names (runs of capitalised words), its
numbers (in digits or spelled out, ordinals as their number), quoted terms and addresses. Shared by the claim check
(`rqrag.answer.claim_check`: each must stand in the passage sentence the claim rests on) and the cloze check
(`rqrag.answer.cloze_check`: each is blanked and read back).

    name_runs("Ana Lima joined OpenRider in 2015.")  ->  matches "Ana Lima", "OpenRider"
    key_terms("It connects up to eight conditions in 2015.")  ->  ["2015", "eight"]
"""

from __future__ import annotations

import re

from rqrag.text.text_quality import content_words, fold, identifiers, words


_QUOTED = re.compile(r"[\"“«]([^\"”»]{2,80})[\"”»]")  # not ' : an apostrophe (Guns N' Roses) quotes nothing
_URL = re.compile(r"https?://\S+|www\.\S+")
# A name: a capitalised word, or a run of them ("Ana Lima", "Chief of Protocol"); a sentence's first word counts
# unless it is a function word ("The", "Para").
_NAME = re.compile(
    r"\b[A-ZÀ-ÖØ-Þ][\w'’\-]*\.?(?:\s+(?:of|de|da|do|dos|das|von|van|the)?\s*[A-ZÀ-ÖØ-Þ][\w'’\-]*\.?)*(?<!\.)"
)


def name_runs(sentence: str, known: str = "") -> list[re.Match]:
    """The names of a sentence: runs of capitalised words ("Ana Lima", "Chief of Protocol", "Bradford P. Campbell").
    A single capitalised word opening the sentence is a name only if `known` (the passage) spells it so too:
    "Hoje", "Pressionar" open sentences, they name nothing."""
    runs = []
    for match in _NAME.finditer(sentence):
        text = match.group(0)
        if not [w for w in content_words(text) if not w.isdigit()]:
            continue  # a lone "The", "Para"
        if match.start() == len(sentence) - len(sentence.lstrip()) and " " not in text and text not in known:
            continue
        runs.append(match)
    return runs


# Numbers spelled out: "oito condições" over a passage that says "três" is a wrong number, whatever its other words.
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty hundred thousand million billion "
    "first second third fourth fifth sixth seventh eighth ninth tenth once twice "
    "um uma dois duas tres quatro cinco seis sete oito nove dez onze doze vinte cem cento mil milhao milhoes bilhao "
    "primeiro primeira segundo segunda terceiro terceira quarto quarta quinto quinta".split()
)


def key_terms(sentence: str, known: str = "") -> list[str]:
    """What the sentence must get exactly, folded: numbers (in digits or words) and identifiers, quoted terms and
    addresses. (Names are checked as whole runs: `name_runs`.)"""
    terms = [ordinal(t) for t in identifiers(sentence)]
    terms += [w for w in words(sentence) if w in NUMBER_WORDS]
    terms += [fold(m.group(1)).strip() for m in _QUOTED.finditer(sentence)]
    terms += [fold(u).rstrip(".,;)") for u in _URL.findall(sentence)]
    return list(dict.fromkeys(t for t in terms if t))


def ordinal(term: str) -> str:
    """ "13th" and "13º" are the number 13 as a passage may write it ("13th century", "século 13")."""
    return re.sub(r"^(\d+)(st|nd|rd|th|º|ª|o|a)$", r"\1", term)
