"""The chat page's API, served by `rqrag serve` beside the OpenAI-compatible one (one process, one port).

    rqrag serve --config configs/serve/default.yaml       # then open http://127.0.0.1:8000/

* `GET /` — the page (`inference/server/web/`: plain HTML, CSS and JavaScript, no build step, nothing fetched from
  outside); `GET /v1/ui/config` — what its controls offer.
* `POST /v1/chat` — one question of a conversation, answered as server-sent events: `conversation`, `status`,
  one `step` per step of the selected trajectory (its query and evidence), the answer in `delta` pieces,
  `sources`, `memory` (whether the exchange was remembered), then `done`; any failure is an `error` event.
* `GET /v1/conversations`, `GET /v1/conversations/{id}` — the user's conversations, resumable after a restart.
* `GET /v1/memories`, `DELETE /v1/memories/{id}` — the user's episodic memories (`inference/memory/store.py`).

Everything is scoped to the user of the request (`request_user`): a conversation or memory of another user is
answered 404, exactly like one that does not exist.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import uuid
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, RedirectResponse, StreamingResponse
from pydantic import BaseModel, Field

from rqrag.inference.memory.conversations import (
    DEFAULT_USER,
    ConversationStore,
    UnknownConversation,
    conversation_window,
)
from rqrag.inference.serve_config import ServeConfig
from rqrag.inference.server.schema import APIError


logger = logging.getLogger(__name__)

WEB_DIR = Path(__file__).parent / "web"
USER_HEADER = "x-rqrag-user"
_USER_ID = re.compile(r"^[A-Za-z0-9_.@:-]{1,128}$")
STRATEGIES = ("vote", "ppl", "ppl_path", "confidence", "ensemble", "support")


def request_user(request: Request) -> str:
    """Who is asking: the `X-Rqrag-User` header (the page sends a random id it keeps), else a digest of the
    bearer key (one user per key), else the single default user. The header is trusted as given: on a server
    shared by people who must not read each other's memories, give each an API key and leave the header out."""
    named = request.headers.get(USER_HEADER)
    if named is not None:
        if not _USER_ID.match(named):
            raise APIError(400, f"{USER_HEADER} must be 1-128 letters, digits or _.@:-", param=USER_HEADER)
        return named
    key = request.headers.get("authorization", "")
    if key.startswith("Bearer ") and len(key) > 7:
        return "key:" + hashlib.sha256(key[7:].encode()).hexdigest()[:16]
    return DEFAULT_USER


class ChatRequest(BaseModel):
    question: str = Field(min_length=1, max_length=8000)
    conversation_id: str | None = None
    retriever: str | None = None
    strategy: Literal[STRATEGIES] | None = None  # type: ignore[valid-type]
    max_depth: int | None = Field(default=None, ge=0)
    language: Literal["pt", "en"] | None = None


def answer_pieces(text: str) -> list[str]:
    """The answer in word-sized pieces (the grounded answer is known whole: it is checked before it is shown)."""
    words = text.split(" ")
    return [word if i == 0 else " " + word for i, word in enumerate(words)]


def _event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def chat_router(serve: ServeConfig) -> APIRouter:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    async def page():
        return RedirectResponse("/ui/")

    @router.get("/ui/{name:path}", include_in_schema=False)
    async def asset(name: str):
        path = (WEB_DIR / (name or "index.html")).resolve()
        if WEB_DIR.resolve() not in path.parents or not path.is_file():
            raise APIError(404, f"no such page: /ui/{name}")
        return FileResponse(path, headers={"cache-control": "no-cache"})

    @router.get("/v1/ui/config")
    async def ui_config(request: Request):
        service = request.app.state.service
        return {
            "model": serve.served_model_name,
            "strategies": list(STRATEGIES),
            "default_strategy": service.decode_config.strategy,
            "max_depth_limit": serve.max_depth_limit,
            "default_depth": service.decode_config.max_depth,
            "retrievers": serve.retrievers,
            "default_retriever": serve.retrievers[0],
            "documents_enabled": service.documents is not None,
            "memories_enabled": service.memories is not None,
        }

    @router.get("/v1/conversations")
    async def list_conversations(request: Request):
        store: ConversationStore = request.app.state.conversations
        return {"data": await asyncio.to_thread(store.list_conversations, request_user(request))}

    @router.get("/v1/conversations/{cid}")
    async def get_conversation(cid: str, request: Request):
        store: ConversationStore = request.app.state.conversations
        user = request_user(request)
        try:
            messages = await asyncio.to_thread(store.turns, cid, user)
            title = await asyncio.to_thread(store.title, cid, user)
        except UnknownConversation:
            raise APIError(404, f"conversation {cid!r} not found", code="conversation_not_found") from None
        return {"id": cid, "title": title, "messages": messages}

    @router.get("/v1/memories")
    async def list_memories(request: Request):
        memories = _memories(request)
        return {"data": await asyncio.to_thread(memories.list, request_user(request))}

    @router.delete("/v1/memories/{memory_id}", status_code=204)
    async def delete_memory(memory_id: int, request: Request):
        memories = _memories(request)
        if not await asyncio.to_thread(memories.delete, request_user(request), memory_id):
            raise APIError(404, f"memory {memory_id} not found", code="memory_not_found")

    @router.post("/v1/chat")
    async def chat(body: ChatRequest, request: Request):
        question = " ".join(body.question.split())
        if not question:
            raise APIError(400, "question must not be empty", param="question")
        user = request_user(request)
        store: ConversationStore = request.app.state.conversations
        service = request.app.state.service
        batch = service.check_options(body.retriever, body.max_depth, user, body.strategy)  # 400s before the stream
        history: list[dict] = []
        if body.conversation_id:
            try:
                history = await asyncio.to_thread(store.messages, body.conversation_id, user)
            except UnknownConversation:
                raise APIError(
                    404, f"conversation {body.conversation_id!r} not found", code="conversation_not_found"
                ) from None
        history = conversation_window(history, serve.max_messages - 1)
        messages = [*history, {"role": "user", "content": question}]
        exchange = _Exchange(request.app.state, serve, user, body, question, messages, batch.kind)
        return StreamingResponse(
            exchange.events(), media_type="text/event-stream", headers={"cache-control": "no-cache"}
        )

    return router


def _memories(request: Request):
    memories = request.app.state.service.memories
    if memories is None:
        raise APIError(404, "this server keeps no memories (serve with memories: true)", code="memories_disabled")
    return memories


class _Exchange:
    """One question answered as a stream of events; the exchange and its memory are stored when it finished."""

    def __init__(self, state, serve: ServeConfig, user: str, body: ChatRequest, question: str, messages, kind: str):
        self.state, self.serve, self.user, self.body = state, serve, user, body
        self.question, self.messages, self.kind = question, messages, kind
        self.cid = body.conversation_id or uuid.uuid4().hex
        self.title = question[:80]

    async def events(self):
        yield _event(
            "conversation", {"conversation_id": self.cid, "title": self.title, "new": not self.body.conversation_id}
        )
        stage = "searching" if self.kind != "web" or self.body.max_depth != 0 else "answering"
        yield _event("status", {"stage": stage})
        answer = None
        steps = 0
        try:
            async for name, data in self.state.service.events(
                self.messages,
                retriever=self.body.retriever,
                strategy=self.body.strategy,
                max_depth=self.body.max_depth,
                user=self.user,
                language=self.body.language,
            ):
                if name == "step":  # sent as it happens: the question's own search first, then the tree's
                    yield _event("step", {"index": steps, **data, "live": True})
                    steps += 1
                elif name == "answer":
                    answer = data["answer"]
        except APIError as error:
            yield _event("error", {"message": error.message, "code": error.code or "error"})
            return
        except Exception as error:  # the page shows a message, never a broken stream
            logger.exception("chat answer failed")
            yield _event("error", {"message": f"{type(error).__name__}: {error}", "code": "internal_error"})
            return
        # The path the answer stands on, replacing the live steps of the whole tree on the page.
        yield _event("trajectory", {"steps": [{"index": i, **step} for i, step in enumerate(answer.trajectory)]})
        yield _event("answer", {"kind": answer.kind, "generated": answer.generated})
        for piece in answer_pieces(answer.text):
            yield _event("delta", {"text": piece})
        yield _event("sources", {"sources": answer.sources})
        try:
            await asyncio.to_thread(self._store, answer)
        except Exception as error:
            logger.exception("storing the exchange failed")
            yield _event("error", {"message": f"the answer could not be saved: {error}", "code": "store_failed"})
            return
        yield _event("memory", await self._remember(answer))
        yield _event("done", {"conversation_id": self.cid, "timings": answer.timings, "kind": answer.kind})

    def _store(self, answer) -> None:
        store: ConversationStore = self.state.conversations
        if not self.body.conversation_id:
            store.new_conversation(self.user, self.title, cid=self.cid)
        store.append_exchange(self.cid, self.question, answer.text, answer.sources, answer.trajectory)

    async def _remember(self, answer) -> dict:
        """Whether the exchange holds something worth remembering (`inference/memory/writer.py`), stored if so.
        A failure here costs the memory, never the answer already given."""
        memories = self.state.service.memories
        if memories is None:
            return {"stored": False, "reason": "memories disabled"}
        from rqrag.inference.memory.writer import decide_memory_async

        language = self.body.language or "pt"
        try:
            decision = await decide_memory_async(
                self.question, answer.text, client=self.state.memory_judge, language=language
            )
            if not decision.remember:
                return {"stored": False, "source": decision.source}
            record = await asyncio.to_thread(
                memories.add,
                self.user,
                decision.description,
                conversation_id=self.cid,
                when=_when_it_happened(self.question, _now()),
                language=language,
                source=decision.source,
                hemisphere=self.serve.hemisphere,
            )
        except Exception as error:
            logger.exception("memory not stored")
            return {"stored": False, "error": f"{type(error).__name__}: {error}"}
        return {"stored": True, "description": decision.description, "source": decision.source, "id": record["id"]}


def _when_it_happened(statement: str, told):
    """The moment a memory is dated: the day its statement points at when it names one ("Ontem à noite eu
    jantei…" told on D is about D-1), at the time of day it was told; else when it was told. So "o que eu fiz
    ontem?" asked the same day finds it. (Keeping both times is the next step for memories.)"""
    import datetime as dt

    from rqrag.inference.memory.dates import date_range_in

    found = date_range_in(statement, told.replace(tzinfo=None))
    if found is None or found[0] != found[1]:
        return told
    return told + dt.timedelta(days=(found[0] - told.date()).days)


def _now():
    import datetime as dt

    return dt.datetime.now().astimezone()
