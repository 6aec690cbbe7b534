"""Deciding what to remember: the first-person rule, the reply parser, and the model path on a real endpoint."""

from __future__ import annotations

import asyncio
import socket

import pytest

from rqrag.serve.memory.writer import (
    DESCRIPTION_MAX_CHARS,
    MalformedDecision,
    decide_memory,
    decide_memory_async,
    memory_messages,
    parse_decision,
)


@pytest.mark.parametrize(
    ("question", "language", "description"),
    [
        (
            "Minha tese é sobre recuperação de informação.",
            "pt",
            "O usuário disse: Minha tese é sobre recuperação de informação.",
        ),
        (
            "Eu sou enfermeira no hospital das clínicas",
            "pt",
            "O usuário disse: Eu sou enfermeira no hospital das clínicas.",
        ),
        ("Vou viajar para Lisboa em dezembro!", "pt", "O usuário disse: Vou viajar para Lisboa em dezembro."),
        ("I live in Lisbon and I work as a nurse.", "en", "The user said: I live in Lisbon and I work as a nurse."),
        ("My favourite editor is Vim", "en", "The user said: My favourite editor is Vim."),
    ],
)
def test_the_rule_remembers_first_person_statements(question, language, description):
    decision = decide_memory(question, "Entendido.", language=language)
    assert decision.remember is True and decision.source == "rule" and decision.error is None
    assert decision.description == description


@pytest.mark.parametrize(
    "question",
    [
        "Qual é a capital da França?",
        # A message that asks is a question, whatever first-person clause opens it (issue 45): its premise is
        # context for the answer, not something the user set out to tell.
        "Tenho um Mac com macOS anterior ao 10.15 (Catalina). Posso usar o LTSP nele?",
        "Moro em Recife e prefiro Python. Qual a capital da França?",
        "I'm going to Paris next month. Any tips?",
        "O que eu disse semana passada sobre o projeto?",
        "Me explique meu código",
        "Eu quero saber como funciona o RAG",
        "A reunião foi adiada.",  # a statement, but not about the user
        "What did I say yesterday?",
        "Tell me about my options",
        "Can I use Python for this",
        "I want to know how BM25 works.",
        "i. first item of a list",
        "",
    ],
)
def test_the_rule_ignores_questions_requests_and_statements_about_others(question):
    decision = decide_memory(question, "...", language="pt")
    assert decision == decision.__class__(False, "", "rule", None)


def test_the_rule_keeps_descriptions_to_one_bounded_line():
    long_statement = "Eu trabalho com " + "muitos projetos diferentes de pesquisa " * 20 + "\n\nem várias áreas."
    decision = decide_memory(long_statement, "ok")
    assert decision.remember and len(decision.description) <= DESCRIPTION_MAX_CHARS
    assert "\n" not in decision.description and decision.description.endswith("…")


def test_parse_decision_accepts_only_the_schema():
    decision = parse_decision('{"remember": true, "description": "  O usuário   prefere chá. "}')
    assert decision == decision.__class__(True, "O usuário prefere chá.", "model", None)
    assert parse_decision('```json\n{"remember": false, "description": "nada"}\n```').description == ""
    for reply in [
        "sure!",
        '{"remember": "yes", "description": "x"}',
        '{"remember": true}',
        '{"remember": true, "description": "", "extra": 1}',
        '{"remember": true, "description": "   "}',
        "[true]",
    ]:
        with pytest.raises(MalformedDecision):
            parse_decision(reply)


def test_the_prompt_is_in_the_conversations_language():
    pt = memory_messages("Moro em Recife.", "Legal!", "pt")
    en = memory_messages("I live in Recife.", "Nice!", "en")
    assert "terceira pessoa" in pt[0]["content"] + pt[1]["content"] and "Moro em Recife." in pt[1]["content"]
    assert "third person" in en[1]["content"] and "I live in Recife." in en[1]["content"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_model_falls_back_to_the_rule_and_says_why():
    from rqrag.llm.client import ChatClient

    client = ChatClient(base_url=f"http://127.0.0.1:{_closed_port()}/v1", model="none", max_retries=0, timeout=5)
    decision = decide_memory("Prefiro respostas em tópicos.", "Combinado.", client=client, language="pt")
    assert decision.source == "rule" and decision.remember is True
    assert decision.description == "O usuário disse: Prefiro respostas em tópicos."
    assert decision.error is not None and "LLMUnavailable" in decision.error


def test_the_sync_entry_point_refuses_to_run_inside_an_event_loop():
    async def inside():
        with pytest.raises(RuntimeError, match="decide_memory_async"):
            decide_memory("Moro em Recife.", "ok")
        return await decide_memory_async("Moro em Recife.", "ok")

    assert asyncio.run(inside()).remember is True


@pytest.mark.slow
@pytest.mark.vllm
def test_the_model_path_on_a_real_endpoint(openai_server):
    """SmolLM2-135M under guided JSON decoding: whatever it decides must be well formed, and when its reply is
    not the schema the rule decides, with the reason recorded."""
    from rqrag.llm.client import ChatClient

    client = ChatClient(
        base_url=openai_server.base_url, model=openai_server.served_name, max_tokens=120, max_retries=1, timeout=120
    )
    question = "I live in Lisbon and I prefer short answers."  # a message that also asked would skip the model
    decision = decide_memory(question, "Noted.", client=client, language="en")
    assert decision.source in ("model", "rule")
    if decision.source == "model":
        assert decision.error is None and isinstance(decision.remember, bool)
        assert len(decision.description) <= DESCRIPTION_MAX_CHARS and "\n" not in decision.description
        assert bool(decision.description) == decision.remember
    else:
        assert decision.error  # the model path failed and says why
        assert (
            decision.remember and decision.description == "The user said: I live in Lisbon and I prefer short answers."
        )
