"""Choosing one trajectory among a question's tree: pure functions over what the tree already holds.

Every strategy reads only what was stored at generation time — the logprobs of the tokens the model wrote and
the evidence each trajectory retrieved — so selection needs no further model call. The paper (§2.3) compares
perplexity-, confidence- and ensemble-based selection; the definitions here fix two ways in which the plain
versions favour paths that never searched, and add two evidence-aware selectors.

Notation: for one trajectory, G are the logprobs of every token the model generated along the path (each
query and the answer, each with its terminating `[EOS]`; never the prompt or the evidence, which the model
did not write); A are the logprobs of the final answer's tokens *without* the terminating `[EOS]` / end-of-turn
token (the decoder strips it when the completion finished on a stop or eos token); E is the text of every
passage the trajectory retrieved (titles included, as the model read them).

* `ppl` — **answer perplexity**: the lowest PPL_A = exp(-(1/|A|) Σ_{t∈A} log p_t). Every candidate is scored
  on the same kind of span (its answer), so a path is not penalised for the sampled queries a direct answer
  never wrote.
* `ppl_path` — **the paper's whole-path perplexity**: the lowest PPL_G = exp(-(1/|G|) Σ_{t∈G} log p_t). Kept
  so the two can be compared; sampled queries make it favour the paths that searched least.
* `confidence` — **answer confidence**: the highest conf = (1/|A|) Σ_{t∈A} p_t, the mean token *probability*
  of the answer. Without the terminator a one-token answer is no longer half `[EOS]`.
* `ensemble` — answers are grouped by `rqrag.text.answer_text.answer_key` (the option picked on a multiple-choice
  question, the normalised text otherwise); a group scores Σ conf of its members; the best group wins,
  represented by its most confident member.
* `support` — **evidence support**: prefer answers found in the trajectory's own evidence, then the higher
  confidence, i.e. the highest (supported, conf). `supported` means the normalised answer (on a
  multiple-choice question, the normalised text of the option it picks) occurs as whole words in the
  normalised E (`rqrag.text.answer_text.normalize_answer`), and — on an open question — not inside the question or one
  of the trajectory's own queries: an echo of what was asked is found in any evidence retrieved for it, so it
  is no support. A path without evidence is never supported; when no candidate is, this is `confidence`.
* `vote` — **supported agreement**: answers grouped as in `ensemble`, each member weighing
  conf × (1 + supported), so a vote backed by its own evidence counts twice; the heaviest group wins,
  represented by its best member under `support`.
* the **upper bound** of Fig. 3 (correct if *any* trajectory's answer is) is not a strategy a user can run; the
  eval runner scores it with the task's own metric (`oracle` in `rqrag.eval.runner.question_record`).

Each function takes the scored candidates (and, for multiple-choice questions, the options) and returns the
index of the chosen one; ties go to the earlier candidate so results are deterministic. `DEFINITIONS` holds
the one-line definitions the eval summary prints beside the scores.

**Without logprobs** (a chat endpoint that returns none, `rqrag.inference.backends.chat_endpoint`), no candidate has token
scores; `select_all` then gives every candidate its **agreement share** — the fraction of the question's
finished trajectories whose answer has the same `answer_key` — as its confidence, and the strategies become:
`confidence` the most common answer; `ppl` and `ppl_path`, which have nothing to measure, the same;
`ensemble` the majority answer group (Σ share grows with the group); `support` the answers their own evidence
supports first, then the most common; `vote` the majority with evidence-backed votes counted twice. Ties still
go to the earlier trajectory.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from rqrag.text.answer_text import answer_key, choice_label, normalize_answer


@dataclass(frozen=True)
class Scored:
    """What selection needs of one finished trajectory."""

    answer: str
    generated_logprobs: tuple[float, ...]  # every token the model emitted along the path, terminators included
    answer_logprobs: tuple[float, ...]  # the final answer's tokens, without its terminating token
    evidence: tuple[str, ...] = ()  # "title text" of every passage the trajectory retrieved
    asked: tuple[str, ...] = ()  # the question and the trajectory's queries: an answer inside them is an echo
    agreement: float | None = None  # without logprobs: the share of candidates giving this answer (`select_all`)

    @property
    def answer_perplexity(self) -> float:
        """Perplexity of the answer span (strategy `ppl`)."""
        return perplexity(self.answer_logprobs)

    @property
    def perplexity(self) -> float:
        """Perplexity of everything the model generated along the path (strategy `ppl_path`)."""
        return perplexity(self.generated_logprobs)

    @property
    def confidence(self) -> float:
        if not self.answer_logprobs:
            return self.agreement or 0.0
        return sum(math.exp(lp) for lp in self.answer_logprobs) / len(self.answer_logprobs)


Choices = Sequence[tuple[str, str]]


def perplexity(logprobs: Sequence[float]) -> float:
    """exp of the mean negative log-probability; infinite for no tokens (nothing to be sure of)."""
    if not logprobs:
        return math.inf
    return math.exp(-sum(logprobs) / len(logprobs))


def supported(candidate: Scored, choices: Choices = ()) -> bool:
    """Whether the candidate's answer occurs, as whole normalised words, in its own trajectory's evidence
    (and, unless it picks an option, not in what was asked)."""
    phrase = normalize_answer(candidate.answer)
    label = choice_label(candidate.answer, choices) if choices else None
    if label is not None:
        # "B" never occurs in a passage; the option's words can.
        phrase = normalize_answer(dict(choices)[label])
    if not phrase:
        return False
    if label is None and any(f" {phrase} " in f" {normalize_answer(text)} " for text in candidate.asked):
        return False
    return any(f" {phrase} " in f" {normalize_answer(text)} " for text in candidate.evidence)


def select_ppl(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the candidate whose answer tokens have the lowest perplexity."""
    _require(candidates)
    return min(range(len(candidates)), key=lambda i: (candidates[i].answer_perplexity, i))


def select_ppl_path(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the candidate with the lowest perplexity over all generated tokens (the paper's definition)."""
    _require(candidates)
    return min(range(len(candidates)), key=lambda i: (candidates[i].perplexity, i))


def select_confidence(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the candidate with the highest mean token probability of its final answer."""
    _require(candidates)
    return max(range(len(candidates)), key=lambda i: (candidates[i].confidence, -i))


def select_support(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the most confident candidate among those its own evidence supports (among all if none is)."""
    _require(candidates)
    support = [supported(c, choices) for c in candidates]
    return max(range(len(candidates)), key=lambda i: (support[i], candidates[i].confidence, -i))


def ensemble_groups(candidates: Sequence[Scored], choices: Choices = ()) -> dict[str, float]:
    """Answer key (chosen option, else normalised text) -> summed confidence of the candidates giving it."""
    return _groups(candidates, choices, [c.confidence for c in candidates])


def vote_groups(candidates: Sequence[Scored], choices: Choices = ()) -> dict[str, float]:
    """Answer key -> Σ confidence × (1 + supported) over the candidates giving it."""
    return _groups(candidates, choices, [c.confidence * (1 + supported(c, choices)) for c in candidates])


def select_ensemble(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the most confident member of the answer group with the highest summed confidence."""
    _require(candidates)
    ranks = [(c.confidence,) for c in candidates]
    return _pick_group(candidates, choices, [c.confidence for c in candidates], ranks)


def select_vote(candidates: Sequence[Scored], choices: Choices = ()) -> int:
    """Index of the best-supported, most confident member of the heaviest group under `vote_groups`."""
    _require(candidates)
    support = [supported(c, choices) for c in candidates]
    weights = [c.confidence * (1 + s) for c, s in zip(candidates, support)]
    ranks = [(s, c.confidence) for c, s in zip(candidates, support)]
    return _pick_group(candidates, choices, weights, ranks)


def _groups(candidates: Sequence[Scored], choices: Choices, weights: Sequence[float]) -> dict[str, float]:
    groups: dict[str, float] = {}
    for c, w in zip(candidates, weights):
        key = answer_key(c.answer, choices)
        groups[key] = groups.get(key, 0.0) + w
    return groups


def _pick_group(candidates: Sequence[Scored], choices: Choices, weights: Sequence[float], ranks: Sequence) -> int:
    """The heaviest answer group (ties: the group seen first), then its best member by `ranks` (ties: earlier)."""
    keys = [answer_key(c.answer, choices) for c in candidates]
    groups = _groups(candidates, choices, weights)
    first_seen = {key: i for i, key in reversed(list(enumerate(keys)))}
    best = max(groups, key=lambda key: (groups[key], -first_seen[key]))
    members = [i for i, key in enumerate(keys) if key == best]
    return max(members, key=lambda i: (*ranks[i], -i))


StrategyName = Literal["ppl", "ppl_path", "confidence", "ensemble", "support", "vote"]
STRATEGY_NAMES: tuple[str, ...] = get_args(StrategyName)  # for choices lists and error messages

STRATEGIES: dict[str, Callable[[Sequence[Scored], Choices], int]] = {
    "ppl": select_ppl,
    "ppl_path": select_ppl_path,
    "confidence": select_confidence,
    "ensemble": select_ensemble,
    "support": select_support,
    "vote": select_vote,
}

DEFINITIONS: dict[str, str] = {
    "ppl": "lowest perplexity of the final answer's tokens (terminating [EOS] excluded)",
    "ppl_path": "lowest perplexity of every generated token of the path, queries and [EOS] included (paper)",
    "confidence": "highest mean token probability of the final answer (terminating [EOS] excluded)",
    "ensemble": "answer group (option label or normalised text) with the highest summed confidence",
    "support": "answers found in the trajectory's own evidence first, then the highest confidence",
    "vote": "answer group with the highest sum of confidence x (1 + supported by its own evidence)",
}


def with_agreement(candidates: Sequence[Scored], choices: Choices = ()) -> list[Scored]:
    """The candidates, each with its answer's agreement share (how many of them give the same answer key,
    over how many there are): the confidence of candidates that carry no logprobs."""
    keys = [answer_key(c.answer, choices) for c in candidates]
    counts = Counter(keys)
    return [replace(c, agreement=counts[key] / len(candidates)) for c, key in zip(candidates, keys)]


def select_all(candidates: Sequence[Scored], choices: Choices = ()) -> dict[str, int]:
    """Every strategy's choice. When no candidate has answer logprobs, by answer agreement (module docstring)."""
    _require(candidates)
    if any(c.answer_logprobs for c in candidates):
        return {name: choose(candidates, choices) for name, choose in STRATEGIES.items()}
    agreed = with_agreement(candidates, choices)
    by_agreement = {"ppl": select_confidence, "ppl_path": select_confidence}
    return {name: by_agreement.get(name, choose)(agreed, choices) for name, choose in STRATEGIES.items()}


def select(candidates: Sequence[Scored], strategy: str, choices: Choices = ()) -> int:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown selection strategy {strategy!r}; choose from {sorted(STRATEGIES)}")
    return STRATEGIES[strategy](candidates, choices)


def _require(candidates: Sequence[Scored]) -> None:
    if not candidates:
        raise ValueError("no finished trajectory to select from")
