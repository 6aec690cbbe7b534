"""A scripted generator for unit tests of decoder logic: no model, known tokens and logprobs.

It reads the forced action token at the end of each trained-mode prompt and the question's marker in the
prompt, and answers from a script, so a test knows exactly which text and which logprobs each expansion
gets. It implements the same `Generator` protocol as the real backends, including the call counters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from rqrag.inference.backends.base import Completion, GenerationRequest, GeneratorStats
from rqrag.trajectory import EOS, Action


class FakeGenerator:
    def __init__(
        self, tokenizer, script: Callable[[str, Action, GenerationRequest], tuple[str, float]], max_context=4096
    ):
        """`script(prompt_text, action, request) -> (text, per-token probability)`."""
        self.tokenizer = tokenizer
        self.script = script
        self.stats = GeneratorStats()
        self._max_context = max_context
        self.eos_id = tokenizer.convert_tokens_to_ids(EOS)
        self.action_by_id = {tokenizer.convert_tokens_to_ids(a.value): a for a in Action}
        self.calls: list[list[GenerationRequest]] = []

    @property
    def max_context(self) -> int:
        return self._max_context

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self.stats.model_calls += 1
        self.calls.append(list(requests))
        out = []
        for r in requests:
            action = self.action_by_id[r.prompt_ids[-1]]
            prompt = self.tokenizer.decode(r.prompt_ids, skip_special_tokens=False)
            text, prob = self.script(prompt, action, r)
            ids = self.tokenizer(" " + text, add_special_tokens=False)["input_ids"] if text else []
            ids = [*ids[: r.params.max_tokens - 1], self.eos_id]
            self.stats.requests += 1
            self.stats.prompt_tokens += len(r.prompt_ids)
            self.stats.generated_tokens += len(ids)
            out.append(Completion(text, tuple(ids), tuple([math.log(prob)] * len(ids)), "stop"))
        return out


def sure_of_supported_answers():
    """A verifier sure of an answer its evidence holds (p 0.88 when every new word is in a passage, 0.12 when none
    is) and of nothing else: for tests of the answer pipeline's steps, not of the fitted verifier's weights."""
    from rqrag.answer.candidate_answers import FEATURES
    from rqrag.answer.verifier import Verifier

    n = len(FEATURES)
    coef = tuple(4.0 if f == "support_share" else 0.0 for f in FEATURES)
    return Verifier(tuple(FEATURES), (0.0,) * n, (1.0,) * n, coef, -2.0, 0.5)
