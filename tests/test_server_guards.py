"""The server's request guards, in process (ASGI), with a scripted generator behind the real app.

    python -m pytest tests/test_server_guards.py -q

Body-size limits counted while reading (chunked bodies included), errors keeping their own status, and a
`/v1/ask` conversation that keeps going past `max_messages` with its latest turns.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fakes import FakeGenerator
from fastapi.testclient import TestClient

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.memory.conversations import conversation_window
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app
from rqrag.trajectory import Action


LIMIT = 100_000


def _app(serve: ServeConfig, decoder=None):
    return create_app(DecodeConfig(prompting="trained", max_depth=0), serve, decoder=decoder)


def _post_chunked(app, path: str, chunk: bytes, n_chunks: int) -> tuple[httpx.Response, int]:
    """POST a body with no Content-Length (httpx sends it chunked); returns the response and chunks consumed."""
    sent = 0

    async def body():
        nonlocal sent
        for _ in range(n_chunks):
            sent += 1
            yield chunk

    async def go():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post(path, content=body(), headers={"content-type": "application/json"})

    response = asyncio.run(go())
    return response, sent


def test_a_chunked_body_over_the_limit_is_refused_without_reading_it_all():
    app = _app(ServeConfig(max_request_bytes=LIMIT))
    chunk = b" " * 65_536
    response, consumed = _post_chunked(app, "/v1/ask", chunk, n_chunks=48)  # 3 MB in all
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    # Reading stopped at the first chunk past the limit: at most limit + one chunk was ever held.
    assert consumed * len(chunk) <= LIMIT + len(chunk)


def test_a_declared_length_over_the_limit_is_refused_before_reading():
    client = TestClient(_app(ServeConfig(max_request_bytes=LIMIT)))  # no lifespan: the guard answers first
    response = client.post("/v1/ask", content=b"x" * (LIMIT + 1), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_value_error_in_a_handler_is_a_server_error_not_a_bad_header():
    app = _app(ServeConfig())

    @app.get("/boom")
    async def boom():
        raise ValueError("something inside a handler")

    client = TestClient(app, raise_server_exceptions=False)
    response = client.get("/boom")
    assert response.status_code == 500
    assert "Content-Length" not in response.text


@pytest.mark.parametrize(
    ("n_messages", "limit", "expected_first"),
    [(6, 3, 4), (6, 4, 2), (6, 10, 0), (2, 0, None)],
)
def test_conversation_window_keeps_the_latest_turns_from_a_user_turn(n_messages, limit, expected_first):
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(n_messages)]
    window = conversation_window(history, limit)
    assert len(window) <= limit
    if expected_first is None:
        assert window == []
    else:
        assert window[0] == history[expected_first] and window[0]["role"] == "user"
        assert window[-1] == history[-1]


@pytest.fixture
def fake_decoder(smollm2_tokenizer):
    def script(prompt, action, request):
        assert action is Action.ANSWER
        return f"answer after {prompt.count('<|im_start|>user')} user turns", 0.9

    docs = [Passage("d1", "Paris", "Paris is the capital of France.")]
    config = DecodeConfig(prompting="trained", max_depth=0)
    return TreeDecoder(
        config,
        FakeGenerator(smollm2_tokenizer, script),
        smollm2_tokenizer,
        BM25Retriever.from_passages(docs, show_progress=False),
    )


def test_ask_keeps_answering_a_conversation_longer_than_max_messages(fake_decoder, tmp_path):
    serve = ServeConfig(max_messages=5, retrievers=["corpus"], database_url=f"sqlite:///{tmp_path}/c.db")
    with TestClient(_app(serve, fake_decoder)) as client:
        cid = None
        for turn in range(6):  # 12 stored messages, more than twice the window
            body = {"question": f"question {turn}?", "max_depth": 0}
            if cid:
                body["conversation_id"] = cid
            reply = client.post("/v1/ask", json=body)
            assert reply.status_code == 200, reply.text
            cid = reply.json()["conversation_id"]
        # The model saw the window (4 earlier messages = 2 user turns) plus the question: 3 user turns.
        # the model's own answer (what this test is about: the turns it saw); shown or not is the grounding's call
        assert reply.json()["generated_answer"] == "answer after 3 user turns"
        assert reply.json()["history_turns"] == 4
