"""Refinement guards: a generated query that can add nothing to its path is not searched or not extended.

The tests and the threshold are the training-data filter's (`rqrag.data_construction.query_filter`), defined once in
the core (`rqrag.text.text_quality.restates`: word-set Jaccard >= 0.8 after normalisation; `rqrag.retrieval.base.new_docids`:
"no passage the trajectory had not found"), applied to what the search would *repeat*:

* `repeats_query` — the query restates an earlier query of its own path: its search was already done on the
  path. Decided on the text alone, so it is not searched.
* `restates_question` — the query restates the question, and the question has already been searched: by an
  earlier query of the path that restated it too (or a given step, as the standard-RAG baseline's search
  with the question itself), or by a sibling — the first restatement among a node's new queries is searched
  (it is the node's plain search with the question), the others are not.
* `loops` — the query repeats itself (a small model's runaway: "the IP address of the server in the IP address of
  the server in ..."): whatever it finds, it asks nothing;
* `wrong_language` — the query is written in another language than the question (the shipped 135M model, trained
  on English trajectories, refines Portuguese questions in English): its search reads the wrong words;
* `nothing_new` — after the search: every hit is a passage the path has already read (same docids; a search
  with no hit included), so the child's context would hold nothing its parent's does not.

Why the first restatement of the question is searched: it is the only search with the question the path
gets, and a small model's refinements often restate the question (in an eval run of the previous shipped
SmolLM2 on 60 HotpotQA dev questions, 85 of the 120 generated queries did, and for 49 questions every depth-0
query did; the current model restates it in 9.5 % of its queries). Guarding every restatement would leave those questions without any retrieval; guarding the repeats
leaves each node one search with the question.

**What a guarded branch becomes.** Its branch ends: it is recorded in `QuestionResult.guarded` (path id ->
reason and query), counted in `DecodeStats.guarded`, and not expanded further. What it would have led to is
its parent's answer: the parent's context, without a step that adds nothing. So:

* when answers are expanded at every depth (`answer_at_every_depth`, the default) the parent answered at
  this very depth, next to the guarded query, and nothing else is needed;
* otherwise, a parent that a guard left without any live child (every other branch guarded too, or failed)
  is kept alive to answer (`parents_to_answer`): at the next depth it expands its answer and nothing
  else, under the path id its answer would have had at its own depth — the answer `answer_at_every_depth`
  would have produced, seed included. These paths never branch and do not count against `max_paths`. A
  parent with a live child is not: its tree goes on, and "answers only after the last search" (what
  `answer_at_every_depth=False` asks for) still holds for it.

So a guard never ends a question's tree: whenever guards would leave a node with nothing to expand, the node
answers. (That answer can still fail on its own — a full context window, an unusable output — as without
guards; and a question can still end without an answer when its live paths later fail for other reasons.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rqrag.inference.decoding.tree import Path, Question
from rqrag.retrieval.base import Hit, new_docids
from rqrag.text.text_quality import guess_language, loops, restates


def text_guards(queries: Sequence[tuple[str, Question, Path]]) -> list[str | None]:
    """For each new query of a depth, given as (query, its question, the path that wrote it) in tree order:
    `restates_question` or `repeats_query` when its search would repeat one already done, else None."""
    question_searched: set[tuple[str, str]] = set()  # nodes whose new queries include a searched restatement
    reasons: list[str | None] = []
    for query, question, path in queries:
        earlier = [step.text for step in path.steps if step.action.is_query]
        node = (path.qid, path.path_id)
        restating = restates(query, question.text)
        expected = guess_language(question.text) or question.language
        written = guess_language(query)
        if loops(query):
            reasons.append("loops")
        elif written and expected and written != expected:
            reasons.append("wrong_language")
        elif restating and (node in question_searched or any(restates(e, question.text) for e in earlier)):
            reasons.append("restates_question")
        elif any(restates(query, e) for e in earlier):
            reasons.append("repeats_query")
        else:
            if restating:
                question_searched.add(node)
            reasons.append(None)
    return reasons


def evidence_guard(hits: Sequence[Hit], path: Path) -> str | None:
    """`nothing_new` when every hit is a passage the path has already read."""
    seen = {hit.docid for step in path.steps for hit in step.evidence}
    return None if new_docids(hits, seen) else "nothing_new"


def parents_to_answer(guarded_parents: Sequence[Path], extended: set[tuple[str, str]], answer_slot: int) -> list[Path]:
    """The parents of guarded branches that have no live child (`extended` holds the (qid, path id) of those
    that do), each kept alive to expand only its answer, as its child number `answer_slot`."""
    parents = {(path.qid, path.path_id): path for path in guarded_parents}
    return [
        dataclasses.replace(path, answer_as=path.child_id(answer_slot))
        for key, path in parents.items()
        if key not in extended
    ]
