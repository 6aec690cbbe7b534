"""What kind of answer a person reads, and what is said when there is nothing to answer with.

    AnswerKind.QUOTED == "quoted"                         # a str: JSON, SQL and the page read it as before
    said(Message.NOT_FOUND, "pt")                         # "Não encontrei nos seus documentos ..."
    said(Message.COULD_NOT_SEARCH, "en", reason="web search is unavailable")

One table, keyed by the languages the assistant has wording for (`rqrag.text.languages.ANSWER_LANGUAGES`); a test checks
every message has exactly those. A language outside them reads English.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from rqrag.text.languages import ANSWER_LANGUAGES, question_language


class AnswerKind(str, Enum):
    """What the shown text is (`PipelineAnswer.kind`, the API's `answer_kind`)."""

    GENERATED = "generated"  # the model's answer, supported by its evidence and confident enough
    QUOTED = "quoted"  # a sentence of the evidence, quoted with its source
    # written by the model that read the evidence: the short answer, then sentences each citing its passages and
    # each checked against them (rqrag.answer.writer); the verbatim sentences they rest on are the quotes
    WRITTEN = "written"
    NOT_FOUND = "not_found"  # the question is outside the documents or memories searched
    NO_ANSWER = "no_answer"  # nothing supported and nothing quotable (or the sources could not be searched)
    # the reader model's own answer to a question no source it read answers: said to be its own, no quote, no source
    UNSOURCED = "unsourced"
    REMEMBERED = "remembered"  # the reply to a message that only told something: noted as a memory

    def __str__(self) -> str:
        return self.value

    @property
    def states_an_answer(self) -> bool:
        """The text shown is an answer taken from the evidence (the model's, or a quoted sentence): what an answer
        is scored by (F1, "holds the gold") everywhere."""
        return self in _STATES_AN_ANSWER

    @property
    def is_read_as_answer(self) -> bool:
        """A person reads an answer here: one from the evidence, or the reader model's own (labelled, no source)."""
        return self in _READ_AS_ANSWER


# The one table of which kinds show an answer (eval reports, replays, experiments and scripts all ask AnswerKind).
_STATES_AN_ANSWER = frozenset({AnswerKind.GENERATED, AnswerKind.QUOTED, AnswerKind.WRITTEN})
_READ_AS_ANSWER = _STATES_AN_ANSWER | {AnswerKind.UNSOURCED}


class Message(str, Enum):
    NO_ANSWER = "no_answer"  # no answer is supported and no passage could be quoted: nothing is made up
    # no search could be made (an unreachable retriever): "found nothing" would claim a search that never happened
    COULD_NOT_SEARCH = "could_not_search"
    NOT_FOUND = "not_found"  # no chunk of the user's documents is close to the question, or none was found
    NOT_ABOUT = "not_about"  # the passages found are about something else (`rqrag.answer.on_topic`)
    NOTHING_REMEMBERED = "nothing_remembered"  # no memory of the user (in the days the question names)
    NOTED = "noted"  # a message that only told something, kept as a memory
    NOTED_ON = "noted_on"  # ... said to have happened on another day than it was told: which day was understood
    NOT_KEPT = "not_kept"  # ... that could not be stored
    # the reader model's own answer (AnswerKind.UNSOURCED): the answer first, then that no source states it
    OWN_KNOWLEDGE = "own_knowledge"
    # How a terminal prints an answer (`rqrag.answer.printed`): the label, then what the answer stands on
    ANSWER_LINE = "answer_line"
    CLOSEST_PASSAGE = "closest_passage"  # a quoted answer: a passage, never printed after the answer's label
    TOO_UNSURE = "too_unsure"  # ... with the tree's own guess and why it is not stated
    READ_BY_MODEL = "read_by_model"  # a reader model (--reader) read the evidence and stated the answer
    VERIFIED = "verified"  # the tree's answer, stated because the verifier is sure enough and the evidence holds it
    OWN_KNOWLEDGE_NOTE = "own_knowledge_note"
    TREE_GUESS = "tree_guess"  # any other answer the tree decided: its most likely answer and its probability
    WRITTEN_NOTE = "written_note"  # under a written answer's cited sources
    QUOTED_WITHOUT_MODEL = "quoted_without_model"  # answered from the evidence alone, no model loaded


MESSAGES: dict[Message, dict[str, str]] = {
    Message.NO_ANSWER: {
        "pt": "Não encontrei nas fontes consultadas nada que responda a isso.",
        "en": "I found nothing in the sources I searched that answers this.",
    },
    Message.COULD_NOT_SEARCH: {
        "pt": "Não consegui consultar as fontes ({reason}); não tenho uma resposta verificada.",
        "en": "I could not search the sources ({reason}), so I have no checked answer.",
    },
    Message.NOT_FOUND: {
        "pt": "Não encontrei nos seus documentos informação sobre isso.",
        "en": "I could not find anything about this in your documents.",
    },
    Message.NOT_ABOUT: {
        "pt": "Nada do que encontrei trata disso: os trechos mais próximos falam de outra coisa, então não tenho uma "
        "resposta das fontes.",
        "en": "Nothing I found is about this: the closest passages are about something else, so I have no answer "
        "from the sources.",
    },
    Message.NOTHING_REMEMBERED: {
        "pt": "Não encontrei nas suas memórias nada sobre isso.",
        "en": "I found nothing about this in what you have told me.",
    },
    Message.OWN_KNOWLEDGE: {
        "pt": "{answer} — pelo que o próprio modelo sabe: nada do que consultei afirma isso, então confira.",
        "en": "{answer} — from the model's own knowledge: nothing I searched states it, so check it.",
    },
    Message.NOTED: {"pt": "Anotado, vou me lembrar disso.", "en": "Noted, I will remember that."},
    Message.NOTED_ON: {"pt": "Entendi que foi em {when}.", "en": "I understood it happened on {when}."},
    Message.NOT_KEPT: {
        "pt": "Entendi, mas não consegui guardar isso agora.",
        "en": "Understood, but I could not keep it now.",
    },
    Message.ANSWER_LINE: {"pt": "Resposta: {answer}", "en": "Answer: {answer}"},
    Message.CLOSEST_PASSAGE: {
        "pt": "Nenhuma resposta afirmada: nada do que li confirma uma. O trecho mais próximo da pergunta:",
        "en": "No answer stated: nothing I read confirms one. The passage closest to the question:",
    },
    Message.TOO_UNSURE: {
        "pt": "(a resposta mais provável da árvore, {guess}, está certa com probabilidade {chance} segundo o "
        "verificador, baixa demais para afirmá-la)",
        "en": "(the tree's most likely answer, {guess}, is right with probability {chance} by the verifier, too low "
        "to state it)",
    },
    Message.READ_BY_MODEL: {
        "pt": "(lida por {model} nas fontes{where}; probabilidade {chance})",
        "en": "(read by {model} in the evidence{where}; its probability {chance})",
    },
    Message.VERIFIED: {
        "pt": "(gerada; certa com probabilidade {chance} segundo o verificador; apoiada pelas fontes{where})",
        "en": "(generated; right with probability {chance} by the verifier; supported by the evidence{where})",
    },
    Message.OWN_KNOWLEDGE_NOTE: {
        "pt": "(o que o próprio modelo leitor sabe, probabilidade {chance}: nenhum trecho lido afirma isso)",
        "en": "(the reader model's own knowledge, probability {chance}: no passage it read states it)",
    },
    Message.TREE_GUESS: {
        "pt": "(a resposta mais provável da árvore, {guess}, está certa com probabilidade {chance})",
        "en": "(the tree's most likely answer, {guess}, is right with probability {chance})",
    },
    Message.WRITTEN_NOTE: {
        "pt": "(escrita a partir das fontes; cada frase conferida com o trecho que cita)",
        "en": "(written from the sources; every sentence checked against the passage it cites)",
    },
    Message.QUOTED_WITHOUT_MODEL: {
        "pt": "(citado das fontes — {where}; nenhum modelo foi executado)",
        "en": "(quoted from the evidence — {where}; no model was run)",
    },
}


def said(message: Message, language: str | None, **fields: str) -> str:
    """`message` in `language` (English for a language without wording), its `{fields}` filled in."""
    table = MESSAGES[message]
    return table.get(language if language in ANSWER_LANGUAGES else "en", table["en"]).format(**fields)


def answer_language(
    question: str, requested: str | None = None, library: str | None = None, earlier: Sequence[str] = ()
) -> str:
    """The language of an answer, and of any reply (the one rule, on every surface): the one the request asks for,
    else the library's, else the question's own, else that of the conversation's earlier messages (a reply to "Moro
    em Lisboa." after Portuguese turns), else English."""
    own = question_language(question, given=requested or library, default="")
    return own or question_language(" ".join(earlier))  # nothing earlier: English


def earlier_messages(messages: Sequence[dict]) -> list[str]:
    """What the user wrote before the last message of a conversation (`answer_language`'s `earlier`)."""
    return [m.get("content") or "" for m in messages[:-1] if m.get("role") == "user"]
