"""One OpenAI-compatible endpoint as every caller talks to it: the client, the concurrency limit, the error policy.

Three callers send requests to such endpoints: the JSON chat client (`rqrag.llm.client`: the data builder's
annotators, the memory judge, the literature review) and the tree decoder's chat and completions backends
(`rqrag.inference.backends.chat_endpoint`, `.remote`). They differ in what they ask and how they read the reply;
how a request goes out and what its failure means lives here, so a wrong key reads the same wherever it happens.

- Transport: `openai.AsyncOpenAI` with a per-request timeout and the SDK's own retries, which back off
  exponentially on connection errors, timeouts, 408/409/429 and 5xx (honouring `Retry-After`).
- Concurrency: at most `concurrency` requests in flight. An `asyncio.Semaphore` (and the SDK's HTTP client) belongs
  to one event loop, and the sync backends run each batch in a fresh loop, from several threads at once in an
  experiment; so the endpoint keeps one client and one semaphore per running loop, and `aclose` ends a loop's.
- Errors, each naming the endpoint and the model, with the HTTP status where there was one (`EndpointError`):
  `EndpointRefused` for 401/403/404 and any other status no retry would change (a wrong key, URL or model: no
  request will get through, so it is not retried); `EndpointRejected` for 400/413/422 (this request is invalid,
  e.g. a prompt beyond the context; others may pass); `EndpointUnavailable` when the retries ran out.
- Counters (`EndpointStats`): requests answered, failures, rejections and the tokens the endpoint reports.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar


Response = TypeVar("Response")

# The request's own fault: another request may still pass.
REJECTED_STATUSES = frozenset({400, 413, 422})
# What the SDK retries besides every 5xx: the endpoint is busy or slow, not misconfigured.
RETRIED_STATUSES = frozenset({408, 409, 429})


class EndpointError(RuntimeError):
    """A request to the endpoint failed; `status` is the HTTP status, None when no response came."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class EndpointRefused(EndpointError):
    """The endpoint refuses every request (HTTP 401/403/404: wrong key, URL or model); retrying cannot help."""


class EndpointRejected(EndpointError):
    """The endpoint refused this request as invalid (HTTP 400/413/422)."""


class EndpointUnavailable(EndpointError):
    """The endpoint could not be reached or kept failing (timeouts, 429, 5xx) after the SDK's retries."""


@dataclass
class EndpointStats:
    calls: int = 0  # requests that reached the endpoint and returned
    failures: int = 0  # requests that ended unavailable or refused
    rejected: int = 0  # requests the endpoint refused as invalid
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class _LoopConnection:
    client: Any  # openai.AsyncOpenAI, imported lazily
    slots: asyncio.Semaphore


class OpenAIEndpoint:
    """Requests to one OpenAI-compatible endpoint under its concurrency limit and error policy (module docstring).

    `label` says which kind of endpoint the errors are about ("chat endpoint"); `check` names the settings a
    refused request points at, in the caller's own terms ("remote_base_url, remote_model and the API key").
    """

    def __init__(
        self,
        base_url: str | None,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        concurrency: int = 8,
        label: str = "endpoint",
        check: str = "the URL, the model name and the API key",
        stats: EndpointStats | None = None,
    ):
        import openai

        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.base_url = base_url
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.label = label
        self.check = check
        self.stats = stats if stats is not None else EndpointStats()
        # Local servers take any key; the SDK insists on one being set (or read from OPENAI_API_KEY).
        self._api_key = api_key or "not-needed"
        self._openai = openai
        self._connections: dict[asyncio.AbstractEventLoop, _LoopConnection] = {}
        self._lock = threading.Lock()

    async def request(self, send: Callable[[Any], Awaitable[Response]]) -> Response:
        """`send(client)` under the concurrency limit; its failure raised as an `EndpointError`, its response as
        it came. `send` makes one SDK call (`client.chat.completions.create(...)`): the SDK retries inside it."""
        connection = self._connection()
        async with connection.slots:
            try:
                response = await send(connection.client)
            except self._openai.APIStatusError as error:
                raise self._status_error(error) from error
            except self._openai.APIError as error:  # connection errors and timeouts, which the SDK retried
                self.stats.failures += 1
                raise EndpointUnavailable(self._message(f"failed after {self.max_retries} retries", error)) from error
        self.stats.calls += 1
        usage = getattr(response, "usage", None)
        if usage is not None:
            self.stats.prompt_tokens += getattr(usage, "prompt_tokens", None) or 0
            self.stats.completion_tokens += getattr(usage, "completion_tokens", None) or 0
        return response

    async def aclose(self) -> None:
        """Close the running loop's connection; a sync caller does so before its loop ends."""
        with self._lock:
            connection = self._connections.pop(asyncio.get_running_loop(), None)
        if connection is not None:
            await connection.client.close()

    def _connection(self) -> _LoopConnection:
        loop = asyncio.get_running_loop()
        with self._lock:
            connection = self._connections.get(loop)
            if connection is None:
                # A loop that ended without `aclose` took its sockets with it: forget its connection.
                for ended in [other for other in self._connections if other.is_closed()]:
                    del self._connections[ended]
                client = self._openai.AsyncOpenAI(
                    base_url=self.base_url, api_key=self._api_key, timeout=self.timeout, max_retries=self.max_retries
                )
                connection = self._connections[loop] = _LoopConnection(client, asyncio.Semaphore(self.concurrency))
        return connection

    def _status_error(self, error) -> EndpointError:
        status = error.status_code
        if status in REJECTED_STATUSES:
            self.stats.rejected += 1
            return EndpointRejected(self._message("rejected the request", error), status)
        self.stats.failures += 1
        if status >= 500 or status in RETRIED_STATUSES:
            return EndpointUnavailable(self._message(f"failed after {self.max_retries} retries", error), status)
        return EndpointRefused(self._message(f"refused (check {self.check})", error), status)

    def _message(self, what: str, error: Exception) -> str:
        status = getattr(error, "status_code", None)
        code = f"HTTP {status}: " if status else ""
        where = self.base_url or "api.openai.com"
        return f"{self.label} {where} (model {self.model!r}) {what}: {code}{type(error).__name__}: {error}"
