"""The one fusion function (`rqrag.retrieval.fusion`): ranks fused by RRF, every hit's metadata kept."""

from __future__ import annotations

import pytest

from rqrag.retrieval.base import Hit
from rqrag.retrieval.fusion import FusedRetriever, fuse_hits
from rqrag.retrieval.hybrid import HybridRetriever


def hit(docid: str, score: float = 1.0, **extra) -> Hit:
    return Hit(docid, f"title {docid}", f"text {docid}", score, extra=extra)


def test_ranks_are_fused_by_reciprocal_rank():
    sparse = [hit("a"), hit("b"), hit("c")]
    dense = [hit("b"), hit("d")]
    fused = fuse_hits([sparse, dense], limit=10, k=60)
    # b: 1/62 + 1/61 beats a: 1/61; c (3rd once) and d (2nd once): d first
    assert [h.docid for h in fused] == ["b", "a", "d", "c"]
    assert [h.score for h in fused] == pytest.approx([1 / 62 + 1 / 61, 1 / 61, 1 / 62, 1 / 63])
    assert [h.docid for h in fuse_hits([sparse, dense], limit=2)] == ["b", "a"]


def test_metadata_is_kept_and_the_first_list_wins_a_shared_docid():
    documents = [hit("manual:3", file="manual.pdf", page_start=7, page_end=8)]
    memories = [hit("memory:1", origin="memory", date="2024-05-01"), hit("manual:3", page_start=99)]
    fused = {h.docid: h for h in fuse_hits([documents, memories], limit=5)}
    assert fused["manual:3"].extra == {"file": "manual.pdf", "page_start": 7, "page_end": 8}
    assert fused["memory:1"].extra == {"origin": "memory", "date": "2024-05-01"}
    assert fused["manual:3"].title == "title manual:3" and fused["manual:3"].score == pytest.approx(1 / 61 + 1 / 62)


class Fixed:
    """A retriever returning the same ranked hits for every query."""

    uses_qids = False

    def __init__(self, name: str, hits: list[Hit]):
        self.name, self.hits = name, hits

    def batch_search(self, queries, k=3, qids=None):
        return [self.hits[:k] for _ in queries]


def test_hybrid_keeps_chunk_metadata_that_it_used_to_drop():
    sparse = Fixed("bm25", [hit("c1", 12.0, file="a.pdf", page_start=1, page_end=1), hit("c2", 3.0)])
    dense = Fixed("dense", [hit("c2", 0.9, file="a.pdf", page_start=2, page_end=3), hit("c1", 0.5)])
    (first, second) = HybridRetriever(sparse, dense).search("q", k=2)
    assert {first.docid, second.docid} == {"c1", "c2"}
    by_docid = {first.docid: first, second.docid: second}
    assert by_docid["c1"].extra == {"file": "a.pdf", "page_start": 1, "page_end": 1}  # the sparse side's hit
    assert by_docid["c2"].extra == {}  # on a shared docid the sparse (first) side's object is kept
    assert HybridRetriever(sparse, dense).name.startswith("hybrid(rrf_k=60,depth=None):bm25+dense")


def test_fused_retriever_asks_each_source_for_depth_hits():
    asked = []

    class Recording(Fixed):
        def batch_search(self, queries, k=3, qids=None):
            asked.append(k)
            return super().batch_search(queries, k, qids)

    fused = FusedRetriever([Recording("x", [hit("x1")]), Recording("y", [hit("y1")])], depth=5)
    assert [h.docid for h in fused.search("q", k=2)] == ["x1", "y1"]
    assert asked == [5, 5] and fused.name == "fused(rrf_k=60,depth=5):x+y"
    with pytest.raises(ValueError, match="at least one"):
        FusedRetriever([])
