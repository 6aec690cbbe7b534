"""Any chat LLM as the tree's generator: an OpenAI-compatible *chat-completions* endpoint, prompted mode.

    rqrag ask "Who wrote Hamlet?" --backend chat --remote_base_url https://api.openai.com/v1 --remote_model gpt-4o-mini
    rqrag ask "Who wrote Hamlet?" --backend chat --remote_base_url http://localhost:11434/v1 \\
        --remote_model llama3.2 --chat_logprobs false          # Ollama: no logprobs, selection by agreement

Hosted APIs, Ollama, a llama.cpp server and vLLM all speak this API; none of them takes our token ids or knows
the RQ-RAG special tokens, so the tree runs in prompted mode: `decoding/prompting.py` (ChatPrompter) asks for each refinement with the
prompted-mode instruction and sends the conversation as messages (`GenerationRequest.chat`). The local
tokenizer (`--model`, the embedded SmolLM2 by default) only measures prompts against `remote_max_context` and
gives identical requests the same content address, so identical expansions are still sent once.

Scores. With `chat_logprobs` (default) the request asks for `logprobs=True` and the completion keeps the
logprob of every token of the reply; a terminator the endpoint reports (vLLM lists the end-of-turn or the
newline that stopped it) is dropped, so every chat completion is the reply's own tokens and ends with
`finish_reason` "end" (or "length"). ppl/confidence selection then works as with the other backends. When the
endpoint returns no logprobs (many hosted APIs, Ollama) or `chat_logprobs: false`, completions carry none and
`rqrag.inference.decoding.select.select_all` chooses by answer agreement (its module docstring says what each strategy
then means); `stop_confidence` needs logprobs and is refused without them.

Transport: `rqrag.llm.openai_endpoint.OpenAIEndpoint` (shared with the JSON chat client and the completions backend),
one request per expansion, at most `concurrency` in flight, a per-request timeout, the SDK's own retries on
timeouts, connection errors, 429 and 5xx. What still fails is a `ChatGenerationError` (a `GenerationError`: the
decoder marks the batch's paths failed) with the endpoint's message; 401, 403 and 404 (wrong key, URL or model
name) are not retried and say which setting to check. An endpoint that rejects the `logprobs` parameter (HTTP 400
naming it) is asked again without it, once, with a warning.
Not supported: reasoning models that refuse `stop`/`temperature`, and `min_tokens` (a vLLM extension).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence

from rqrag.inference.backends.base import (
    Completion,
    GenerationError,
    GenerationRequest,
    GeneratorStats,
)
from rqrag.llm.openai_endpoint import EndpointError, EndpointRejected, OpenAIEndpoint


logger = logging.getLogger(__name__)

DEFAULT_MAX_CONTEXT = 8192


class ChatGenerationError(GenerationError):
    """The chat endpoint failed: refused the request (wrong key, URL, model) or kept failing after its retries."""


class ChatGenerator:
    """The `Generator` protocol over a chat-completions endpoint (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        max_context: int = DEFAULT_MAX_CONTEXT,
        logprobs: bool = True,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 2,
    ):
        self.base_url = base_url
        self.model = model
        self.logprobs = logprobs
        self.concurrency = concurrency
        self.max_retries = max_retries
        self._max_context = max_context
        self.endpoint = OpenAIEndpoint(
            base_url,
            model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            concurrency=concurrency,
            label="chat endpoint",
            check="remote_base_url, remote_model and the API key",
        )
        self._warned_no_logprobs = False
        self.stats = GeneratorStats()

    @property
    def max_context(self) -> int:
        return self._max_context

    # The decoder prompts this backend with chat messages, not token ids (`decoding.prompting.make_prompter`).
    takes_messages = True

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        if not requests:
            return []
        missing = [i for i, r in enumerate(requests) if r.chat is None]
        if missing:
            raise ValueError(
                f"requests {missing} carry no chat messages: build them with rqrag.inference.decoding.prompting.ChatPrompter"
            )
        # A fresh event loop per call: the decoder calls from a plain (or the server's model) thread.
        replies = asyncio.run(self._generate(requests))
        self.stats.model_calls += 1
        self.stats.requests += len(requests)
        for request, (completion, usage) in zip(requests, replies):
            prompt_tokens = getattr(usage, "prompt_tokens", None) or len(request.prompt_ids)
            self.stats.prompt_tokens += prompt_tokens
            self.stats.prompt_tokens_computed += prompt_tokens  # the endpoint's cache is opaque
            self.stats.generated_tokens += getattr(usage, "completion_tokens", None) or len(completion.logprobs)
        self.stats.batch_sizes.append(len(requests))
        return [completion for completion, _ in replies]

    async def _generate(self, requests: Sequence[GenerationRequest]) -> list[tuple[Completion, object]]:
        try:
            # Every call finishes (or fails) before the connection closes; the first failure fails the batch.
            replies = await asyncio.gather(*(self._call(r) for r in requests), return_exceptions=True)
        finally:
            await self.endpoint.aclose()
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return list(replies)

    async def _call(self, request: GenerationRequest) -> tuple[Completion, object]:
        params = request.params
        kwargs = {
            "model": self.model,
            "messages": [{"role": role, "content": content} for role, content in request.chat.messages],
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
        }
        if request.chat.stop:
            kwargs["stop"] = list(request.chat.stop)
        if not params.greedy and request.seed is not None:
            kwargs["seed"] = request.seed  # endpoints that honour it reproduce sampled siblings
        try:
            reply = await self._reply(kwargs)
        except EndpointError as error:
            raise ChatGenerationError(str(error)) from error
        if not reply.choices:
            raise ChatGenerationError(f"{self.base_url}: the endpoint returned no choices")
        return self._completion(reply.choices[0]), reply.usage

    async def _reply(self, kwargs: dict):
        """The endpoint's reply, with logprobs where asked; an endpoint that rejects them is asked again without."""

        def send(logprob_args: dict):
            return self.endpoint.request(lambda client: client.chat.completions.create(**kwargs, **logprob_args))

        try:
            return await send(self._logprob_args())
        except EndpointRejected as error:
            if not (self.logprobs and error.status == 400 and "logprob" in str(error.__cause__).lower()):
                raise
            logger.warning("%s refuses logprobs (%s): selecting by answer agreement from now on", self.base_url, error)
            self.logprobs = False
        return await send({})

    def _logprob_args(self) -> dict:
        return {"logprobs": True} if self.logprobs else {}

    def _completion(self, choice) -> Completion:
        text = choice.message.content or ""
        reason = "length" if choice.finish_reason in ("length", "content_filter") else "end"
        content = getattr(choice.logprobs, "content", None) if self.logprobs else None
        if self.logprobs and content is None and not self._warned_no_logprobs:
            self._warned_no_logprobs = True
            logger.warning("%s returned no logprobs: selecting by answer agreement", self.base_url)
        tokens = [item.token or "" for item in content or ()]
        logprobs = [float(item.logprob) for item in content or ()]
        if reason == "end" and tokens and "".join(tokens[:-1]).strip() == text.strip():
            # The last token added nothing to the reply: the end of turn or stop string that ended it. Other
            # endpoints leave it out; dropping it makes every chat completion the reply's own tokens.
            logprobs = logprobs[:-1]
        return Completion(text=text, token_ids=(), logprobs=tuple(logprobs), finish_reason=reason)


def chat_generator(config) -> ChatGenerator:
    """The chat backend a `DecodeConfig` describes (`backend: chat`)."""
    return ChatGenerator(
        config.remote_base_url,
        config.remote_model,
        api_key=os.environ.get(config.remote_api_key_env),
        max_context=config.remote_max_context or DEFAULT_MAX_CONTEXT,
        logprobs=config.chat_logprobs,
        concurrency=config.chat_concurrency,
        timeout=config.chat_timeout,
        max_retries=config.chat_max_retries,
    )
