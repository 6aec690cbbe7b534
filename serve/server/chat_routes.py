"""The chat page's API, served by `rqrag serve` beside the OpenAI-compatible one (one process, one port).

    rqrag serve --config configs/serve/default.yaml       # then open http://127.0.0.1:8000/

* `GET /` — the page (`serve/server/web/`: plain HTML, CSS and JavaScript, no build step, nothing fetched from
  outside); `GET /v1/ui/config` — what its controls offer.
* `POST /v1/chat` — one question of a conversation, answered as server-sent events: `conversation`, `status`,
  one `step` per step of the selected trajectory (its query and evidence), the answer in `delta` pieces,
  `sources`, `memory` (whether the exchange was remembered), then `done`; any failure is an `error` event.
* `GET /v1/conversations`, `GET /v1/conversations/{id}` — the user's conversations, resumable after a restart.
* `GET /v1/memories`, `DELETE /v1/memories/{id}` — the user's episodic memories (`serve/memory/store.py`).

Everything is scoped to the user of the request (`request_user`): a conversation or memory of another user is
answered 404, exactly like one that does not exist. The work is the conversation service's
(`serve/conversation_service.py`, shared with `/v1/ask` and `/v1/chat/completions`); this file only turns
its events into the page's.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, RedirectResponse

from rqrag.answer import STRATEGY_NAMES
from rqrag.serve.conversation_service import ConversationService, Turn
from rqrag.serve.errors import ServiceError
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.dependencies import AnswerServiceDep, ConversationServiceDep, RequestUser
from rqrag.serve.server.schema import APIError, ChatRequest, ConversationId
from rqrag.serve.server.sse import event_stream, sse


logger = logging.getLogger(__name__)

WEB_DIR = Path(__file__).parent / "web"
MAX_ROW_ID = 2**63 - 1  # a database row id is a signed 64-bit integer: a larger one names nothing (400, not 500)


def answer_pieces(text: str) -> list[str]:
    """The answer in word-sized pieces (the grounded answer is known whole: it is checked before it is shown)."""
    words = text.split(" ")
    return [word if i == 0 else " " + word for i, word in enumerate(words)]


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
    async def ui_config(service: AnswerServiceDep):
        return {
            "model": serve.served_model_name,
            "strategies": list(STRATEGY_NAMES),
            "default_strategy": service.decode_config.strategy,
            "max_depth_limit": serve.max_depth_limit,
            "default_depth": service.decode_config.max_depth,
            "retrievers": serve.retrievers,
            "default_retriever": serve.retrievers[0],
            "documents_enabled": service.documents is not None,
            "memories_enabled": service.memories is not None,
        }

    @router.get("/v1/conversations")
    async def list_conversations(conversations: ConversationServiceDep, user: RequestUser):
        return {"data": await conversations.list_conversations(user)}

    @router.get("/v1/conversations/{cid}")
    async def get_conversation(
        cid: Annotated[ConversationId, PathParam()], conversations: ConversationServiceDep, user: RequestUser
    ):
        return await conversations.conversation(cid, user)

    @router.get("/v1/memories")
    async def list_memories(conversations: ConversationServiceDep, user: RequestUser):
        return {"data": await conversations.list_memories(user)}

    @router.delete("/v1/memories/{memory_id}", status_code=204)
    async def delete_memory(
        memory_id: Annotated[int, PathParam(ge=1, le=MAX_ROW_ID)],
        conversations: ConversationServiceDep,
        user: RequestUser,
    ):
        await conversations.forget(user, memory_id)

    @router.post("/v1/chat")
    async def chat(body: ChatRequest, conversations: ConversationServiceDep, user: RequestUser):
        # Checked here, before the stream starts: a bad option or an unknown conversation is a JSON 4xx.
        turn = await conversations.open_turn(user, body.question, body.conversation_id, body)
        return event_stream(_page_events(conversations, turn))

    return router


async def _page_events(conversations: ConversationService, turn: Turn):
    """The page's events for one turn, as server-sent events: `conversation`, `status`, live `step`s, with a writer
    a `status` (writing) and each checked `sentence` as it passes, then the answer's `trajectory`, `answer`, `delta`
    pieces and `sources`, then `memory` and `done` once it is stored; a failure is `error`."""
    yield sse({"conversation_id": turn.conversation_id, "title": turn.title, "new": turn.new}, event="conversation")
    searching = turn.retriever != "web" or turn.options.max_depth != 0
    yield sse({"stage": "searching" if searching else "answering"}, event="status")
    steps = 0
    try:
        async for name, data in conversations.events(turn):
            if name == "step":  # sent as it happens: the question's own search first, then the tree's
                yield sse({"index": steps, **data, "live": True}, event="step")
                steps += 1
            elif name == "writing":  # the writer reads the evidence: the page says so until its first sentence
                yield sse({"stage": "writing"}, event="status")
            elif name == "sentence":  # a written sentence that passed its check, as soon as it has
                yield sse(data, event="sentence")
            elif name == "answer":
                answer = data["answer"]
                # The path the answer stands on, replacing the live steps of the whole tree on the page.
                path = [{"index": i, **step} for i, step in enumerate(answer.trajectory)]
                yield sse({"steps": path}, event="trajectory")
                shown = {"kind": answer.kind, "generated": answer.generated, "confidence": answer.confidence}
                yield sse(shown, event="answer")
                for piece in answer_pieces(answer.text):
                    yield sse({"text": piece}, event="delta")
                yield sse({"sources": answer.sources}, event="sources")
            elif name == "memory":
                yield sse(data, event="memory")
    except ServiceError as error:
        yield sse({"message": error.message, "code": error.code or "error"}, event="error")
        return
    except Exception as error:  # the page shows a message, never a broken stream
        logger.exception("chat answer failed")
        yield sse({"message": f"{type(error).__name__}: {error}", "code": "internal_error"}, event="error")
        return
    done = {
        "conversation_id": turn.conversation_id,
        "timings": answer.timings,
        "kind": answer.kind,
        "confidence": answer.confidence,
    }
    yield sse(done, event="done")
