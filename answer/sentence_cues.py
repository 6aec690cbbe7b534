"""What a sentence holds and what a question asks for, in the cue words of a manual and of a general question: an
address, a path, a number, a command; a "how do I..." question and the numbered steps that answer it. Shared by
the extractive answerer (`extractive.py`) and the reader's features (`reading/span_features.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rqrag.answer.answer_types import DATE, NUMBER, POSITION
from rqrag.text.text_quality import IDENTIFIER, fold, is_question, new_content


# Types a sentence can be checked for on its own (a year, a number, a position word): only these filter what may
# be quoted. A name or a place is recognised only as one of the tree's candidates (a capitalised word proves
# nothing, and a manual's "onde fica" is answered by a path).
SPECIFIC_TYPES = (DATE, NUMBER, POSITION)
# A "how do I..." answer is the procedure's steps: its quote may hold this many words.
PROCEDURE_MAX_WORDS = 90
_BARE_NUMBER = re.compile(r"\d{1,2}[.)]")
_DANGLING_NUMBER = re.compile(r"(?:^|\s)\d{1,2}[.)]$")
_STEP = re.compile(r"^\s*(?:\d{1,2}[.)]|\$|#)\s+\S")  # a numbered step, a shell command (bullets list features)
_PROCEDURE = re.compile(
    r"^\s*(?:\S+\s+){0,12}?(como (faco|fazer|posso|devo|configur|instal|ger|cri|import|export|ativ|desativ|escond|"
    r"mud|alter|protej|grav|aument|escond|remov|adicion|us|defin|habilit|desabilit|permit)\w*|how (do|can|should|would) "
    r"(i|you|we)|how to|"
    r"what are the steps|quais (sao )?os passos|onde (mudo|configuro|altero|defino|ativo))"
)


# A number, a version, an address, a path, an option or a name with a digit: what answers in a manual often are.
_IP = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d+)?\b")
_PATH = re.compile(r"(?:^|[\s(\"'“])(?:/[\w.\-]+){1,}/?|\b\w+\.(?:conf|cfg|post|list|log|txt|iso|csv)\b")
_NUMBER = re.compile(r"\d")
_COMMAND = re.compile(r"(?:^|\s)(?:sudo|apt|apt-get|dd|ssh|systemctl|service|[a-z]+-[a-z][\w-]*)\s+\S")


def says_nothing_new(sentence: str, question: str, language: str) -> bool:
    """Says the question back instead of answering: a question itself, or no content word the question lacks."""
    # Only "nothing new", not `text_quality.echoes`: filtering sentences that are mostly the question's words as
    # well lost 4 of 40 golden questions whose answer sentence restates the question before giving the fact.
    return is_question(sentence) or not new_content(sentence, question, language)


# What a question asks for -> the pattern a sentence that answers it holds. Folded cue words, pt and en.
_WANTS: tuple[tuple[re.Pattern, re.Pattern], ...] = (
    (re.compile(r"\b(ip|endereco|enderecos|address|sub-?redes?|subnets?|mascara|netmask|faixa)\b"), _IP),
    (re.compile(r"\b(arquivo|ficheiro|file|caminho|path|diretorio|directory|pasta|folder|onde|where)\b"), _PATH),
    (re.compile(r"\b(quant[oa]s?|how (many|much)|porta|port|ano|year|versao|version)\b"), _NUMBER),
    (re.compile(r"\b(data|date|quando|when|horario|hora|time)\b"), _NUMBER),
    (re.compile(r"\b(comando|command|executar|run|instal\w*|como|how)\b"), _COMMAND),
)


def wanted_patterns(question: str) -> list[re.Pattern]:
    """The patterns of what `question` asks for (an address, a path, a number, a command), from its cue words."""
    folded = fold(question)
    return [pattern for cue, pattern in _WANTS if cue.search(folded)]


def _holds_new(sentence: str, question: str, patterns: Sequence[re.Pattern]) -> float:
    """1 when the sentence holds a match of one of `patterns` that the question itself does not say."""
    asked = fold(question)
    for pattern in patterns:
        for match in pattern.finditer(sentence):
            token = fold(match.group()).strip(" ,;:.(\"'“")
            if token and token not in asked:  # "5" counts: "pelo menos 5 caracteres" answers "quantos"
                return 1.0
    return 0.0


def is_step(sentences: Sequence[str], k: int) -> bool:
    """Whether sentence k of a passage is a step of a list: it opens with "2." or a shell prompt, is the bare "2."
    the sentence splitter cut off, or follows one ("...faça o seguinte:" / "1." / "Selecione ...")."""
    if _STEP.match(sentences[k]) or _BARE_NUMBER.fullmatch(sentences[k].strip()):
        return True
    return k > 0 and bool(
        _DANGLING_NUMBER.search(sentences[k - 1]) or _BARE_NUMBER.fullmatch(sentences[k - 1].strip())
    )


def is_procedure(question: str) -> bool:
    """Whether a question asks how to do something (its answer is a list of steps)."""
    return bool(_PROCEDURE.search(fold(question)))


def _cut_head(sentence: str) -> bool:
    """Whether a passage's first sentence is the tail of one cut by chunking: it starts with a lower-case word
    (not a command, a path or an identifier, which may be lower case: "apt update", "/etc/fstab")."""
    first = sentence.lstrip()[:1]
    return first.isalpha() and first.islower() and not IDENTIFIER.match(sentence.lstrip().split(maxsplit=1)[0])


def share_held(phrases: Sequence[str], normalised: str) -> float:
    """The share of `phrases` (normalised, space-padded) that a normalised text holds."""
    return sum(p in f" {normalised} " for p in phrases) / len(phrases) if phrases else 0.0
