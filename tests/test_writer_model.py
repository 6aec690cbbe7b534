"""The writer with real models: Qwen2.5-Coder-0.5B behind llama.cpp's own OpenAI-compatible HTTP server (started
here, `rqrag.local_servers.gguf_server`), read through the `openai` SDK, and the same model in-process; a served question whose
written sentences stream through `/v1/chat/completions`."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from rqrag.answer.claim_check import ClaimCheck
from rqrag.answer.writer import AnswerWriter
from rqrag.answer.writer_models import LocalChatModel, OpenAIChatModel
from rqrag.local_servers.gguf_server import serve_gguf
from rqrag.retrieval.base import Hit


pytestmark = pytest.mark.slow

PASSAGES = [
    Hit(
        "st",
        "Shirley Temple",
        "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress, singer, dancer, "
        "businesswoman, and diplomat. As an adult, she was named United States ambassador to Ghana and to "
        "Czechoslovakia and also served as Chief of Protocol of the United States.",
        1.0,
    ),
    Hit(
        "kt",
        "Kiss and Tell (1945 film)",
        "Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer.",
        0.9,
    ),
]
QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
# Served with the 0.5B as the writer: a question its passage answers in one sentence it can copy (the 0.5B misreads
# "starring Shirley Temple as Corliss Archer" for "who portrayed": its cloze says "not stated").
SERVED_QUESTION = "Who starred as Corliss Archer in the 1945 film Kiss and Tell?"


@pytest.fixture(scope="module")
def llama_server() -> Iterator:
    with serve_gguf("qwen2.5-0.5b") as server:
        yield server


def _base_url(server) -> str:
    return f"http://{server.host}:{server.port}/v1"


def test_an_openai_compatible_writer_writes_checked_cited_sentences(llama_server):
    model = OpenAIChatModel(_base_url(llama_server), "qwen2.5-0.5b")
    streamed = []
    written = AnswerWriter(model, ClaimCheck(ask=model.complete)).write(
        QUESTION, PASSAGES, "en", on_sentence=streamed.append
    )
    assert written.reply  # the endpoint streamed a reply
    assert streamed == written.shown
    for sentence in written.shown:  # only what passed is shown, each citing a passage it was given
        assert sentence.verdict.ok and all(1 <= n <= len(PASSAGES) for n in sentence.cites)
    assert all(not s.verdict.ok for s in written.dropped)


def test_the_judge_reads_yes_probabilities_from_the_endpoint(llama_server):
    model = OpenAIChatModel(_base_url(llama_server), "qwen2.5-0.5b")
    check = ClaimCheck(model.yes_probability, "judge", min_p=0.0)
    true = check.check("Kiss and Tell is a 1945 comedy film.", PASSAGES[1:], "", "en")
    absurd = check.check("Kiss and Tell is a cooking show broadcast from Mars.", PASSAGES[1:], "", "en")
    assert 0.0 <= absurd.p < true.p <= 1.0


def test_the_in_process_model_and_the_server_agree_on_the_judgment(llama_server):
    """The same GGUF in this process (llama.cpp embedded) and behind the HTTP server: the same greedy yes/no."""
    remote = OpenAIChatModel(_base_url(llama_server), "qwen2.5-0.5b")
    local = LocalChatModel("qwen2.5-0.5b")
    messages = [{"role": "user", "content": "Is Paris the capital of France? Reply yes or no."}]
    assert abs(remote.yes_probability(messages) - local.yes_probability(messages)) < 0.05


def test_an_endpoint_that_is_away_is_a_clear_error():
    model = OpenAIChatModel("http://127.0.0.1:9/v1", "none")
    with pytest.raises(Exception) as failure:
        list(model.stream([{"role": "user", "content": "hi"}], 4))
    assert "connect" in str(failure.value).lower()


def test_the_writer_needs_a_url_and_a_model():
    with pytest.raises(ValueError, match="writer_base_url"):
        OpenAIChatModel("", "m")


def test_a_served_answer_streams_each_checked_sentence_before_the_rest(llama_server, tmp_path):
    """`rqrag serve` with the writer behind llama.cpp's HTTP server: `/v1/chat/completions` with `stream` sends each
    written sentence (with `rqrag_sentence`: its marks and quote) as soon as it passed, the short answer after them,
    and the final `rqrag` object says the answer is written, its marks numbering its cited sources."""
    from rqrag.serve.server.process import RQRAGServer

    flags = ["--max_depth", "1", "--answer_max_tokens", "24", "--query_max_tokens", "24", "--batch_window_ms", "200"]
    flags += ["--writer", "openai", "--writer_base_url", _base_url(llama_server), "--writer_model", "qwen2.5-0.5b"]
    server = RQRAGServer(tmp_path, tmp_path / "c.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"})
    try:
        stream = server.client().chat.completions.create(
            model="rqrag", messages=[{"role": "user", "content": SERVED_QUESTION}], stream=True
        )
        chunks = list(stream)
    finally:
        server.stop()
    sentences = [c.model_extra["rqrag_sentence"] for c in chunks if (c.model_extra or {}).get("rqrag_sentence")]
    final = chunks[-1].model_extra["rqrag"]
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert final["answer_kind"] == "written", json.dumps(final["written"], indent=1)
    shown = final["written"]["shown"]
    assert sentences and len(sentences) == len(shown)
    assert all(streamed["text"].startswith(s["text"]) for streamed, s in zip(sentences, shown))
    assert all(s["check"]["ok"] for s in shown)  # nothing reached the client before its check passed
    assert content.startswith(sentences[0]["text"])
    for sentence in sentences:
        for mark in sentence["marks"]:
            source = final["sources"][mark - 1]
            assert source["cited"] and source["docid"] in sentence["cites"] and source.get("quote")
    if final["short_answer"]:
        assert content.endswith(final["short_answer"]) and final["answer"].startswith(final["short_answer"])


def test_rqrag_ask_prints_the_short_answer_first_then_the_cited_sentences_and_their_quotes(llama_server, capsys):
    """`rqrag ask` with a writer: the short answer on the first line, then the checked sentences with their marks,
    then each cited source's sentence, verbatim, with its title; `--json` has the same answer, kind `written`."""
    from rqrag.cli.commands import ask

    writer = ["--writer", "openai", "--writer_base_url", _base_url(llama_server), "--writer_model", "qwen2.5-0.5b"]
    argv = [SERVED_QUESTION, "--config", "configs/decode/rqrag_trained.yaml", "--query_temperature", "0", *writer]
    assert ask.main([*argv, "--json"]) == 0
    out = capsys.readouterr().out
    record = json.loads(out[out.index("\n{\n") + 1 :] if not out.startswith("{") else out)
    assert record["answer_kind"] == "written", record["written"]
    assert ask.main(argv) == 0
    printed = capsys.readouterr().out
    lines = [line for line in printed.splitlines() if line.strip()]
    start = next(
        i for i, line in enumerate(lines) if line.startswith(("Answer:", record["answer"].split("\n")[-1][:30]))
    )
    if record["short_answer"]:
        assert lines[start] == f"Answer: {record['short_answer']}"
    quoted = [line for line in lines if line.startswith("  [") and "“" in line]
    assert quoted and all(source["quote"] in printed for source in record["sources"] if source.get("quote"))


def test_a_reader_that_stops_reading_stops_the_in_process_writer():
    """The review stops reading once its four texts are full (a 1.5B otherwise repeats a sentence to max_tokens, 45 s
    of one tuning article): closing the stream must stop llama.cpp, not leave it writing 400 tokens nobody reads."""
    import threading
    import time

    model = LocalChatModel("qwen2.5-0.5b")
    messages = [{"role": "user", "content": "Count from 1 to 500, one number per line."}]
    stream = model.stream(messages, 400)
    first = [next(stream) for _ in range(4)]
    stream.close()
    closed = time.perf_counter()
    while any(t.name == "writer-stream" for t in threading.enumerate()) and time.perf_counter() - closed < 20:
        time.sleep(0.05)
    assert first and time.perf_counter() - closed < 3  # 400 tokens take about 20 s on 2 cores
