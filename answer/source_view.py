"""How what was searched and found looks in every answer a surface returns (the API's `sources` and `trajectory`,
the chat page's evidence list): a passage cut to `max_source_chars`, its score and where it comes from; a step; a
quoted memory read back as what the user said; the answer when nothing could be searched.

    view = SourceView(max_source_chars=600)
    view.sources(cited, read, steps, quote)  # the cited passages first, then the rest the path read, each with its
                                             # query; a cited one holding the quoted sentence says so (`quote`)
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


# How much of a passage every surface shows (the CLI, the API, the server, eval records): enough for the quoted
# sentence and its neighbours, the cut kept around the quote (`_around`).
SOURCE_CHARS = 600


@dataclass(frozen=True)
class SourceView:
    max_source_chars: int = SOURCE_CHARS

    def source(self, hit: Hit, quote: str | None = None) -> dict:
        """A passage as shown. With `quote` (the sentence an answer quotes from it), the cut keeps the quote in
        view and `quote` is that sentence exactly as the shown text spells it, for the page to mark."""
        text, shown_quote = hit.text[: self.max_source_chars], None
        if quote:
            text, shown_quote = _around(" ".join(hit.text.split()), " ".join(quote.split()), self.max_source_chars)
        return {
            "docid": hit.docid,
            "title": hit.title,
            "text": text,
            "score": round(float(hit.score), 4),
            **({"quote": shown_quote} if shown_quote else {}),
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

    def sources(self, cited: Sequence[Hit], read: Sequence[Hit], steps, quote: str | None = None) -> list[dict]:
        """The cited passages first, then the rest the path read; each with the query that found it. `quote`: the
        sentence(s) the answer quotes, marked in the cited passage that holds them."""
        query_of = {h.docid: s.text for s in steps for h in s.evidence}
        cited_ids = [h.docid for h in cited]
        ordered = list(cited) + [h for h in read if h.docid not in cited_ids]
        return [
            {
                **self.source(h, quote if h.docid in cited_ids else None),
                "query": query_of.get(h.docid, ""),
                "cited": h.docid in cited_ids,
            }
            for h in ordered
        ]


def quoted_sentence(shown: GroundedAnswer) -> str | None:
    """The sentence(s) of a source the answer shows: a generated answer's supporting quote, or a quote itself."""
    if shown.quote is not None:
        return shown.quote.text
    return shown.text if shown.kind == AnswerKind.QUOTED else None


def _around(text: str, quote: str, limit: int) -> tuple[str, str | None]:
    """`text` cut to about `limit` characters keeping `quote` in view (from the start of the sentence before it,
    when that fits), and the quote as the cut text spells it; (the plain cut, None) when `text` does not hold it."""
    at = text.find(quote)
    if at < 0:
        at = text.lower().find(quote.lower())
    if at < 0:
        return text[:limit], None
    end = at + len(quote)
    if end <= limit:
        return text[:limit], text[at:end]
    start = max(end - limit, 0)
    boundary = text.find(". ", start, at)  # begin at a sentence, not inside one
    if boundary >= 0:
        start = boundary + 2
    return "…" + text[start : max(end, start + limit)], text[at:end]


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
