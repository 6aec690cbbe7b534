"""CachedRetriever: misses go to the inner retriever once and deduplicated; hits survive reopening the file."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from rqrag.retrieval.base import Hit
from rqrag.retrieval.cache import CachedRetriever


class CountingRetriever:
    """Answers query q with hits derived from (q, qid, k) and records every batch it is asked."""

    def __init__(self, name: str = "counting", uses_qids: bool = False):
        self.name = name
        self.uses_qids = uses_qids
        self.batches: list[list[tuple[str, str | None]]] = []

    def search(self, query, k=3, qid=None):
        return self.batch_search([query], k, None if qid is None else [qid])[0]

    def batch_search(self, queries, k=3, qids=None):
        qids = list(qids) if qids is not None else [None] * len(queries)
        self.batches.append(list(zip(queries, qids)))
        return [
            [Hit(f"{q}|{qid}|{i}", f"T{i}", f"text for {q}", 1.0 / (i + 1) + 0.123456789) for i in range(k)]
            for q, qid in zip(queries, qids)
        ]


def test_second_call_is_served_from_cache(tmp_path):
    inner = CountingRetriever()
    cached = CachedRetriever(inner, tmp_path / "cache.sqlite")
    first = cached.batch_search(["a", "b"], k=2)
    second = cached.batch_search(["a", "b"], k=2)
    assert len(inner.batches) == 1 and cached.inner_calls == 1
    assert second == first == inner.batch_search(["a", "b"], k=2)
    assert (cached.hits, cached.misses) == (2, 2)


def test_duplicates_in_a_batch_are_searched_once(tmp_path):
    inner = CountingRetriever()
    cached = CachedRetriever(inner, tmp_path / "cache.sqlite")
    results = cached.batch_search(["a", "b", "a", "a"], k=1)
    assert inner.batches == [[("a", None), ("b", None)]]
    assert results[0] == results[2] == results[3] != results[1]


def test_only_misses_reach_the_inner_retriever(tmp_path):
    inner = CountingRetriever()
    cached = CachedRetriever(inner, tmp_path / "cache.sqlite")
    cached.batch_search(["a"], k=3)
    cached.batch_search(["a", "c", "a", "d"], k=3)
    assert inner.batches == [[("a", None)], [("c", None), ("d", None)]]
    assert (cached.hits, cached.misses) == (2, 3)


def test_cache_survives_reopening_the_file(tmp_path):
    path = tmp_path / "cache.sqlite"
    with CachedRetriever(CountingRetriever(), path) as cached:
        expected = cached.batch_search(["x", "y"], k=2)
    fresh_inner = CountingRetriever()
    reopened = CachedRetriever(fresh_inner, path)
    assert reopened.batch_search(["y", "x"], k=2) == expected[::-1]
    assert fresh_inner.batches == [] and len(reopened) == 2


def test_k_and_retriever_name_are_part_of_the_key(tmp_path):
    path = tmp_path / "cache.sqlite"
    inner = CountingRetriever("index-1")
    cached = CachedRetriever(inner, path)
    cached.search("a", k=2)
    cached.search("a", k=3)
    assert len(inner.batches) == 2
    other = CountingRetriever("index-2")
    CachedRetriever(other, path).search("a", k=2)
    assert len(other.batches) == 1


def test_qid_is_part_of_the_key_only_for_retrievers_that_use_it(tmp_path):
    scoped = CountingRetriever("candidates", uses_qids=True)
    cached = CachedRetriever(scoped, tmp_path / "a.sqlite")
    results = cached.batch_search(["q", "q", "q"], k=1, qids=["1", "2", "1"])
    assert scoped.batches == [[("q", "1"), ("q", "2")]]
    assert results[0] == results[2] != results[1]

    global_ = CountingRetriever("corpus", uses_qids=False)
    cached = CachedRetriever(global_, tmp_path / "b.sqlite")
    cached.batch_search(["q", "q"], k=1, qids=["1", "2"])
    assert global_.batches == [[("q", None)]]


def test_empty_results_are_cached_too(tmp_path):
    class Nothing(CountingRetriever):
        def batch_search(self, queries, k=3, qids=None):
            self.batches.append(list(queries))
            return [[] for _ in queries]

    inner = Nothing()
    cached = CachedRetriever(inner, tmp_path / "c.sqlite")
    assert cached.batch_search(["zz"], k=3) == [[]]
    assert cached.batch_search(["zz"], k=3) == [[]]
    assert len(inner.batches) == 1


def test_inner_errors_store_nothing(tmp_path):
    class Failing(CountingRetriever):
        def batch_search(self, queries, k=3, qids=None):
            raise RuntimeError("backend down")

    cached = CachedRetriever(Failing(), tmp_path / "c.sqlite")
    with pytest.raises(RuntimeError, match="backend down"):
        cached.search("a")
    assert len(cached) == 0


def test_several_processes_can_write_the_same_file(tmp_path):
    path = tmp_path / "shared.sqlite"
    script = textwrap.dedent(
        f"""
        import sys
        from rqrag.retrieval.base import Hit
        from rqrag.retrieval.cache import CachedRetriever

        class Inner:
            name = "shared"
            uses_qids = False
            def batch_search(self, queries, k=3, qids=None):
                return [[Hit(q, "t", "x", 1.0)] for q in queries]

        worker = sys.argv[1]
        cached = CachedRetriever(Inner(), {str(path)!r})
        for i in range(40):
            cached.batch_search([f"{{worker}}-{{i}}", "common"], k=1)
        """
    )
    workers = [subprocess.Popen([sys.executable, "-c", script, str(w)]) for w in range(3)]
    assert [w.wait(timeout=60) for w in workers] == [0, 0, 0]
    assert len(CachedRetriever(CountingRetriever("shared"), path)) == 3 * 40 + 1
