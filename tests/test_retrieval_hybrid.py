"""Reciprocal-rank fusion checked against hand-computed values, and HybridRetriever's batching."""

from __future__ import annotations

import pytest

from rqrag.retrieval.base import Hit
from rqrag.retrieval.hybrid import HybridRetriever, reciprocal_rank_fusion


def test_rrf_scores_and_order_by_hand():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "c", "d"]], k=60)
    expected = [
        ("b", 1 / 62 + 1 / 61),  # 2nd in the first list, 1st in the second
        ("c", 1 / 63 + 1 / 62),
        ("a", 1 / 61),
        ("d", 1 / 63),
    ]
    assert [d for d, _ in fused] == [d for d, _ in expected]
    for (_, got), (_, want) in zip(fused, expected):
        assert got == pytest.approx(want, abs=1e-15)


def test_rrf_k_changes_the_weights():
    fused = dict(reciprocal_rank_fusion([["x", "y"]], k=1))
    assert fused == {"x": pytest.approx(1 / 2), "y": pytest.approx(1 / 3)}


def test_rrf_ties_break_by_docid_whatever_the_list_order():
    one = reciprocal_rank_fusion([["y", "x"], ["x", "y"]])
    other = reciprocal_rank_fusion([["x", "y"], ["y", "x"]])
    assert one == other
    assert [d for d, _ in one] == ["x", "y"]
    assert one[0][1] == pytest.approx(1 / 61 + 1 / 62)


def test_rrf_counts_a_repeated_docid_once_per_list():
    assert reciprocal_rank_fusion([["a", "a", "b"]]) == [("a", pytest.approx(1 / 61)), ("b", pytest.approx(1 / 63))]


def test_rrf_of_nothing():
    assert reciprocal_rank_fusion([]) == []
    assert reciprocal_rank_fusion([[], []]) == []


class ListRetriever:
    """Returns a fixed ranking for every query and records each batch call."""

    uses_qids = False

    def __init__(self, name: str, ranking: list[str]):
        self.name = name
        self.ranking = ranking
        self.calls: list[tuple[list[str], int]] = []

    def search(self, query, k=3, qid=None):
        return self.batch_search([query], k)[0]

    def batch_search(self, queries, k=3, qids=None):
        self.calls.append((list(queries), k))
        hits = [Hit(d, f"title {d}", f"text {d}", 10.0 - i) for i, d in enumerate(self.ranking[:k])]
        return [list(hits) for _ in queries]


def test_hybrid_fuses_both_sides_with_one_batched_call_each():
    sparse = ListRetriever("s", ["a", "b", "c"])
    dense = ListRetriever("d", ["b", "c", "d"])
    hybrid = HybridRetriever(sparse, dense, rrf_k=60)
    results = hybrid.batch_search(["q1", "q2", "q3"], k=3)

    assert sparse.calls == [(["q1", "q2", "q3"], 20)] and dense.calls == [(["q1", "q2", "q3"], 20)]
    assert len(results) == 3 and results[0] == results[2]
    assert [(h.docid, h.title, h.text) for h in results[0]] == [
        ("b", "title b", "text b"),
        ("c", "title c", "text c"),
        ("a", "title a", "text a"),
    ]
    assert [h.score for h in results[0]] == pytest.approx([1 / 62 + 1 / 61, 1 / 63 + 1 / 62, 1 / 61])


def test_hybrid_depth_is_at_least_k():
    sparse, dense = ListRetriever("s", list("abcdef")), ListRetriever("d", list("fedcba"))
    HybridRetriever(sparse, dense, depth=2).batch_search(["q"], k=5)
    assert sparse.calls[-1][1] == 5 and dense.calls[-1][1] == 5
    HybridRetriever(sparse, dense, depth=30).batch_search(["q"], k=5)
    assert sparse.calls[-1][1] == 30


def test_hybrid_with_one_side_empty_keeps_the_other_ranking():
    hybrid = HybridRetriever(ListRetriever("s", []), ListRetriever("d", ["x", "y"]))
    assert [(h.docid, h.score) for h in hybrid.search("q", k=5)] == [
        ("x", pytest.approx(1 / 61)),
        ("y", pytest.approx(1 / 62)),
    ]


def test_hybrid_name_names_both_sides():
    assert HybridRetriever(ListRetriever("s", []), ListRetriever("d", [])).name.endswith(":s+d")
