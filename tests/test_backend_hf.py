"""The transformers backend on the real SmolLM2-135M: same tokens as `generate`, logprobs from the same pass."""

from __future__ import annotations

import pytest
import torch

from rqrag.inference.backends.base import GenerationRequest, SamplingParams
from rqrag.inference.backends.hf import HFGenerator


# every test here runs the real SmolLM2 (its load alone is ~10 s): outside `make test-fast`
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_and_tokenizer(smollm2_dir):
    from rqrag.models import load_model_and_tokenizer

    return load_model_and_tokenizer(smollm2_dir, add_rqrag_tokens=True)


def _ids(tok, question: str, suffix: str = "") -> tuple[int, ...]:
    text = tok.apply_chat_template([{"role": "user", "content": question}], tokenize=False, add_generation_prompt=True)
    return tuple(tok(text + suffix, add_special_tokens=False)["input_ids"])


QUESTIONS = ["What is the capital of France?", "Who wrote Hamlet?", "Name a large cat of South America."]


def test_greedy_batch_equals_transformers_generate_and_teacher_forcing(model_and_tokenizer):
    model, tok = model_and_tokenizer
    gen = HFGenerator(model, tok)
    prompts = [_ids(tok, q) for q in QUESTIONS]
    completions = gen.generate([GenerationRequest(p, SamplingParams(max_tokens=12)) for p in prompts])
    assert "Paris" in completions[0].text
    for prompt, c in zip(prompts, completions):
        with torch.no_grad():
            reference = model.generate(torch.tensor([prompt]), max_new_tokens=12, do_sample=False)[0, len(prompt) :]
            full = torch.tensor([[*prompt, *c.token_ids]])
            logprobs = torch.log_softmax(model(full).logits[0, len(prompt) - 1 : -1].float(), -1)
        assert list(c.token_ids) == reference.tolist()[: len(c.token_ids)]
        forced = logprobs.gather(-1, torch.tensor(c.token_ids)[:, None]).squeeze(-1)
        # Same tokens exactly; logprobs to float32 accuracy: a cached step reduces in another order than one
        # full forward, which on some CPUs (CI's) moves the fourth decimal.
        assert torch.allclose(forced, torch.tensor(c.logprobs), atol=1e-3)
        assert c.finish_reason in ("eos", "length") and len(c.logprobs) == len(c.token_ids)
    assert gen.stats.model_calls == 1 and gen.stats.requests == 3


def test_prefix_sharing_changes_cost_not_results(model_and_tokenizer):
    model, tok = model_and_tokenizer
    base = _ids(tok, "Here is a long passage. " * 40 + "Summarise it.")
    actions = [tok.convert_tokens_to_ids(t) for t in ("[S_Rewritten_Query]", "[S_Decomposed_Query]", "[A_Response]")]
    requests = [
        GenerationRequest((*base, a), SamplingParams(max_tokens=6), shared_prefix_len=len(base)) for a in actions
    ]
    shared, plain = HFGenerator(model, tok), HFGenerator(model, tok, prefix_sharing=False)
    a, b = shared.generate(requests), plain.generate(requests)
    assert [c.token_ids for c in a] == [c.token_ids for c in b]
    for x, y in zip(a, b):
        assert torch.allclose(torch.tensor(x.logprobs), torch.tensor(y.logprobs), atol=1e-3)
    assert plain.stats.prompt_tokens_computed == 3 * (len(base) + 1)
    assert shared.stats.prompt_tokens_computed == len(base) + 3  # the prefix once, each action token once


def test_per_request_parameters_in_one_call(model_and_tokenizer):
    model, tok = model_and_tokenizer
    gen = HFGenerator(model, tok)
    newline = tok("\n", add_special_tokens=False)["input_ids"][0]
    p = _ids(tok, "Write a short poem about the sea.")
    requests = [
        GenerationRequest(p, SamplingParams(max_tokens=3)),
        GenerationRequest(p, SamplingParams(max_tokens=40), stop_token_ids=(newline,)),
        GenerationRequest(p, SamplingParams(temperature=1.0, max_tokens=8), seed=7),
        GenerationRequest(p, SamplingParams(temperature=1.0, max_tokens=8), seed=8),
    ]
    short, stopped, s7, s8 = gen.generate(requests)
    assert gen.stats.model_calls == 1
    assert short.finish_reason == "length" and len(short.token_ids) == 3
    assert stopped.finish_reason == "stop" and stopped.token_ids[-1] == newline and "\n" not in stopped.text
    assert s7.token_ids != s8.token_ids  # different seeds, different samples
    # A seeded sample does not depend on what else is in the batch.
    (alone,) = HFGenerator(model, tok).generate([requests[2]])
    assert alone.token_ids == s7.token_ids
    # A nucleus so small it holds one token is greedy.
    (nucleus,) = gen.generate(
        [GenerationRequest(p, SamplingParams(temperature=1.0, top_p=1e-6, max_tokens=3), seed=1)]
    )
    assert nucleus.token_ids == short.token_ids


def test_logprobs_are_raw_whatever_the_temperature(model_and_tokenizer):
    model, tok = model_and_tokenizer
    p = _ids(tok, "What is the capital of France?")
    (greedy,) = HFGenerator(model, tok).generate([GenerationRequest(p, SamplingParams(max_tokens=1))])
    hot = HFGenerator(model, tok).generate(
        [GenerationRequest(p, SamplingParams(temperature=2.0, top_p=1e-6, max_tokens=1), seed=3)]
    )[0]
    assert hot.token_ids == greedy.token_ids and hot.logprobs == pytest.approx(greedy.logprobs, abs=1e-6)


def test_context_overflow_is_refused(model_and_tokenizer):
    model, tok = model_and_tokenizer
    gen = HFGenerator(model, tok)
    with pytest.raises(ValueError, match="context window"):
        gen.generate([GenerationRequest((1,) * gen.max_context, SamplingParams(max_tokens=4))])


def test_a_prefix_cache_reuses_earlier_prompts_blocks_and_changes_nothing(model_and_tokenizer):
    # A deeper path's prompt starts with its parent's: the second call reads the parent's full blocks from the cache
    # and computes only the rest, and its completions are those of a generator whose cache is cold, token for token.
    from rqrag.inference.backends.prefix_cache import PrefixCache

    model, tok = model_and_tokenizer
    parent = _ids(tok, "Here is a long passage about rivers and mills. " * 12 + "Summarise it.")
    child = (*parent, *_ids(tok, "Now say which mill is the oldest."))
    params = SamplingParams(max_tokens=8)
    warm = HFGenerator(model, tok, prefix_cache=PrefixCache(block_tokens=32))
    warm.generate([GenerationRequest(parent, params)])
    before = warm.stats.prompt_tokens_computed
    (reused,) = warm.generate([GenerationRequest(child, params)])
    computed = warm.stats.prompt_tokens_computed - before
    (cold,) = HFGenerator(model, tok, prefix_cache=PrefixCache(block_tokens=32)).generate(
        [GenerationRequest(child, params)]
    )
    assert reused.token_ids == cold.token_ids and reused.logprobs == cold.logprobs  # exact: the same blocks
    blocks_of_parent = (len(parent) - 1) // 32 * 32  # the prefix phase leaves the last token to the suffix
    assert warm.prefix_cache.stats.tokens_reused == blocks_of_parent
    assert computed == len(child) - blocks_of_parent
    (plain,) = HFGenerator(model, tok).generate([GenerationRequest(child, params)])
    assert plain.token_ids == cold.token_ids  # block by block or in one forward: the same tokens
    assert torch.allclose(torch.tensor(plain.logprobs), torch.tensor(cold.logprobs), atol=1e-3)


def test_the_prefix_cache_keeps_at_most_its_budget():
    from rqrag.inference.backends.prefix_cache import PrefixCache

    cache = PrefixCache(max_tokens=4, block_tokens=2)
    block = [(torch.zeros(1, 1, 2, 4), torch.zeros(1, 1, 2, 4))]
    for start in range(0, 8, 2):
        cache.store(tuple(range(start + 2)), block)
    assert cache.tokens_held == 4 and cache.stats.blocks_evicted == 2
    assert cache.lookup((0, 1, 2, 3))[1] == 0  # the oldest blocks went first: (0, 1) is gone, so nothing matches
    assert cache.lookup((0, 1, 2, 3, 4, 5, 6, 7))[1] == 0
    with pytest.raises(ValueError, match="multiple of 2"):
        cache.store((1, 2, 3), block)
