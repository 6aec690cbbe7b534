"""Choosing one trajectory among a question's tree: pure functions over logprobs stored at generation time.

The paper (§2.3) samples many trajectories and compares three ways of picking one, plus an upper bound:

* `ppl` — **perplexity-based**: the trajectory whose generated tokens (every query and the answer, with
  their `[EOS]`; never the prompt or the evidence, which the model did not write) have the lowest
  perplexity, PPL = exp(-(1/T) Σ_t log p(y_t | y_<t, X)).
* `confidence` — **confidence-based**: the trajectory whose *final answer* tokens have the highest mean
  token probability, (1/|A|) Σ_{t∈A} p(y_t | ...). Only the answer counts: the question is how sure the
  model is of what it concludes.
* `ensemble` — **ensemble-based**: answers are grouped by `rqrag.answers.answer_key` — the option they pick on
  a multiple-choice question (as the original code grouped), the normalised text otherwise; each group scores the sum of its members' confidence; the best group wins, represented by
  its most confident member. Agreement of several paths outweighs one overconfident path.
* the **upper bound** of Fig. 3 (correct if *any* trajectory's answer is) is not a strategy a user can run; the
  eval runner scores it with the task's own metric (`best_scores` in `rqrag.eval.runner`).

Each function takes the scored candidates (and, for multiple-choice questions, the options) and returns the index of the chosen one; ties go to the earlier
candidate so results are deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rqrag.answers import answer_key


@dataclass(frozen=True)
class Scored:
    """What selection needs of one finished trajectory."""

    answer: str
    generated_logprobs: tuple[float, ...]  # every token the model emitted along the path
    answer_logprobs: tuple[float, ...]  # the tokens of the final answer step only

    @property
    def perplexity(self) -> float:
        if not self.generated_logprobs:
            return math.inf
        return math.exp(-sum(self.generated_logprobs) / len(self.generated_logprobs))

    @property
    def confidence(self) -> float:
        if not self.answer_logprobs:
            return 0.0
        return sum(math.exp(lp) for lp in self.answer_logprobs) / len(self.answer_logprobs)


Choices = Sequence[tuple[str, str]]


def select_ppl(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the candidate with the lowest perplexity over all generated tokens."""
    _require(candidates)
    return min(range(len(candidates)), key=lambda i: (candidates[i].perplexity, i))


def select_confidence(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the candidate with the highest mean token probability of its final answer."""
    _require(candidates)
    return max(range(len(candidates)), key=lambda i: (candidates[i].confidence, -i))


def ensemble_groups(candidates: Sequence[Scored], choices: Choices = ()) -> dict[str, float]:
    """Answer key (chosen option, else normalised text) -> summed confidence of the candidates giving it."""
    groups: dict[str, float] = {}
    for c in candidates:
        key = answer_key(c.answer, choices)
        groups[key] = groups.get(key, 0.0) + c.confidence
    return groups


def select_ensemble(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the most confident member of the answer group with the highest summed confidence."""
    _require(candidates)
    groups = ensemble_groups(candidates, choices)
    keys = [answer_key(c.answer, choices) for c in candidates]
    order = {key: i for i, key in reversed(list(enumerate(keys)))}
    best = max(groups, key=lambda key: (groups[key], -order[key]))
    members = [i for i, key in enumerate(keys) if key == best]
    return max(members, key=lambda i: (candidates[i].confidence, -i))


STRATEGIES: dict[str, Callable[[Sequence[Scored], Choices], int]] = {
    "ppl": select_ppl,
    "confidence": select_confidence,
    "ensemble": select_ensemble,
}


def select(candidates: Sequence[Scored], strategy: str, choices: Choices = ()) -> int:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown selection strategy {strategy!r}; choose from {sorted(STRATEGIES)}")
    return STRATEGIES[strategy](candidates, choices)


def _require(candidates: Sequence[Scored]) -> None:
    if not candidates:
        raise ValueError("no finished trajectory to select from")
