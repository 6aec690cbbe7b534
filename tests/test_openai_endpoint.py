"""One endpoint policy for every caller of an OpenAI-compatible endpoint: the JSON chat client (`rqrag.llm.client`),
the chat backend and the completions backend, against a real HTTP server on localhost that answers as scripted
(401, 500, slow replies). A refusal, an outage and the concurrency limit must look the same from all three."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rqrag.inference.backends.base import ChatPrompt, GenerationRequest, SamplingParams
from rqrag.inference.backends.chat_endpoint import ChatGenerationError, ChatGenerator
from rqrag.inference.backends.remote import RemoteGenerationError, RemoteGenerator
from rqrag.llm.client import ChatClient, LLMUnavailable
from rqrag.llm.openai_endpoint import EndpointError, EndpointRefused, EndpointUnavailable, OpenAIEndpoint


MODEL = "scripted-model"
CALLERS = ("json client", "chat backend", "completions backend")


class ScriptedServer:
    """Answers every POST with `status` (an OpenAI-shaped error) or, for 200, a minimal chat or completions reply
    after `delay` seconds; counts the requests and the most that were in flight at once."""

    def __init__(self, status: int = 200, delay: float = 0.0):
        self.status, self.delay = status, delay
        self.requests = self.in_flight = self.most_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _reply(self, path: str, body: dict) -> tuple[int, dict]:
        if self.status != 200:
            error = {"message": f"scripted {self.status}", "type": "scripted", "code": self.status}
            return self.status, {"error": error}
        if path.endswith("/chat/completions"):
            message = {"role": "assistant", "content": "{}"}
            choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
            usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
            return 200, {"id": "c", "object": "chat.completion", "created": 0, "model": MODEL, "choices": [choice],
                         "usage": usage}  # fmt: skip
        logprobs = {"tokens": ["token_id:7"], "token_logprobs": [-0.5], "text_offset": [0], "top_logprobs": None}
        choices = [
            {"index": i, "text": "a", "finish_reason": "length", "logprobs": logprobs}
            for i in range(len(body["prompt"]))
        ]
        return 200, {"id": "c", "object": "text_completion", "created": 0, "model": MODEL, "choices": choices}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.requests += 1
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay)
                    status, reply = server._reply(self.path, body)
                    payload = json.dumps(reply).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.send_header("retry-after-ms", "10")  # the SDK's backoff, shortened for the test
                    self.end_headers()
                    self.wfile.write(payload)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def log_message(self, *args):
                pass

        return Handler


@pytest.fixture
def serve():
    servers: list[ScriptedServer] = []

    def start(status: int = 200, delay: float = 0.0) -> ScriptedServer:
        servers.append(ScriptedServer(status, delay))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _caller(kind: str, base_url: str, **settings):
    if kind == "json client":
        return ChatClient(base_url=base_url, model=MODEL, **settings)
    if kind == "chat backend":
        return ChatGenerator(base_url, MODEL, logprobs=False, **settings)
    return RemoteGenerator(base_url, MODEL, **settings)


def _send(kind: str, caller, n: int = 1) -> None:
    """`n` requests at once, each with its own sampling parameters (the completions backend groups equal ones)."""
    if kind == "json client":

        async def chat_all():
            try:
                messages = [({"role": "user", "content": f"question {i}"},) for i in range(n)]
                await asyncio.gather(*(caller.chat(m, schema={"type": "object"}) for m in messages))
            finally:
                await caller.close()

        asyncio.run(chat_all())
    elif kind == "chat backend":
        chat = ChatPrompt((("user", "hi"),))
        caller.generate([GenerationRequest((1,), SamplingParams(max_tokens=i + 1), chat=chat) for i in range(n)])
    else:
        caller.generate([GenerationRequest((1, 2, 3), SamplingParams(max_tokens=i + 1)) for i in range(n)])


def _failure(kind: str, caller) -> Exception:
    with pytest.raises(Exception) as raised:
        _send(kind, caller)
    return raised.value


def _shared(error: Exception) -> EndpointError:
    """The endpoint's own error: the exception itself or the one a backend wrapped in its public type."""
    shared = error if isinstance(error, EndpointError) else error.__cause__
    assert isinstance(shared, EndpointError), repr(error)
    assert str(shared) == str(error)  # a backend's wrapper says exactly what the endpoint said
    return shared


BACKEND_ERRORS = {"chat backend": ChatGenerationError, "completions backend": RemoteGenerationError}


@pytest.mark.parametrize("kind", CALLERS)
def test_a_refusal_is_one_request_and_the_same_error_from_every_caller(serve, kind):
    server = serve(status=401)
    caller = _caller(kind, server.base_url, max_retries=2, timeout=10)
    error = _failure(kind, caller)
    shared = _shared(error)
    assert isinstance(shared, EndpointRefused) and shared.status == 401
    pattern = rf"{re.escape(server.base_url)} \(model '{MODEL}'\) refused \(check .+\): HTTP 401: AuthenticationError"
    assert re.search(pattern, str(error)), str(error)
    if kind in BACKEND_ERRORS:
        assert isinstance(error, BACKEND_ERRORS[kind])  # what the decoder catches to mark the paths failed
    assert server.requests == 1  # a wrong key is not retried
    assert caller.endpoint.stats.failures == 1


@pytest.mark.parametrize("kind", CALLERS)
def test_a_server_error_is_retried_then_the_same_unavailable_error(serve, kind):
    server = serve(status=500)
    caller = _caller(kind, server.base_url, max_retries=1, timeout=10)
    error = _failure(kind, caller)
    shared = _shared(error)
    assert isinstance(shared, EndpointUnavailable) and shared.status == 500
    expected = f"{server.base_url} (model '{MODEL}') failed after 1 retries: HTTP 500: InternalServerError"
    assert expected in str(error)
    if kind == "json client":
        assert isinstance(error, LLMUnavailable)  # the data builder leaves the example for the next run
    else:
        assert isinstance(error, BACKEND_ERRORS[kind])
    assert server.requests == 2  # the first try and one retry
    assert caller.endpoint.stats.failures == 1


@pytest.mark.parametrize("kind", CALLERS)
def test_every_caller_keeps_to_its_endpoints_concurrency_limit(serve, kind):
    server = serve(delay=0.4)
    caller = _caller(kind, server.base_url, concurrency=2, timeout=30)
    assert isinstance(caller.endpoint, OpenAIEndpoint) and caller.endpoint.concurrency == 2
    _send(kind, caller, n=6)
    assert server.requests == 6 and caller.endpoint.stats.calls == 6
    assert server.most_in_flight == 2
