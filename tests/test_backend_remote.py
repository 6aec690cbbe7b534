"""The remote backend against a real vLLM OpenAI server on localhost, checked against the in-process HF backend."""

from __future__ import annotations

import pytest

from rqrag.inference.backends.base import GenerationRequest, Generator, SamplingParams
from rqrag.inference.backends.remote import RemoteGenerationError, RemoteGenerator


pytestmark = [pytest.mark.slow, pytest.mark.vllm]

QUESTIONS = ["What is the capital of France?", "Name a large cat that lives in the Americas."]


def chat_ids(tokenizer, question: str) -> tuple[int, ...]:
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": question}], tokenize=False, add_generation_prompt=True
    )
    return tuple(tokenizer(text, add_special_tokens=False)["input_ids"])


@pytest.fixture(scope="module")
def hf(smollm2_dir):
    from rqrag.inference.backends.hf import HFGenerator

    return HFGenerator.from_pretrained(smollm2_dir)


def test_matches_the_hf_backend_token_for_token(openai_server, hf):
    remote = RemoteGenerator(openai_server.base_url, openai_server.served_name, max_context=2048)
    assert isinstance(remote, Generator)
    tok = hf.tokenizer
    newline = tuple(tok.convert_tokens_to_ids(["Ċ"]))
    requests = [
        GenerationRequest(chat_ids(tok, QUESTIONS[0]), SamplingParams(max_tokens=24)),
        GenerationRequest(chat_ids(tok, QUESTIONS[1]), SamplingParams(max_tokens=6)),  # cut off: "length"
        GenerationRequest(chat_ids(tok, "List three fruits, one per line."), SamplingParams(max_tokens=30), newline),
    ]
    got = remote.generate(requests)
    want = hf.generate(requests)
    assert remote.stats.model_calls == 1 and remote.stats.requests == 3
    for g, w in zip(got, want):
        assert g.token_ids == w.token_ids
        assert g.finish_reason == w.finish_reason
        assert g.logprobs == pytest.approx(w.logprobs, abs=2e-3)  # float32 kernels differ in the last digits
    assert [c.finish_reason for c in got] == ["eos", "length", "stop"]
    assert got[2].token_ids[-1] == newline[0]


def test_unreachable_endpoint_is_a_clear_error():
    remote = RemoteGenerator("http://127.0.0.1:9/v1", "x", max_retries=0, timeout=5)
    with pytest.raises(RemoteGenerationError, match="127.0.0.1:9"):
        remote.generate([GenerationRequest((1, 2, 3), SamplingParams(max_tokens=2))])
