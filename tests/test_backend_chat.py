"""Any chat LLM as the generator: `ChatGenerator` against a real vLLM chat endpoint (SmolLM2-135M-Instruct),
`rqrag ask --backend chat` end to end over a small local corpus, and selection by answer agreement when the
endpoint gives no logprobs."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from rqrag.inference.backends.base import ChatPrompt, Completion, GenerationRequest, Generator, SamplingParams
from rqrag.inference.backends.chat_endpoint import ChatGenerationError, ChatGenerator
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.prompting import ChatPrompter, make_prompter
from rqrag.inference.decoding.select import STRATEGIES, Scored, select_all
from rqrag.text.answer_text import answer_key
from rqrag.trajectory import Action, ParseStatus


URL = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
CORPUS = [
    (
        "eiffel-1",
        "Eiffel Tower",
        "The Eiffel Tower is a wrought-iron lattice tower in Paris, France, completed in 1889.",
    ),
    ("eiffel-2", "Gustave Eiffel", "Gustave Eiffel's engineering company designed and built the Eiffel Tower."),
    ("louvre", "Louvre", "The Louvre in Paris is the world's most-visited art museum and home of the Mona Lisa."),
    ("tokyo", "Tokyo Tower", "Tokyo Tower is a communications and observation tower in Minato, Tokyo, Japan."),
]
QUESTION = "In which city is the Eiffel Tower?"


def chat_request(question: str, max_tokens: int = 24, stop=("\n",)) -> GenerationRequest:
    messages = (("user", question),)
    return GenerationRequest((1,), SamplingParams(max_tokens=max_tokens), chat=ChatPrompt(messages, stop))


# ---------------------------------------------------------------------------------- no endpoint needed


def test_selection_without_logprobs_goes_by_answer_agreement():
    def candidate(answer: str, supported: bool = False) -> Scored:
        return Scored(answer, (), (), evidence=(f"{answer} is a city" if supported else "nothing here",))

    candidates = [candidate("Lyon"), candidate("Paris"), candidate("paris."), candidate("Rome", supported=True)]
    chosen = select_all(candidates)
    assert set(chosen) == set(STRATEGIES)
    # "Paris" and "paris." share an answer key: the majority (2 of 4) wins under every logprob-based strategy.
    for name in ("ppl", "ppl_path", "confidence", "ensemble"):
        assert chosen[name] == 1, name
    assert chosen["support"] == 3  # the only answer its own evidence supports
    assert chosen["vote"] == 1  # 2 x 0.5 for Paris against 0.25 x 2 for the supported Rome
    # With logprobs, nothing changes: the usual definitions apply.
    scored = [Scored("Lyon", (-0.1,), (-0.1,)), Scored("Paris", (-2.0,), (-2.0,)), Scored("Paris", (-2.0,), (-2.0,))]
    assert select_all(scored)["confidence"] == 0


def test_chat_config_is_prompted_only_and_needs_an_endpoint_and_a_model():
    config = DecodeConfig(backend="chat", remote_base_url=URL, remote_model="m")
    assert config.prompting == "prompted" and config.model_to_load == "smollm2-135m-instruct"
    with pytest.raises(ValueError, match="remote_model"):
        DecodeConfig(backend="chat", remote_base_url=URL)
    with pytest.raises(ValueError, match="remote_base_url"):
        DecodeConfig(backend="chat", remote_model="m")
    with pytest.raises(ValueError, match="prompted mode only"):
        DecodeConfig(backend="chat", remote_base_url=URL, remote_model="m", prompting="trained")
    with pytest.raises(ValueError, match="chat_logprobs"):
        DecodeConfig(backend="chat", remote_base_url=URL, remote_model="m", chat_logprobs=False, stop_confidence=0.5)


def test_the_chat_prompter_sends_messages_and_reads_one_line(smollm2_tokenizer):
    from rqrag.inference.decoding.tree import Path, Question

    prompter = make_prompter("auto", smollm2_tokenizer, ChatGenerator(URL, "m"))
    assert isinstance(prompter, ChatPrompter) and prompter.prompting == "prompted"
    question = Question("q", [{"role": "user", "content": QUESTION}])
    request = prompter.request(question, Path("q", "0"), Action.REWRITE, SamplingParams(), seed=3)
    roles = [role for role, _ in request.chat.messages]
    assert roles == ["system", "user"] and QUESTION in request.chat.messages[1][1]
    assert 'starts with "Search query:"' in request.chat.messages[1][1] and request.chat.stop == ("\n",)
    assert request.prompt_ids  # the local tokenizer's count of the same text
    again = prompter.request(question, Path("q", "0"), Action.REWRITE, SamplingParams(), seed=3)
    assert again == request  # same messages, same content address: identical expansions still merge

    parsed = prompter.parse(Action.REWRITE, Completion("**Search query:** Eiffel Tower city\nmore", (), (), "end"))
    assert parsed.text == "Eiffel Tower city" and parsed.status is ParseStatus.OK
    assert prompter.parse(Action.ANSWER, Completion('Answer: "Paris"', (), (), "end")).text == "Paris"
    assert prompter.parse(Action.ANSWER, Completion("Par", (), (), "length")).status is ParseStatus.TRUNCATED
    with pytest.raises(ValueError, match="trained mode"):
        make_prompter("trained", smollm2_tokenizer, ChatGenerator(URL, "m"))


def test_an_unreachable_endpoint_is_retried_then_a_generation_error():
    generator = ChatGenerator(URL, "m", max_retries=1, timeout=5)
    assert isinstance(generator, Generator)
    started = time.perf_counter()
    with pytest.raises(ChatGenerationError, match="failed after 1 retries.*APIConnectionError"):
        generator.generate([chat_request("hi")])
    assert time.perf_counter() - started < 20


# ------------------------------------------------------------------------------- the real vLLM endpoint


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory):
    from rqrag.retrieval.corpus_index import CorpusIndex
    from rqrag.retrieval.passages import Passage

    docs = [Passage(docid, title, text) for docid, title, text in CORPUS]
    out = tmp_path_factory.mktemp("chat-corpus") / "index"
    CorpusIndex.build(docs, out, modes=("bm25",), show_progress=False)
    return out


@pytest.mark.slow
@pytest.mark.vllm
def test_chat_completions_carry_logprobs_when_asked(openai_server):
    with_scores = ChatGenerator(openai_server.base_url, openai_server.served_name, max_context=2048)
    without = ChatGenerator(openai_server.base_url, openai_server.served_name, logprobs=False)
    requests = [chat_request("What is the capital of France? Answer in one word."), chat_request("Count to ten.", 3)]
    scored = with_scores.generate(requests)
    plain = without.generate(requests)
    assert [c.finish_reason for c in scored] == ["end", "length"]
    assert scored[0].text.strip() and all(lp <= 0 for c in scored for lp in c.logprobs)
    assert len(scored[1].logprobs) == 3  # cut at max_tokens: every token kept
    # A reply that ended by itself lists only its own tokens: the terminator vLLM reports is dropped.
    assert 0 < len(scored[0].logprobs) == with_scores.stats.generated_tokens - 3 - 1
    assert [c.text for c in plain] == [c.text for c in scored]  # greedy either way
    assert all(c.logprobs == () and c.token_ids == () for c in plain)
    assert with_scores.stats.model_calls == 1 and with_scores.stats.requests == 2


@pytest.mark.slow
@pytest.mark.vllm
def test_a_wrong_model_name_is_a_clear_error_not_a_hang(openai_server):
    generator = ChatGenerator(openai_server.base_url, "no-such-model", max_retries=2)
    started = time.perf_counter()
    with pytest.raises(ChatGenerationError, match="no-such-model.*check remote_base_url.*HTTP 404"):
        generator.generate([chat_request("hi")])
    assert time.perf_counter() - started < 10  # 404 is not retried


@pytest.mark.slow
@pytest.mark.vllm
def test_a_timeout_is_retried_then_a_generation_error(openai_server):
    generator = ChatGenerator(openai_server.base_url, openai_server.served_name, timeout=0.001, max_retries=1)
    with pytest.raises(ChatGenerationError, match="failed after 1 retries.*Timeout"):
        generator.generate([chat_request("Write a long story.", 200)])


def _ask(openai_server, corpus_index, tmp_path, capsys, *extra) -> tuple[int, dict]:
    from rqrag.cli.commands import ask

    argv = [
        QUESTION,
        *("--backend", "chat", "--remote_base_url", openai_server.base_url, "--remote_model", "smollm2"),
        *("--remote_max_context", "2048", "--index", str(corpus_index), "--retrieval_mode", "bm25"),
        *("--max_depth", "1", "--actions", "rewrite", "decompose", "--query_temperature", "0"),
        *("--answer_max_tokens", "16", "--query_max_tokens", "24", "--output_dir", str(tmp_path), *extra),
    ]
    code = ask.main(argv)
    capsys.readouterr()
    return code, json.loads((tmp_path / "result.json").read_text())


def _searched(record: dict) -> list[dict]:
    return [t for t in record["trajectories"] if t["answer"] and any(s["evidence"] for s in t["steps"])]


@pytest.mark.slow
@pytest.mark.vllm
def test_ask_with_a_chat_backend_answers_after_searching(openai_server, corpus_index, tmp_path, capsys):
    code, record = _ask(openai_server, corpus_index, tmp_path, capsys)
    assert code == 0 and record["answer"] and record["prompting"] == "prompted"
    assert record["generator"]["model_calls"] == 2  # one per depth, as with every backend
    searched = _searched(record)
    assert searched, record["trajectories"]
    titles = {h["title"] for t in searched for s in t["steps"] for h in s["evidence"]}
    assert titles & {"Eiffel Tower", "Gustave Eiffel"}
    finished = [t for t in record["trajectories"] if t["answer"] and not t["error"]]
    assert all(t["confidence"] is not None and 0 < t["confidence"] <= 1 for t in finished)  # scored by logprobs
    assert (tmp_path / "resolved_config.yaml").read_text().count("backend: chat") == 1


@pytest.mark.slow
@pytest.mark.vllm
def test_without_logprobs_the_answer_is_chosen_by_agreement(openai_server, corpus_index, tmp_path, capsys):
    code, record = _ask(openai_server, corpus_index, tmp_path, capsys, "--chat_logprobs", "false")
    assert code == 0 and _searched(record)
    finished = [t for t in record["trajectories"] if t["answer"] and not t["error"]]
    assert len(finished) >= 2
    assert all(t["confidence"] is None and t["perplexity"] is None for t in finished)  # no scores, no Infinity
    counts = Counter(answer_key(t["answer"]) for t in finished)
    top = max(counts.values())
    majority = {key for key, n in counts.items() if n == top}
    for strategy in ("ppl", "confidence", "ensemble", "vote"):
        assert answer_key(record["answers_by_strategy"][strategy]) in majority, strategy


@pytest.mark.slow
@pytest.mark.vllm
def test_ask_with_a_wrong_model_fails_fast_with_the_reason(openai_server, corpus_index, tmp_path, capsys):
    from rqrag.cli.commands import ask

    started = time.perf_counter()
    code = ask.main(
        [QUESTION, "--backend", "chat", "--remote_base_url", openai_server.base_url, "--remote_model", "nope"]
        + ["--index", str(corpus_index), "--retrieval_mode", "bm25", "--max_depth", "1"]
    )
    out = capsys.readouterr().out
    assert code == 1 and "HTTP 404" in out and "'nope'" in out
    assert time.perf_counter() - started < 60  # 404 is not retried: no wait for timeouts
