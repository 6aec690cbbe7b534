"""The answering service behind the HTTP server: the answer pipeline, the server's retrievers, the scheduler, metrics.

Every endpoint that answers (`/v1/ask`, `/v1/chat`, `/v1/chat/completions`) has its request checked by
`AnswerService.check` before any stream starts, then answered by `AnswerService.events`, an async stream of the
pipeline's events (`AnswerPipeline.answer`, run on a worker thread): the question's own search as soon as it is
done, or a `searching` step as soon as work starts when the tree makes the first search (off the model thread, so
it reaches the page while the model is busy), each refinement of the tree as it is searched, then the grounded
answer. `answer` is the same stream, drained, for the endpoints that reply once.
The pipeline's trees are run through `_run_tree`: on the single model thread, a question joins the running decode
of the questions with its settings at their next depth, users taking turns (`serve/tree_scheduler.py`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence

from rqrag.answer import (
    AnsweringPolicy,
    AnswerPipeline,
    AnswerSettings,
    DecodeConfig,
    EvidenceSource,
    FailureKind,
    PipelineAnswer,
    Question,
    QuestionResult,
)
from rqrag.retrieval.registry import MEMORY_KINDS, SEARCH_FIRST_KINDS  # the kinds, defined once in the core
from rqrag.serve.errors import BadRequest, ServiceError, ServiceFailure, Timeout
from rqrag.serve.memory.conversations import DEFAULT_USER
from rqrag.serve.memory.writer import about_the_user
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.tree_scheduler import TreeScheduler


logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class _TreeWork:
    """One question's tree, as it waits in the scheduler: what `run_tree` was called with."""

    question: Question
    settings: AnswerSettings
    source: EvidenceSource
    on_step: Callable


@dataclasses.dataclass(frozen=True)
class Batch:
    """What questions must share to be decoded together."""

    retriever: str
    depth: int
    user: str | None
    strategy: str
    personal: bool = False  # a question about the user: their memories are searched first, whatever the retriever kind


def resolve_admission(admission: str, generator) -> str:
    """`auto`: whole-tree batches for the hf backend on a CPU, questions joining at each depth elsewhere. On 2 CPU
    cores a batch of two costs nearly what two calls do, so a question joining a running decode slows the questions
    in it about as much as it gains: two full serving benchmarks found no measurable gain (p95 at 0.75x capacity
    5.9 vs 4.3 s, then 4.9 vs 5.5 s; saturation throughput equal, then 16 % higher for batches; docs/serve.md).
    Where a batch is nearly free (a GPU, vLLM's engine, a remote server) joining at the next depth is what
    continuous batching is for."""
    if admission != "auto":
        return admission
    model = getattr(generator, "model", None)
    on_cpu = model is not None and getattr(getattr(model, "device", None), "type", None) == "cpu"
    return "batch" if on_cpu else "depth"


class AnswerService:
    def __init__(
        self,
        decode: DecodeConfig,
        serve: ServeConfig,
        decoder,
        metrics=None,
        documents=None,
        memories=None,
        clock=None,
        limits=None,
    ):
        self.decode_config = decode
        self.limits = limits  # DeploymentLimits: each user's questions in flight on every server (None: this one's)
        self.serve = serve
        self.decoder = decoder
        self.metrics = metrics
        # The `documents` retriever searches the server's document library (`serve/documents/service.py`),
        # asked afresh for each batch: the library follows uploads and removals.
        self.documents = documents
        self.memories = memories  # MemoryStore: the `memories` kinds search the asking user's memories
        self.clock = clock  # () -> datetime: "now" for a memory question's relative dates; None: the real time
        # the one answering policy every surface calls (`rqrag.answer.policy`); this server passes only its own:
        # each request's evidence, language, depth, strategy and retriever
        self.policy = AnsweringPolicy(decode, AnswerPipeline(decoder, max_source_chars=serve.max_source_chars))
        self.pipeline = self.policy.pipeline
        own = serve.retrievers[0] not in SEARCH_FIRST_KINDS
        self._retrievers = {serve.retrievers[0]: decoder.retriever} if own else {}
        self._listeners: dict[str, Callable[[str, dict], None]] = {}  # question id -> where its events go
        self._waiting: dict[str, concurrent.futures.Future] = {}  # question id -> its tree in the scheduler
        # Trees go in, their results come out (on the one model thread), questions joining at each depth.
        self.scheduler = TreeScheduler[_TreeWork, QuestionResult](
            self._decode_trees,
            serve.batch_window_ms / 1000,
            serve.max_batch_questions,
            serve.max_waiting_per_user,
            resolve_admission(serve.admission, decoder.generator),
            serve.preempt_after_s,
            size_of=lambda work: len(work.question.text),  # what a tree costs grows with its question's length
            elsewhere=limits.elsewhere if limits is not None else None,
        )
        if hasattr(decoder.generator, "between_steps"):  # the hf backend: a long call lets waiting questions through
            decoder.generator.between_steps = self.scheduler.between_steps
        if metrics is not None:
            self.scheduler.on_batch = metrics.batch_size.observe

    @property
    def default_retriever(self) -> str:
        return self.serve.retrievers[0]

    def source(self, retriever: str, user: str | None = None, personal: bool = False) -> EvidenceSource:
        """The evidence of one request: the retriever named `retriever`, for `user` when it reads memories or (with
        users) documents: their own library and the shared ones. A personal question ("Com quem eu jantei
        ontem?") reads the user's memories first, fused with the retriever's passages (ranked ahead of them on ties):
        whichever retriever is the default, what the user told is found."""
        from rqrag.retrieval.fusion import FusedRetriever
        from rqrag.serve.memory.retriever import RELEVANCE_FLOOR

        if personal and retriever != "memories":
            base = self.source("documents" if retriever == "documents+memories" else retriever, user)
            fused = FusedRetriever([self._memory_retriever(user), base.retriever])
            return EvidenceSource(fused, base.library, retriever, not_found=False, personal=True)
        if retriever == "memories":
            return EvidenceSource(self._memory_retriever(user), None, retriever)
        if retriever in ("documents", "documents+memories"):
            view = self.documents.view_for(user)
            searched = view.retriever(self.documents.settings.retrieval_mode)
            if retriever == "documents":
                return EvidenceSource(searched, view, retriever)
            # memories join a documents question's sources only when they are about it (a cosine floor)
            floor = RELEVANCE_FLOOR.get(self.serve.memory_embedding_model)
            fused = FusedRetriever([searched, self._memory_retriever(user, min_score=floor)])
            return EvidenceSource(fused, view, retriever, not_found=False)
        if retriever not in self._retrievers:
            from rqrag.answer import retriever_for

            self._retrievers[retriever] = retriever_for(dataclasses.replace(self.decode_config, retriever=retriever))
        return EvidenceSource(self._retrievers[retriever], None, retriever)

    def _memory_retriever(self, user: str | None, min_score: float | None = None):
        from rqrag.serve.memory.retriever import MemoryRetriever

        return MemoryRetriever(self.memories, user or DEFAULT_USER, now=self.clock, min_score=min_score)

    def settings(self, batch: Batch, source: EvidenceSource, language: str | None) -> AnswerSettings:
        """The policy's settings for a request's `batch` choices over its `source`."""
        return self.policy.settings(
            source, language=language, depth=batch.depth, retriever=batch.retriever, strategy=batch.strategy
        )

    def _run_tree(self, batch: Batch, user: str | None, questions, settings, source, on_step) -> list[QuestionResult]:
        """The pipeline's `run_tree` for one request (on its worker thread): each question waits in the scheduler
        with the others of the same `batch` settings, taking turns with other users' questions, and joins the
        running decode at its next depth; the thread blocks until its own tree is done. Its future is kept so that
        a client who leaves cancels a tree not yet started. Too many of this user's questions waiting: `Busy`."""
        held = self.limits.holding(user, len(questions)) if self.limits else contextlib.nullcontext()
        with held:  # Busy when this user has too many questions in flight on all the servers together
            waiting = []
            for question in questions:
                future = self.scheduler.submit(_TreeWork(question, settings, source, on_step), batch, user)
                self._waiting[question.qid] = future
                waiting.append(future)
            try:
                return [future.result() for future in waiting]
            finally:
                for question in questions:
                    self._waiting.pop(question.qid, None)

    def _decode_trees(
        self,
        work: Sequence[_TreeWork],
        batch: Batch,
        admit: Callable[[], list[_TreeWork]],
        on_done: Callable[[_TreeWork, QuestionResult], None],
    ) -> None:
        """Runs on the scheduler's model thread: one decode for the trees of the questions sharing `batch`, which
        admits the ones that arrive meanwhile at each depth and hands each result over as soon as its tree is done.
        They share their retriever and settings (the batch key says so): the first question's are used."""
        items = {w.question.qid: w for w in work}
        joined = dict.fromkeys(items, time.perf_counter())
        size = len(work)

        def admitted():
            nonlocal size
            new = admit()
            for w in new:
                items[w.question.qid], joined[w.question.qid] = w, time.perf_counter()
            size += len(new)
            return [w.question for w in new]

        def finished(result: QuestionResult) -> None:
            # forgotten once handed over: a decode that keeps admitting must not keep every question it served
            seconds = time.perf_counter() - joined.pop(result.qid)
            result.batch_info = {"batch_questions": size, "decode_seconds": round(seconds, 3)}
            on_done(items.pop(result.qid), result)

        generator_before = dataclasses.replace(self.decoder.generator.stats)
        depths_before = len(self.decoder.stats.depth_sizes)
        began = time.perf_counter()
        self.pipeline.run_tree(
            [w.question for w in work],
            work[0].settings,
            work[0].source,
            lambda qid, path_id, step: items[qid].on_step(qid, path_id, step),
            admit=admitted,
            on_done=finished,
        )
        after = self.decoder.generator.stats
        # A decode nested in another's model call is counted by the one it interrupted (its deltas hold it).
        if self.metrics is not None and not self.scheduler.nested:
            self.metrics.model_busy_seconds.inc(time.perf_counter() - began)
            for size in self.decoder.stats.depth_sizes[depths_before:]:
                self.metrics.depth_expansions.observe(size)
            self.metrics.model_calls.inc(after.model_calls - generator_before.model_calls)
            self.metrics.prompt_tokens.inc(after.prompt_tokens - generator_before.prompt_tokens)
            self.metrics.prompt_tokens_computed.inc(
                after.prompt_tokens_computed - generator_before.prompt_tokens_computed
            )
            self.metrics.generated_tokens.inc(after.generated_tokens - generator_before.generated_tokens)

    def _dispatch(self, qid: str, name: str, data: dict) -> None:
        listener = self._listeners.get(qid)
        if listener is not None:
            listener(name, data)

    def check_question(self, text: str, param: str = "question") -> None:
        """A `BadRequest` (`context_length_exceeded`) for a question over `max_question_chars` characters or
        `max_question_tokens` of the model's tokens. Checked at the edge of every route, before any search or
        model call: the work a question costs grows with its length, and there is one model thread for everyone
        (a 900 kB question once held it for minutes). Characters first, so an oversize text is never tokenized."""
        limit = self.serve.max_question_chars
        if len(text) > limit:
            raise BadRequest(
                f"{param} too long: {len(text)} characters; this server takes at most {limit}",
                code="context_length_exceeded",
                param=param,
            )
        tokenizer = getattr(self.decoder, "tokenizer", None)
        if tokenizer is None:
            return
        tokens = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        if tokens > self.serve.max_question_tokens:
            raise BadRequest(
                f"{param} too long: {tokens} tokens; this server takes at most {self.serve.max_question_tokens}",
                code="context_length_exceeded",
                param=param,
            )

    def check_options(
        self, retriever: str | None, max_depth: int | None, user: str | None = None, strategy: str | None = None
    ) -> Batch:
        """The batch settings of a request, or a `BadRequest` saying what is wrong. The user is part of the
        settings only for memory kinds: two users' memory questions never share a batch."""
        name = retriever or self.default_retriever
        if name not in self.serve.retrievers:
            raise BadRequest(
                f"retriever {name!r} is not enabled; choose from {self.serve.retrievers}", param="retriever"
            )
        if name in ("documents", "documents+memories") and self.documents is None:
            raise BadRequest("this server has no document library", param="retriever")
        if name in MEMORY_KINDS and self.memories is None:
            raise BadRequest("this server keeps no memories", param="retriever")
        depth = self.decode_config.max_depth if max_depth is None else max_depth
        if depth > self.serve.max_depth_limit:
            raise BadRequest(f"max_depth must be at most {self.serve.max_depth_limit}", param="max_depth")
        # Documents are per user only when keys name users; memories always are.
        per_user = name in MEMORY_KINDS or (name == "documents" and self.documents.settings.users)
        user = (user or DEFAULT_USER) if per_user else None
        return Batch(name, depth, user, strategy or self.decode_config.strategy)

    def check(
        self,
        question: str,
        *,
        retriever: str | None,
        strategy: str | None,
        max_depth: int | None,
        user: str | None = None,
        param: str = "question",
    ) -> Batch:
        """Everything a request must pass before any stream starts (a bad request is an error, never a broken
        stream): its question's length and content, its options. Returns the settings it is answered with; a
        question about the user ("Com quem eu jantei ontem?") reads their memories first."""
        self.check_question(question, param)
        if not question.strip():
            raise BadRequest(f"{param} must not be empty", param=param)
        batch = self.check_options(retriever, max_depth, user, strategy)
        if self.memories is not None and user is not None and about_the_user(question):
            batch = dataclasses.replace(batch, user=user, personal=True)
        return batch

    async def events(
        self, messages: list[dict], batch: Batch, language: str | None = None, user: str | None = None
    ) -> AsyncIterator[tuple[str, dict]]:
        """The pipeline's events for the last user message (settings `batch`, from `check`), as they happen:
        `step`s, then one `answer` whose data holds the `PipelineAnswer` (key "answer"). Errors are
        `ServiceError`s (`rqrag.serve.errors`) raised from the stream. `user` takes turns with other users for
        the model.

        The work runs as one task (retrieval on a worker thread, the model on the scheduler's); its events come
        back through one queue, closed by `None` once the answer is known, so this generator is the only layer
        between the pipeline and the caller."""
        started = time.perf_counter()
        # The budget starts now, queueing included: what it bounds is how long others can be kept waiting.
        question = Question(uuid.uuid4().hex, messages, deadline=time.monotonic() + self.serve.decode_budget_s)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, dict] | None] = asyncio.Queue()
        self._listeners[question.qid] = lambda name, data: loop.call_soon_threadsafe(queue.put_nowait, (name, data))

        async def work() -> PipelineAnswer:
            source = await asyncio.to_thread(self.source, batch.retriever, batch.user, batch.personal)
            settings = self.settings(batch, source, language)
            run_tree = functools.partial(self._run_tree, batch, user)
            try:
                (answer,) = await asyncio.to_thread(
                    functools.partial(self.policy.answer, on_event=self._dispatch, run_tree=run_tree),
                    [question],
                    source,
                    settings,
                )
            except (asyncio.CancelledError, concurrent.futures.CancelledError, ServiceError):
                raise  # a refusal (Busy: too many of this user's questions waiting) is the client's to read
            except Exception as error:
                raise ServiceFailure(
                    f"decoding failed: {type(error).__name__}: {error}", code="decoder_error"
                ) from error
            return answer

        # Thread callbacks run in the order they were scheduled: every step is queued before the end mark.
        task = asyncio.ensure_future(work())
        task.add_done_callback(lambda _: queue.put_nowait(None))
        deadline = loop.time() + self.serve.request_timeout_s
        try:
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), max(0.0, deadline - loop.time()))
                except asyncio.TimeoutError:
                    raise Timeout(f"no answer within {self.serve.request_timeout_s:.0f} s", code="timeout") from None
                if event is None:
                    break
                if event[0] in ("step", "writing", "sentence"):  # the answer comes with the task's result
                    yield event
            answer = task.result()
        finally:
            task.cancel()
            waiting = self._waiting.pop(question.qid, None)
            if waiting is not None:
                waiting.cancel()  # a client that gave up (or timed out) is not decoded
            self._listeners.pop(question.qid, None)
        failure = answer.error
        if failure is not None:
            if failure.kind is FailureKind.QUESTION_TOO_LONG:
                raise BadRequest(str(failure), code="context_length_exceeded")
            if failure.kind is FailureKind.EMPTY_QUESTION:
                raise BadRequest(str(failure))
            if failure.kind is FailureKind.OUT_OF_TIME:
                raise Timeout(f"no answer: {failure} ({self.serve.decode_budget_s:.0f} s)", code="time_budget")
            raise ServiceFailure(f"no answer: {failure}", code="answer_failed")
        # the request's span: from its arrival, waiting for the model included, to its answer (the pipeline's own
        # call is `answer_seconds`); `total_seconds`, its former name, is repeated for one release
        answer.timings["request_seconds"] = round(time.perf_counter() - started, 3)
        answer.timings["total_seconds"] = answer.timings["request_seconds"]
        yield "answer", {"answer": answer}

    async def answer(
        self, messages: list[dict], batch: Batch, language: str | None = None, user: str | None = None
    ) -> PipelineAnswer:
        """The grounded answer to the last user message (the `events` stream, drained)."""
        async for name, data in self.events(messages, batch, language, user):
            if name == "answer":
                return data["answer"]
        raise ServiceFailure("the answer stream ended without an answer", code="answer_failed")
