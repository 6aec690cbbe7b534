"""The request batcher's logic with a recording decode function (the real server is tested in test_server.py)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.serve.batcher import DecodeBatcher


def _question(i: int) -> Question:
    return Question(f"q{i}", [{"role": "user", "content": f"question {i}"}])


class Recorder:
    def __init__(self, fail_on: str | None = None, seconds: float = 0.0):
        self.calls: list[tuple[list[str], object]] = []
        self.fail_on = fail_on
        self.seconds = seconds
        self.threads: set[str] = set()

    def __call__(self, questions, settings):
        self.threads.add(threading.current_thread().name)
        self.calls.append(([q.qid for q in questions], settings))
        time.sleep(self.seconds)
        if self.fail_on in [q.qid for q in questions]:
            raise RuntimeError("retriever down")
        return [QuestionResult(q.qid, q.text) for q in questions]


async def _submit_all(batcher, items):
    batcher.start()
    try:
        return await asyncio.gather(*(batcher.submit(q, s) for q, s in items), return_exceptions=True)
    finally:
        await batcher.stop()


def test_concurrent_requests_share_one_decode_call():
    recorder = Recorder()
    batcher = DecodeBatcher(recorder, window_s=0.2, max_questions=16)
    results = asyncio.run(_submit_all(batcher, [(_question(i), ("corpus", 1)) for i in range(8)]))
    assert [r.qid for r in results] == [f"q{i}" for i in range(8)]  # each caller gets its own result
    assert len(recorder.calls) == 1 and len(recorder.calls[0][0]) == 8
    assert recorder.threads == {next(iter(recorder.threads))} and batcher.stats.sizes == [8]


def test_max_questions_splits_rounds():
    recorder = Recorder()
    batcher = DecodeBatcher(recorder, window_s=0.2, max_questions=3)
    asyncio.run(_submit_all(batcher, [(_question(i), None) for i in range(7)]))
    assert [len(ids) for ids, _ in recorder.calls] == [3, 3, 1]


def test_different_settings_are_decoded_apart_and_a_failure_stays_in_its_call():
    recorder = Recorder(fail_on="q0")
    batcher = DecodeBatcher(recorder, window_s=0.2, max_questions=16)
    items = [(_question(0), ("web", 1)), (_question(1), ("corpus", 1)), (_question(2), ("corpus", 1))]
    results = asyncio.run(_submit_all(batcher, items))
    assert isinstance(results[0], RuntimeError) and "retriever down" in str(results[0])
    assert [r.qid for r in results[1:]] == ["q1", "q2"]
    assert sorted((tuple(ids), s) for ids, s in recorder.calls) == [
        (("q0",), ("web", 1)),
        (("q1", "q2"), ("corpus", 1)),
    ]


def test_a_request_arriving_during_a_decode_joins_the_next_round():
    recorder = Recorder(seconds=0.3)
    batcher = DecodeBatcher(recorder, window_s=0.05, max_questions=16)

    async def scenario():
        batcher.start()
        first = asyncio.ensure_future(batcher.submit(_question(0)))
        await asyncio.sleep(0.1)  # the first call is running now
        later = [asyncio.ensure_future(batcher.submit(_question(i))) for i in (1, 2)]
        await asyncio.gather(first, *later)
        await batcher.stop()

    asyncio.run(scenario())
    assert [ids for ids, _ in recorder.calls] == [["q0"], ["q1", "q2"]]


def test_invalid_settings_are_refused():
    with pytest.raises(ValueError):
        DecodeBatcher(Recorder(), window_s=-1)
    with pytest.raises(ValueError):
        DecodeBatcher(Recorder(), max_questions=0)


def test_the_answer_service_batches_what_its_types_say(smollm2_tokenizer):
    """The server's batcher is declared `DecodeBatcher[_TreeWork, QuestionResult]`: its decode function is typed
    so, and a real question through the service hands it one question's tree to run and gets its result back,
    the tree the answer stands on."""
    from collections.abc import Sequence
    from typing import get_args, get_type_hints

    from fakes import FakeGenerator

    from rqrag.inference.decoding.config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.inference.decoding.tree import QuestionResult
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage
    from rqrag.serve.answer_service import AnswerService, _TreeWork
    from rqrag.serve.config import ServeConfig

    retriever = BM25Retriever.from_documents([Passage("d", "Hamlet", "Hamlet was written by Shakespeare.")])
    generator = FakeGenerator(smollm2_tokenizer, lambda prompt, action, request: ("Shakespeare", 0.9))
    config = DecodeConfig(prompting="trained", max_depth=0)
    service = AnswerService(
        config, ServeConfig(retrievers=["corpus"]), TreeDecoder(config, generator, smollm2_tokenizer, retriever)
    )
    item_type, outcome_type = get_args(service.batcher.__orig_class__)
    assert (item_type, outcome_type) == (_TreeWork, QuestionResult)  # one question's tree in, its result out
    hints = get_type_hints(service._decode_trees)
    assert hints["work"] == Sequence[_TreeWork] and hints["return"] == list[QuestionResult]

    handed: list[tuple[list, list]] = []
    decode = service.batcher.decode_fn

    def recorded(items, settings):
        outcomes = decode(items, settings)
        handed.append((list(items), outcomes))
        return outcomes

    service.batcher.decode_fn = recorded

    async def ask():
        service.batcher.start()
        try:
            batch = service.check("Who wrote Hamlet?", retriever=None, strategy=None, max_depth=None)
            return await service.answer([{"role": "user", "content": "Who wrote Hamlet?"}], batch)
        finally:
            await service.batcher.stop()

    answer = asyncio.run(ask())
    ((items, outcomes),) = handed
    assert all(isinstance(item, item_type) for item in items) and all(isinstance(o, outcome_type) for o in outcomes)
    assert outcomes == [answer.result] and answer.text
