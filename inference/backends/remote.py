"""Remote generation backend: any OpenAI-compatible *completions* endpoint that takes token-id prompts and
returns per-token logprobs — in practice a vLLM server on other machines, the path beyond one box.

    vllm serve MODEL_DIR --served-model-name rqrag --logprobs-mode raw_logprobs --enable-prefix-caching
    rqrag serve --backend remote --remote_base_url http://gpu-box:8000/v1 --model MODEL_DIR

The tokenizer stays local (`--model` names the same folder or hub id as the server's), so prompts go out as
token ids and the decoder's prefix bookkeeping is unchanged. One `generate` call sends one HTTP request per
group of requests with equal sampling parameters (the completions API takes a list of prompts) and runs the
groups concurrently; the server batches and prefix-caches them. vLLM extensions used: `stop_token_ids`,
`min_tokens`, `skip_special_tokens`, `return_tokens_as_token_ids`. The server should run with
`--logprobs-mode raw_logprobs` so scores are the model's raw distribution, as with the other backends.

Transport: `rqrag.llm.openai_endpoint.OpenAIEndpoint` (shared with the chat backend and the JSON chat client): at most
`concurrency` groups in flight, the SDK's retries on timeouts, 429 and 5xx, 401/403/404 not retried; whatever still
fails is a `RemoteGenerationError` with the endpoint's message.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence

from rqrag.inference.backends.base import Completion, GenerationRequest, GeneratorStats
from rqrag.llm.openai_endpoint import EndpointError, OpenAIEndpoint


logger = logging.getLogger(__name__)


class RemoteGenerationError(RuntimeError):
    """The endpoint failed or answered without the token ids and logprobs the decoder needs."""


class RemoteGenerator:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "not-needed",
        max_context: int = 8192,
        timeout: float = 300.0,
        max_retries: int = 2,
        concurrency: int = 8,
    ):
        self.model = model
        self._max_context = max_context
        self.endpoint = OpenAIEndpoint(
            base_url,
            model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            concurrency=concurrency,
            label="completions endpoint",
            check="remote_base_url, the served model name and the API key",
        )
        self.stats = GeneratorStats()

    @property
    def max_context(self) -> int:
        return self._max_context

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        if not requests:
            return []
        # A fresh event loop per call: the decoder calls from a plain (or the server's model) thread.
        completions = asyncio.run(self._generate(requests))
        self.stats.model_calls += 1
        self.stats.requests += len(requests)
        self.stats.prompt_tokens += sum(len(r.prompt_ids) for r in requests)
        self.stats.prompt_tokens_computed += sum(len(r.prompt_ids) for r in requests)  # the server's cache is opaque
        self.stats.generated_tokens += sum(len(c.token_ids) for c in completions)
        self.stats.batch_sizes.append(len(requests))
        return completions

    async def _generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        groups: dict[tuple, list[int]] = defaultdict(list)
        for i, r in enumerate(requests):
            groups[(r.params, r.stop_token_ids)].append(i)
        results: list[Completion | None] = [None] * len(requests)
        try:
            replies = await asyncio.gather(
                *(self._call([requests[i] for i in indices]) for indices in groups.values())
            )
        finally:
            await self.endpoint.aclose()
        for indices, completions in zip(groups.values(), replies):
            for i, completion in zip(indices, completions):
                results[i] = completion
        return results  # type: ignore[return-value]

    async def _call(self, group: list[GenerationRequest]) -> list[Completion]:
        params, stop_ids = group[0].params, group[0].stop_token_ids
        arguments = {
            "model": self.model,
            "prompt": [list(r.prompt_ids) for r in group],
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "logprobs": 0,
            "extra_body": {
                "stop_token_ids": list(stop_ids),
                "min_tokens": params.min_tokens,
                "skip_special_tokens": False,
                "return_tokens_as_token_ids": True,
                "include_stop_str_in_output": True,
            },
        }
        try:
            reply = await self.endpoint.request(lambda client: client.completions.create(**arguments))
        except EndpointError as error:
            raise RemoteGenerationError(str(error)) from error
        choices = sorted(reply.choices, key=lambda c: c.index)
        if len(choices) != len(group):
            raise RemoteGenerationError(f"asked for {len(group)} completions, got {len(choices)}")
        return [self._completion(request, choice) for request, choice in zip(group, choices)]

    @staticmethod
    def _completion(request: GenerationRequest, choice) -> Completion:
        logprobs = choice.logprobs
        if logprobs is None or logprobs.tokens is None or logprobs.token_logprobs is None:
            raise RemoteGenerationError("the endpoint returned no logprobs (is it a vLLM completions endpoint?)")
        try:
            token_ids = tuple(int(t.removeprefix("token_id:")) for t in logprobs.tokens)
        except ValueError as error:
            raise RemoteGenerationError(
                "tokens did not come back as ids (the endpoint ignores return_tokens_as_token_ids)"
            ) from error
        values = tuple(float(v) for v in logprobs.token_logprobs)
        if choice.finish_reason == "length":
            reason = "length"
        elif token_ids and token_ids[-1] in request.stop_token_ids:
            reason = "stop"
        else:
            reason = "eos"
        return Completion(text=choice.text, token_ids=token_ids, logprobs=values, finish_reason=reason)
