"""A review's fields read as sentences: never a heading, a contents line, a caption or a reference-list entry, and
always from a sentence's start, a sentence a page break or a footnote split joined again; a field nothing fits is
said to be missing, not filled (review/field_sentences.py, review/article_fields.py, review/review_markdown.py).

The bad examples are what a user found on a Portuguese bachelor's thesis: its "Principal resultado" was a line of
its table of contents and its method started mid-sentence. The last tests read every article of
tests/data/articles (tuning and held out, every format they hold) and judge each candidate sentence by rules of
their own, written here apart from the module's.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from rqrag.ingest.article import Article, Section
from rqrag.review.article_fields import FIELDS, extract_fields, score_field
from rqrag.review.field_sentences import is_field_sentence, joined_paragraphs, why_not_field_sentence
from rqrag.review.review_markdown import render_markdown


ARTICLES = Path(__file__).resolve().parents[1] / "tests" / "data" / "articles"

NOT_SENTENCES = {
    # the thesis's "Principal resultado" and "Método"
    "2.5 GERAÇÃO AUMENTADA POR RECUPERAÇÃO 29": "contents line",
    "foram avaliados, como OasisBR2, a BDTD e o Google Acadêmico, com as mesmas consultas.": "starts mid-sentence",
    "Introdução ........................................ 12": "contents line",
    "1 INTRODUÇÃO 12": "contents line",
    "3.1 Corpus e conjunto de perguntas de avaliação": "heading",
    "MATERIAIS E MÉTODOS DO ESTUDO DE CAMPO": "heading",
    "RESULTADOS E DISCUSSÃO A calibração local reduziu o erro em 60%.": "heading",
    "Tabela 1 – Desempenho das configurações avaliadas (350 perguntas)": "caption",
    "Figura 2: Arquitetura do assistente e de seus componentes.": "caption",
    "Quadro 3 Resumo dos trabalhos relacionados ao tema": "caption",
    "Fonte: elaborada pelo autor a partir dos dados da pesquisa.": "caption",
    "Table 1. Recall@10 and answer F1 on the three datasets.": "caption",
    "Figure 2: Overview of the rewriter and its training loop.": "caption",
    "SOBRENOME, N. Título do trabalho. Cidade: Editora, 2019.": "reference entry",
    "SILVA, João Carlos. Avaliação de sistemas de busca. São Paulo: Atlas, 2019.": "reference entry",
    "Smith, J., & Lee, K. (2020). Learning to rewrite queries. Journal of Retrieval, 12(3), 45–60.": "reference entry",
    "Portal de periódicos da CAPES. Disponível em: https://www.periodicos.capes.gov.br. Acesso em: 12 mar. 2023.": (
        "reference entry"
    ),
    "Revista Brasileira de Computação Aplicada, v. 12, n. 3, p. 45-60, 2020.": "reference entry",
    "In: CONGRESSO BRASILEIRO DE SOFTWARE, 10., 2019, Recife. Anais [...]. Recife: SBC, 2019.": "reference entry",
    "¹ Disponível em https://oasisbr.ibict.br, consultado em março de 2024.": "footnote",
    "3 Os acórdãos digitalizados foram revisados manualmente por dois especialistas.": "footnote",
    "(2020) mostraram que modelos pré-treinados em textos legais superam modelos genéricos.": "starts mid-sentence",
    ", e os resultados foram comparados com os do BM25 em todas as coleções.": "starts mid-sentence",
    "Segundo os resultados descritos por Souza et al.": "does not end a sentence",
    "O assistente respondeu corretamente a 78,6% das perguntas de avaliação dos estudantes": (
        "does not end a sentence"
    ),
    "Dispositivo + híbrido 0,81 68,8 9,7 A posição média caiu de 2,9 para 1,7.": "table row",
}

SENTENCES = [
    "Foram avaliados três recuperadores, como sugerem trabalhos anteriores (Silva, 2020).",
    "A Tabela 1 mostra o desempenho das quatro configurações avaliadas.",
    "Tabela 1 mostra que a recuperação híbrida supera o BM25 em todas as métricas.",
    "O corpus reúne 1.840 acórdãos publicados entre 2018 e 2023 por três tribunais.",
    "RAG, DPR e BM25 foram comparados em três coleções de perguntas em português.",
    "Segundo Souza et al. (2020), a segmentação por dispositivo preserva o sentido dos incisos.",
    "O ganho foi de 5 p.p. em relação ao BM25, como mostra a Figura 2.",
    "“Os sensores funcionaram bem”, relatou o agricultor ao fim do estudo.",
    "We fine-tuned the rewriter on 41,000 examples, following Smith et al. (2020).",
    "Table 1 shows that HopRewriter improves recall@10 on all three datasets.",
    "Note that the gains are largest on MuSiQue, the hardest of the three datasets.",
    "In this paper, we propose a query rewriter for multi-hop question answering.",
    "1.840 acórdãos foram lidos por seis advogados com pelo menos cinco anos de prática.",
]


@pytest.mark.parametrize("text", NOT_SENTENCES, ids=range(len(NOT_SENTENCES)))
def test_what_is_no_sentence_is_never_a_field(text):
    assert why_not_field_sentence(text) == NOT_SENTENCES[text]
    assert not is_field_sentence(text)


@pytest.mark.parametrize("text", SENTENCES, ids=range(len(SENTENCES)))
def test_sentences_of_the_articles_prose_pass(text):
    assert why_not_field_sentence(text) is None and is_field_sentence(text)


def test_a_sentence_split_by_a_page_break_and_a_footnote_is_quoted_whole():
    """The thesis's method sentence ran from page 3 onto page 4, with its footnote and the next page's number
    between the halves: the field is the whole sentence, from its start, on its first page."""
    whole = (
        "Para a busca inicial, os repositórios institucionais foram avaliados, como OasisBR e BDTD, com as mesmas "
        "consultas e os mesmos filtros de data."
    )
    first, rest = whole.split(" foram avaliados")
    method = Section(
        "method",
        "3 Metodologia",
        1,
        [
            (3, "A pesquisa é qualitativa e documental, de caráter exploratório."),
            (3, first),
            (3, "¹ Disponível em https://oasisbr.ibict.br, consultado em março de 2024."),
            (4, "29"),
            (4, "foram avaliados" + rest),
        ],
        "pt",
    )
    data = Section("method", "3.1 Corpus", 2, [(4, "O corpus reúne 412 teses de 2015 a 2023 e seus re-")], "pt")
    data.paragraphs.append((5, "sumos, coletados nos repositórios das universidades federais do Nordeste."))
    article = Article("Busca em repositórios", ["Ana Lima"], 2024, [method, data])
    fields = extract_fields(article)
    assert [(s.text, s.page) for s in fields["method"]] == [(whole, 3)]
    assert fields["data"][0].text == (
        "O corpus reúne 412 teses de 2015 a 2023 e seus resumos, coletados nos repositórios das universidades "
        "federais do Nordeste."
    )
    # the footnote and the page number stay out of the sentence, kept after it
    assert [t for _, t in joined_paragraphs(method.paragraphs)][1:] == [whole, *(t for _, t in method.paragraphs[2:4])]


def test_a_footnote_marker_that_split_a_sentence_is_dropped_when_joined():
    paragraphs = [(2, "Os documentos foram convertidos para texto simples1"), (2, ". No total, são 14 milhões.")]
    assert joined_paragraphs(paragraphs) == [
        (2, "Os documentos foram convertidos para texto simples. No total, são 14 milhões.")
    ]
    # a list's lead-in and items, and a finished sentence, are left as they are
    listed = [(1, "Os objetivos específicos são:"), (1, "a) comparar extratores;"), (1, "b) avaliar recuperadores.")]
    assert joined_paragraphs(listed) == listed


def test_a_field_nothing_fits_is_empty_and_said_to_be_missing():
    """A thesis whose only "abstract" is its table of contents (read as "Sumário") and whose results are a caption
    and a table: no result, no objective, rather than a contents line."""
    contents = Section(
        "abstract",
        "SUMÁRIO",
        1,
        [(5, "1 INTRODUÇÃO 12"), (5, "2.5 GERAÇÃO AUMENTADA POR RECUPERAÇÃO 29"), (5, "4 RESULTADOS E DISCUSSÃO 41")],
        "pt",
    )
    results = Section(
        "results",
        "4 RESULTADOS E DISCUSSÃO",
        1,
        [(41, "Tabela 3 – Revocação@5 dos recuperadores avaliados nas três coleções"), (41, "BM25 0,58 0,61 0,49")],
        "pt",
    )
    method = Section(
        "method", "3 METODOLOGIA", 1, [(30, "Foram comparados três recuperadores em 612 perguntas.")], "pt"
    )
    article = Article("Recuperação em teses", ["Ana Lima"], 2024, [contents, method, results])
    fields = extract_fields(article)
    assert fields["result"] == [] and fields["objective"] == [] and fields["method"][0].page == 30

    record = {"topic": "t", "language": "pt", "chunks_retrieved": 1, "documents": []}
    quote = {"text": fields["method"][0].text, "page": 30, "section": "method", "heading": "3 METODOLOGIA"}
    shown = {"objective": [], "method": [{**quote, "origin": "quoted"}], "data": [], "result": [], "conclusion": []}
    article_record = {"title": "Recuperação em teses", "authors": ["Ana Lima"], "year": 2024, "fields": shown}
    record["documents"] = [{"title": "x", "file": None, "article": article_record, "review": None}]
    text = render_markdown(record)
    assert "**Principal resultado.** *não encontrado no artigo*" in text
    assert "| *não encontrado no artigo* |" in text  # the comparison table says it too
    assert "not found in the article" in render_markdown({**record, "language": "en"})


# ------------------------------------------------------------------ every article of tests/data/articles


def _problems(text: str) -> list[str]:
    """What keeps `text` from reading as a sentence, by rules written here apart from review/field_sentences.py."""
    text = text.strip()
    opened = text.lstrip("\"'“«(")
    problems = []
    if not opened or not (opened[0].isupper() or opened[0].isdigit()):
        problems.append("first letter")
    if text.startswith(("(", "[")) and text[1:2].isdigit():
        problems.append("a citation's year first")
    if not re.search(r"[.!?][\"'”»)]*$", text) or re.search(r"\bet al\.$", text):
        problems.append("last character")
    if re.search(r"\.{4,}|(?:\. ){4,}|…{2,}", text):  # a contents line's leaders, not "q1, . . . , qT"
        problems.append("dotted leaders")
    if re.match(r"(?:Tabela|Figura|Quadro|Gráfico|Fonte|Table|Figure|Fig\.)\s*\d*\s*[:.–—-]", text, re.I):
        problems.append("caption")
    if re.search(r"Disponível em:|Acesso em:|Available at:|\bdoi:|\bIn: |\bv\. \d+, n\. \d+", text, re.I):
        problems.append("reference")
    if re.match(r"[A-ZÀ-Ý][\w'-]+, (?:[A-Z]\. ?)+", text):
        problems.append("reference's author")
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) > 0.6 * len(letters):
        problems.append("capitals")
    if re.match(r"\d+(?:\.\d+)+\s|\d{1,2}\s*[A-ZÀ-Ý]", text):
        problems.append("numbered heading or footnote")
    return problems


def _references(name: str) -> list[dict]:
    return [json.loads(line) for line in (ARTICLES / name / "references.jsonl").read_text().splitlines() if line]


@functools.cache
def _article(folder: str, file: str) -> Article:
    """The article as `rqrag docs add` reads it (ingest_path: extract, clean, read_article)."""
    from rqrag.ingest import ingest_path

    document = ingest_path(ARTICLES / folder / file)
    assert document.article is not None, file
    return Article.from_dict(document.article)


EVERY_ARTICLE = [(name, r["file"]) for name in ("tuning", "heldout") for r in _references(name)]


@pytest.mark.parametrize("folder,file", EVERY_ARTICLE, ids=[f"{f}/{p}" for f, p in EVERY_ARTICLE])
def test_every_field_of_every_article_reads_as_a_sentence(folder, file):
    """Not only the field shown: every candidate the scorer ranks could be shown (another weight, a second quote
    per field), so each must read as a sentence."""
    article = _article(folder, file)
    shown = extract_fields(article, per_field=2)
    bad = {
        (field, text): _problems(text)
        for field in FIELDS
        for text in [s.text for s in shown[field]] + [s.text for s in score_field(article, field)]
        if _problems(text)
    }
    assert not bad, bad
    assert sum(bool(shown[field]) for field in FIELDS) >= 4  # the rules leave the articles their fields
