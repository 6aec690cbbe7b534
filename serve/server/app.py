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
`GET /v1/models`, `GET /health` (alive), `GET /ready` (ready for traffic: a load balancer's check; 503 while starting or
draining), `GET /metrics` (Prometheus). Several servers may share one PostgreSQL behind a load balancer: every piece
of state is in the database (docs/scale.md).

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
from contextlib import asynccontextmanager
from types import SimpleNamespace

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from rqrag.answer import DecodeConfig
from rqrag.serve.answer_service import AnswerService
from rqrag.serve.conversation_service import ConversationService
from rqrag.serve.deployment_limits import DeploymentLimits
from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
from rqrag.serve.memory.conversations import ConversationStore
from rqrag.serve.memory.setup import memory_judge, open_memories
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.answer_routes import answer_router
from rqrag.serve.server.auth import Authenticator, is_public
from rqrag.serve.server.body_limit import UploadBodyLimit
from rqrag.serve.server.chat_routes import chat_router
from rqrag.serve.server.dependencies import RequestCaller
from rqrag.serve.server.documents_routes import documents_router
from rqrag.serve.server.error_handlers import install_error_handlers
from rqrag.serve.server.health_routes import health_router
from rqrag.serve.server.metrics import ServerMetrics
from rqrag.serve.server.review_routes import review_router
from rqrag.serve.server.schema import APIError
from rqrag.serve.server.source_routes import source_router


logger = logging.getLogger(__name__)


def review_writing(decode) -> dict:
    """The server's writer settings for its reviews' written texts: those of its answers, when they are written."""
    from dataclasses import fields

    from rqrag.writing_config import WritingConfig, writes

    return {f.name: getattr(decode, f.name) for f in fields(WritingConfig)} if writes(decode) else {}


def _start_services(app: FastAPI, decode, serve: ServeConfig, decoder, documents, metrics, clock):
    """The services behind the routes, started: the answer service and its model thread, the conversations, the
    deployment-wide counts and the job workers. Returns the answer service and the counts (stopped at shutdown)."""
    memories = open_memories(serve) if serve.memories else None
    # Each user's questions in flight, counted over every server sharing the database (`deployment_limits.py`)
    limits = DeploymentLimits(serve.database_url, serve.max_waiting_per_user, serve.job_lease_seconds)
    service = AnswerService(
        decode, serve, decoder, metrics, documents=documents, memories=memories, clock=clock, limits=limits
    )
    store = ConversationStore(serve.database_url)
    app.state.service = service
    app.state.conversations = ConversationService(
        service, store, serve, judge=memory_judge(serve, decode), clock=clock
    )
    service.scheduler.start()
    limits.start()
    documents.start()  # jobs queued before a restart, or by another server, run from now on
    return service, limits


def create_app(
    decode: DecodeConfig, serve: ServeConfig, decoder=None, documents: DocumentsService | None = None, clock=None
) -> FastAPI:
    """The app; `decoder` may be given (tests), otherwise it is built from `decode` when the app starts. `clock`
    (tests): `() -> datetime`, the time memories are told at and relative dates are read from."""
    documents = documents or DocumentsService(DocumentsSettings.from_serve(serve))
    documents.reviews.writing = review_writing(decode)
    authenticator = Authenticator(serve)
    metrics = ServerMetrics()
    state = SimpleNamespace(ready=False)  # ready: started and not draining (GET /ready, for a load balancer)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        nonlocal decoder
        if decoder is None:
            from rqrag.answer import build_decoder

            decoder = build_decoder(decode)
        service, limits = _start_services(app, decode, serve, decoder, documents, metrics, clock)
        state.ready = True
        logger.info("rqrag server ready: model %s, %s prompting", serve.served_model_name, decoder.prompting)
        yield
        # SIGTERM: uvicorn has stopped listening and let the requests in flight end; the running job gets
        # `drain_seconds` to end, then is handed back to the other servers.
        state.ready = False
        await asyncio.to_thread(documents.close, serve.drain_seconds)
        await asyncio.to_thread(service.scheduler.stop)
        limits.close()
        app.state.conversations.close()

    app = FastAPI(title="rq-rag", lifespan=lifespan)

    # Added before `guard`, so it sits inside it: guard's metrics count the 413s and 400s it answers.
    # Uploads to /v1/documents get their own, larger limit (`max_upload_bytes`).
    app.add_middleware(
        UploadBodyLimit, max_bytes=serve.max_request_bytes, upload_max_bytes=documents.settings.max_upload_bytes
    )
    app.state.documents = documents
    app.include_router(documents_router())
    app.include_router(review_router())
    app.include_router(source_router())
    app.include_router(chat_router(serve))
    app.include_router(answer_router(serve))
    app.include_router(health_router(serve, metrics, state))
    install_error_handlers(app)

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

    @app.get("/v1/me")
    async def me(caller: RequestCaller):
        """Who the server takes the caller to be (the page shows it; a script can check its key)."""
        return {
            "user": caller.display_name,
            "admin": caller.admin,
            "authenticated": caller.authenticated,
            "auth": authenticator.mode,
        }

    return app
