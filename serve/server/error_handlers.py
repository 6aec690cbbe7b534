"""The one place an error becomes an HTTP reply: a service's domain error gets its status (`schema.http_error`),
a database gone away is a 503 with nothing acknowledged, a malformed request a 400 that says what is wrong; every
reply is OpenAI-shaped (`schema.APIError`).

    install_error_handlers(app)
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from rqrag.ingest.file_workers import WorkersBusy
from rqrag.serve.errors import ServiceError, Unavailable
from rqrag.serve.server.schema import APIError, http_error


logger = logging.getLogger("rqrag.serve.server.app")  # where these lines were logged before they moved here


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError):
        """The one place a service's error becomes an HTTP status (`schema.http_error`)."""
        return _error_response(http_error(error))

    @app.exception_handler(APIError)
    async def api_error(request: Request, error: APIError):
        return _error_response(error)

    @app.exception_handler(WorkersBusy)
    async def workers_busy(request: Request, error: WorkersBusy):
        """Every file worker stayed busy for the caller's wait (an upload's precheck, a page image): 503, ask again."""
        return _error_response(APIError(503, str(error), code="workers_busy", headers={"Retry-After": "5"}))

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


def _error_response(error: APIError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)
