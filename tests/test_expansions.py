"""Content-addressed expansions: identical (context, action, sampling) expansions are generated once and shared."""

from __future__ import annotations

import pytest
from fakes import FakeGenerator
from test_decoder import DOCS, _questions, script

from rqrag.inference.backends.base import GenerationRequest, SamplingParams
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.expansions import request_key
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.trajectory import Action


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


def _decode(tok, retriever, questions, script_fn=script, **overrides):
    # Guards off: the script's queries repeat themselves, and these tests compare whole trees.
    config = DecodeConfig(prompting="trained", refinement_guards=False, **overrides)
    gen = FakeGenerator(tok, script_fn)
    decoder = TreeDecoder(config, gen, tok, retriever)
    return decoder.decode(questions), decoder, gen


def _without_merged(record: dict) -> dict:
    """A result without what merging changes by design: which paths shared, and what the question cost."""
    return {k: v for k, v in record.items() if k not in ("merged", "cost")}


# Greedy queries, two samples of each of the three actions: siblings 0.0 and 0.1 (both rewrites) are the same
# expansion, and so is everything below them.
GREEDY_WIDTH_2 = {"max_depth": 2, "width": 2, "max_paths": 64, "query_temperature": 0.0}


def test_greedy_siblings_are_generated_once_and_the_tree_is_unchanged(smollm2_tokenizer, retriever):
    merged, m_decoder, m_gen = _decode(smollm2_tokenizer, retriever, _questions(), **GREEDY_WIDTH_2)
    plain, p_decoder, p_gen = _decode(
        smollm2_tokenizer, retriever, _questions(), merge_expansions=False, **GREEDY_WIDTH_2
    )
    for a, b in zip(merged, plain):
        assert a.trajectories == b.trajectories  # texts, evidence, logprobs, token ids, errors
        assert a.selected == b.selected and a.answer == b.answer
        assert _without_merged(a.to_dict()) == _without_merged(b.to_dict())
        # the cost a question is charged is the generations made for it: 25 distinct of its 85 expansions
        assert (a.cost["model_calls"], b.cost["model_calls"]) == (25, 85)
    # Per question the tree asks for 7 + 42 + 36 = 85 expansions (root: 3 actions x 2 + answer; 6 children x 7;
    # 36 grandchildren answering). Distinct are 4 at the root (3 actions + answer), 3 distinct children x 4 and
    # 3 x 3 distinct grandchildren: 4 + 12 + 9 = 25.
    assert p_gen.stats.requests == 2 * 85 and m_gen.stats.requests == 2 * 25
    assert m_gen.stats.model_calls == p_gen.stats.model_calls == 3  # still one call per depth
    assert [len(c) for c in m_gen.calls] == [2 * 4, 2 * 12, 2 * 9]
    assert m_decoder.stats.depth_sizes == p_decoder.stats.depth_sizes == [14, 84, 72]
    assert (m_decoder.stats.expansions, m_decoder.stats.unique_expansions, m_decoder.stats.merged) == (170, 50, 120)
    assert (p_decoder.stats.expansions, p_decoder.stats.unique_expansions, p_decoder.stats.merged) == (170, 170, 0)
    assert m_decoder.stats.as_dict()["merged"] == 120

    qa, qb = merged
    assert len(qa.merged) == len(qb.merged) == 85 - 25
    # The second sample of each action shares the first's completion, and a duplicate subtree shares the first.
    assert qa.merged["0.1"] == "0.0" and qa.merged["0.3"] == "0.2" and qa.merged["0.5"] == "0.4"
    assert qa.merged["0.0.1"] == "0.0.0" and qa.merged["0.1.0"] == "0.0.0" and qa.merged["0.1.6"] == "0.0.6"
    assert qa.merged["0.1.0.0"] == "0.0.0.0"
    # Nothing is shared across the two questions: their prompts differ.
    for result in merged:
        assert all(":" not in shared for shared in result.merged.values())
        assert all(k.startswith("0.") and v.startswith("0.") for k, v in result.merged.items())
    assert qa.to_dict()["merged"] == qa.merged


def test_sampled_queries_with_distinct_seeds_are_never_merged(smollm2_tokenizer, retriever):
    def seeded(prompt, action, request):
        if action is Action.ANSWER:
            return script(prompt, action, request)
        return f"{action.short} volcano Tanzania {request.seed}", 0.5  # a sample depends on its seed

    sampled = {"max_depth": 2, "width": 2, "max_paths": 64, "query_temperature": 1.0}
    results, decoder, gen = _decode(smollm2_tokenizer, retriever, _questions(), seeded, **sampled)
    assert decoder.stats.merged == 0 and all(not r.merged for r in results)
    assert gen.stats.requests == 2 * 85


def test_sampled_queries_stay_apart_but_greedy_answers_after_equal_samples_are_shared(smollm2_tokenizer, retriever):
    """The script ignores the seed, so the two rewrite samples write the same query: the queries (sampled,
    distinct seeds) are still generated apart, the answers (greedy) read the same context and are shared."""
    sampled = {"max_depth": 2, "width": 2, "max_paths": 64, "query_temperature": 1.0}
    (qa,), decoder, gen = _decode(smollm2_tokenizer, retriever, _questions()[:1], **sampled)
    # Root: 6 queries + 1 answer, all distinct. Depth 1: 36 queries distinct, 6 answers over 3 distinct
    # contexts. Depth 2: 36 answers over 3 x 3 distinct contexts. 7 + 39 + 9 = 55 of 85.
    assert gen.stats.requests == 55 and decoder.stats.merged == 30
    assert all(path_id.endswith(".6") or path_id.count(".") == 3 for path_id in qa.merged)  # answers only
    depth1_answers = [p for p in qa.merged if p.count(".") == 2]
    assert sorted(depth1_answers) == ["0.1.6", "0.3.6", "0.5.6"]


def test_the_same_question_twice_in_a_batch_is_decoded_once(smollm2_tokenizer, retriever):
    text = _questions()[0].messages
    questions = [Question("first", text), Question("second", text)]
    (first, second), decoder, gen = _decode(smollm2_tokenizer, retriever, questions, max_depth=2, query_temperature=0)
    assert gen.stats.requests == 4 + 12 + 9  # one question's tree
    assert len(second.merged) == 25 and all(v == f"first:{k}" for k, v in second.merged.items())
    assert not first.merged
    assert first.trajectories == second.trajectories and first.answer == second.answer == "Kilimanjaro"


@pytest.mark.parametrize(("schedule", "calls"), [("per_action", 4 + 4 + 1), ("sequential", 2 * 25)])
def test_every_schedule_merges(smollm2_tokenizer, retriever, schedule, calls):
    merged, _, gen = _decode(smollm2_tokenizer, retriever, _questions(), schedule=schedule, **GREEDY_WIDTH_2)
    batched, _, _ = _decode(smollm2_tokenizer, retriever, _questions(), **GREEDY_WIDTH_2)
    assert [r.trajectories for r in merged] == [r.trajectories for r in batched]
    assert gen.stats.requests == 2 * 25 and gen.stats.model_calls == calls


def test_the_seed_is_part_of_the_address_only_when_sampling():
    def request(temperature, seed):
        return GenerationRequest((1, 2, 3), SamplingParams(temperature=temperature), (9,), seed, shared_prefix_len=2)

    assert request_key(request(0.0, 1)) == request_key(request(0.0, 2))
    assert request_key(request(1.0, 1)) != request_key(request(1.0, 2))
    assert request_key(request(1.0, 1)) == request_key(request(1.0, 1))
