"""Request-body size limit as ASGI middleware: counted while reading, so chunked bodies are bounded too.

A `Content-Length` header over the limit is refused before anything is read. A body without one
(`Transfer-Encoding: chunked`) is counted chunk by chunk as the app reads it; at the first chunk past the limit
the client gets 413 and the app is told the client disconnected, so memory holds at most the limit plus one chunk, whatever the client
sends. A malformed `Content-Length` gets 400. Only this middleware produces those answers: an error raised
anywhere else (a `ValueError` in a handler included) keeps its own status. `UploadBodyLimit` gives
`POST /v1/documents` a larger limit than every other request (the file plus its multipart envelope).
"""

from __future__ import annotations

import json

from rqrag.serve.server.schema import APIError


UPLOAD_PATH = "/v1/documents"
MULTIPART_ENVELOPE_BYTES = 64 * 1024  # boundaries, part headers and the `index` field around the file


class BodySizeLimit:
    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
                if length < 0:
                    raise ValueError(length)
            except ValueError:
                await self._refuse(send, 400, "bad Content-Length header", None)
                return
            if length > self.max_bytes:
                await self._refuse(send, 413, f"request body over {self.max_bytes} bytes", "request_too_large")
                return

        received = 0
        refused = False

        async def counting_receive():
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # Answer now and tell the app the client is gone: it stops reading (FastAPI would turn an
                    # exception raised here into its own 400), and whatever it still sends is dropped below.
                    refused = True
                    await self._refuse(send, 413, f"request body over {self.max_bytes} bytes", "request_too_large")
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message):
            if not refused:
                await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not refused:
                raise  # the app's own error; after a refusal, only the consequences of the disconnect land here

    @staticmethod
    async def _refuse(send, status: int, message: str, code: str | None) -> None:
        body = json.dumps(APIError(status, message, code=code).body()).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


class UploadBodyLimit:
    """`BodySizeLimit` with a larger limit on `POST /v1/documents` (the file plus its multipart envelope)."""

    def __init__(self, app, max_bytes: int, upload_max_bytes: int, upload_path: str = UPLOAD_PATH):
        self.default = BodySizeLimit(app, max_bytes)
        self.uploads = BodySizeLimit(app, upload_max_bytes + MULTIPART_ENVELOPE_BYTES)
        self.upload_path = upload_path

    async def __call__(self, scope, receive, send):
        upload = (
            scope["type"] == "http"
            and scope.get("method") == "POST"
            and scope.get("path", "").rstrip("/") == self.upload_path
        )
        await (self.uploads if upload else self.default)(scope, receive, send)
