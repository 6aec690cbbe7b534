"""The unit of generation work in the tree, and the two ways the decoder avoids computing it twice.

An `Expansion` is one child the tree asks the model for: a path, an action and (for query actions) a sample
number, turned into one `GenerationRequest`. Work is shared at two grains:

* **prefixes** — the expansions of one node share their path's tokens; `share_prefix` tells the backend how
  many, so the node's prefix is computed once for all of its children;
* **whole expansions** (content addressing) — two expansions whose requests are the same token context, the
  same action and the same sampling parameters are the same work: `merge_identical` keeps one of them to be
  generated and lets every other one share its completion (`share_completions`).

When is that exact? Greedy decoding (temperature 0) is a function of the context alone, so the seed is not
part of the address. Sampling (temperature > 0) draws from the request's seed, and the decoder gives each
sibling its own seed so that siblings differ; the seed is then part of the address and sampled siblings are
never merged (two sampled requests that agree on the seed too would draw the same sample, and are merged).

Identical expansions arise when a node's `width` samples of an action are decoded greedily (all of them, and
every subtree below them, are the same), when two branches reach the same context (prompted mode shows the
queries but not the actions that wrote them, so a rewrite and a decomposition that wrote the same query
continue from the same prompt), or when a batch holds the same question twice (a server batching concurrent
identical requests). The tree keeps every path — trajectories, path ids and selection are exactly those of
the unmerged tree — only the generation is done once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rqrag.inference.backends.base import Completion, GenerationRequest
from rqrag.inference.decoding.failures import Failure
from rqrag.inference.decoding.tree import Path, Question
from rqrag.trajectory import Action


@dataclass(eq=False)
class Expansion:
    """One child the tree asks the model for, and what came back."""

    question: Question
    path: Path
    action: Action
    child_id: str
    request: GenerationRequest | None = None
    completion: Completion | None = None
    error: Failure | None = None
    shares_with: Expansion | None = None  # the identical expansion that is generated in this one's place

    def shared_id(self) -> str | None:
        """Where this expansion's completion came from: the path id of the identical expansion, qualified as
        "qid:path_id" when that expansion belongs to another question of the batch; None if not merged."""
        other = self.shares_with
        if other is None:
            return None
        if other.question.qid == self.question.qid:
            return other.child_id
        return f"{other.question.qid}:{other.child_id}"


def request_key(request: GenerationRequest) -> tuple:
    """The content address of a request: what determines its completion. The seed only counts when sampling;
    `shared_prefix_len` is a hint to the backend, not part of the work."""
    seed = None if request.params.greedy else request.seed
    return (request.prompt_ids, request.params, request.stop_token_ids, seed, request.chat)


def expansion_key(expansion: Expansion) -> tuple:
    """The request's address plus the action (in trained mode the action token ends the prompt anyway)."""
    return (expansion.action, *request_key(expansion.request))


def merge_identical(expansions: Sequence[Expansion]) -> list[Expansion]:
    """The distinct expansions, in order, each the first of its address; every later expansion with the same
    address gets `shares_with` set to that first one and is not to be generated."""
    first: dict[tuple, Expansion] = {}
    distinct: list[Expansion] = []
    for ex in expansions:
        representative = first.setdefault(expansion_key(ex), ex)
        if representative is ex:
            distinct.append(ex)
        else:
            ex.shares_with = representative
    return distinct


def share_completions(expansions: Sequence[Expansion]) -> None:
    """After generation: every merged expansion takes its representative's completion (or failure)."""
    for ex in expansions:
        if ex.shares_with is not None:
            ex.completion, ex.error = ex.shares_with.completion, ex.shares_with.error


def share_prefix(siblings: Sequence[Expansion]) -> None:
    """Tell the backend how many leading tokens the expansions of one node have in common."""
    if len(siblings) < 2:
        return
    prompts = [ex.request.prompt_ids for ex in siblings]
    common = 0
    for column in zip(*prompts):
        if any(tok != column[0] for tok in column):
            break
        common += 1
    for ex in siblings:
        if ex.request.shared_prefix_len is None or ex.request.shared_prefix_len > common:
            ex.request = replace(ex.request, shared_prefix_len=common)  # every other field kept (chat too)
