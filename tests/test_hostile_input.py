"""Hostile input at the server's edge, in process: the real app and stores, a scripted generator that counts calls.

    python -m pytest tests/test_hostile_input.py -q

Each case is what a hostile client sends to the server: ids past 64 bits, lone surrogates, a 900 kB question (which
would hold the model thread for minutes), unknown fields on `/v1/chat` as on `/v1/ask`. Every one must be a 4xx in
OpenAI's error shape, decided before any search or model call, on every answering route; and a question past its time
budget stops growing its tree.
"""

from __future__ import annotations

import time

import pytest
from fakes import FakeGenerator
from fastapi.testclient import TestClient

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app
from rqrag.trajectory import Action


class CountingRetriever:
    """A real BM25 index that counts the searches made through it."""

    uses_qids = False

    def __init__(self, docs):
        self.index = BM25Retriever.from_passages(docs, show_progress=False)
        self.searches = 0

    def search(self, query, k=3, qid=None):
        self.searches += 1
        return self.index.search(query, k=k)

    def batch_search(self, queries, k=3, qids=None):
        self.searches += len(queries)
        return self.index.batch_search(queries, k=k)


@pytest.fixture
def served(smollm2_tokenizer, tmp_path):
    """(client, generator, retriever) of the real app over a two-document BM25 index; depth 1, every action."""

    def script(prompt, action, request):
        return ("Paris", 0.9) if action is Action.ANSWER else ("capital of France", 0.8)

    config = DecodeConfig(prompting="trained", max_depth=1)
    generator = FakeGenerator(smollm2_tokenizer, script)
    retriever = CountingRetriever(
        [Passage("d1", "Paris", "Paris is the capital of France."), Passage("d2", "Lyon", "Lyon is in France.")]
    )
    decoder = TreeDecoder(config, generator, smollm2_tokenizer, retriever)
    serve = ServeConfig(
        retrievers=["corpus"],
        database_url=f"sqlite:///{tmp_path}/c.db",
        documents_dir=str(tmp_path / "libraries"),
        max_question_chars=2000,
        max_question_tokens=300,
    )
    with TestClient(create_app(config, serve, decoder=decoder), raise_server_exceptions=False) as client:
        yield client, generator, retriever


ROUTES = [
    ("/v1/ask", lambda q: {"question": q}),
    ("/v1/chat", lambda q: {"question": q}),
    ("/v1/chat/completions", lambda q: {"model": "rqrag", "messages": [{"role": "user", "content": q}]}),
]


def _post(client, path: str, body: str | dict):
    if isinstance(body, str):
        return client.post(path, content=body, headers={"content-type": "application/json"})
    return client.post(path, json=body)


def _assert_openai_error(response, status: int, code: str | None = None):
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"]
    if code is not None:
        assert error["code"] == code


@pytest.mark.parametrize(("path", "body"), ROUTES)
def test_a_900_kb_question_is_refused_on_every_route_before_any_search_or_model_call(served, path, body):
    client, generator, retriever = served
    response = _post(client, path, body("palavra " * 112_000))  # ~900 kB: under the 1 MB body limit
    _assert_openai_error(response, 400, "context_length_exceeded")
    assert "characters" in response.json()["error"]["message"]
    assert generator.stats.model_calls == 0 and retriever.searches == 0


@pytest.mark.parametrize(("path", "body"), ROUTES)
def test_a_question_within_the_characters_but_over_the_tokens_is_refused_too(served, path, body):
    client, generator, retriever = served
    question = "9" * 1900  # 1,900 characters (under 2,000) but ~630 tokens (over 300): digits are tokens each
    response = _post(client, path, body(question))
    _assert_openai_error(response, 400, "context_length_exceeded")
    assert "tokens" in response.json()["error"]["message"]
    assert generator.stats.model_calls == 0 and retriever.searches == 0


def test_a_long_history_message_of_a_chat_completion_is_refused(served):
    client, generator, _ = served
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "x" * 5000},
        {"role": "user", "content": "What is the capital of France?"},
    ]
    response = client.post("/v1/chat/completions", json={"model": "rqrag", "messages": messages})
    _assert_openai_error(response, 400, "context_length_exceeded")
    assert response.json()["error"]["param"] == "messages.1.content"
    assert generator.stats.model_calls == 0


def test_a_question_at_the_limit_is_answered(served):
    client, generator, _ = served
    response = client.post("/v1/ask", json={"question": "What is the capital of France? " + "a " * 100})
    assert response.status_code == 200, response.text
    assert generator.stats.model_calls > 0


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/ask", '{"question": "\\ud800"}'),
        ("/v1/ask", '{"question": "Who?", "conversation_id": "\\ud800"}'),
        ("/v1/chat/completions", '{"model": "rqrag", "messages": [{"role": "user", "content": "\\ud800"}]}'),
        ("/v1/chat/completions", '{"model": "\\udfff", "messages": [{"role": "user", "content": "Who?"}]}'),
        ("/v1/chat", '{"question": "a\\udc80b"}'),
    ],
)
def test_a_lone_surrogate_anywhere_is_a_400(served, path, body):
    client, generator, _ = served
    _assert_openai_error(_post(client, path, body), 400)
    assert generator.stats.model_calls == 0


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("DELETE", "/v1/memories/9223372036854775808"),  # one past a signed 64-bit row id: was an OverflowError
        ("DELETE", "/v1/memories/-1"),
        ("DELETE", "/v1/memories/0"),
        ("GET", "/v1/conversations/%ED%A0%80"),  # not UTF-8
        ("GET", "/v1/conversations/" + "a" * 65),
    ],
)
def test_ids_are_parsed_and_range_checked_at_the_edge(served, method, path):
    client, _, _ = served
    _assert_openai_error(client.request(method, path), 400)


def test_an_unknown_memory_id_in_range_is_a_404_not_a_500(served):
    client, _, _ = served
    _assert_openai_error(client.delete("/v1/memories/9223372036854775807"), 404, "memory_not_found")


def test_chat_refuses_unknown_fields_as_ask_does(served):
    client, generator, _ = served
    for path in ("/v1/chat", "/v1/ask"):
        response = client.post(path, json={"question": "Who?", "strategy_typo": "vote"})
        _assert_openai_error(response, 400)
        assert response.json()["error"]["param"] == "strategy_typo"
    assert generator.stats.model_calls == 0


def _depth(finished) -> int:
    return finished.path_id.count(".") - 1  # "0" is the root; its children ("0.3": depth 0's answer) hang below


def test_a_question_past_its_time_budget_stops_its_tree_at_the_next_depth(smollm2_tokenizer):
    """Depth 0 runs; at depth 1 the deadline has passed, so only depth 0's answer is left to choose from, while the
    question in time beside it in the same batch grows its tree (depth 2's repeated query is guarded)."""

    def script(prompt, action, request):
        time.sleep(0.05)
        return ("Paris", 0.9) if action is Action.ANSWER else ("capital of France", 0.8)

    config = DecodeConfig(prompting="trained", max_depth=2)
    retriever = BM25Retriever.from_passages([Passage("d1", "Paris", "Paris is in France.")], show_progress=False)
    decoder = TreeDecoder(config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, retriever)
    late = Question("late", [{"role": "user", "content": "Capital of France?"}], deadline=time.monotonic() + 0.01)
    on_time = Question("on_time", [{"role": "user", "content": "Capital of France?"}])
    late_result, on_time_result = decoder.decode([late, on_time])
    assert late_result.out_of_time_at == 1 and on_time_result.out_of_time_at is None
    assert {_depth(t) for t in late_result.trajectories} == {0}
    assert late_result.answer == "Paris"  # answered from what finished in time
    assert max(_depth(t) for t in on_time_result.trajectories) >= 1  # searched and answered from evidence


def test_a_question_with_no_time_left_is_a_504_and_the_next_one_is_answered(smollm2_tokenizer, tmp_path):
    def script(prompt, action, request):
        return ("Paris", 0.9) if action is Action.ANSWER else ("capital of France", 0.8)

    config = DecodeConfig(prompting="trained", max_depth=1)
    retriever = BM25Retriever.from_passages([Passage("d1", "Paris", "Paris is in France.")], show_progress=False)
    decoder = TreeDecoder(config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, retriever)
    serve = ServeConfig(retrievers=["corpus"], database_url=f"sqlite:///{tmp_path}/c.db", decode_budget_s=1e-9)
    with TestClient(create_app(config, serve, decoder=decoder), raise_server_exceptions=False) as client:
        _assert_openai_error(client.post("/v1/ask", json={"question": "Capital of France?"}), 504, "time_budget")
        assert decoder.generator.stats.model_calls == 0  # the deadline passed while it queued: not one call


def test_an_unreachable_web_search_is_answered_200_saying_it_could_not_search(smollm2_tokenizer, tmp_path):
    """The real web retriever on a machine without internet (as CI and this machine are): every search of the
    tree fails; the request is still a 200 with `evidence_used: false`, the model's own answer kept as
    `generated_answer`, and a reply that does not claim a search happened."""
    from rqrag.retrieval.base import RetrieverUnavailable
    from rqrag.retrieval.web import WebRetriever

    try:
        WebRetriever(probe_timeout=2.0).check_available()
        pytest.skip("this machine reaches the web: the offline path cannot be observed")
    except RetrieverUnavailable:
        pass

    def script(prompt, action, request):
        return ("William Shakespeare", 0.9) if action is Action.ANSWER else ("Hamlet author", 0.8)

    config = DecodeConfig(prompting="trained", max_depth=1)
    retriever = BM25Retriever.from_passages([Passage("d1", "Paris", "Paris is in France.")], show_progress=False)
    decoder = TreeDecoder(config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, retriever)
    serve = ServeConfig(retrievers=["corpus", "web"], database_url=f"sqlite:///{tmp_path}/c.db", memories=False)
    with TestClient(create_app(config, serve, decoder=decoder), raise_server_exceptions=False) as client:
        for path, body in [
            ("/v1/ask", {"question": "Who wrote Hamlet?", "retriever": "web"}),
            ("/v1/chat/completions", {"model": "rqrag", "messages": [{"role": "user", "content": "Who wrote Hamlet?"}],
                                      "rqrag": {"retriever": "web"}}),
        ]:  # fmt: skip
            response = client.post(path, json=body)
            assert response.status_code == 200, response.text
            reply = response.json() if path == "/v1/ask" else response.json()["rqrag"]
            text = (
                response.json()["answer"] if path == "/v1/ask" else response.json()["choices"][0]["message"]["content"]
            )
            assert reply["evidence_used"] is False and reply["sources"] == []
            assert reply["generated_answer"] == "William Shakespeare"
            assert text.startswith("I could not search the sources (web search is unavailable)"), text
