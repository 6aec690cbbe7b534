"""The conversation service: one question of a conversation, from its stored history to its stored answer and memory.

Every endpoint that answers stands on it — `/v1/ask` (one JSON reply), `/v1/chat` (the chat page's event stream)
and `/v1/chat/completions` (OpenAI's API) — so they differ only in how they speak HTTP:

    turn = await conversations.open_turn("ana", "Quem escreveu Dom Casmurro?", conversation_id=None)
    async for name, data in conversations.events(turn):    # step..., answer, stored, memory
        ...
    reply = await conversations.ask(turn)                    # the same, drained: the answer and its memory

1. `open_turn` checks the request (before any stream starts: a bad request is an error, never a broken stream),
   reads the conversation's history — only its owner's: another user's conversation is `NotFound`, exactly like
   one that does not exist — and keeps the latest `max_messages - 1` messages, so a long conversation goes on.
2. `events` runs the answer pipeline through `AnswerService` (`serve/answer_service.py`), stores the exchange, then
   asks whether it tells something worth remembering about the user (`serve/memory/writer.py`) and stores
   that memory. A failure there costs the memory, never the answer already given.

`open_completion` is the same for OpenAI's chat completions, which are stateless: the client sends the whole
conversation and keeps it, so there is no conversation to store the turn under, nor a user to remember it for.

Nothing blocking runs on the event loop: every SQL call and every memory embedding goes through
`asyncio.to_thread`; the model runs on the scheduler's own thread. Errors are `rqrag.serve.errors`, which the
server maps to HTTP statuses.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from rqrag.answer import PipelineAnswer
from rqrag.serve.answer_options import AnswerOptions
from rqrag.serve.answer_service import AnswerService, Batch
from rqrag.serve.errors import BadRequest, NotFound, ServiceFailure, Unavailable
from rqrag.serve.memory.conversations import ConversationStore, UnknownConversation, conversation_window
from rqrag.serve.memory.shown import happened_words
from rqrag.serve.memory.writer import just_telling
from rqrag.serve.serve_config import ServeConfig


logger = logging.getLogger(__name__)

TITLE_CHARS = 80  # a conversation is titled by the start of its first question


@dataclass
class Turn:
    """One question, checked and with its history: ready to be answered (and, if `kept`, stored)."""

    user: str | None
    question: str
    messages: list[dict]  # the history window, then the question
    batch: Batch  # the settings it is answered with, checked by the answer service
    options: AnswerOptions = field(default_factory=AnswerOptions)
    conversation_id: str | None = None
    new: bool = True  # the conversation starts with this turn
    kept: bool = True  # stored with its memory; False for stateless chat completions

    @property
    def retriever(self) -> str:
        """The retriever that answers it."""
        return self.batch.retriever

    @property
    def history_turns(self) -> int:
        return len(self.messages) - 1

    @property
    def title(self) -> str:
        return self.question[:TITLE_CHARS]


@dataclass
class AnsweredTurn:
    """A turn answered: the grounded answer and what became of its memory."""

    answer: PipelineAnswer
    memory: dict[str, Any]


class ConversationService:
    """The user's conversations and memories, and the answering of each new turn."""

    def __init__(self, answers: AnswerService, store: ConversationStore, serve: ServeConfig, judge=None, clock=None):
        self.answers = answers
        self.store = store
        self.serve = serve
        self.judge = judge  # the JSON chat client deciding what to remember (`memory/setup.py`); None: a rule
        self.clock = clock or dt.datetime.now  # when a memory is told (tests set it)

    @property
    def memories(self):
        return self.answers.memories

    # ------------------------------------------------------------------------------------------ new turns

    async def open_turn(
        self, user: str, question: str, conversation_id: str | None = None, options: AnswerOptions | None = None
    ) -> Turn:
        """The turn `question` adds to the user's conversation (a new one when `conversation_id` is None)."""
        options = options or AnswerOptions()
        batch = self.answers.check(
            question, retriever=options.retriever, strategy=options.strategy, max_depth=options.max_depth, user=user
        )
        question = " ".join(question.split())
        history: list[dict] = []
        if conversation_id:
            try:
                history = await asyncio.to_thread(self.store.messages, conversation_id, user)
            except UnknownConversation:
                raise NotFound(
                    f"conversation {conversation_id!r} not found",
                    code="conversation_not_found",
                    param="conversation_id",
                ) from None
        history = conversation_window(history, self.serve.max_messages - 1)
        return Turn(
            user,
            question,
            [*history, {"role": "user", "content": question}],
            batch,
            options,
            conversation_id=conversation_id or uuid.uuid4().hex,
            new=not conversation_id,
        )

    def open_completion(
        self, messages: list[dict], options: AnswerOptions | None = None, user: str | None = None
    ) -> Turn:
        """A chat completion's turn: the client's whole conversation, answered (from `user`'s documents and
        memories) and not kept."""
        options = options or AnswerOptions()
        if len(messages) > self.serve.max_messages:
            raise BadRequest(f"at most {self.serve.max_messages} messages per request", param="messages")
        for i, message in enumerate(messages[:-1]):  # history: characters only (the context window bounds the rest)
            if len(message["content"]) > self.serve.max_question_chars:
                self.answers.check_question(message["content"], param=f"messages.{i}.content")
        if messages[-1]["role"] != "user" or not messages[-1]["content"].strip():
            raise BadRequest("the last message must be a non-empty user turn (the question)", param="messages")
        batch = self.answers.check(
            messages[-1]["content"],
            retriever=options.retriever,
            strategy=options.strategy,
            max_depth=options.max_depth,
            user=user,
            param=f"messages.{len(messages) - 1}.content",
        )
        return Turn(user, messages[-1]["content"], messages, batch, options, new=False, kept=False)

    async def events(self, turn: Turn) -> AsyncIterator[tuple[str, dict]]:
        """The pipeline's `step`s and its `answer` (data key "answer": the `PipelineAnswer`) as they happen;
        then, for a kept turn, `stored` once the exchange is saved and `memory` (what was remembered).

        A message that only tells something about the user ("Meu cachorro se chama Bolinha.") and is worth
        remembering is not searched for: the reply says it was noted, and when it was understood to have
        happened ("ontem à noite" -> which day), instead of quoting a document that happens to be nearest."""
        answer: PipelineAnswer | None = None
        if turn.kept and self.memories is not None and just_telling(turn.question):
            decision = await self._decide(turn, "")
            if decision is not None and decision.remember:
                memory = await self._keep(turn, decision)
                answer = self.answers.policy.acknowledge(turn.question, memory, self._language(turn))
                yield "answer", {"answer": answer}
                yield "stored", await self._stored(turn, answer)
                yield "memory", memory
                return
        async for name, data in self.answers.events(turn.messages, turn.batch, turn.options.language, turn.user):
            if name == "answer":
                answer = data["answer"]
            yield name, data
        if not turn.kept or answer is None:
            return
        yield "stored", await self._stored(turn, answer)
        yield "memory", await self._remember(turn, answer)

    async def _stored(self, turn: Turn, answer: PipelineAnswer) -> dict:
        """The exchange saved: the `stored` event's data."""
        from sqlalchemy.exc import InterfaceError, OperationalError

        try:
            await asyncio.to_thread(self._store, turn, answer)
        except (OperationalError, InterfaceError) as error:  # the database went away: the client may try again
            logger.warning("storing the exchange failed, database unavailable: %s", str(error).splitlines()[0][:300])
            message = "the server's database is unavailable right now; the answer was not saved, try again shortly"
            raise Unavailable(message, code="storage_unavailable") from error
        except Exception as error:
            logger.exception("storing the exchange failed")
            # the driver's words (SQL, parameters, paths) stay in the log
            raise ServiceFailure(
                f"the answer could not be saved ({type(error).__name__})", code="store_failed"
            ) from error
        return {"conversation_id": turn.conversation_id}

    async def ask(self, turn: Turn) -> AnsweredTurn:
        """The turn answered, stored and remembered: `events`, drained."""
        answer, memory = None, {"stored": False, "reason": "not kept"}
        async for name, data in self.events(turn):
            if name == "answer":
                answer = data["answer"]
            elif name == "memory":
                memory = data
        if answer is None:
            raise ServiceFailure("the answer stream ended without an answer", code="answer_failed")
        return AnsweredTurn(answer, memory)

    def _store(self, turn: Turn, answer: PipelineAnswer) -> None:
        if turn.new:
            self.store.new_conversation(turn.user, turn.title, cid=turn.conversation_id)
        self.store.append_exchange(turn.conversation_id, turn.question, answer.text, answer.sources, answer.trajectory)

    async def _remember(self, turn: Turn, answer: PipelineAnswer) -> dict:
        """Whether the exchange holds something worth remembering, stored if so. A failure here costs the
        memory, never the answer already given."""
        if self.memories is None:
            return {"stored": False, "reason": "memories disabled"}
        decision = await self._decide(turn, answer.text)
        if decision is None:
            return {"stored": False, "error": "the memory decision failed (see the server log)"}
        if not decision.remember:
            return {"stored": False, "source": decision.source}
        return await self._keep(turn, decision)

    def _language(self, turn: Turn) -> str:
        """The turn's language by the answer step's one rule (the request's, else the message's own, else the
        conversation's earlier messages'): its reply, the memory's reading of dates."""
        from rqrag.answer import answer_language, earlier_messages

        return answer_language(turn.question, turn.options.language, earlier=earlier_messages(turn.messages))

    async def _decide(self, turn: Turn, answer_text: str):
        """The judge's (or the rule's) decision on the exchange; None when deciding failed."""
        from rqrag.serve.memory.writer import decide_memory_async

        try:
            return await decide_memory_async(
                turn.question, answer_text, client=self.judge, language=self._language(turn)
            )
        except Exception:
            logger.exception("memory decision failed")
            return None

    async def _keep(self, turn: Turn, decision) -> dict:
        """Store a memory the decision made; what became of it (stored with its id and when it happened)."""
        try:
            record = await asyncio.to_thread(
                self.memories.add,
                turn.user,
                decision.description,
                conversation_id=turn.conversation_id,
                told=self.clock(),
                statement=turn.question,  # when it happened is read from the user's words
                language=self._language(turn),
                source=decision.source,
                hemisphere=self.serve.hemisphere,
            )
        except Exception as error:
            logger.exception("memory not stored")
            return {"stored": False, "error": f"{type(error).__name__}: {error}"}
        return {
            "stored": True,
            "description": decision.description,
            "source": decision.source,
            "id": record["id"],
            "happened": happened_words(record),
            "happened_first": record["happened_first"],
            "happened_last": record["happened_last"],
            "told_at": record["told_at"],
        }

    # ------------------------------------------------------------------------- what the user has kept

    async def list_conversations(self, user: str) -> list[dict]:
        return await asyncio.to_thread(self.store.list_conversations, user)

    async def conversation(self, cid: str, user: str) -> dict:
        """The conversation's title and turns (with each answer's sources and trajectory), for its owner."""

        def read():
            return {"id": cid, "title": self.store.title(cid, user), "messages": self.store.turns(cid, user)}

        try:
            return await asyncio.to_thread(read)
        except UnknownConversation:
            raise NotFound(f"conversation {cid!r} not found", code="conversation_not_found") from None

    async def list_memories(self, user: str) -> list[dict]:
        return await asyncio.to_thread(self._memory_store().list, user)

    async def forget(self, user: str, memory_id: int) -> None:
        """Delete one of the user's memories; another user's is `NotFound`, like one that does not exist."""
        if not await asyncio.to_thread(self._memory_store().delete, user, memory_id):
            raise NotFound(f"memory {memory_id} not found", code="memory_not_found")

    def _memory_store(self):
        if self.memories is None:
            raise NotFound("this server keeps no memories (serve with memories: true)", code="memories_disabled")
        return self.memories

    def close(self) -> None:
        self.store.close()
