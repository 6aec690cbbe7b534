"""The generation interface the tree decoder talks to, and the counters every backend keeps.

A backend takes a batch of `GenerationRequest`s (token ids in, per-request sampling parameters) and
returns one `Completion` per request with the emitted token ids, their log-probabilities under the model's
*raw* distribution (temperature 1, no top-p: the scores selection compares must not depend on how a branch
was sampled) and why generation stopped. Scores therefore never need a second forward pass.

Backends: `rqrag.inference.backends.hf.HFGenerator` (transformers, the CPU default),
`rqrag.inference.backends.vllm_engine.VLLMGenerator` (vLLM, prefix caching), `rqrag.inference.backends.remote.
RemoteGenerator` (a vLLM completions endpoint, token ids) and `rqrag.inference.backends.chat_endpoint.ChatGenerator` (any
chat-completions endpoint: it reads `GenerationRequest.chat`, returns text, and logprobs only where the endpoint
gives them). Tests use `FakeGenerator`-style scripted backends that implement the same protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class SamplingParams:
    """How to decode one request. temperature 0 means greedy; stop and end-of-sequence tokens cannot be
    chosen before `min_tokens` tokens were emitted (as vLLM's `min_tokens`)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 64
    min_tokens: int = 0

    def __post_init__(self):
        if self.temperature < 0 or not 0 < self.top_p <= 1 or not 0 <= self.min_tokens <= self.max_tokens:
            raise ValueError(f"invalid sampling parameters: {self}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0


@dataclass(frozen=True)
class ChatPrompt:
    """The same prompt as chat messages, for a backend that talks to a chat endpoint (no token ids there):
    `messages` are (role, content) pairs, generation stops at any of `stop` (strings)."""

    messages: tuple[tuple[str, str], ...]
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class GenerationRequest:
    """`prompt_ids` then generate. `shared_prefix_len` tells backends how many leading tokens this request
    shares with its siblings (same tree node), so the prefix can be computed once for all of them. `chat` is
    set by the chat prompter only (`rqrag.inference.backends.chat_endpoint`); token-id backends ignore it."""

    prompt_ids: tuple[int, ...]
    params: SamplingParams = SamplingParams()
    stop_token_ids: tuple[int, ...] = ()
    seed: int | None = None
    shared_prefix_len: int | None = None
    chat: ChatPrompt | None = None

    def __post_init__(self):
        if not self.prompt_ids:
            raise ValueError("a generation request needs at least one prompt token")


# Finish reasons whose completion ends with the token that stopped it (kept in `token_ids` and `logprobs`): the
# decoder drops that token from visible text and from the answer's scores, the backends from their `text`.
TERMINATED = frozenset({"stop", "eos"})


@dataclass(frozen=True)
class Completion:
    """What one request produced. `finish_reason`: "stop" (a stop token, which is kept in `token_ids`),
    "length" (max_tokens reached), "eos" (the model's own end-of-sequence token) or, from a chat endpoint,
    "end" (the reply ended by itself and its terminator is *not* among the tokens). A chat completion has no
    `token_ids`, and no `logprobs` when the endpoint returns none: selection then goes by answer agreement."""

    text: str
    token_ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    finish_reason: str

    @property
    def cumulative_logprob(self) -> float:
        return float(sum(self.logprobs))

    @property
    def terminated(self) -> bool:
        """Whether the last token is the stop/eos token that ended the completion."""
        return self.finish_reason in TERMINATED


@dataclass
class GeneratorStats:
    """Hardware-independent cost counters, summed over the generator's lifetime."""

    model_calls: int = 0  # generate() calls (one per tree depth in the batched schedule)
    requests: int = 0
    prompt_tokens: int = 0  # prompt tokens requested
    prompt_tokens_computed: int = 0  # prompt tokens actually run through the model (after prefix reuse)
    generated_tokens: int = 0
    batch_sizes: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "model_calls": self.model_calls,
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "prompt_tokens_computed": self.prompt_tokens_computed,
            "generated_tokens": self.generated_tokens,
        }


@runtime_checkable
class Generator(Protocol):
    """Anything that turns a batch of requests into completions, in order."""

    stats: GeneratorStats

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]: ...

    @property
    def max_context(self) -> int: ...


class GenerationError(RuntimeError):
    """A backend failed on a batch (out of memory, engine crash); the decoder marks the paths failed."""
