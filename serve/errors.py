"""What a service can refuse or fail with, in the service's own words: no HTTP status here.

The answering, conversation and documents services (`serve/answer_service.py`, `serve/conversation_service.py`,
`serve/documents/service.py`) raise these; the HTTP server maps each class to its status and the OpenAI-shaped
error body in one place (`serve/server/schema.py`, `http_status`). A command-line caller can catch them the same
way, and read `message`, `code` (a stable machine-readable reason) and `param` (the request field at fault).

    raise BadRequest("max_depth must be at most 4", param="max_depth")
    raise NotFound("conversation 'x' not found", code="conversation_not_found", param="conversation_id")
"""

from __future__ import annotations


class ServiceError(Exception):
    """A request a service could not serve; the subclass says why."""

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param


class BadRequest(ServiceError):
    """The request itself is wrong (an unknown retriever, a depth over the limit, an empty question)."""


class NotFound(ServiceError):
    """What the request names does not exist, or belongs to another user (the two look the same)."""


class Forbidden(ServiceError):
    """The caller may see what the request names but not change it (a shared library, for a user who is not an
    admin)."""


class Busy(ServiceError):
    """Too much is already waiting; the same request may succeed later, after about `retry_after` seconds (the HTTP
    edge says so in a Retry-After header)."""

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None, retry_after: int = 1):
        super().__init__(message, code=code, param=param)
        self.retry_after = max(1, int(retry_after))


class Timeout(ServiceError):
    """No answer within the service's time limit."""


class ServiceFailure(ServiceError):
    """The service failed on a valid request (the decoder raised, nothing could be answered, a store failed)."""


class Unavailable(ServiceFailure):
    """The service cannot serve a valid request now, for a fault on its side that someone can clear (a document
    library on a read-only or full disk); the same request may succeed once it is. The message says so without
    saying where: server paths stay in the server's log."""
