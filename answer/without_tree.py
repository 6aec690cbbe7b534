"""Answers made without a tree (`rqrag.answer.pipeline`, step 5 when the settings quote the evidence only): the best
sentence of the question's own search, quoted with its source, or, with a model reader, its answer and the sentence
that states it.

    answer = quoted_answer(pipeline, prepared, settings)    # a PipelineAnswer, kind quoted or no_answer
    quotes_only("auto", "pt")                               # True: the shipped model answers English only
"""

from __future__ import annotations

from rqrag.answer.grounding import GroundedAnswer
from rqrag.answer.messages import AnswerKind, Message, said
from rqrag.answer.results import AnswerSettings, PipelineAnswer, Prepared
from rqrag.answer.source_view import quoted_sentence as quote_of
from rqrag.answer.source_view import told_back


# The languages the shipped model was trained to refine and answer in (English trajectories only): with
# `answerer: auto` a question in any other language is answered by quoting its own search, no model at all.
MODEL_LANGUAGES = frozenset({"en"})


def quotes_only(answerer: str, language: str | None) -> bool:
    """Whether a question in `language` is answered without the tree (quoted or written from its own search)
    under `--answerer`."""
    return answerer == "extractive" or (answerer == "auto" and (language or "en") not in MODEL_LANGUAGES)


def quoted_answer(pipeline, p: Prepared, settings: AnswerSettings | None = None) -> PipelineAnswer:
    """No tree: the best sentence of the question's own search, quoted with its source; or, with a model reader,
    its answer and the sentence that states it."""
    hits = [h for step in p.question.steps for h in step.evidence]
    reader = pipeline.readers.model_reader(settings) if settings is not None else None
    if reader is not None:
        return read_only(pipeline, p, reader, hits, settings)
    # Not told what the question asks for (asked_type): that picked "5895 metres" for "how high" in English,
    # but cost held-out Portuguese questions 6 points of all key facts (43.8 -> 37.5 %, 64 questions).
    found = pipeline.quoter.quote(p.question.text, hits, p.language) if hits else None
    answer = PipelineAnswer(
        p.question.qid, p.question.text, "", AnswerKind.NO_ANSWER, p.language, strategy="extractive"
    )
    answer.asked = p.question
    answer.trajectory = [pipeline.shown.step(s) for s in p.question.steps]
    if found is None:
        answer.text = said(Message.NO_ANSWER, p.language)
        return answer
    cited = [h for h in hits if h.docid == found.docid][:1]
    answer.grounded = told_back(GroundedAnswer(found.text, AnswerKind.QUOTED, cited), p.language)
    answer.text, answer.kind = answer.grounded.text, AnswerKind.QUOTED
    answer.sources = pipeline.shown.sources(cited, hits, p.question.steps, found.text)
    answer.timings = {"retrieval_seconds": round(p.seconds, 3)}
    return answer


def read_only(pipeline, p: Prepared, reader, hits, settings: AnswerSettings) -> PipelineAnswer:
    """The question's own search read by the model reader: no tree."""
    answer = PipelineAnswer(
        p.question.qid, p.question.text, "", AnswerKind.NO_ANSWER, p.language, strategy=f"reader:{reader.name}"
    )
    answer.asked = p.question
    answer.trajectory = [pipeline.shown.step(s) for s in p.question.steps]
    shown = pipeline.readers.read_by_model(reader, p.question.text, hits, p.language, settings) if hits else None
    if shown is None:
        answer.text = said(Message.NO_ANSWER, p.language)
        return answer
    answer.grounded = shown
    answer.text, answer.kind = shown.text, shown.kind
    answer.sources = pipeline.shown.sources(shown.cited, hits, p.question.steps, quote_of(shown))
    answer.timings = {"retrieval_seconds": round(p.seconds, 3)}
    return answer
