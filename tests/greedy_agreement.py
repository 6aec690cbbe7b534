"""Two backends' greedy completions of the same requests, compared as llama.cpp against hf must be: the same tokens
for as long as they agree, each token's logprob within `token_tolerance`, the mean logprob over the agreeing tokens
(what a trajectory's perplexity ranks) within `mean_tolerance`; where they part, only at a near tie (each backend's
pick about as likely as the other's). Shared by the packaged-GGUF and the trained-model tests."""

from __future__ import annotations

import pytest


def identical_up_to_near_ties(expected, got, token_tolerance: float, mean_tolerance: float) -> int:
    """Asserts the property above for every pair; returns how many completions agree to the end (for those, the
    finish reason and text must agree too)."""
    identical = 0
    for want, have in zip(expected, got, strict=True):
        same = 0
        while same < min(len(want.token_ids), len(have.token_ids)) and want.token_ids[same] == have.token_ids[same]:
            assert have.logprobs[same] == pytest.approx(want.logprobs[same], abs=token_tolerance)
            same += 1
        if same:
            mean_want, mean_have = sum(want.logprobs[:same]) / same, sum(have.logprobs[:same]) / same
            assert mean_have == pytest.approx(mean_want, abs=mean_tolerance)
        if want.token_ids == have.token_ids:
            identical += 1
            assert have.finish_reason == want.finish_reason and have.text == want.text
        else:  # they part only at a near tie
            assert same < len(want.token_ids) and same < len(have.token_ids)
            assert have.logprobs[same] == pytest.approx(want.logprobs[same], abs=token_tolerance)
    return identical
