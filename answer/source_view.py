"""How what was searched and found looks in every answer a surface returns (the API's `sources` and `trajectory`,
the chat page's evidence list): a passage cut to `max_source_chars`, its score and where it comes from; a step; a
quoted memory read back as what the user said; the answer when nothing could be searched.

    view = SourceView(max_source_chars=600)
    view.sources(cited, read, steps)     # the cited passages first, then the rest the path read, each with its query
    view.step(step)                      # a search step: its action, query and evidence
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from rqrag.answer.grounding import GroundedAnswer
from rqrag.answer.messages import AnswerKind, Message, said
from rqrag.retrieval.base import Hit
from rqrag.trajectory import Action, Step


# What a source says about where it comes from: a chunk of the user's documents its file and page span
# (rqrag.ingest.library), a memory its `origin` ("memory"), date and conversation (serve/memory/store.py).
SOURCE_LOCATION = ("doc_id", "file", "page_start", "page_end", "origin", "memory_id", "date", "time", "weekday")
SOURCE_LOCATION += ("period_of_day", "conversation_id", "happened_first", "happened_last", "told_at")


@dataclass(frozen=True)
class SourceView:
    max_source_chars: int = 600

    def source(self, hit: Hit) -> dict:
        return {
            "docid": hit.docid,
            "title": hit.title,
            "text": hit.text[: self.max_source_chars],
            "score": round(float(hit.score), 4),
            **{key: value for key, value in hit.extra.items() if key in SOURCE_LOCATION},
        }

    def step(self, step) -> dict:
        """A step as the API and the page show it; the question's own search (`Step.given`) is `question`, not a
        rewrite."""
        return {
            "action": "question" if step.given else step.action.short,
            "text": step.text,
            "query": step.text,
            "evidence": [self.source(h) for h in step.evidence],
        }

    def sources(self, cited: Sequence[Hit], read: Sequence[Hit], steps) -> list[dict]:
        """The cited passages first, then the rest the path read; each with the query that found it."""
        query_of = {h.docid: s.text for s in steps for h in s.evidence}
        cited_ids = [h.docid for h in cited]
        ordered = list(cited) + [h for h in read if h.docid not in cited_ids]
        return [{**self.source(h), "query": query_of.get(h.docid, ""), "cited": h.docid in cited_ids} for h in ordered]


def could_not_search(error: Exception, language: str) -> str:
    """The answer when the sources could not be searched, in `language`, with the retriever's reason up to its first
    colon (what follows names hosts, paths and errnos: not for a reader)."""
    reason = str(error).split(":")[0].strip() or "the search failed"
    return said(Message.COULD_NOT_SEARCH, language, reason=reason)


def searching_step(question: str) -> dict:
    """The step event that says the sources are about to be searched for `question`: no query of its own yet,
    no evidence (the page lists it with the live steps, which the answer's trajectory replaces)."""
    return {"action": "searching", "text": question, "query": question, "evidence": []}


def told_back(shown: GroundedAnswer, language: str) -> GroundedAnswer:
    """A quote of one of the user's memories, read back as what they said and when they said it ("Você me
    contou em 25/11/2026: «Ontem à noite eu jantei com a Marta.»"): the memory's third-person bookkeeping ("O
    usuário disse: ...") is not an answer to give them, and "ontem" needs the day it was said."""
    cited = shown.cited[0] if shown.cited else None
    if (
        shown.kind is not AnswerKind.QUOTED
        or cited is None
        or cited.extra.get("origin") != "memory"
        or not cited.extra.get("told_at")
    ):
        return shown
    told = datetime.datetime.fromisoformat(cited.extra["told_at"])
    quote = (cited.extra.get("quote") or cited.text).strip()
    if language == "pt":
        text = f"Você me contou em {told:%d/%m/%Y}: «{quote}»"
    else:
        text = f"You told me on {told:%Y-%m-%d}: “{quote}”"
    return dataclasses.replace(shown, text=text)


def read_steps(path_steps: Sequence[Step], question: str, searched: Sequence[Hit]) -> list[Step]:
    """The path's steps as a person is shown them: when the reader also read the question's own search (made
    beside the tree, `search_first` off), that search comes first as the question's step, so every source shown,
    a quote from it included, sits under the query that found it."""
    if not searched or any(s.given for s in path_steps):
        return list(path_steps)
    return [Step(Action.REWRITE, " ".join(question.split()), tuple(searched), given=True), *path_steps]
