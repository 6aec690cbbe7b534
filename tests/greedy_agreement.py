"""Two backends' greedy completions of the same requests, compared as llama.cpp against hf must be: the same tokens
with logprobs within `tolerance` for as long as they agree, and where they part, only at a near tie (each backend's
pick about as likely as the other's). Shared by the packaged-GGUF and the trained-model tests."""

from __future__ import annotations

import pytest


def identical_up_to_near_ties(expected, got, tolerance: float) -> int:
    """Asserts the property above for every pair; returns how many completions agree to the end (for those, the
    finish reason and text must agree too)."""
    identical = 0
    for want, have in zip(expected, got, strict=True):
        same = 0
        while same < min(len(want.token_ids), len(have.token_ids)) and want.token_ids[same] == have.token_ids[same]:
            assert have.logprobs[same] == pytest.approx(want.logprobs[same], abs=tolerance)
            same += 1
        if want.token_ids == have.token_ids:
            identical += 1
            assert have.finish_reason == want.finish_reason and have.text == want.text
        else:  # they part only at a near tie
            assert same < len(want.token_ids) and same < len(have.token_ids)
            assert have.logprobs[same] == pytest.approx(want.logprobs[same], abs=tolerance)
    return identical
