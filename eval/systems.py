"""The systems an evaluation compares, each defined once: how deep the tree grows and whether the question is
searched with its own words first.

* `rqrag` — the refinement tree at the decode config's depth, the model choosing every search itself;
* `no_retrieval` — the model answers directly (depth 0, nothing searched);
* `standard_rag` — the question searched once with its own words, then the answer (depth 0). This is the one
  definition of standard RAG: the benchmark's `standard_rag` system and the experiment's `refinement: none`
  level are both `STANDARD_RAG`;
* `ircot`, `iter_retgen` — the iterative baselines (IRCoT; Iter-RetGen), by the same model and retriever, from
  the question's own search (rqrag.inference.decoding.iterative);
* `tree:D` (experiments) — standard RAG's first search, then the refinement tree to depth D.

A benchmark run (`rqrag eval`) is a study whose factor is the system; a designed experiment (`rqrag experiment`)
reaches these systems through its `refinement` factor. Both turn a system into the settings of the one answering
policy (`rqrag.answer.policy.AnsweringPolicy`) with `answer_settings`: the `rqrag` system answers exactly as the
CLI and the server do, the baselines differ only in depth, first search and method.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rqrag.answer.policy import AnsweringPolicy
from rqrag.answer.results import AnswerSettings, EvidenceSource


@dataclass(frozen=True)
class System:
    name: str
    max_depth: int | None  # None: the decode config's own depth (the tree as configured)
    search_first: bool | None  # the question searched with its own words first; None: as the product does
    method: str = "tree"  # tree, or an iterative baseline (rqrag.inference.decoding.iterative)


RQRAG = System("rqrag", None, search_first=None)  # the product's own rule (a user's library: searched first)
NO_RETRIEVAL = System("no_retrieval", 0, search_first=False)
STANDARD_RAG = System("standard_rag", 0, search_first=True)
# The iterative baselines start from the question's own search, as standard RAG does.
IRCOT = System("ircot", None, search_first=True, method="ircot")
ITER_RETGEN = System("iter_retgen", None, search_first=True, method="iter_retgen")
BENCHMARK_SYSTEMS = {s.name: s for s in (RQRAG, NO_RETRIEVAL, STANDARD_RAG, IRCOT, ITER_RETGEN)}
DEFAULT_SYSTEMS = ("rqrag", "no_retrieval", "standard_rag")  # what `rqrag eval` runs unless told otherwise


def searched_tree(depth: int | None) -> System:
    """Standard RAG's first search, then the refinement tree to `depth` (None: the decode config's depth)."""
    return System("tree" if depth is None else f"tree:{depth}", depth, search_first=True)


def refinement_system(level: str) -> System:
    """An experiment's refinement level as a system: `none` is standard RAG, `tree:D` the searched tree."""
    text = str(level).strip()
    if text == "none":
        return STANDARD_RAG
    if match := re.fullmatch(r"tree:(\d+)", text):
        if int(match[1]) < 1:
            raise ValueError("a tree refinement needs depth >= 1 (depth 0 is `none`)")
        return searched_tree(int(match[1]))
    raise ValueError(f"unknown refinement level {level!r}: write none or tree:DEPTH")


def answer_settings(
    system: System, policy: AnsweringPolicy, source: EvidenceSource | None, language: str | None
) -> AnswerSettings:
    """How the answering policy answers for `system` over `source`: its depth (the config's when None, cut to
    the system's otherwise), first search and method."""
    return policy.settings(
        source, language=language, depth=system.max_depth, search_first=system.search_first, method=system.method
    )
