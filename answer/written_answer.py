"""The pipeline's writing step: after the decision, the writer model writes the answer a person reads from the
evidence the question found, every sentence cited and checked (`rqrag.answer.writer`).

    writing = Writing(rank_sentences=pipeline.readers.rank_sentences)
    writing.apply(answers, settings, on_event)      # in place, for the answers that have evidence to write from

An answer that has passages to read (a quote, the tree's answer, "no answer stated" over what was found) is written
over: when at least one sentence passes its check, the person reads

    Chief of Protocol                                         <- the short answer, when a shown sentence holds it
    Kiss and Tell stars Shirley Temple as Corliss Archer. [1] As an adult, she served as Chief of Protocol. [2]

`answer_kind: written`, the sources renumbered so that [n] is the n-th source, each cited source's `quote` the
sentence(s) its sentence rests on, verbatim (the source viewer marks it). When no sentence passes, today's answer
stands (the decision's quote or short answer, or "nothing found"), and why the writing was not shown is kept in
`written.problem`. Answers said to be outside the documents, about nothing found, or a memory noted are never written.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rqrag.answer.extractive import Quote
from rqrag.answer.messages import AnswerKind
from rqrag.answer.on_topic import found
from rqrag.answer.results import PipelineAnswer
from rqrag.answer.source_view import SourceView
from rqrag.retrieval.base import Hit
from rqrag.text.text_quality import content_words, fold, stem
from rqrag.writing_config import writes


if TYPE_CHECKING:  # the writer and its check are imported when an answer is first written, not by every question
    from rqrag.answer.writer import AnswerWriter, Written, WrittenSentence


logger = logging.getLogger(__name__)

# The kinds written over: they read evidence. not_found (outside the documents, or nothing found about it) and
# remembered (a noted memory) say something else on purpose.
WRITTEN_OVER = frozenset({AnswerKind.GENERATED, AnswerKind.QUOTED, AnswerKind.NO_ANSWER, AnswerKind.UNSOURCED})


class Writing:
    def __init__(self, rank_sentences: Callable[[str], Callable] | None = None, view: SourceView | None = None):
        """`rank_sentences(language)(question, hits)`: the extractive answerer's sentence ranking (which passages the
        writer reads first); `view`: how a source is shown (the pipeline's)."""
        self.rank_sentences = rank_sentences
        self.view = view or SourceView()
        self._writers: dict[tuple, AnswerWriter] = {}

    def writer(self, config) -> AnswerWriter:
        """The writer of `config` (its model and check), made once and kept: the model stays loaded."""
        key = (config.writer, config.writer_base_url, config.writer_model, config.claim_check, config.claim_min_p)
        if key not in self._writers:
            from rqrag.answer.writer import AnswerWriter, model_and_check

            self._writers[key] = AnswerWriter(*model_and_check(config))
        return self._writers[key]

    def apply(self, answers: Sequence[PipelineAnswer], settings, on_event=None, started: float | None = None) -> None:
        """Write over, in place, the answers that have evidence (module docstring). `started`: when the answering
        call began: the first sentence's time (`timings.first_sentence_seconds`) counts from it."""
        config = settings.decode
        if not writes(config):
            return
        for answer in answers:
            evidence = found(answer) if answer.kind in WRITTEN_OVER else []
            if not evidence:
                continue
            self.write_one(answer, evidence, config, on_event, started)

    def write_one(self, answer: PipelineAnswer, evidence: Sequence[Hit], config, on_event=None, started=None) -> None:
        from rqrag.answer.writer import Written, choose_passages

        ranked = self.rank_sentences(answer.language)(answer.question, evidence) if self.rank_sentences else None
        passages = choose_passages(
            answer.question,
            evidence,
            ranked,
            config.writer_passages,
            config.writer_passage_words,
            config.writer_sentences,
        )

        order: list[str] = []  # docids in order of first citation: the sources' numbering once shown (`show`)

        def sent(sentence: WrittenSentence) -> None:
            if on_event is not None:
                on_event(answer.qid, "sentence", _sentence_event(sentence, passages, order))

        if on_event is not None:
            on_event(answer.qid, "writing", {"passages": len(passages)})

        try:
            written = self.writer(config).write(answer.question, passages, answer.language, on_sentence=sent)
        except Exception as error:  # a writer that fails (an endpoint away) leaves the decision's answer standing
            logger.warning("the answer could not be written (%s); the decision's answer stands", error)
            answer.written = Written(None, [], [], list(passages), problem="failed")
            return
        answer.written = written
        answer.timings["write_seconds"] = round(written.seconds, 3)
        if written.first_sentence_seconds is not None:
            before = (time.perf_counter() - started - written.seconds) if started is not None else 0.0
            answer.timings["first_sentence_seconds"] = round(before + written.first_sentence_seconds, 3)
        if written.shown:
            show(answer, written, evidence, self.view)


def show(answer: PipelineAnswer, written: Written, evidence: Sequence[Hit], view: SourceView) -> None:
    """`answer` becomes the written one: text, kind, short answer, and sources renumbered in order of citation."""
    answer.written = written
    original = {h.docid: h for h in evidence}
    kept = _decision_quote(answer)  # today's quote stays under the written answer, as evidence
    order: list[str] = []
    quotes: dict[str, str] = {}
    for sentence in written.shown:
        for n in sentence.cites:
            docid = written.passages[n - 1].docid
            if docid not in order:
                order.append(docid)
        window = sentence.verdict.window if sentence.verdict else None
        if window is not None:
            quotes.setdefault(window.hit.docid, window.text)
    number = {docid: i + 1 for i, docid in enumerate(order)}
    body = " ".join(
        f"{s.text} " + "".join(f"[{number[written.passages[n - 1].docid]}]" for n in dict.fromkeys(s.cites))
        for s in written.shown
    )
    # the writer's short answer, else the decision's own (the tree's or the reader's best candidate), when a shown
    # sentence holds it: the 1.5B often stops after its sentences without the short answer
    decided = answer.grounded.generated if answer.grounded is not None else None
    short = supported_short(written) or supported_short(dataclasses.replace(written, short=decided))
    answer.short_answer = short
    answer.text = f"{short}\n\n{body}" if short else body
    answer.kind = AnswerKind.WRITTEN
    if kept is not None and kept[0] in original and kept[0] not in number:
        order.append(kept[0])  # cited by no sentence: listed after the marked ones, with its quote
        quotes[kept[0]] = kept[1]
        number[kept[0]] = len(order)
    cited = [original.get(d) or next(p for p in written.passages if p.docid == d) for d in order]
    rest = [s for s in answer.sources if s.get("docid") not in number]
    answer.sources = [
        {**view.source(hit, quotes.get(hit.docid)), "query": _query(answer, hit.docid), "cited": True, "mark": i + 1}
        for i, hit in enumerate(cited)
    ]
    if kept is not None and kept[0] in original and quotes.get(kept[0]) != kept[1]:
        # the decision's sentence is on a page a written sentence cites for another sentence: listed once more, so
        # that both sentences are under the answer (a source marks one sentence)
        hit = original[kept[0]]
        answer.sources.append({**view.source(hit, kept[1]), "query": _query(answer, hit.docid), "cited": True})
    answer.sources += [{**s, "cited": False} for s in rest]
    # the quote read under the answer: the sentence the first shown sentence rests on, verbatim, with where it is
    first = written.shown[0].verdict.window if written.shown[0].verdict else None
    quote = None
    if first is not None:
        hit = original.get(first.hit.docid, first.hit)
        quote = Quote(first.text, hit.docid, hit.title, dict(hit.extra), 1.0)
    if answer.grounded is not None:
        answer.grounded = dataclasses.replace(answer.grounded, cited=cited, quote=quote)


def _decision_quote(answer: PipelineAnswer) -> tuple[str, str] | None:
    """(docid, sentence) of the quote the decision showed before the answer was written (a quoted answer's sentence,
    or the sentence that states a generated one), if any: it held the answer for many a question the writer answers
    otherwise, so a person still reads it under the written answer."""
    grounded = answer.grounded
    if grounded is None:
        return None
    if grounded.quote is not None:
        return grounded.quote.docid, grounded.quote.text
    if answer.kind is AnswerKind.QUOTED and grounded.cited:
        return grounded.cited[0].docid, grounded.text
    return None


def supported_short(written: Written) -> str | None:
    """The short answer, when a shown sentence (or the passage sentence it rests on) holds its words: a short answer
    is shown only as a summary of what passed the check."""
    from rqrag.answer.writer import NOT_FOUND_REPLY

    short = (written.short or "").strip()
    if NOT_FOUND_REPLY.match(short):
        return None
    wanted = {stem(w) for w in content_words(short)}
    if not short or not wanted:
        return short if short and fold(short) in ("yes", "no", "sim", "nao") else None
    for sentence in written.shown:
        window = sentence.verdict.window.text if sentence.verdict and sentence.verdict.window else ""
        held = {stem(w) for w in content_words(f"{sentence.text} {window}")}
        if wanted <= held:
            return short
    return None


def _query(answer: PipelineAnswer, docid: str) -> str:
    return next((s.get("query", "") for s in answer.sources if s.get("docid") == docid), "")


def _sentence_event(sentence: WrittenSentence, passages: Sequence[Hit], order: list[str]) -> dict:
    """A sentence as it streams: its text with its marks numbered as the answer's sources will be (sources are
    numbered in order of first citation, and sentences stream in the order they are shown), the docids it cites,
    and the passage sentence it rests on."""
    cites = list(dict.fromkeys(passages[n - 1].docid for n in sentence.cites))
    for docid in cites:
        if docid not in order:
            order.append(docid)
    marks = [order.index(d) + 1 for d in cites]
    window = sentence.verdict.window if sentence.verdict else None
    return {
        "text": sentence.text + " " + "".join(f"[{m}]" for m in marks),
        "marks": marks,
        "cites": cites,
        "quote": window.text if window else None,
    }
