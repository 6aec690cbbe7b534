"""One list of the languages the assistant writes in, and one rule for a question whose language cannot be told."""

from __future__ import annotations

import pytest

from rqrag.inference.decoding.prompt_text import PROMPT_TEXT
from rqrag.ingest.language import language_of
from rqrag.retrieval.bm25 import DEFAULT_LANGUAGE as BM25_DEFAULT
from rqrag.retrieval.bm25 import SUPPORTED_LANGUAGES
from rqrag.review import reviewer
from rqrag.serve.memory import dates, writer
from rqrag.text.languages import ANSWER_LANGUAGES, DEFAULT_LANGUAGE, question_language


@pytest.mark.parametrize(
    "table",
    [
        PROMPT_TEXT,
        writer._PROMPTS,
        reviewer._PROMPTS,
        dates._WEEKDAYS,
        dates._PERIODS,
        dates._SEASON_NAMES,
    ],
)
def test_every_wording_table_covers_the_answer_languages(table):
    assert set(table) == set(ANSWER_LANGUAGES)


def test_one_default_language_everywhere():
    assert DEFAULT_LANGUAGE == BM25_DEFAULT == "en"
    assert DEFAULT_LANGUAGE in ANSWER_LANGUAGES and set(ANSWER_LANGUAGES) <= set(SUPPORTED_LANGUAGES)
    assert language_of(["10.0.2.2"]).code == DEFAULT_LANGUAGE  # too little text: the document detector agrees


def test_given_language_wins_then_function_words_then_the_default():
    assert question_language("What is the IP address of the server?", given="pt") == "pt"
    assert question_language("Qual é o endereço IP do servidor da escola?") == "pt"
    assert question_language("What is the IP address of the server?", default="pt") == "en"
    assert question_language("10.0.2.2") == DEFAULT_LANGUAGE
    assert question_language("10.0.2.2", default="pt") == "pt"


def test_among_turns_a_language_without_wording_into_the_default():
    spanish = "¿Dónde está el servidor de la escuela?"
    assert question_language(spanish) == "es"
    assert question_language(spanish, default="pt", among=ANSWER_LANGUAGES) == "pt"
    assert question_language(spanish, given="es", default="pt", among=ANSWER_LANGUAGES) == "pt"
