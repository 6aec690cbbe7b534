"""The RQ-RAG HTTP server: OpenAI-compatible chat completions plus a plain `/v1/ask` with conversations.

    rqrag serve --config configs/serve/default.yaml            # http://127.0.0.1:8000

    from openai import OpenAI
    client = OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="unused")
    reply = client.chat.completions.create(model="rqrag", messages=[{"role": "user", "content": "Who wrote Hamlet?"}])
    reply.choices[0].message.content, reply.model_extra["rqrag"]["sources"]

Endpoints: `POST /v1/chat/completions` (stream supported; the reply carries an extra `rqrag` object with the
selected trajectory, its sources and timings), `POST /v1/ask` ({question, conversation_id?, retriever?,
strategy?, max_depth?} -> {answer, sources, trajectory, conversation_id, memory}; conversations persisted, and
what the user tells remembered, as `/v1/chat` does),
`GET /v1/models`, `GET /health`, `GET /metrics` (Prometheus).

The decoder is built once in the lifespan; concurrent questions share its decodes, joining at each depth
(`serve/tree_scheduler.py`). The answering endpoints are thin: `/v1/ask`, `/v1/chat` (`chat_routes.py`) and
`/v1/chat/completions` all stand on the conversation service (`serve/conversation_service.py`), which handlers
get as FastAPI dependencies (`dependencies.py`). Services raise domain errors (`rqrag.serve.errors`); one
handler here gives each its HTTP status (`schema.http_error`). Every failure is an OpenAI-shaped error: bad
input is a 4xx with a message, never a 5xx; retrieved text reaches the model only inside the evidence block (and,
in prompted mode, under a system prompt saying it is data, not instructions).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from rqrag.answer import DecodeConfig
from rqrag.serve.answer_service import AnswerService
from rqrag.serve.config import ServeConfig
from rqrag.serve.conversation_service import ConversationService, Turn
from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
from rqrag.serve.errors import NotFound, ServiceError, Unavailable
from rqrag.serve.memory.conversations import ConversationStore
from rqrag.serve.memory.setup import memory_judge, open_memories
from rqrag.serve.server.auth import Authenticator, is_public
from rqrag.serve.server.chat_routes import answer_pieces, chat_router
from rqrag.serve.server.dependencies import ConversationServiceDep, RequestCaller, RequestUser
from rqrag.serve.server.documents_routes import documents_router
from rqrag.serve.server.metrics import ServerMetrics
from rqrag.serve.server.review_routes import review_router
from rqrag.serve.server.schema import APIError, AskRequest, ChatCompletionRequest, http_error
from rqrag.serve.server.sse import DONE, event_stream, sse
from rqrag.serve.server.upload_checks import UploadBodyLimit


logger = logging.getLogger(__name__)


def create_app(
    decode: DecodeConfig, serve: ServeConfig, decoder=None, documents: DocumentsService | None = None, clock=None
) -> FastAPI:
    """The app; `decoder` may be given (tests), otherwise it is built from `decode` when the app starts. `clock`
    (tests): `() -> datetime`, the time memories are told at and relative dates are read from."""
    documents = documents or DocumentsService(DocumentsSettings.from_serve(serve))
    authenticator = Authenticator(serve)
    metrics = ServerMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        nonlocal decoder
        if decoder is None:
            from rqrag.answer import build_decoder

            decoder = build_decoder(decode)
        memories = open_memories(serve) if serve.memories else None
        service = AnswerService(decode, serve, decoder, metrics, documents=documents, memories=memories, clock=clock)
        store = ConversationStore(serve.database_url)
        app.state.service = service
        app.state.conversations = ConversationService(
            service, store, serve, judge=memory_judge(serve, decode), clock=clock
        )
        service.scheduler.start()
        logger.info("rqrag server ready: model %s, %s mode", serve.served_model_name, decoder.mode)
        yield
        await asyncio.to_thread(service.scheduler.stop)
        app.state.conversations.close()
        documents.close()

    app = FastAPI(title="rq-rag", lifespan=lifespan)

    # Added before `guard`, so it sits inside it: guard's metrics count the 413s and 400s it answers.
    # Uploads to /v1/documents get their own, larger limit (`max_upload_bytes`).
    app.add_middleware(
        UploadBodyLimit, max_bytes=serve.max_request_bytes, upload_max_bytes=documents.settings.max_upload_bytes
    )
    app.state.documents = documents
    app.include_router(documents_router())
    app.include_router(review_router())
    app.include_router(chat_router(serve))

    @app.middleware("http")
    async def guard(request: Request, call_next):
        """Who is asking and request metrics, before any handler runs (body size: `BodySizeLimit`)."""
        started = time.perf_counter()
        endpoint = request.url.path
        try:
            # The page's own files are public; everything it then asks for needs the caller (`auth.py`).
            if not is_public(endpoint):
                request.state.caller = await authenticator.identify(request)
            response = await call_next(request)
        except APIError as error:
            response = JSONResponse(error.body(), status_code=error.status)
        metrics.observe(endpoint, response.status_code, time.perf_counter() - started)
        return response

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError):
        """The one place a service's error becomes an HTTP status (`schema.http_error`)."""
        return _error_response(http_error(error))

    @app.exception_handler(APIError)
    async def api_error(request: Request, error: APIError):
        return _error_response(error)

    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    async def database_unavailable(request: Request, error: Exception):
        """The conversations' and memories' database went away (PostgreSQL stopped, a read-only or full disk):
        503, and nothing acknowledged; the pool checks each connection before use (`pool_pre_ping`), so the
        server serves again as soon as the database is back. The log has the driver's words, the reply none."""
        logger.warning("database unavailable for %s: %s", request.url.path, str(error).splitlines()[0][:300])
        message = "the server's database is unavailable right now; nothing was saved, try again shortly"
        return _error_response(http_error(Unavailable(message, code="storage_unavailable")))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError):
        first = error.errors()[0] if error.errors() else {}
        if first.get("type") == "json_invalid":
            detail = (first.get("ctx") or {}).get("error", "")
            return _error_response(APIError(400, f"request body is not valid JSON: {detail}"))
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else first.get("msg", "invalid request")
        return _error_response(APIError(400, message, param=where or None))

    @app.exception_handler(StarletteHTTPException)
    async def http_exception(request: Request, error: StarletteHTTPException):
        return _error_response(APIError(error.status_code, str(error.detail)))

    @app.get("/health")
    async def health():
        return {"status": "ok", "model": serve.served_model_name}

    @app.get("/metrics")
    async def prometheus():
        return Response(metrics.render(), media_type=metrics.content_type)

    @app.get("/v1/me")
    async def me(caller: RequestCaller):
        """Who the server takes the caller to be (the page shows it; a script can check its key)."""
        return {
            "user": caller.display_name,
            "admin": caller.admin,
            "authenticated": caller.authenticated,
            "auth": authenticator.mode,
        }

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
            options.answer_options(),
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
        turn = await conversations.open_turn(user, body.question, body.conversation_id, body.answer_options())
        reply = await conversations.ask(turn)
        answer = reply.answer
        return {
            **answer.to_dict(include_tree=body.return_trajectories),
            "conversation_id": turn.conversation_id,
            "history_turns": turn.history_turns,
            "memory": reply.memory,  # whether the exchange was remembered, as `/v1/chat` tells the page
        }

    return app


def _error_response(error: APIError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


def _usage(best) -> dict:
    if best is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    completion = len(best.generated_logprobs)
    prompt = max(0, len(best.sequence_ids) - len(best.answer_logprobs))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


async def _completion_chunks(conversations: ConversationService, turn: Turn, completion_id: str, model: str, options):
    """OpenAI's chunk format, sent as the pipeline works: each search of the tree as an empty-delta chunk with an
    `rqrag_step` (OpenAI clients ignore it), then the answer, then `rqrag` in the last chunk. A failure after the
    stream started is an `error` chunk, as OpenAI's own streams do."""
    created = int(time.time())

    def chunk(delta: dict, finish: str | None = None, **more):
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model}
        return sse({**body, "choices": [choice], **more})

    yield chunk({"role": "assistant", "content": ""})
    try:
        async for name, data in conversations.events(turn):
            if name == "step":
                yield chunk({}, rqrag_step=data)
            elif name == "answer":
                answer = data["answer"]
                for piece in answer_pieces(answer.text):
                    yield chunk({"content": piece})
                yield chunk({}, "stop", rqrag=answer.to_dict(include_tree=options.return_trajectories))
    except ServiceError as error:
        yield sse(http_error(error).body())
    yield DONE
