"""Each timing key names one span: `answer_seconds` the pipeline's call (tests/test_answer_pipeline.py),
`request_seconds` the server's request and `command_seconds` the `rqrag ask` command. `total_seconds`, the name all
three once shared, is repeated for one release in the replies users read: the server's and `rqrag ask --json`."""

from __future__ import annotations

import asyncio
import json


def test_the_server_times_the_request_around_the_pipelines_call(smollm2_tokenizer):
    from fakes import FakeGenerator

    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage
    from rqrag.serve.answer_service import AnswerService
    from rqrag.serve.serve_config import ServeConfig

    retriever = BM25Retriever.from_passages([Passage("d", "Hamlet", "Hamlet was written by Shakespeare.")])
    generator = FakeGenerator(smollm2_tokenizer, lambda prompt, action, request: ("Shakespeare", 0.9))
    config = DecodeConfig(prompting="trained", max_depth=0)
    service = AnswerService(
        config, ServeConfig(retrievers=["corpus"]), TreeDecoder(config, generator, smollm2_tokenizer, retriever)
    )

    async def ask():
        service.scheduler.start()
        try:
            batch = service.check("Who wrote Hamlet?", retriever=None, strategy=None, max_depth=None)
            return await service.answer([{"role": "user", "content": "Who wrote Hamlet?"}], batch, user="ana")
        finally:
            service.scheduler.stop()

    timings = asyncio.run(ask()).timings
    assert timings["request_seconds"] >= timings["answer_seconds"] >= timings["decode_seconds"]
    assert timings["total_seconds"] == timings["request_seconds"]  # deprecated: the former name, for one release


def test_rqrag_ask_times_the_command_around_the_pipelines_call(monkeypatch, capsys):
    from rqrag.answer import AnswerKind
    from rqrag.answer.results import PipelineAnswer
    from rqrag.cli.commands import ask

    class Pipeline:  # answers at once, loading nothing: the spans are what is tested
        decoder = None

        def __init__(self, config):
            pass

        def ask(self, question, history=None, language=None):
            return PipelineAnswer(
                "q", question, "Shakespeare.", AnswerKind.QUOTED, "en", timings={"answer_seconds": 0.0}
            )

    monkeypatch.setattr("rqrag.answer.api.Pipeline", Pipeline)
    assert ask.main(["Who wrote Hamlet?", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    timings = record["timings"]
    assert timings["command_seconds"] == record["seconds"] >= timings["answer_seconds"]
    assert timings["total_seconds"] == timings["command_seconds"]  # deprecated: the former name, for one release
