"""BM25Retriever: exact Lucene BM25 scores against an independent reference, and the edge cases of search."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import pytest

from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import read_passages


# Words that are no English stopwords and that the Snowball stemmer maps to distinct stems, so counting
# the raw words gives the same term frequencies as the stemmed tokens bm25s indexes.
TINY_CORPUS = [
    {"id": "d1", "title": "Alpha", "text": "apple banana apple"},
    {"id": "d2", "title": "Beta", "text": "banana cherry"},
    {"id": "d3", "title": "Gamma", "text": "cherry cherry cherry grape"},
    {"id": "d4", "title": "Delta", "text": "grape melon kiwi apple"},
]


def reference_bm25(query: str, corpus: list[dict], k1: float = 1.5, b: float = 0.75) -> dict[str, float]:
    """Lucene BM25 written out from the formula, independently of bm25s (title and text indexed together)."""
    docs = {d["id"]: Counter(re.findall(r"\w\w+", f"{d['title']}\n{d['text']}".lower())) for d in corpus}
    n_docs = len(docs)
    avgdl = sum(sum(tf.values()) for tf in docs.values()) / n_docs
    scores = {}
    for docid, tf in docs.items():
        length = sum(tf.values())
        score = 0.0
        for term in set(re.findall(r"\w\w+", query.lower())):
            if tf[term] == 0:
                continue
            df = sum(1 for other in docs.values() if other[term] > 0)
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            score += idf * tf[term] / (tf[term] + k1 * (1 - b + b * length / avgdl))
        if score > 0:
            scores[docid] = score
    return scores


@pytest.fixture
def tiny_bm25(tmp_path) -> BM25Retriever:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in TINY_CORPUS))
    docs, _ = read_passages(path)
    return BM25Retriever.from_passages(docs, show_progress=False)


def test_defaults_are_lucene_k1_1_5_b_0_75(tiny_bm25):
    assert (tiny_bm25.k1, tiny_bm25.b) == (1.5, 0.75)
    assert tiny_bm25.model.method == "lucene"


@pytest.mark.parametrize("query", ["apple cherry", "banana", "grape kiwi", "cherry", "gamma apple"])
def test_scores_and_order_match_the_reference_formula(tiny_bm25, query):
    expected = reference_bm25(query, TINY_CORPUS)
    hits = tiny_bm25.search(query, k=4)
    assert [h.docid for h in hits] == sorted(expected, key=lambda d: (-expected[d], d))
    for hit in hits:
        assert hit.score == pytest.approx(expected[hit.docid], rel=1e-5)


def test_hand_checked_value_for_one_term(tiny_bm25):
    # "banana": df=2 of N=4 -> idf = ln(1 + 2.5/2.5) = ln 2. d2 has |d|=3, avgdl=17/4, tf=1.
    expected_d2 = math.log(2) * 1 / (1 + 1.5 * (0.25 + 0.75 * 3 / 4.25))
    hits = {h.docid: h.score for h in tiny_bm25.search("banana", k=4)}
    assert hits["d2"] == pytest.approx(expected_d2, rel=1e-6)


def test_title_is_indexed_with_the_text(tiny_bm25):
    assert [h.docid for h in tiny_bm25.search("gamma", k=3)] == ["d3"]


def test_stopwords_dropped_and_words_stemmed(tiny_bm25):
    plain = tiny_bm25.search("apple", k=4)
    inflected = tiny_bm25.search("The APPLES of it", k=4)
    assert [(h.docid, h.score) for h in inflected] == [(h.docid, h.score) for h in plain]


def test_k_larger_than_corpus_returns_only_matching_documents(tiny_bm25):
    hits = tiny_bm25.search("apple", k=100)
    assert {h.docid for h in hits} == {"d1", "d4"}


def test_empty_stopword_only_and_unknown_queries_return_no_hits(tiny_bm25):
    queries = ["", "   ", "the of and", "zebra quokka", "banana"]
    results = tiny_bm25.batch_search(queries, k=3)
    assert [len(r) for r in results[:4]] == [0, 0, 0, 0]
    assert results[4][0].docid == "d2"


def test_batch_results_align_with_queries_and_match_single_search(tiny_bm25):
    queries = ["grape", "apple banana", "grape"]
    batch = tiny_bm25.batch_search(queries, k=2)
    assert batch == [tiny_bm25.search(q, k=2) for q in queries]
    assert batch[0] == batch[2]


def test_equal_scores_are_ordered_by_corpus_position(tmp_path):
    from rqrag.retrieval.passages import Passage

    docs = [Passage(f"same-{i}", "Twin", "identical words here") for i in range(5)]
    retriever = BM25Retriever.from_passages(docs, show_progress=False)
    hits = retriever.search("identical", k=5)
    assert [h.docid for h in hits] == [f"same-{i}" for i in range(5)]
    assert len({h.score for h in hits}) == 1


def test_misaligned_qids_are_rejected(tiny_bm25):
    with pytest.raises(ValueError, match="align"):
        tiny_bm25.batch_search(["a", "b"], k=1, qids=["q1"])


def test_save_and_load_round_trip(tiny_bm25, tmp_path):
    tiny_bm25.save(tmp_path / "bm25")
    loaded = BM25Retriever.load(tmp_path / "bm25")
    for query in ("apple cherry", "grape", "zebra"):
        assert loaded.search(query, k=4) == tiny_bm25.search(query, k=4)
    assert loaded.name == tiny_bm25.name


def test_zero_passages_is_an_error():
    with pytest.raises(ValueError, match="zero passages"):
        BM25Retriever.from_passages([], show_progress=False)
