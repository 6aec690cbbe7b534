"""llama.cpp generation backend (xllamacpp): GGUF models on a CPU, per-token logprobs, slots that keep their prefix.

    from rqrag.inference.backends.llamacpp import LlamaCppEngine, LlamaCppGenerator
    engine = LlamaCppEngine("model.gguf", n_ctx=4096, parallel=2)
    engine.chat([{"role": "user", "content": "..."}], max_tokens=32)        # text + per-token logprobs
    gen = LlamaCppGenerator(engine, tokenizer)                               # the tree decoder's `Generator`
    completions = gen.generate([GenerationRequest(prompt_ids=ids, params=SamplingParams(max_tokens=32))])

llama.cpp is how this field runs models on CPUs: quantised weights stay quantised (transformers' GGUF loading
dequantises them to float32), and its server keeps each slot's KV cache between requests (`cache_prompt`), so a
deeper path's prompt, which starts with its parent's, only computes its new tokens. xllamacpp embeds that server in
the process: no port, no child to manage.

What the tree decoder needs and how it is met here:

* **token ids in, token ids out**: the prompt is sent as ids (`prompt: [..]`), `return_tokens` gives the ids back;
* **logprobs of the raw distribution**: `n_probs: 1` returns each emitted token's logprob before sampling
  (llama.cpp's `post_sampling_probs` stays off), as the hf backend reads them;
* **stop tokens**: llama.cpp stops on strings only (and takes a stop string's tokens out of the reply), so the reply
  is streamed and ended from the stream's callback at the first stop id, which is kept with its logprob;
* **min_tokens**: stop ids and eos get a -inf logit bias for the first `min_tokens` tokens, then generation continues
  from there in a second request (the slot still holds the prefix, so it costs no prefill);
* **batching**: the requests of one call run concurrently in `parallel` slots (continuous batching in the server).

The engine is thread safe (the server's own queue); `LlamaCppGenerator.generate` may be called from several threads.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rqrag.inference.backends.base import Completion, GenerationError, GenerationRequest, GeneratorStats


logger = logging.getLogger(__name__)


class LlamaCppNotInstalled(ImportError):
    """xllamacpp is not installed."""


@dataclass(frozen=True)
class TokenLogprob:
    token_id: int
    text: str
    logprob: float


@dataclass(frozen=True)
class EngineReply:
    """One reply: the text, each generated token with its logprob, why it stopped."""

    text: str
    tokens: tuple[TokenLogprob, ...]
    finish_reason: str  # "stop" (eos or a stop string) | "length"
    prompt_tokens: int
    cached_tokens: int


def _threads() -> int:
    """Every core, or RQRAG_LLAMACPP_THREADS of them when set (never more than there are)."""
    cores = os.cpu_count() or 1
    asked = int(os.environ.get("RQRAG_LLAMACPP_THREADS", "0"))
    return max(1, min(cores, asked)) if asked else cores


class LlamaCppEngine:
    """A GGUF model loaded by llama.cpp's embedded server. `parallel` slots share `n_ctx` tokens of KV cache
    (unified), so one long prompt can use all of it while short ones run side by side."""

    def __init__(self, path: str | os.PathLike, *, n_ctx: int = 4096, parallel: int = 2, threads: int | None = None):
        try:
            import xllamacpp
        except ImportError as missing:  # pragma: no cover - the install line is the message
            raise LlamaCppNotInstalled("the llama.cpp backend needs xllamacpp: pip install xllamacpp") from missing
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = parallel
        params.kv_unified = True
        params.cache_prompt = True
        params.warmup = False
        params.verbosity = -1  # llama.cpp's own log off: our logger says what matters
        threads = threads or _threads()
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        self.path, self.n_ctx, self.parallel = str(path), n_ctx, parallel
        self._server = xllamacpp.Server(params)

    def complete(
        self,
        prompt: Sequence[int] | str,
        *,
        max_tokens: int,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        stop_ids: Sequence[int] = (),
        logit_bias: dict[int, float] | None = None,
    ) -> EngineReply:
        """A raw completion of `prompt` (token ids, or text tokenised by the model), streamed token by token and
        ended at the first of `stop_ids` (kept, with its logprob): llama.cpp stops only on strings, and a stop
        string takes its tokens out of the reply."""
        request = {
            "prompt": list(prompt) if not isinstance(prompt, str) else prompt,
            "max_tokens": max_tokens,
            "n_predict": max_tokens,  # a streamed completion reads only this one: without it, it runs to the context
            "temperature": temperature,
            "top_p": top_p,
            "top_k": 0,
            "min_p": 0.0,
            "repeat_penalty": 1.0,
            "n_probs": 1,
            "return_tokens": True,
            "cache_prompt": True,
            "stream": True,
        }
        if seed is not None:
            request["seed"] = seed
        if logit_bias:
            request["logit_bias"] = [
                [int(t), False if b == float("-inf") else float(b)] for t, b in logit_bias.items()
            ]
        stops = set(stop_ids)
        tokens: list[TokenLogprob] = []
        state = {"reason": "length", "usage": {}, "error": None}

        def on_chunk(chunk) -> bool:
            if isinstance(chunk, dict) and "error" in chunk:
                state["error"] = chunk["error"]
                return True
            choice = (chunk.get("choices") or [{}])[0]
            for t in (choice.get("logprobs") or {}).get("content") or []:
                tokens.append(_token(t))
            state["usage"] = chunk.get("usage") or state["usage"]
            state["timings"] = chunk.get("timings") or state.get("timings") or {}
            if choice.get("finish_reason"):
                state["reason"] = "length" if choice["finish_reason"] == "length" else "stop"
            if tokens and tokens[-1].token_id in stops:
                state["reason"] = "stop"
                return True  # stop generating: the stop token is here, with its logprob
            return False

        result = self._server.handle_completions(request, on_chunk)
        if isinstance(result, dict) and "error" in result:
            state["error"] = result["error"]
        if state["error"] is not None:
            error = state["error"]
            raise GenerationError(f"llama.cpp: {error.get('message', error) if isinstance(error, dict) else error}")
        timings = state.get("timings") or {}
        computed, cached = int(timings.get("prompt_n", 0)), int(timings.get("cache_n", 0))
        text = "".join(t.text for t in tokens)
        return EngineReply(text, tuple(tokens), state["reason"], computed + cached, cached)

    def chat(
        self, messages: Sequence[dict], *, max_tokens: int, temperature: float = 0.0, stop: Sequence[str] = ()
    ) -> EngineReply:
        """A chat completion under the model's own chat template, greedy by default, with logprobs."""
        request = {
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_k": 0,
            "repeat_penalty": 1.0,
            "logprobs": True,
            "top_logprobs": 1,
            "cache_prompt": True,
            "stop": list(stop),
        }
        return self._chat_reply(self._server.handle_chat_completions(request))

    @staticmethod
    def _chat_reply(result: dict) -> EngineReply:
        if "error" in result:
            raise GenerationError(f"llama.cpp: {result['error'].get('message', result['error'])}")
        choice = result["choices"][0]
        content = (choice.get("logprobs") or {}).get("content") or []
        tokens = tuple(_token(t) for t in content)
        text = choice["message"]["content"]
        usage = result.get("usage", {})
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
        reason = "length" if choice.get("finish_reason") == "length" else "stop"
        return EngineReply(text or "", tokens, reason, int(usage.get("prompt_tokens", 0)), int(cached or 0))


def _token(entry: dict) -> TokenLogprob:
    return TokenLogprob(
        int(entry["id"]), bytes(entry.get("bytes", [])).decode("utf-8", "replace"), float(entry["logprob"])
    )


class LlamaCppGenerator:
    """The `Generator` protocol over a `LlamaCppEngine` and the model's tokenizer (same vocabulary as the GGUF)."""

    def __init__(self, engine: LlamaCppEngine, tokenizer, *, seed: int = 0, eos_token_ids: Sequence[int] = ()):
        self.engine = engine
        self.tokenizer = tokenizer
        self.seed = seed
        self.stats = GeneratorStats()
        eos = tuple(eos_token_ids) or ((tokenizer.eos_token_id,) if tokenizer.eos_token_id is not None else ())
        self.eos_token_ids = tuple(dict.fromkeys(eos))
        self._pool = ThreadPoolExecutor(max_workers=max(1, engine.parallel), thread_name_prefix="llamacpp")

    @property
    def max_context(self) -> int:
        return self.engine.n_ctx

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self.stats.model_calls += 1
        self.stats.requests += len(requests)
        self.stats.batch_sizes.append(len(requests))
        out = list(self._pool.map(self._one, requests))
        for request, (completion, computed) in zip(requests, out):
            self.stats.prompt_tokens += len(request.prompt_ids)
            self.stats.prompt_tokens_computed += computed
            self.stats.generated_tokens += len(completion.token_ids)
        return [completion for completion, _ in out]

    def _one(self, request: GenerationRequest) -> tuple[Completion, int]:
        params = request.params
        stop_ids = tuple(request.stop_token_ids)
        ends = set(stop_ids) | set(self.eos_token_ids)
        seed = None if params.greedy else (request.seed if request.seed is not None else self.seed)
        temperature = params.temperature
        ids: list[int] = []
        logprobs: list[float] = []
        computed = 0
        if params.min_tokens:
            # the first min_tokens tokens may not end the completion
            banned = {t: float("-inf") for t in ends}
            first = self.engine.complete(
                request.prompt_ids, max_tokens=params.min_tokens, temperature=temperature, top_p=params.top_p,
                seed=seed, logit_bias=banned,
            )  # fmt: skip
            computed += first.prompt_tokens - first.cached_tokens
            ids += [t.token_id for t in first.tokens]
            logprobs += [t.logprob for t in first.tokens]
        remaining = params.max_tokens - len(ids)
        reason = "length"
        if remaining > 0:
            reply = self.engine.complete(
                list(request.prompt_ids) + ids, max_tokens=remaining, temperature=temperature, top_p=params.top_p,
                seed=seed, stop_ids=tuple(ends),
            )  # fmt: skip
            computed += reply.prompt_tokens - reply.cached_tokens
            ids += [t.token_id for t in reply.tokens]
            logprobs += [t.logprob for t in reply.tokens]
        # cut at the first stop or end token (kept), wherever the server's string matching stopped
        for k, token in enumerate(ids):
            if token in ends and k >= params.min_tokens:
                reason = "eos" if token in self.eos_token_ids and token not in stop_ids else "stop"
                ids, logprobs = ids[: k + 1], logprobs[: k + 1]
                break
        visible = ids[:-1] if reason in ("stop", "eos") else ids
        text = self.tokenizer.decode(visible, skip_special_tokens=False)
        return Completion(text, tuple(ids), tuple(logprobs), reason), computed
