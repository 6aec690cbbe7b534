"""The answering service behind the HTTP server: one decoder, its retrievers, the batcher, and metrics.

The server's handlers validate input and shape output; everything that touches the model goes through
`AnswerService.answer`, which queues the question for the next decoder batch and turns a finished
`QuestionResult` into an `Answer` (the selected answer, its sources, its trajectory, timings).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from rqrag.inference.api_schema import APIError
from rqrag.inference.batcher import DecodeBatcher
from rqrag.inference.config import DecodeConfig
from rqrag.inference.conversations import DEFAULT_USER
from rqrag.inference.search_first import not_found_message, search_question_first
from rqrag.inference.serve_config import ServeConfig
from rqrag.inference.tree import Question, QuestionResult


logger = logging.getLogger(__name__)


@dataclass
class Answer:
    text: str
    sources: list[dict]
    trajectory: list[dict]
    result: QuestionResult
    strategy: str
    timings: dict
    evidence_used: bool

    def rqrag_object(self, include_all: bool) -> dict:
        best = self.result.best_by(self.strategy)
        out = {
            "strategy": self.strategy,
            "selected_path": best.path_id if best else None,
            "trajectory": self.trajectory,
            "sources": self.sources,
            "evidence_used": self.evidence_used,
            "timings": self.timings,
        }
        if include_all:
            out["trajectories"] = [t.to_dict() for t in self.result.trajectories]
        return out


def _sources(result: QuestionResult, strategy: str, max_chars: int) -> tuple[list[dict], list[dict]]:
    """(sources, trajectory steps) of the selected trajectory; sources de-duplicated by docid, in order."""
    best = result.best_by(strategy)
    if best is None:
        return [], []
    sources: dict[str, dict] = {}
    steps = []
    for step in best.trajectory.steps:
        hits = [
            {
                "docid": h.docid,
                "title": h.title,
                "text": h.text[:max_chars],
                "score": round(float(h.score), 4),
                **{key: value for key, value in getattr(h, "extra", {}).items() if key in SOURCE_LOCATION},
            }
            for h in step.evidence
        ]
        steps.append({"action": step.action.short, "text": step.text, "evidence": hits})
        for hit in hits:
            sources.setdefault(hit["docid"], {**hit, "query": step.text})
    return list(sources.values()), steps


# What a source says about where it comes from: a chunk of the user's documents its file and page span
# (rqrag.ingest.library), a memory its date and conversation (inference/memory_store.py).
SOURCE_LOCATION = ("doc_id", "file", "page_start", "page_end", "kind", "memory_id", "date", "time", "weekday")
SOURCE_LOCATION += ("period_of_day", "conversation_id")
# Retriever kinds over the user's memories: scoped to the asking user, so their batches are too.
MEMORY_KINDS = ("memories", "documents+memories")


class AnswerService:
    def __init__(self, decode: DecodeConfig, serve: ServeConfig, decoder, metrics=None, documents=None, memories=None):
        self.decode_config = decode
        self.serve = serve
        self.decoder = decoder
        self.metrics = metrics
        # The `documents` retriever searches the server's document library (`inference/documents_api.py`),
        # asked afresh for each batch: the library follows uploads and removals.
        self.documents = documents
        self.memories = memories  # MemoryStore: the `memories` kinds search the asking user's memories
        own = serve.retrievers[0] not in ("documents", *MEMORY_KINDS)
        self._retrievers = {serve.retrievers[0]: decoder.retriever} if own else {}
        self.batcher = DecodeBatcher(self._decode, serve.batch_window_ms / 1000, serve.max_batch_questions)
        if metrics is not None:
            self.batcher.on_batch = metrics.batch_size.observe

    @property
    def default_retriever(self) -> str:
        return self.serve.retrievers[0]

    def _retriever(self, kind: str, user: str | None = None):
        if kind == "documents":
            return self.documents.retriever()
        if kind in MEMORY_KINDS:
            from rqrag.inference.memory_retriever import FusedRetriever, MemoryRetriever

            memories = MemoryRetriever(self.memories, user)
            return memories if kind == "memories" else FusedRetriever([self.documents.retriever(), memories])
        if kind not in self._retrievers:
            from rqrag.inference.build import build_retriever

            self._retrievers[kind] = build_retriever(dataclasses.replace(self.decode_config, retriever=kind))
        return self._retrievers[kind]

    def _decode(self, questions: Sequence[Question], settings) -> list[QuestionResult]:
        """Runs on the batcher's model thread: one decoder call for a group sharing retriever and depth."""
        kind, depth, user = settings
        generator_before = dataclasses.replace(self.decoder.generator.stats)
        self.decoder.retriever = self._retriever(kind, user)
        self.decoder.config = dataclasses.replace(self.decode_config, max_depth=depth, retriever=kind)
        started = time.perf_counter()
        if kind == "documents" or kind in MEMORY_KINDS:
            questions = search_question_first(self.decoder.retriever, questions, self.decode_config.docs_per_search)
        results = self.decoder.decode(questions)
        seconds = time.perf_counter() - started
        after = self.decoder.generator.stats
        if self.metrics is not None:
            self.metrics.model_calls.inc(after.model_calls - generator_before.model_calls)
            self.metrics.prompt_tokens.inc(after.prompt_tokens - generator_before.prompt_tokens)
            self.metrics.prompt_tokens_computed.inc(
                after.prompt_tokens_computed - generator_before.prompt_tokens_computed
            )
            self.metrics.generated_tokens.inc(after.generated_tokens - generator_before.generated_tokens)
        for result in results:
            result.batch_info = {"batch_questions": len(questions), "decode_seconds": round(seconds, 3)}
        return results

    def check_options(
        self, retriever: str | None, max_depth: int | None, user: str | None = None
    ) -> tuple[str, int, str | None]:
        """(retriever kind, depth, user): the batch settings of a request, or a 400 saying what is wrong. The
        user is part of the settings only for memory kinds: two users' memory questions never share a batch."""
        kind = retriever or self.default_retriever
        if kind not in self.serve.retrievers:
            raise APIError(
                400, f"retriever {kind!r} is not enabled; choose from {self.serve.retrievers}", param="retriever"
            )
        if kind in ("documents", "documents+memories") and self.documents is None:
            raise APIError(400, "this server has no document library", param="retriever")
        if kind in MEMORY_KINDS and self.memories is None:
            raise APIError(400, "this server keeps no memories", param="retriever")
        depth = self.decode_config.max_depth if max_depth is None else max_depth
        if depth > self.serve.max_depth_limit:
            raise APIError(400, f"max_depth must be at most {self.serve.max_depth_limit}", param="max_depth")
        return kind, depth, (user or DEFAULT_USER) if kind in MEMORY_KINDS else None

    async def answer(
        self,
        messages: list[dict],
        *,
        retriever: str | None,
        strategy: str | None,
        max_depth: int | None,
        user: str | None = None,
        language: str | None = None,
    ) -> Answer:
        """The answer to the last user message. `user` scopes memory retrievers; `language` is the one prompted
        mode speaks (default: the document library's over documents, else English)."""
        settings = self.check_options(retriever, max_depth, user)
        strategy = strategy or self.decode_config.strategy
        question = Question(uuid.uuid4().hex, messages, language=language or "en")
        started = time.perf_counter()
        if settings[0] == "documents":
            library = self.documents.library()
            question = dataclasses.replace(question, language=language or library.settings.language or "en")
            message = await asyncio.to_thread(not_found_message, library, messages[-1]["content"])
            if message is not None:  # say so instead of guessing
                timings = {"total_seconds": round(time.perf_counter() - started, 3), "outside_documents": True}
                empty = QuestionResult(question.qid, messages[-1]["content"], strategy=strategy)
                return Answer(message, [], [], empty, strategy, timings, evidence_used=False)
        try:
            result = await asyncio.wait_for(self.batcher.submit(question, settings), self.serve.request_timeout_s)
        except asyncio.TimeoutError as error:
            raise APIError(504, f"no answer within {self.serve.request_timeout_s:.0f} s", code="timeout") from error
        except Exception as error:
            raise APIError(500, f"decoding failed: {type(error).__name__}: {error}", code="decoder_error") from error
        if result.best_by(strategy) is None:
            reason = result.error or "no trajectory finished"
            if reason.startswith(("question too long", "empty question")):
                raise APIError(400, reason, code="context_length_exceeded" if "too long" in reason else None)
            raise APIError(500, f"no answer: {reason}", code="no_answer")
        sources, steps = _sources(result, strategy, self.serve.max_source_chars)
        timings = {"total_seconds": round(time.perf_counter() - started, 3), **result.batch_info}
        return Answer(
            text=result.answer_by(strategy) or "",
            sources=sources,
            trajectory=steps,
            result=result,
            strategy=strategy,
            timings=timings,
            evidence_used=bool(sources),
        )
