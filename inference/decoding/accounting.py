"""What one completion counts for: the answer's own logprobs (without its terminator) and the question's cost.

Shared by the tree decoder (`decoder.py`) and the iterative baselines (`iterative.py`), so that both score answers
and count model calls and tokens the same way.
"""

from __future__ import annotations

from rqrag.inference.backends.base import Completion
from rqrag.inference.decoding.tree import QuestionResult


def answer_span_logprobs(completion: Completion) -> tuple[float, ...]:
    """The logprobs of the answer's own tokens: every backend keeps the terminating stop/eos token (our
    `[EOS]`, a newline, or the model's end of turn) as the last token, and its probability says how sure the
    model is that the answer is *over*, not what it is; a one-token answer would be half terminator. A
    completion cut at max_tokens has no terminator to drop."""
    if completion.terminated and completion.logprobs:
        return tuple(completion.logprobs[:-1])
    return tuple(completion.logprobs)


def charge(result: QuestionResult, request, completion: Completion, tokenizer) -> None:
    """Add one generation to the question's cost. A chat endpoint returns text, not ids: its reply is counted
    with the local tokenizer, as its prompt is (`ChatPrompter.encode`)."""
    result.cost["model_calls"] += 1
    result.cost["prompt_tokens"] += len(request.prompt_ids)
    generated = len(completion.token_ids) or len(tokenizer(completion.text, add_special_tokens=False)["input_ids"])
    result.cost["generated_tokens"] += generated
