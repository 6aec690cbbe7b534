"""Web search through DuckDuckGo (the `ddgs` package), as the paper does for open-domain questions.

Each hit is a search result's title and snippet ("body"), the docid is its URL and the score is 1/rank
(web engines expose no scores). Offline machines are the common case in tests and CI, so the retriever
probes reachability once, quickly, before the first search and raises `RetrieverUnavailable` naming the
offline alternatives instead of hanging in per-query timeouts.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rqrag.retrieval.base import Hit, RetrieverError, RetrieverUnavailable, check_qids


logger = logging.getLogger(__name__)

PROBE_HOST = "duckduckgo.com"
OFFLINE_ALTERNATIVES = (
    "use `--retriever corpus` (a local BM25/dense index; the embedded Wikipedia paragraphs by default) or "
    "`--retriever candidates` (each benchmark question's own paragraphs)"
)


def hit_from_result(result: Mapping[str, Any], rank: int) -> Hit | None:
    """Turn one ddgs text result (`{"title", "href", "body"}`) at 1-based `rank` into a Hit; None if it has no URL."""
    url = (result.get("href") or result.get("url") or "").strip()
    if not url:
        return None
    title = (result.get("title") or "").strip()
    snippet = (result.get("body") or result.get("snippet") or "").strip()
    return Hit(docid=url, title=title, text=snippet, score=1.0 / rank)


def hits_from_results(results: Sequence[Mapping[str, Any]], k: int) -> list[Hit]:
    """The first `k` usable results as Hits, ranked 1..k after dropping results without a URL or duplicates."""
    hits: list[Hit] = []
    seen: set[str] = set()
    for result in results:
        hit = hit_from_result(result, rank=len(hits) + 1)
        if hit is None or hit.docid in seen:
            continue
        seen.add(hit.docid)
        hits.append(hit)
        if len(hits) == k:
            break
    return hits


def _ddgs_class():
    try:
        from ddgs import DDGS
    except ImportError:
        try:
            from duckduckgo_search import DDGS  # the package's name before 2025
        except ImportError as error:
            raise RetrieverUnavailable(f"web search needs `pip install ddgs`; or {OFFLINE_ALTERNATIVES}") from error
    return DDGS


class WebRetriever:
    """DuckDuckGo text search with a reachability probe, per-query timeout, retries and small concurrency."""

    name = "web-ddgs"
    uses_qids = False  # the web does not depend on which question asked

    def __init__(
        self,
        *,
        timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 1.0,
        concurrency: int = 4,
        region: str = "us-en",
        safesearch: str = "moderate",
        probe_host: str = PROBE_HOST,
        probe_timeout: float = 3.0,
    ):
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.concurrency = max(1, concurrency)
        self.region = region
        self.safesearch = safesearch
        self.probe_host = probe_host
        self.probe_timeout = probe_timeout
        self._reachable: bool | None = None
        self._probe_error: str = ""
        self._probe_lock = threading.Lock()

    def check_available(self) -> None:
        """Probe the search host once (cached); raise `RetrieverUnavailable` if it cannot be reached."""
        with self._probe_lock:
            if self._reachable is None:
                started = time.perf_counter()
                try:
                    socket.create_connection((self.probe_host, 443), timeout=self.probe_timeout).close()
                    self._reachable = True
                except OSError as error:  # socket.gaierror (DNS), timeouts and refusals are all OSErrors
                    self._reachable = False
                    self._probe_error = f"{type(error).__name__}: {error}"
                logger.debug(
                    "web probe of %s: %s in %.2f s", self.probe_host, self._reachable, time.perf_counter() - started
                )
        if not self._reachable:
            raise RetrieverUnavailable(
                f"web search is unavailable: cannot reach {self.probe_host}:443 ({self._probe_error}). "
                f"This machine looks offline; {OFFLINE_ALTERNATIVES}."
            )

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """Search the queries concurrently (at most `concurrency` in flight). `qids` are ignored."""
        check_qids(queries, qids)
        if not queries:
            return []
        self.check_available()
        if len(queries) == 1 or self.concurrency == 1:
            return [self._search_one(q, k) for q in queries]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(queries)), thread_name_prefix="web") as pool:
            return list(pool.map(lambda q: self._search_one(q, k), queries))

    def _search_one(self, query: str, k: int) -> list[Hit]:
        if not query.strip():
            return []
        from tenacity import RetryError, Retrying, before_sleep_log, stop_after_attempt, wait_exponential_jitter

        ddgs_class = _ddgs_class()

        def attempt() -> list[Hit]:
            try:
                with ddgs_class(timeout=self.timeout) as client:
                    results = client.text(query, max_results=k, region=self.region, safesearch=self.safesearch)
            except Exception as error:  # ddgs raises its own exceptions for rate limits, timeouts, "no results"
                if "no results" in str(error).lower():
                    return []
                raise
            return hits_from_results(results or [], k)

        # Exponential backoff with jitter, so concurrent workers do not retry in lockstep.
        retrying = Retrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=wait_exponential_jitter(multiplier=self.backoff, jitter=self.backoff / 2),
            before_sleep=before_sleep_log(logger, logging.WARNING),
        )
        try:
            return retrying(attempt)
        except RetryError as error:
            last_error = error.last_attempt.exception()
            raise RetrieverError(
                f"web search for {query!r} failed after {self.retries + 1} attempts: {last_error}"
            ) from last_error
