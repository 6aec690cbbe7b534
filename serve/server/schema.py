"""Request bodies of the server, validated by pydantic; and the OpenAI-shaped error every failure returns.

Services raise domain errors (`rqrag.serve.errors`); `http_error` is the one place that gives each its HTTP
status. `APIError` is the edge's own error, for what only HTTP knows (a wrong API key, a body too large).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rqrag.serve.answer_options import AnswerOptions, ShortName, Text
from rqrag.serve.errors import BadRequest, Busy, Forbidden, NotFound, ServiceError, Timeout, Unavailable


# A conversation id as the server makes them (uuid4 hex); anything else cannot name a conversation.
ConversationId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "user", "assistant"]
    content: Text

    @field_validator("content", mode="before")
    @classmethod
    def _text_parts(cls, value):
        # OpenAI clients may send content as a list of parts; only text parts mean anything here.
        if isinstance(value, list):
            texts = [p.get("text", "") for p in value if isinstance(p, dict) and p.get("type") == "text"]
            if len(texts) != len(value):
                raise ValueError("only text content parts are supported")
            return "".join(texts)
        return value


class RQRAGOptions(AnswerOptions):
    """Our extension of a chat request (the openai client sends it with `extra_body={"rqrag": {...}}`)."""

    return_trajectories: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # sampling knobs of other servers are accepted and ignored

    model: ShortName
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    rqrag: RQRAGOptions = Field(default_factory=RQRAGOptions)


class AskRequest(AnswerOptions):
    """`POST /v1/ask`, the plain endpoint: one question, of a conversation if `conversation_id` names one."""

    question: Text
    conversation_id: ConversationId | None = None
    return_trajectories: bool = False


class ChatRequest(AnswerOptions):
    """`POST /v1/chat`, the chat page's: one question of a conversation."""

    # Its length is the server's `max_question_chars` / `max_question_tokens`, checked by the conversation
    # service for every route alike.
    question: Text = Field(min_length=1)
    conversation_id: ConversationId | None = None


class APIError(Exception):
    """Raised by handlers; rendered as {"error": {"message", "type", "param", "code"}} with `status`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.headers = headers or {}

    @property
    def type(self) -> str:
        if self.status == 401:
            return "authentication_error"
        if self.status == 403:
            return "permission_error"  # OpenAI's name for a 403
        if self.status == 404:
            return "not_found_error"
        if self.status >= 500:
            return "server_error"
        return "invalid_request_error"

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


# The status of each kind of domain error; any other `ServiceError` (a `ServiceFailure`) is a 500.
HTTP_STATUS: dict[type[ServiceError], int] = {
    BadRequest: 400,
    Forbidden: 403,
    NotFound: 404,
    Busy: 429,
    Timeout: 504,
    Unavailable: 503,  # storage the server cannot write: nothing the client did
}


def http_error(error: ServiceError) -> APIError:
    """A service's error as the HTTP edge answers it: its status and the OpenAI-shaped body."""
    status = next((status for error_type, status in HTTP_STATUS.items() if isinstance(error, error_type)), 500)
    # a 429 says when to ask again (RFC 9110 Retry-After, in seconds)
    headers = {"Retry-After": str(error.retry_after)} if isinstance(error, Busy) else None
    return APIError(status, error.message, code=error.code, param=error.param, headers=headers)
