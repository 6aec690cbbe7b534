"""Adaptive expansion (`stop_confidence`): answer first at each depth, stop the questions already sure."""

from __future__ import annotations

import pytest
from fakes import FakeGenerator
from test_decoder import DOCS, _questions, script

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.trajectory import Action


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


def easy_and_hard(prompt, action, request):
    """Question a ("alpha") is answered at p = 0.99 per token from the start; question b stays at 0.5."""
    if action is Action.ANSWER:
        return ("Kilimanjaro", 0.99) if "alpha" in prompt else ("Jaguar", 0.5)
    return script(prompt, action, request)


def _decode(tok, retriever, questions, script_fn=easy_and_hard, **overrides):
    # Guards off: the script's queries repeat themselves, and the hard question must reach full depth.
    config = DecodeConfig(prompting="trained", max_depth=2, refinement_guards=False, **overrides)
    gen = FakeGenerator(tok, script_fn)
    decoder = TreeDecoder(config, gen, tok, retriever)
    return decoder.decode(questions), decoder, gen


def test_an_easy_question_costs_one_call_and_keeps_its_direct_answer(smollm2_tokenizer, retriever):
    (easy,), decoder, gen = _decode(smollm2_tokenizer, retriever, _questions()[:1], stop_confidence=0.9)
    assert gen.stats.model_calls == 1 and gen.stats.requests == 1
    assert [t.path_id for t in easy.trajectories] == ["0.3"]  # the direct answer, nothing else expanded
    assert easy.answer == "Kilimanjaro" and easy.stopped_at == 0
    assert easy.best_confidence == pytest.approx(0.99)
    assert decoder.stats.stopped == [1] and decoder.stats.depth_sizes == [1]
    assert easy.to_dict()["stopped_at"] == 0


def test_a_hard_question_in_the_same_batch_goes_to_full_depth(smollm2_tokenizer, retriever):
    (easy, hard), decoder, gen = _decode(smollm2_tokenizer, retriever, _questions(), stop_confidence=0.9)
    # Per depth: the answers first, then the hard question's queries; the last depth has answers only.
    assert gen.stats.model_calls == 2 + 2 + 1
    assert [len(call) for call in gen.calls] == [2, 3, 3, 9, 9]
    prompts = [[smollm2_tokenizer.decode(r.prompt_ids) for r in call] for call in gen.calls]
    assert ["alpha" in p for p in prompts[0]] == [True, False]  # both answers
    assert not any("alpha" in p for call in prompts[1:] for p in call)  # then the hard question only
    assert decoder.stats.stopped == [1, 0, 0] and decoder.stats.depth_sizes == [2 + 3, 3 + 9, 9]
    assert [t.path_id for t in easy.trajectories] == ["0.3"] and easy.answer == "Kilimanjaro"
    assert hard.stopped_at is None and hard.answer == "Jaguar"
    assert len(hard.trajectories) == 1 + 3 + 9 and max(len(t.trajectory.steps) for t in hard.trajectories) == 3

    # Without stop_confidence the hard question's tree is the same, and the easy one is expanded fully too.
    (full_easy, full_hard), plain, plain_gen = _decode(smollm2_tokenizer, retriever, _questions())
    assert plain_gen.stats.model_calls == 3 and not plain.stats.stopped
    assert sorted(t.path_id for t in full_hard.trajectories) == sorted(t.path_id for t in hard.trajectories)
    assert len(full_easy.trajectories) == 13


def test_a_question_stops_at_the_depth_its_answer_becomes_sure(smollm2_tokenizer, retriever):
    def sure_after_a_search(prompt, action, request):
        if action is Action.ANSWER:  # 0.5 without evidence; 0.95 once the question has read one search
            return "Kilimanjaro", 0.95 if "[R_Evidences]" in prompt else 0.5
        return script(prompt, action, request)

    (result,), decoder, gen = _decode(
        smollm2_tokenizer, retriever, _questions()[:1], sure_after_a_search, stop_confidence=0.9
    )
    assert result.stopped_at == 1 and decoder.stats.stopped == [0, 1]
    assert gen.stats.model_calls == 2 + 1  # depth 0: answer, queries; depth 1: the answers, then stop
    assert max(len(t.trajectory.steps) for t in result.trajectories) == 2  # nothing at depth 2
    assert result.answer == "Kilimanjaro" and len(result.trajectories) == 1 + 3


def test_stop_confidence_needs_answers_at_every_depth_and_a_probability():
    with pytest.raises(ValueError, match="answer_at_every_depth"):
        DecodeConfig(stop_confidence=0.9, answer_at_every_depth=False)
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="stop_confidence"):
            DecodeConfig(stop_confidence=bad)
    assert DecodeConfig(stop_confidence=1.0).stop_confidence == 1.0
