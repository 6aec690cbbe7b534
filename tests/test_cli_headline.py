"""What `rqrag ask` prints first: a quoted answer (a passage no model confirmed) is never printed after "Answer:"."""

from __future__ import annotations

from types import SimpleNamespace

from rqrag.answer import AnswerKind
from rqrag.answer.printed import headline


DESESSARD = "He represents Paris and is a member of Europe Écologie–The Greens."


def _answer(kind, text, confidence, generated, quote=None, verifier="verifier"):
    grounded = SimpleNamespace(generated=generated, verifier=verifier, quote_dict=lambda: quote, read_by_model=False)
    sources = [{"title": "Jean Desessard", "cited": True}]
    return SimpleNamespace(kind=kind, text=text, confidence=confidence, grounded=grounded, sources=sources)


def test_a_quoted_passage_is_printed_as_the_closest_passage_not_as_the_answer():
    lines = headline(_answer(AnswerKind.QUOTED, DESESSARD, 0.23, "Paris"))
    assert not any(line.startswith("Answer:") for line in lines)
    assert lines[0].startswith("No answer stated")
    assert lines[1] == f"  “{DESESSARD}” — Jean Desessard"
    assert "'Paris'" in lines[2] and "23%" in lines[2] and "too low to state it" in lines[2]


def test_a_stated_answer_comes_first_with_the_sentence_that_states_it():
    quote = {"text": "Paris is the capital of France.", "title": "Paris"}
    lines = headline(_answer(AnswerKind.GENERATED, "Paris", 0.81, "Paris", quote=quote))
    assert lines[0] == "Answer: Paris"
    assert lines[1] == "  “Paris is the capital of France.” — Paris"
    assert "81%" in lines[2] and "supported by the evidence — Jean Desessard" in lines[2]


def test_the_models_own_knowledge_is_said_to_be_its_own():
    lines = headline(_answer(AnswerKind.UNSOURCED, "Paris — from the model's own knowledge", 0.9, None))
    assert lines[0].startswith("Answer: Paris") and "own knowledge" in lines[1] and "no passage" in lines[1]


def test_a_portuguese_answer_is_printed_in_portuguese():
    answer = _answer(AnswerKind.QUOTED, "O servidor fica na sala 12.", 0.2, "sala 12")
    answer.language = "pt"
    lines = headline(answer)
    assert lines[0].startswith("Nenhuma resposta afirmada") and "baixa demais" in lines[2]
    answer.kind, answer.text = AnswerKind.GENERATED, "sala 12"
    assert headline(answer)[0] == "Resposta: sala 12" and "apoiada pelas fontes" in headline(answer)[-1]


def test_an_answer_a_reader_model_decided_names_the_model():
    answer = _answer(AnswerKind.GENERATED, "Paris", 0.7, "Paris", verifier="qwen2.5-0.5b")
    answer.grounded.read_by_model = True
    assert headline(answer)[-1].startswith("  (read by qwen2.5-0.5b in the evidence")
