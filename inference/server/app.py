"""The RQ-RAG HTTP server: OpenAI-compatible chat completions plus a plain `/v1/ask` with conversations.

    rqrag serve --config configs/serve/default.yaml            # http://127.0.0.1:8000

    from openai import OpenAI
    client = OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="unused")
    reply = client.chat.completions.create(model="rqrag", messages=[{"role": "user", "content": "Who wrote Hamlet?"}])
    reply.choices[0].message.content, reply.model_extra["rqrag"]["sources"]

Endpoints: `POST /v1/chat/completions` (stream supported; the reply carries an extra `rqrag` object with the
selected trajectory, its sources and timings), `POST /v1/ask` ({question, conversation_id?, retriever?,
strategy?, max_depth?} -> {answer, sources, trajectory, conversation_id}; conversations persisted),
`GET /v1/models`, `GET /health`, `GET /metrics` (Prometheus).

The decoder is built once in the lifespan; concurrent requests are gathered into shared decoder batches
(`inference/batcher.py`). Every failure is an OpenAI-shaped error: bad input is a 4xx with a message, never
a 5xx; retrieved text reaches the model only inside the evidence block (and, in prompted mode, under a
system prompt saying it is data, not instructions).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from rqrag.inference.decoding.config import DecodeConfig
from rqrag.inference.memory.conversations import ConversationStore, UnknownConversation, conversation_window
from rqrag.inference.memory.setup import memory_judge, open_memories
from rqrag.inference.serve_config import ServeConfig
from rqrag.inference.server.chat_routes import answer_pieces, chat_router, request_user
from rqrag.inference.server.documents_routes import (
    DocumentsService,
    DocumentsSettings,
    UploadBodyLimit,
    documents_router,
)
from rqrag.inference.server.metrics import ServerMetrics
from rqrag.inference.server.schema import APIError, AskRequest, ChatCompletionRequest
from rqrag.inference.service import AnswerService, rqrag_object


logger = logging.getLogger(__name__)


def create_app(
    decode: DecodeConfig, serve: ServeConfig, decoder=None, documents: DocumentsService | None = None
) -> FastAPI:
    """The app; `decoder` may be given (tests), otherwise it is built from `decode` when the app starts."""
    documents = documents or DocumentsService(DocumentsSettings.from_serve(serve))
    metrics = ServerMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        nonlocal decoder
        if decoder is None:
            from rqrag.inference.build import build_decoder

            decoder = build_decoder(decode)
        app.state.conversations = ConversationStore(serve.database_url)
        memories = open_memories(serve) if serve.memories else None
        app.state.memory_judge = memory_judge(serve, decode)
        app.state.service = AnswerService(decode, serve, decoder, metrics, documents=documents, memories=memories)
        app.state.service.batcher.start()
        logger.info("rqrag server ready: model %s, %s mode", serve.served_model_name, decoder.mode)
        yield
        await app.state.service.batcher.stop()
        app.state.conversations.close()
        documents.close()

    app = FastAPI(title="rq-rag", lifespan=lifespan)

    # Added before `guard`, so it sits inside it: guard's metrics count the 413s and 400s it answers.
    # Uploads to /v1/documents get their own, larger limit (`max_upload_bytes`).
    app.add_middleware(
        UploadBodyLimit, max_bytes=serve.max_request_bytes, upload_max_bytes=documents.settings.max_upload_bytes
    )
    app.state.documents = documents
    app.include_router(documents_router(documents))
    app.include_router(chat_router(serve))

    @app.middleware("http")
    async def guard(request: Request, call_next):
        """API key and request metrics, before any handler runs (body size: `BodySizeLimit`)."""
        started = time.perf_counter()
        endpoint = request.url.path
        try:
            # The page's own files are public; everything it then asks for needs the key.
            public = endpoint in ("/health", "/metrics", "/") or endpoint.startswith("/ui/")
            if serve.api_key_env and not public:
                import os

                expected = os.environ.get(serve.api_key_env)
                if expected and request.headers.get("authorization") != f"Bearer {expected}":
                    raise APIError(401, "missing or wrong API key (Authorization: Bearer ...)", code="invalid_api_key")
            response = await call_next(request)
        except APIError as error:
            response = JSONResponse(error.body(), status_code=error.status)
        metrics.observe(endpoint, response.status_code, time.perf_counter() - started)
        return response

    @app.exception_handler(APIError)
    async def api_error(request: Request, error: APIError):
        return JSONResponse(error.body(), status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError):
        first = error.errors()[0] if error.errors() else {}
        if first.get("type") == "json_invalid":
            detail = (first.get("ctx") or {}).get("error", "")
            return JSONResponse(APIError(400, f"request body is not valid JSON: {detail}").body(), status_code=400)
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else first.get("msg", "invalid request")
        return JSONResponse(APIError(400, message, param=where or None).body(), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException):
        return JSONResponse(APIError(error.status_code, str(error.detail)).body(), status_code=error.status_code)

    @app.get("/health")
    async def health():
        return {"status": "ok", "model": serve.served_model_name}

    @app.get("/metrics")
    async def prometheus():
        return Response(metrics.render(), media_type=metrics.content_type)

    @app.get("/v1/models")
    async def models():
        return {
            "object": "list",
            "data": [{"id": serve.served_model_name, "object": "model", "created": 0, "owned_by": "rqrag"}],
        }

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatCompletionRequest, request: Request):
        if body.model != serve.served_model_name:
            raise APIError(
                404,
                f"model {body.model!r} does not exist; this server serves {serve.served_model_name!r}",
                code="model_not_found",
                param="model",
            )
        messages = _check_messages([m.model_dump() for m in body.messages], serve)
        options = body.rqrag
        service = request.app.state.service
        service.check_options(options.retriever, options.max_depth, strategy=options.strategy)  # 400s before a stream
        ask = dict(retriever=options.retriever, strategy=options.strategy, max_depth=options.max_depth)
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        if body.stream:
            events = service.events(messages, **ask)
            return StreamingResponse(
                _stream(completion_id, serve.served_model_name, events, options.return_trajectories),
                media_type="text/event-stream",
            )
        answer = await service.answer(messages, **ask)
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
            "rqrag": rqrag_object(answer, options.return_trajectories),
        }

    @app.post("/v1/ask")
    async def ask(body: AskRequest, request: Request):
        question = body.question.strip()
        if not question:
            raise APIError(400, "question must not be empty", param="question")
        store: ConversationStore = request.app.state.conversations
        cid = body.conversation_id
        user = request_user(request)
        try:
            history = store.messages(cid, user) if cid else []
        except UnknownConversation:
            raise APIError(
                404, f"conversation {cid!r} not found", param="conversation_id", code="conversation_not_found"
            ) from None
        history = conversation_window(history, serve.max_messages - 1)
        messages = _check_messages([*history, {"role": "user", "content": question}], serve)
        answer = await request.app.state.service.answer(
            messages, retriever=body.retriever, strategy=body.strategy, max_depth=body.max_depth, user=user
        )
        cid = cid or store.new_conversation(user, question[:80])
        store.append_exchange(cid, question, answer.text, answer.sources, answer.trajectory)
        out = {
            "answer": answer.text,
            "sources": answer.sources,
            "trajectory": answer.trajectory,
            "conversation_id": cid,
            "history_turns": len(history),
            "evidence_used": bool(answer.sources),
            "answer_kind": answer.kind,  # generated (supported by its sources) | quoted | not_found
            "generated_answer": answer.generated,
            "strategy": answer.strategy,
            "timings": answer.timings,
        }
        if body.return_trajectories and answer.result is not None:
            out["trajectories"] = [t.to_dict() for t in answer.result.trajectories]
            out["guarded"] = answer.result.guarded  # refinements not searched, and why (loops, wrong_language...)
        return out

    return app


def _check_messages(messages: list[dict], serve: ServeConfig) -> list[dict]:
    if len(messages) > serve.max_messages:
        raise APIError(400, f"at most {serve.max_messages} messages per request", param="messages")
    if messages[-1]["role"] != "user" or not messages[-1]["content"].strip():
        raise APIError(400, "the last message must be a non-empty user turn (the question)", param="messages")
    return messages


def _usage(best) -> dict:
    if best is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    completion = len(best.generated_logprobs)
    prompt = max(0, len(best.sequence_ids) - len(best.answer_logprobs))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


async def _stream(completion_id: str, model: str, events, include_all: bool):
    """Server-sent events in OpenAI's chunk format, sent as the pipeline works: each search of the tree as an
    empty-delta chunk with an `rqrag_step` (OpenAI clients ignore it), then the answer, then `rqrag` in the last
    chunk. A failure after the stream started is an `error` chunk, as OpenAI's own streams do."""
    created = int(time.time())

    def chunk(delta: dict, finish: str | None = None, **more) -> str:
        body = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **more,
        }
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    try:
        async for name, data in events:
            if name == "step":
                yield chunk({}, rqrag_step=data)
            elif name == "answer":
                answer = data["answer"]
                for piece in answer_pieces(answer.text):
                    yield chunk({"content": piece})
                yield chunk({}, "stop", rqrag=rqrag_object(answer, include_all))
    except APIError as error:
        yield f"data: {json.dumps(error.body(), ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"

