"""The answer pipeline: every step from a question to the cited answer a person reads, in one place.

    pipeline = AnswerPipeline.for_config(config)                # the decoder is built on first need, if ever
    source = EvidenceSource(retriever=library.retriever("hybrid"), library=library)
    settings = AnswerSettings(decode=config)                    # per call: nothing mutates the decoder
    (answer,) = pipeline.answer([Question("q0", messages)], source, settings, on_event=print)
    answer.text, answer.kind, answer.sources                    # kind: an AnswerKind
    answer.to_dict()                                            # the one shape every surface returns

`answer` is the only way a surface gets an answer (`rqrag ask`, `/v1/ask`, `/v1/chat`, `/v1/chat/completions`, the
chat page, `rqrag eval`, `rqrag experiment`, `rqrag.Pipeline`); each is a thin adapter over these steps, in order:

1. **language** — the one the answer must be in: the request's, else the library's, else the question's own.
2. **not found** — over a document library, a question far from every chunk (`search_first.outside_documents`) is
   answered "not found" in that language (`messages.said(Message.NOT_FOUND, language)`) before any model runs.
3. **search first** — the question is searched with its own words (`search_first.search_question_first`); the
   tree grows from there, so even the direct answer reads (and cites) the best pages.
4. **tree and selection** — `TreeDecoder.using(settings.decode, retriever, on_step)`: settings for this call
   only; each searched refinement is announced as it happens. (`settings.method` ircot / iter_retgen runs an
   iterative baseline here instead, by the same model and retriever.)
5. **grounded answer** — the selected answer is shown only if its evidence supports it, else the next the
   strategy prefers, else the best evidence sentence quoted (`rqrag.answer.grounding`); over a corpus, one whose
   question found nothing close to it says so instead (`rqrag.answer.on_topic`).
6. **citations** — the passages the shown text stands on first (`cited: true`), then the rest of its path's.
7. **written** — with a writer (`--writer`), the model that read the evidence writes the answer: the short answer,
   then sentences each citing its passages, each shown only once its check passes (`rqrag.answer.written_answer`);
   each passes as a `sentence` event. When none passes, the answer of steps 5-6 stands.

Whether a question needs the model is decided in one place, `needs_model`: not when it is outside the documents,
its sources could not be searched, or the settings quote the evidence only (`--answerer extractive`). The decoder
is built then, on first need (`for_config`). How the trees of one call are run is the caller's to say (`run_tree`):
the pipeline's own decoder, or the server's, which joins concurrent questions on its model thread.

Events (`on_event(qid, name, data)`, on the thread that runs the step): `step` for each search — the question's own
first (`action: "question"`), or one `searching` step with no evidence when the tree makes the first search; then
each refinement of the tree (`path_id`, `action`, `query`, `evidence`); `sentence` for each written sentence that
passed its check (`text`, `cites`: docids, `quote`); and `answer` once it is known.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence

from rqrag.answer.grounding import (
    ExtractiveQuoter,
    GroundedAnswer,
    QuoteFunction,
    Quoter,
    decide,
    pooled_evidence,
    trajectory_hits,
)
from rqrag.answer.messages import AnswerKind, Message, answer_language, earlier_messages, said
from rqrag.answer.on_topic import TopicCheck
from rqrag.answer.reading.registry import Readers
from rqrag.answer.results import AnswerSettings, EvidenceSource, PipelineAnswer, Prepared
from rqrag.answer.source_view import (
    SOURCE_CHARS,
    SourceView,
    could_not_search,
    read_steps,
    searching_step,
    told_back,
)
from rqrag.answer.source_view import quoted_sentence as quote_of
from rqrag.answer.without_tree import quoted_answer, quotes_only
from rqrag.answer.written_answer import Writing
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.failures import Failure, FailureKind
from rqrag.inference.decoding.search_first import outside_documents, search_question_first
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.retrieval.base import Hit, RetrieverError


logger = logging.getLogger(__name__)

EventSink = Callable[[str, str, dict], None]  # (question id, event name, data)
StepSink = Callable[[str, str, object], None]  # (question id, path id, Step): each searched refinement


class AnswerPipeline:
    def __init__(
        self,
        decoder=None,
        quoter: Callable[..., object | None] | None = None,
        max_source_chars: int | None = None,
        verifier=None,
        reader=None,
        *,
        build_decoder: Callable[[], object] | None = None,
        model: str | None = None,
    ):
        """`decoder`: a `TreeDecoder`, or None with `build_decoder` (called once, on the first question that needs
        the model: `for_config`) or with neither (a pipeline that only quotes, or only replays decisions).
        `quoter(question, hits, language, asked=..., answers=...)` returns the extractive answer when no generated
        answer is confident; by default the multilingual `grounding.ExtractiveQuoter`. `verifier`
        (`rqrag.answer.verifier.Verifier`): by default the one saved beside `model`, else the default model's."""
        self._decoder = decoder
        self._build_decoder = build_decoder
        self._model = model if model is not None else getattr(getattr(decoder, "config", None), "model", None)
        self.quoter: Quoter = ExtractiveQuoter() if quoter is None else QuoteFunction(quoter)
        self.max_source_chars = SOURCE_CHARS if max_source_chars is None else max_source_chars
        self.shown = SourceView(self.max_source_chars)
        self.readers = Readers(self.quoter, self._model, verifier, reader)
        self.on_topic = TopicCheck()
        self.writing = Writing(self.readers.rank_sentences, self.shown)

    @classmethod
    def for_config(cls, config: DecodeConfig, retriever=None, **options) -> AnswerPipeline:
        """The pipeline of `config`, its decoder (model, backend, retriever) built on the first question needing it."""
        from rqrag.inference.build import build_decoder

        return cls(build_decoder=lambda: build_decoder(config, retriever=retriever), model=config.model, **options)

    @property
    def decoder(self):
        """The tree decoder, built now if it was left for first need."""
        if self._decoder is None and self._build_decoder is not None:
            self._decoder = self._build_decoder()
        return self._decoder

    @property
    def loaded_decoder(self):
        """The decoder if it exists already (None: no question has needed the model); builds nothing."""
        return self._decoder

    @staticmethod
    def needs_model(prepared: Prepared, settings: AnswerSettings) -> bool:
        """Whether a question needs the model: not when already answered (outside the documents, sources
        unreachable) nor when the settings quote the evidence only."""
        return prepared.outside is None and not quotes_only(settings.decode.answerer, prepared.language)

    def answer(
        self,
        questions: Sequence[Question],
        source: EvidenceSource,
        settings: AnswerSettings,
        on_event: EventSink | None = None,
        run_tree: Callable[..., list[QuestionResult]] | None = None,
    ) -> list[PipelineAnswer]:
        """All six steps for a batch of questions, one answer each, in order. `run_tree(questions, settings,
        source, on_step)` decodes the trees of the questions that need the model (default: `self.run_tree`)."""
        started = time.perf_counter()
        prepared = self._prepare(questions, source, settings, on_event)
        out = self._decode(prepared, source, settings, on_event, run_tree or self.run_tree, started)
        for answer in out:
            answer.timings["answer_seconds"] = round(time.perf_counter() - started, 3)  # this call's, for the batch
        return out

    def run_tree(
        self,
        questions: Sequence[Question],
        settings: AnswerSettings,
        source: EvidenceSource,
        on_step: StepSink,
        admit: Callable[[], Sequence[Question]] | None = None,
        on_done: Callable[[QuestionResult], None] | None = None,
    ) -> list[QuestionResult]:
        """The trees of `questions`, by this pipeline's decoder with this call's settings (an iterative baseline
        instead when `settings.method` says so). `admit` and `on_done` are the tree decoder's: questions that join
        at each depth boundary, and each result as soon as its tree is done (an iterative baseline admits none and
        hands its results over at the end)."""
        decoder = self.decoder.using(settings.decode, source.retriever, on_step=on_step)
        if settings.method == "tree":
            scheduled = {"admit": admit, "on_done": on_done} if admit or on_done else {}  # a plain call stays plain
            return decoder.decode(list(questions), **scheduled)
        from rqrag.inference.decoding.iterative import IterativeDecoder

        results = IterativeDecoder(decoder, settings.method).decode(list(questions))
        for result in results if on_done is not None else ():
            on_done(result)
        return results

    # ------------------------------------------------------------------------------------------ steps

    def _prepare(
        self,
        questions: Sequence[Question],
        source: EvidenceSource,
        settings: AnswerSettings,
        on_event: EventSink | None = None,
    ) -> list[Prepared]:
        """Steps 1-3 (retrieval only, no model): language, not found, the question searched first. When the tree
        makes the first search (no search first), a `searching` step says so at once: that search waits on the
        model's first call, seconds away on a CPU, and the reader should see the work start."""
        started = time.perf_counter()
        if on_event is not None and not settings.search_first:
            for q in questions:
                on_event(q.qid, "step", searching_step(q.text))
        library_language = getattr(getattr(source.library, "settings", None), "language", None) or None
        prepared: list[Prepared] = []
        for q in questions:
            language = answer_language(q.text, settings.language, library_language, earlier_messages(q.messages))
            p = Prepared(dataclasses.replace(q, language=language), language)
            try:
                if source.library and source.not_found and outside_documents(source.library, q.text):
                    p.outside = said(Message.NOT_FOUND, library_language or language)
            except RetrieverError as error:  # the library could not be searched to judge it: say so
                p.outside, p.outside_kind = could_not_search(error, language), AnswerKind.NO_ANSWER
            prepared.append(p)
        if settings.search_first:
            asked = [p for p in prepared if p.outside is None]
            searched = {q.qid: q for q in self._search_first(asked, source, settings)}
            for p in prepared:
                if p.question.qid in searched:
                    p.question = searched[p.question.qid]
                    if not any(step.evidence for step in p.question.steps):
                        # Nothing at all to read (no documents, no memory of those days): say so, never guess.
                        nothing = (
                            Message.NOTHING_REMEMBERED if source.retriever_name == "memories" else Message.NOT_FOUND
                        )
                        p.outside = said(nothing, p.language)
        seconds = time.perf_counter() - started
        for p in prepared:
            p.seconds = seconds
            if on_event is not None and p.outside is None:
                for step in p.question.steps:
                    on_event(p.question.qid, "step", self.shown.step(step))
        return prepared

    def _decode(
        self,
        prepared: Sequence[Prepared],
        source: EvidenceSource,
        settings: AnswerSettings,
        on_event: EventSink | None,
        run_tree: Callable[..., list[QuestionResult]],
        started: float | None = None,
    ) -> list[PipelineAnswer]:
        """Steps 4-7: the tree with this call's settings, selection, the grounded answer and its citations, the
        written answer (`started`: when the call began, for the first sentence's time)."""
        answers: dict[str, PipelineAnswer] = {}
        if any(quotes_only(settings.decode.answerer, p.language) for p in prepared):
            prepared = self._searched(prepared, source, settings)
        todo = []
        for p in prepared:
            if self.needs_model(p, settings):
                todo.append(p)
            elif p.outside is not None:
                answers[p.question.qid] = PipelineAnswer(
                    p.question.qid,
                    p.question.text,
                    p.outside,
                    p.outside_kind,
                    p.language,
                    strategy=settings.decode.strategy,
                    timings={"retrieval_seconds": round(p.seconds, 3)},
                    asked=p.question,
                )
            else:
                answers[p.question.qid] = quoted_answer(self, p, settings)
        if todo:

            def announce(qid: str, path_id: str, step) -> None:
                if on_event is not None:
                    on_event(qid, "step", {**self.shown.step(step), "path_id": path_id})

            # the readers read the question's own search too: `rqrag eval` asks for it, a model reader always does
            wants_search = (settings.reader_search and self.readers.features is not None) or self.readers.model_reader(
                settings
            )
            if wants_search and not settings.search_first:
                self._search_for_reader(todo, source, settings)
            started = time.perf_counter()
            results = run_tree([p.question for p in todo], settings, source, announce)
            seconds = time.perf_counter() - started
            for p, result in zip(todo, results):
                answer = self.finish(p, result, settings)
                answer.timings = {"retrieval_seconds": round(p.seconds, 3), "decode_seconds": round(seconds, 3)}
                answer.timings.update(result.batch_info)  # the server's: how many shared the decode, and its time
                if result.out_of_time_at is not None:
                    answer.timings["out_of_time_at_depth"] = result.out_of_time_at
                answers[p.question.qid] = answer
        out = [answers[p.question.qid] for p in prepared]
        if settings.decode.on_topic:  # an answer whose question found nothing close to it says so (step 5)
            self.on_topic.apply(out, source)
        self.writing.apply(out, settings, on_event, started)  # step 7: the answer written from the evidence, checked
        if on_event is not None:
            for answer in out:
                on_event(
                    answer.qid,
                    "answer",
                    {
                        "text": answer.text,
                        "kind": answer.kind,
                        "sources": answer.sources,
                        "short": answer.short_answer,
                    },
                )
        return out

    # ---------------------------------------------------------------------------------------- helpers

    def _search_first(self, asked: Sequence[Prepared], source: EvidenceSource, settings) -> list[Question]:
        """The questions searched with their own words (one batched call). A retriever that fails (offline, a
        database gone, a timeout) answers each question that the sources could not be searched, in its language,
        labelled no_answer: a 200 that says so, never an error for the whole batch."""
        try:
            return search_question_first(
                source.retriever, [p.question for p in asked], settings.decode.docs_per_search
            )
        except RetrieverError as error:
            logger.warning("the question's own search failed for %d question(s): %s", len(asked), error)
            for p in asked:
                p.outside, p.outside_kind = could_not_search(error, p.language), AnswerKind.NO_ANSWER
            return []

    def _searched(self, prepared: Sequence[Prepared], source: EvidenceSource, settings) -> list[Prepared]:
        """The extractive answerer reads the question's own search: made here if `prepare` did not."""
        bare = [p for p in prepared if p.outside is None and not p.question.steps]
        if bare:
            found = {q.qid: q for q in self._search_first(bare, source, settings)}
            for p in bare:
                p.question = found.get(p.question.qid, p.question)
        return list(prepared)

    def _search_for_reader(self, todo: Sequence[Prepared], source: EvidenceSource, settings) -> None:
        """The question's own search, for the reader, when the tree will not make it first (`search_first` off, as
        in the paper's decoding): one batched call; a failing retriever leaves the reader the tree's passages."""
        from rqrag.retrieval.base import RetrieverError

        questions = [p.question for p in todo]
        try:
            found = source.retriever.batch_search(
                [q.text for q in questions], settings.decode.docs_per_search, qids=[q.qid for q in questions]
            )
        except RetrieverError as error:
            logger.warning("the reader reads the tree's passages only: the question's own search failed (%s)", error)
            return
        for p, hits in zip(todo, found):
            p.searched = list(hits)

    def finish(self, p: Prepared, result: QuestionResult, settings: AnswerSettings) -> PipelineAnswer:
        strategy = settings.decode.strategy
        question = p.question.text
        answer = PipelineAnswer(
            result.qid, question, "", AnswerKind.NO_ANSWER, p.language, result=result, strategy=strategy
        )
        answer.asked, answer.searched = p.question, p.searched
        if result.best_by(strategy) is None:
            answer.error = result.error or Failure(FailureKind.NO_TRAJECTORY_FINISHED)
            return answer
        reader = self.readers.model_reader(settings) if settings.grounded else None
        if reader is not None:
            read = pooled_evidence(result, p.searched)
            holder = {h.docid: t.path_id for t in reversed(result.trajectories) for h in trajectory_hits(t.trajectory)}
            shown = self.readers.read_by_model(reader, question, read, p.language, settings, path_of=holder.get)
        elif settings.grounded:
            shown = decide(
                result,
                question,
                p.language,
                self.quoter,
                self.readers.verifier,
                choices=p.question.choices,
                min_confidence=settings.decode.min_confidence,
                reader=self.readers.features,
                searched=p.searched,
            )
        else:
            best = result.best_by(strategy)
            shown = GroundedAnswer(
                best.trajectory.answer or "",
                AnswerKind.GENERATED,
                trajectory_hits(best.trajectory)[:1],
                best.path_id,
                best.trajectory.answer,
            )
        shown = told_back(shown, p.language)
        answer.grounded = shown
        answer.text, answer.kind = shown.text, shown.kind
        path = next((t for t in result.trajectories if t.path_id == shown.path_id), result.best_by(strategy))
        steps = read_steps(path.trajectory.steps, question, p.searched)
        answer.trajectory = [self.shown.step(s) for s in steps]
        read: dict[str, Hit] = {}
        for hit in (h for s in steps for h in s.evidence):
            read.setdefault(hit.docid, hit)
        answer.sources = self.shown.sources(shown.cited, list(read.values()), steps, quote_of(shown))
        return answer
