"""WebRetriever: fails fast offline with a useful message; result parsing, retries and the probe cache."""

from __future__ import annotations

import socket
import time

import pytest

from rqrag.retrieval import web
from rqrag.retrieval.base import Hit, RetrieverError, RetrieverUnavailable
from rqrag.retrieval.web import WebRetriever, hit_from_result, hits_from_results


def test_offline_machine_fails_fast_naming_the_alternatives():
    """The real probe against duckduckgo.com. This machine (like CI) has no internet."""
    retriever = WebRetriever()
    started = time.perf_counter()
    try:
        retriever.check_available()
    except RetrieverUnavailable as error:
        elapsed = time.perf_counter() - started
        assert elapsed < 5, f"took {elapsed:.1f} s to notice the machine is offline"
        assert "--retriever corpus" in str(error) and "--retriever candidates" in str(error)
    else:
        pytest.skip("this machine can reach duckduckgo.com; the offline path is covered by the next test")
    # A search raises the same error, also quickly, without trying ddgs at all.
    started = time.perf_counter()
    with pytest.raises(RetrieverUnavailable, match="--retriever corpus"):
        retriever.batch_search(["who wrote hamlet", "capital of peru"], k=3)
    assert time.perf_counter() - started < 1


def test_unresolvable_host_is_unavailable_everywhere():
    retriever = WebRetriever(probe_host="rqrag-probe.invalid")  # .invalid never resolves (RFC 2606)
    started = time.perf_counter()
    with pytest.raises(RetrieverUnavailable, match="cannot reach rqrag-probe.invalid"):
        retriever.search("anything")
    assert time.perf_counter() - started < 5


def test_probe_result_is_cached(monkeypatch):
    calls = []

    def refuse(address, timeout=None):
        calls.append(address)
        raise ConnectionRefusedError("refused")

    monkeypatch.setattr(socket, "create_connection", refuse)
    retriever = WebRetriever()
    for _ in range(3):
        with pytest.raises(RetrieverUnavailable):
            retriever.search("q")
    assert calls == [("duckduckgo.com", 443)]


def test_parse_one_ddgs_result():
    result = {
        "title": " Hamlet - Wikipedia ",
        "href": "https://en.wikipedia.org/wiki/Hamlet",
        "body": "Hamlet is a tragedy.",
    }
    assert hit_from_result(result, rank=2) == Hit(
        docid="https://en.wikipedia.org/wiki/Hamlet",
        title="Hamlet - Wikipedia",
        text="Hamlet is a tragedy.",
        score=0.5,
    )
    assert hit_from_result({"title": "no url", "body": "x"}, rank=1) is None


def test_parse_result_list_ranks_after_dropping_unusable_entries():
    results = [
        {"title": "A", "href": "https://a", "body": "a"},
        {"title": "no url", "body": "skip me"},
        {"title": "A again", "href": "https://a", "body": "duplicate"},
        {"title": "B", "href": "https://b", "body": "b"},
        {"title": "C", "href": "https://c", "body": "c"},
    ]
    hits = hits_from_results(results, k=2)
    assert [(h.docid, h.score) for h in hits] == [("https://a", 1.0), ("https://b", 0.5)]


class FlakyDDGS:
    """Stands in for ddgs.DDGS: fails `failures` times, then answers."""

    failures = 0
    calls = 0

    def __init__(self, timeout=None):
        self.timeout = timeout

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def text(self, query, max_results=10, **kwargs):
        type(self).calls += 1
        if type(self).calls <= type(self).failures:
            raise RuntimeError("202 Ratelimit")
        return [
            {"title": f"{query} {i}", "href": f"https://x/{query}/{i}", "body": "snippet"} for i in range(max_results)
        ]


@pytest.fixture
def online_retriever(monkeypatch):
    monkeypatch.setattr(web, "_ddgs_class", lambda: FlakyDDGS)
    FlakyDDGS.calls, FlakyDDGS.failures = 0, 0
    retriever = WebRetriever(retries=2, backoff=0.0, concurrency=2, timeout=7)
    retriever._reachable = True  # skip the real probe: this machine is offline
    return retriever


def test_retries_then_succeeds(online_retriever):
    FlakyDDGS.failures = 2
    hits = online_retriever.search("q", k=3)
    assert [h.docid for h in hits] == ["https://x/q/0", "https://x/q/1", "https://x/q/2"]
    assert FlakyDDGS.calls == 3


def test_gives_up_after_the_retries(online_retriever):
    FlakyDDGS.failures = 10
    with pytest.raises(RetrieverError, match="failed after 3 attempts"):
        online_retriever.search("q")


def test_batch_search_keeps_query_order(online_retriever):
    results = online_retriever.batch_search(["a", "b", "c", ""], k=1)
    assert [[h.docid for h in r] for r in results] == [["https://x/a/0"], ["https://x/b/0"], ["https://x/c/0"], []]
