"""The larger reader end to end, through the documented Python API and `rqrag ask`: the shipped tree model searches the
embedded corpus, Qwen2.5-Coder-1.5B on llama.cpp reads what it found. A question the corpus answers is answered with
the sentence that states it; the docs' example question (the corpus has no page on the Eiffel Tower) reads "Paris"
first, said to be the model's own knowledge, with nothing quoted or cited; without own knowledge, it says nothing
was found."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rqrag.answer.messages import AnswerKind, Message, said


pytestmark = pytest.mark.slow

EIFFEL = "What is the capital of the country where the Eiffel Tower stands?"


@pytest.fixture(scope="module")
def pipeline():
    from rqrag import Pipeline

    return Pipeline.from_config("rqrag_trained", reader="qwen2.5-1.5b", query_temperature=0.0)


def test_a_question_the_corpus_answers_is_answered_with_the_sentence_that_states_it(pipeline):
    answer = pipeline.ask("Who voiced Chef in South Park?")
    assert answer.kind is AnswerKind.GENERATED and "Isaac Hayes" in answer.text, answer.text
    quote = answer.grounded.quote
    assert "Isaac Hayes" in quote.text
    cited = [s for s in answer.sources if s["cited"]]
    assert cited and cited[0]["docid"] == quote.docid


def test_the_docs_example_reads_paris_first_as_the_models_own_knowledge(pipeline):
    answer = pipeline.ask(EIFFEL)
    assert answer.kind is AnswerKind.UNSOURCED and answer.text.startswith("Paris — from the model's own"), answer.text
    assert answer.grounded.quote is None and not any(s["cited"] for s in answer.sources)


def test_without_own_knowledge_nothing_found_is_said():
    from rqrag import Pipeline

    strict = Pipeline.from_config("rqrag_trained", reader="qwen2.5-1.5b", reader_own_knowledge=False)
    answer = strict.ask(EIFFEL)
    assert answer.kind is AnswerKind.NO_ANSWER and answer.text == said(Message.NO_ANSWER, "en")
    assert answer.grounded.quote is None and not any(s["cited"] for s in answer.sources)


def test_rqrag_ask_prints_the_answer_first():
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "rqrag.cli", "ask", EIFFEL, "--config", "rqrag_trained"]
    command += ["--query_temperature", "0", "--reader", "qwen2.5-1.5b", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    body = json.loads(done.stdout)
    assert body["answer"].startswith("Paris") and body["answer_kind"] == "unsourced"
    assert body["quote"] is None
