"""The answering endpoints of the OpenAI-compatible API: `GET /v1/models`, `POST /v1/chat/completions` (streamed or
not) and the plain `POST /v1/ask` (with a conversation). Both stand on the conversation service, as `/v1/chat` does (`chat_routes.py`).

    app.include_router(answer_router(serve))
"""

from __future__ import annotations

import time
import uuid

from fastapi import APIRouter

from rqrag.serve.conversation_service import ConversationService, Turn
from rqrag.serve.errors import NotFound, ServiceError
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.chat_routes import answer_pieces
from rqrag.serve.server.dependencies import ConversationServiceDep, RequestUser
from rqrag.serve.server.schema import AskRequest, ChatCompletionRequest, http_error
from rqrag.serve.server.sse import DONE, event_stream, sse


def answer_router(serve: ServeConfig) -> APIRouter:
    app = APIRouter()  # named as in create_app, where these routes were written first

    @app.get("/v1/models")
    async def models():
        return {
            "object": "list",
            "data": [{"id": serve.served_model_name, "object": "model", "created": 0, "owned_by": "rqrag"}],
        }

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatCompletionRequest, conversations: ConversationServiceDep, user: RequestUser):
        if body.model != serve.served_model_name:
            raise NotFound(
                f"model {body.model!r} does not exist; this server serves {serve.served_model_name!r}",
                code="model_not_found",
                param="model",
            )
        options = body.rqrag
        # Checked before a stream starts: a bad option is a JSON 4xx, not an error chunk.
        turn = conversations.open_completion(
            [m.model_dump() for m in body.messages],
            options,
            user,
        )
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        if body.stream:
            chunks = _completion_chunks(conversations, turn, completion_id, serve.served_model_name, options)
            return event_stream(chunks)
        answer = (await conversations.ask(turn)).answer
        best = answer.result.best_by(answer.strategy) if answer.result is not None else None
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": serve.served_model_name,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": answer.text}, "finish_reason": "stop"}
            ],
            "usage": _usage(best),
            "rqrag": answer.to_dict(include_tree=options.return_trajectories),
        }

    @app.post("/v1/ask")
    async def ask(body: AskRequest, conversations: ConversationServiceDep, user: RequestUser):
        turn = await conversations.open_turn(user, body.question, body.conversation_id, body)
        reply = await conversations.ask(turn)
        answer = reply.answer
        return {
            **answer.to_dict(include_tree=body.return_trajectories),
            "conversation_id": turn.conversation_id,
            "history_turns": turn.history_turns,
            "memory": reply.memory,  # whether the exchange was remembered, as `/v1/chat` tells the page
        }

    return app


def _rest(answer, streamed: list[str]) -> str:
    """What is left to send of the answer once its written sentences have streamed: the short answer, which the
    writer reaches last (the final `rqrag.answer` has it first); all of it when nothing streamed (no sentence passed:
    the decision's answer stands). A sentence streams only once it has passed, so a streamed answer is written."""
    if not streamed:
        return answer.text
    return f"\n\n{answer.short_answer}" if answer.short_answer else ""


def _usage(best) -> dict:
    if best is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    completion = len(best.generated_logprobs)
    prompt = max(0, len(best.sequence_ids) - len(best.answer_logprobs))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


async def _completion_chunks(conversations: ConversationService, turn: Turn, completion_id: str, model: str, options):
    """OpenAI's chunk format, sent as the pipeline works: each search of the tree as an empty-delta chunk with an
    `rqrag_step` (OpenAI clients ignore it); with a writer, each written sentence as content the moment it passes its
    check (with `rqrag_sentence`: its marks, the docids cited and its quote), then the rest of the answer (the short
    answer), then `rqrag` in the last chunk. A failure after the
    stream started is an `error` chunk, as OpenAI's own streams do."""
    created = int(time.time())

    def chunk(delta: dict, finish: str | None = None, **more):
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model}
        return sse({**body, "choices": [choice], **more})

    yield chunk({"role": "assistant", "content": ""})
    streamed = []  # the written sentences sent as they passed their check
    try:
        async for name, data in conversations.events(turn):
            if name == "step":
                yield chunk({}, rqrag_step=data)
            elif name == "sentence":
                streamed.append(data["text"])
                yield chunk({"content": ("" if len(streamed) == 1 else " ") + data["text"]}, rqrag_sentence=data)
            elif name == "answer":
                answer = data["answer"]
                for piece in answer_pieces(_rest(answer, streamed)):
                    yield chunk({"content": piece})
                yield chunk({}, "stop", rqrag=answer.to_dict(include_tree=options.return_trajectories))
    except ServiceError as error:
        yield sse(http_error(error).body())
    yield DONE
