"""What a generated answer may never be, whatever the verifier says (rqrag.answer.grounding.check_answer,
rqrag.text.text_quality). The examples are the answers a new user was shown in the issue that asked for this check;
the decision over the whole tree is tested in test_answer_decision.py."""

from __future__ import annotations

import pytest

from rqrag.answer.grounding import check_answer
from rqrag.retrieval.base import Hit
from rqrag.text.text_quality import echoes, guess_language, identifiers, is_heading, loops


TJENER = Hit(
    "manual#p9",
    "Servidor principal",
    "O servidor principal (tjener), que por predefinição tem o endereço IP 10.0.2.2 e é instalado selecionando o "
    "perfil Servidor Principal.",
    1.0,
)
IP_QUESTION = "Qual é o endereço IP padrão do servidor principal (tjener)?"
GPL = (
    "This program is free software; you can redistribute it and/or modify it under the terms of the GNU General "
    "Public License as published by the Free Software Foundation."
)


@pytest.mark.parametrize(
    "answer, reason",
    [
        (IP_QUESTION, "echoes_question"),  # the question itself
        ("14.13.1 Como configurar o encerramento à noite?", "echoes_question"),  # a question-shaped heading
        ("3.1.2 Servidor principal", "heading"),
        (GPL, "wrong_language"),  # English licence text for a Portuguese question
        ("O endereço IP padrão é 10.0.0.1.", "unsupported_identifier"),  # a number the page does not hold
        ("O servidor usa o endereço do roteador da escola vizinha.", "unsupported"),
        ("o endereço IP do servidor no endereço IP do servidor no endereço IP do servidor no endereço", "loops"),
        ("", "empty"),
    ],
)
def test_what_a_user_was_shown_is_rejected(answer, reason):
    verdict = check_answer(answer, IP_QUESTION, [TJENER], "pt")
    assert not verdict.ok
    assert verdict.reason == reason


@pytest.mark.parametrize("answer", ["10.0.2.2", "O endereço IP padrão do tjener é 10.0.2.2.", "Sim"])
def test_a_supported_answer_passes_and_cites_its_passage(answer):
    verdict = check_answer(answer, IP_QUESTION, [Hit("other", "Outro", "Nada a ver.", 0.5), TJENER], "pt")
    assert verdict.ok, verdict
    if answer != "Sim":
        assert verdict.cited == (1,)


def test_the_demo_sentence_that_names_no_one_echoes_the_question():
    question = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
    vote = (
        "The woman who portrayed Corliss Archer in the film Kiss and Tell was the American actress and director, who "
        "played the role of Corliss Archer in the 1945 film Kiss and Tell."
    )
    assert echoes(vote, question)
    assert not echoes("Shirley Temple was the United States Ambassador to Ghana and to Czechoslovakia.", question)
    # a span of the question that answers it is a choice, not an echo
    assert not echoes("New York City", "The director of Big Stone Gap is based in what New York city?")
    assert not echoes("Terry Richardson", "Who is older, Terry Richardson or Kenton Richardson?")


def test_text_predicates():
    assert guess_language("What is the IP address of the server in the school") == "en"
    assert guess_language("Qual é o endereço IP do servidor da escola") == "pt"
    assert guess_language("10.0.2.2") is None  # too short to tell
    # Short questions about oneself: Portuguese shares "o", "que", "como" with Spanish; "eu", "meu", "ontem" tell.
    assert guess_language("O que eu fiz ontem?") == "pt"
    assert guess_language("Como se chama o meu cachorro?") == "pt"
    assert guess_language("What did I do yesterday?") == "en"
    # Short Portuguese questions that open with "Quem" or "Em que" were answered in English (library edges, held out)
    assert guess_language("Quem escreveu Dom Casmurro?") == "pt"
    assert guess_language("Em que ano o Brasil se tornou independente?") == "pt"
    assert guess_language("Quantas pessoas moram lá?") == "pt"
    assert guess_language("¿Quién escribió Cien años de soledad?") != "pt"
    assert loops("the server in the IP address of the server in the IP address of the server in the IP address")
    assert not loops("The main server has the IP address 10.0.2.2 and serves the whole school network.")
    assert is_heading("3.1.2 Servidor principal") and is_heading("11.2 Gerenciamento de backup")
    assert not is_heading("Shirley Temple")  # a name has a heading's shape: it is an answer
    assert not is_heading("O servidor tem o endereço 10.0.2.2.")
    assert "10.0.2.2" in identifiers("tem o endereço IP 10.0.2.2 e")
    assert "/etc/fstab" in identifiers("edite /etc/fstab agora")


def test_the_readers_long_quote_is_shown_whole_never_cut_to_a_clause():
    """A held-out Portuguese question was shown "and, in 2009": the reader's sentence of over 40 words, cut to the
    clauses holding a year. The quote is the sentence as the source writes it."""
    from types import SimpleNamespace

    from rqrag.answer.answer_types import DATE
    from rqrag.answer.extractive import Quote
    from rqrag.answer.grounding import _quoted
    from rqrag.answer.reading.span_reader import Reading

    sentence = (
        "It is the longest - running American sitcom and the longest - running American animated program, and, in "
        "2009, it surpassed Gunsmoke as the longest - running American scripted primetime television series in terms "
        "of seasons and surpassed the Western in terms of episodes in 2018."
    )
    hit = Hit("doc-simpsons", "The Simpsons", sentence, 1.0)
    reading = Reading("2009", 0.3, Quote(sentence, hit.docid, hit.title, {}, 1.0), 0.3)
    best = SimpleNamespace(text="2009", p=0.3, features={}, reading=reading, hits=[hit], key="text:2009", path_id="p0")
    result = SimpleNamespace(trajectories=[])
    shown = _quoted(result, "Em que ano estreou a série The Simpsons?", "pt", None, DATE, [best], [hit], 2, {}, [], "")
    assert shown.text == sentence and shown.kind == "quoted"
