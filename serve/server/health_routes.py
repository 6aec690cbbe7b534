"""The routes a load balancer and a monitoring system read: liveness, readiness and Prometheus metrics.

    curl localhost:8000/health     # {"status": "ok"}: the process answers
    curl localhost:8000/ready      # 200 {"status": "ready", "server": "host:pid:tail"}; 503 while starting, or
                                   #   when the database does not answer (HAProxy asks it every second)
    curl localhost:8000/metrics    # Prometheus text

All three are public (`auth.PUBLIC_PATHS`): a balancer or a scraper has no user's key. While a server drains
(after SIGTERM) its port is closed, so a balancer's check fails and the replica leaves the rotation (docs/scale.md).
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from rqrag.serve.database import database_answers
from rqrag.serve.documents.job_queue import server_id
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.metrics import ServerMetrics


def health_router(serve: ServeConfig, metrics: ServerMetrics, state: SimpleNamespace) -> APIRouter:
    """`state.ready`: set by the app once its services have started, cleared when it drains."""
    router = APIRouter()

    @router.get("/health")
    async def health():
        """Liveness: the process answers."""
        return {"status": "ok", "model": serve.served_model_name}

    @router.get("/ready")
    async def ready():
        """Readiness: 200 once the model is loaded and the database answers; 503 otherwise."""
        if not state.ready:
            return JSONResponse({"status": "not_ready"}, status_code=503)
        try:
            await asyncio.to_thread(database_answers, serve.database_url)
        except Exception as error:
            return JSONResponse({"status": "database_unavailable", "detail": type(error).__name__}, status_code=503)
        return {"status": "ready", "model": serve.served_model_name, "server": server_id()}

    @router.get("/metrics")
    async def prometheus():
        return Response(metrics.render(), media_type=metrics.content_type)

    return router
