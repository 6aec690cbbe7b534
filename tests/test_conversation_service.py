"""The conversation service behind `/v1/ask`, `/v1/chat` and `/v1/chat/completions`, in process (ASGI), on the
real app with a scripted generator, a real SQLite file and a memory store whose embedder is a stand-in.

    python -m pytest tests/test_conversation_service.py -q

One flow for every endpoint: `/v1/ask` remembers what the user tells, as `/v1/chat` does; no SQL runs on the
event loop; services reach handlers as FastAPI dependencies; domain errors become their HTTP status in one place;
both streams are framed the same way; the API key is compared in constant time.
"""

from __future__ import annotations

import asyncio
import datetime
import hmac
import json

import numpy as np
import pytest
from fakes import FakeGenerator
from fastapi.testclient import TestClient

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.errors import BadRequest, Busy, Forbidden, NotFound, ServiceFailure, Timeout
from rqrag.serve.memory.conversations import ConversationStore
from rqrag.serve.memory.store import MemoryStore
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server import app as app_module
from rqrag.serve.server import auth as auth_module
from rqrag.serve.server.app import create_app
from rqrag.serve.server.dependencies import answer_service
from rqrag.serve.server.schema import http_error
from rqrag.trajectory import Action


class HashEncoder:
    """Unit vectors from the words of a text: enough for a memory store that is written and listed."""

    def encode(self, texts, normalize_embeddings=True):
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hash(word) % 16] += 1.0
        out[:, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def decoder(smollm2_tokenizer):
    def script(prompt, action, request):
        assert action is Action.ANSWER
        return "Paris is the capital of France.", 0.9

    docs = [Passage("d1", "Paris", "Paris is the capital of France.")]
    config = DecodeConfig(prompting="trained", max_depth=0)
    return TreeDecoder(
        config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, BM25Retriever.from_passages(docs)
    )


@pytest.fixture
def client(decoder, tmp_path, monkeypatch):
    """The app with memories kept in its SQLite file (embedded by `HashEncoder`)."""
    url = f"sqlite:///{tmp_path}/serve.db"
    monkeypatch.setattr(app_module, "open_memories", lambda serve: MemoryStore(serve.database_url, HashEncoder()))
    serve = ServeConfig(retrievers=["corpus", "memories"], database_url=url, memories=True)
    with TestClient(create_app(DecodeConfig(prompting="trained", max_depth=0), serve, decoder=decoder)) as client:
        yield client


def chat_events(client, **body) -> list[tuple[str, dict]]:
    reply = client.post("/v1/chat", json=body, headers={"X-Rqrag-User": "ana"})
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    frames = [frame for frame in reply.text.split("\n\n") if frame.strip()]
    return [
        (lines["event"], json.loads(lines["data"]))
        for lines in (dict(line.split(": ", 1) for line in frame.splitlines()) for frame in frames)
    ]


def test_ask_remembers_what_the_user_tells_as_the_chat_does(client):
    told = client.post(
        "/v1/ask", json={"question": "Meu cachorro se chama Bolinha."}, headers={"X-Rqrag-User": "ana"}
    ).json()
    assert told["memory"]["stored"] and "Bolinha" in told["memory"]["description"]
    (memory,) = client.get("/v1/memories", headers={"X-Rqrag-User": "ana"}).json()["data"]
    assert memory["conversation_id"] == told["conversation_id"]
    asked = client.post("/v1/ask", json={"question": "Where is Paris?"}, headers={"X-Rqrag-User": "ana"}).json()
    assert asked["memory"]["stored"] is False  # a question tells nothing about the user
    # The chat page's stream tells the same thing about the same kind of statement.
    stream = chat_events(client, question="Eu moro em Recife.", language="pt")
    (chat_memory,) = [data for name, data in stream if name == "memory"]
    assert chat_memory["stored"] and stream[-1][0] == "done"
    assert len(client.get("/v1/memories", headers={"X-Rqrag-User": "ana"}).json()["data"]) == 2


def test_no_conversation_sql_runs_on_the_event_loop(client, monkeypatch):
    on_the_loop = []

    def watched(method):
        def call(self, *args, **kwargs):
            try:
                asyncio.get_running_loop()
                on_the_loop.append(method.__name__)
            except RuntimeError:  # a worker thread: no loop runs here
                pass
            return method(self, *args, **kwargs)

        return call

    for name in ("messages", "turns", "title", "list_conversations", "new_conversation", "append_exchange"):
        monkeypatch.setattr(ConversationStore, name, watched(getattr(ConversationStore, name)))
    first = client.post("/v1/ask", json={"question": "Where is Paris?"}).json()
    client.post("/v1/ask", json={"question": "And France?", "conversation_id": first["conversation_id"]})
    chat_events(client, question="Where is Paris?")
    client.get("/v1/conversations", headers={"X-Rqrag-User": "ana"})
    assert on_the_loop == []


def test_both_streams_are_well_formed_event_streams(client):
    stream = chat_events(client, question="Where is Paris?", retriever="corpus")
    names = [name for name, _ in stream]
    assert names[0] == "conversation" and names[-1] == "done" and "error" not in names
    assert "".join(data["text"] for name, data in stream if name == "delta")
    reply = client.post(
        "/v1/chat/completions",
        json={"model": "rqrag", "stream": True, "messages": [{"role": "user", "content": "Hi?"}]},
    )
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream")
    frames = [frame for frame in reply.text.split("\n\n") if frame.strip()]
    assert all(frame.startswith("data: ") and "\n" not in frame for frame in frames)
    assert frames[-1] == "data: [DONE]"
    last = json.loads(frames[-2][len("data: ") :])
    assert last["choices"][0]["finish_reason"] == "stop" and "rqrag" in last


def test_handlers_get_their_services_through_dependencies(client):
    class Stand_in:
        decode_config = DecodeConfig(strategy="ppl", max_depth=3)
        documents = None
        memories = None

    client.app.dependency_overrides[answer_service] = Stand_in
    config = client.get("/v1/ui/config").json()
    assert config["default_strategy"] == "ppl" and config["default_depth"] == 3 and not config["memories_enabled"]


def test_a_stream_refuses_bad_options_before_it_starts(client):
    bad = client.post("/v1/chat", json={"question": "x", "retriever": "web"})  # not enabled on this server
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "retriever"
    unknown = client.post("/v1/chat", json={"question": "x", "conversation_id": "nope"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "conversation_not_found"


@pytest.mark.parametrize(
    ("error", "status", "error_type"),
    [
        (BadRequest("x", param="max_depth"), 400, "invalid_request_error"),
        (Forbidden("x", code="shared_library"), 403, "permission_error"),
        (NotFound("x", code="conversation_not_found"), 404, "not_found_error"),
        (Busy("x", code="too_many_jobs"), 429, "invalid_request_error"),
        (Timeout("x", code="timeout"), 504, "server_error"),
        (ServiceFailure("x", code="decoder_error"), 500, "server_error"),
    ],
)
def test_each_domain_error_has_its_http_status(error, status, error_type):
    mapped = http_error(error)
    assert mapped.status == status
    assert mapped.body()["error"] == {"message": "x", "type": error_type, "param": error.param, "code": error.code}


def test_the_api_key_is_compared_in_constant_time(decoder, tmp_path, monkeypatch):
    monkeypatch.setenv("RQRAG_TEST_KEY", "s3cret")
    compared = []
    real = hmac.compare_digest

    def compare_digest(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth_module.hmac, "compare_digest", compare_digest)
    serve = ServeConfig(retrievers=["corpus"], database_url=f"sqlite:///{tmp_path}/c.db", api_key_env="RQRAG_TEST_KEY")
    with TestClient(create_app(DecodeConfig(prompting="trained", max_depth=0), serve, decoder=decoder)) as client:
        assert client.get("/v1/models").status_code == 401
        wrong = client.get("/v1/models", headers={"Authorization": "Bearer s3cre"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
        assert client.get("/v1/models", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert client.get("/health").status_code == 200  # public
    assert (b"Bearer s3cret", b"Bearer s3cret") in compared and len(compared) == 3


def test_memories_are_written_only_where_a_retriever_reads_them():
    # The README's documents command names no memory retriever: memories: true adds one, so what is kept is read.
    assert ServeConfig(retrievers=["documents", "corpus"]).retrievers == ["documents", "corpus", "memories"]
    assert ServeConfig(retrievers=["corpus", "documents+memories"]).retrievers == ["corpus", "documents+memories"]
    assert ServeConfig(retrievers=["documents"], memories=False).retrievers == ["documents"]
    with pytest.raises(ValueError, match="not both"):
        ServeConfig(users="users.json", api_key_env="KEY")


@pytest.fixture
def clocked(decoder, tmp_path, monkeypatch):
    """The app with a set clock (Wednesday 18 November 2026, 21:30) and a decoder that counts its calls."""
    now = {"t": datetime.datetime(2026, 11, 18, 21, 30)}
    calls = []
    real_decode = decoder.decode
    monkeypatch.setattr(
        decoder, "decode", lambda questions, **kw: calls.append(questions) or real_decode(questions, **kw)
    )
    monkeypatch.setattr(app_module, "open_memories", lambda serve: MemoryStore(serve.database_url, HashEncoder()))
    serve = ServeConfig(retrievers=["corpus", "memories"], database_url=f"sqlite:///{tmp_path}/s.db")
    app = create_app(DecodeConfig(prompting="trained", max_depth=0), serve, decoder=decoder, clock=lambda: now["t"])
    with TestClient(app, headers={"X-Rqrag-User": "ana"}) as client:
        yield client, now, calls


def test_a_message_that_only_tells_is_acknowledged_with_when_it_happened(clocked):
    client, now, calls = clocked
    told = client.post("/v1/ask", json={"question": "Ontem à noite eu jantei com a Marta."}).json()
    assert told["answer_kind"] == "remembered" and told["sources"] == [] and calls == []  # no search, no model
    assert told["answer"] == "Anotado, vou me lembrar disso. Entendi que foi em 17/11/2026 (terça-feira, noite)."
    assert told["memory"]["stored"] and told["memory"]["happened_first"] == "2026-11-17"
    plain = client.post("/v1/ask", json={"question": "Meu cachorro se chama Bolinha."}).json()
    assert plain["answer"] == "Anotado, vou me lembrar disso."  # it happened the day it was told: no date said
    # A need is a request: answered through the pipeline (the model runs), not merely noted.
    needed = client.post("/v1/ask", json={"question": "Preciso saber onde fica Paris."}).json()
    assert needed["answer_kind"] != "remembered" and len(calls) == 1


def test_a_quoted_memory_is_read_back_as_what_the_user_said_and_when(clocked):
    client, now, _ = clocked
    client.post("/v1/ask", json={"question": "Ontem à noite eu jantei com a Marta."})
    now["t"] = datetime.datetime(2026, 11, 19, 9, 0)
    asked = client.post("/v1/ask", json={"question": "Com quem eu jantei anteontem?", "retriever": "memories"}).json()
    # The scripted model says "Paris is the capital of France.": unsupported, so the memory is quoted, in the
    # user's own words, with the day they said it ("ontem" is 17/11, not the 18th).
    assert asked["answer_kind"] == "quoted"
    assert asked["answer"] == "Você me contou em 18/11/2026: «Ontem à noite eu jantei com a Marta.»"
    assert asked["sources"][0]["origin"] == "memory" and asked["sources"][0]["happened_first"] == "2026-11-17"
