"""The query-quality filter: which refinements of a trajectory are worth training on, for every annotator.

A refinement is dropped, and its reason counted in the record's metadata and the run report, when it
* `restates_question` — its word set is nearly the question's (Jaccard >= 0.8 after normalisation): searching
  for it adds nothing a search with the question would not, and it teaches the model to echo;
* `repeats_query` — the same test against an earlier query of the same trajectory;
* `not_a_query` — fewer than two content words, more than `max_words` words, or it states the final answer
  (the answer's words appear in it but not in the question): a query asks, it does not tell;
* `nothing_new` — its search returned no paragraph that the trajectory's earlier searches had not already found.

The first three need only text, so they run before searching (nothing is searched for a dropped query); the
last one runs on the search results. Kept refinements keep their order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rqrag.retrieval.base import Hit, new_docids
from rqrag.text.answer_text import normalize_answer, word_jaccard
from rqrag.text.text_quality import RESTATEMENT_JACCARD, restates  # noqa: F401  (the core predicate, used here too)


MAX_QUERY_WORDS = 40
REASONS = ("restates_question", "repeats_query", "not_a_query", "nothing_new")

_STOP = frozenset("a an the of in on at to for from by with and or is are was were what who which how".split())


jaccard = word_jaccard


def _states_answer(query: str, question: str, answers: Sequence[str]) -> bool:
    query_norm, question_norm = f" {normalize_answer(query)} ", f" {normalize_answer(question)} "
    for answer in answers:
        norm = normalize_answer(answer)
        # yes/no and one-letter answers occur in ordinary queries by chance; they state nothing
        if not norm or norm in ("yes", "no") or len(norm) < 2:
            continue
        if f" {norm} " in query_norm and f" {norm} " not in question_norm:
            return True
    return False


def text_reason(
    query: str, question: str, earlier: Sequence[str], answers: Sequence[str] = (), max_words: int = MAX_QUERY_WORDS
) -> str | None:
    """Why `query` is not worth searching for (a `REASONS` entry), or None if it is."""
    words = re.findall(r"\w+", query)
    content = [w for w in words if w.lower() not in _STOP]
    if len(content) < 2 or len(words) > max_words or _states_answer(query, question, answers):
        return "not_a_query"
    if restates(query, question):
        return "restates_question"
    if any(restates(query, before) for before in earlier):
        return "repeats_query"
    return None


def filter_text(queries: Sequence[str], question: str, answers: Sequence[str] = ()) -> tuple[list[str], Counter[str]]:
    """The queries worth searching for, in order, and the count of each reason for the others."""
    kept: list[str] = []
    dropped: Counter[str] = Counter()
    for query in queries:
        reason = text_reason(query, question, kept, answers)
        if reason is None:
            kept.append(query)
        else:
            dropped[reason] += 1
    return kept, dropped


def filter_new_evidence(
    searched: Sequence[tuple[str, Sequence[Hit]]],
) -> tuple[list[tuple[str, Sequence[Hit]]], Counter[str]]:
    """Keep a searched query only if it found a paragraph no earlier kept query of the trajectory found."""
    seen: set[str] = set()
    kept: list[tuple[str, Sequence[Hit]]] = []
    dropped: Counter[str] = Counter()
    for query, hits in searched:
        new = new_docids(hits, seen)
        if not new:
            dropped["nothing_new"] += 1
            continue
        seen |= new
        kept.append((query, hits))
    return kept, dropped
