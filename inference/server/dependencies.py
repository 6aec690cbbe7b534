"""How a handler gets its services and its user: FastAPI dependencies, declared in the handler's signature.

    @router.post("/v1/ask")
    async def ask(body: AskRequest, conversations: ConversationServiceDep, user: RequestUser): ...

The app factory (`app.py`) builds the services — the documents service at once, the answering and conversation
services when the app starts (they need the model) — and keeps them on `app.state`; only these functions read it.
A test may swap any of them with `app.dependency_overrides[answer_service] = ...`.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated

from fastapi import Depends, Request

from rqrag.inference.conversation_service import ConversationService
from rqrag.inference.documents.service import DocumentsService
from rqrag.inference.memory.conversations import DEFAULT_USER
from rqrag.inference.server.schema import APIError
from rqrag.inference.service import AnswerService


USER_HEADER = "x-rqrag-user"
_USER_ID = re.compile(r"^[A-Za-z0-9_.@:-]{1,128}$")


def answer_service(request: Request) -> AnswerService:
    return request.app.state.service


def conversation_service(request: Request) -> ConversationService:
    return request.app.state.conversations


def documents_service(request: Request) -> DocumentsService:
    return request.app.state.documents


def request_user(request: Request) -> str:
    """Who is asking: the `X-Rqrag-User` header (the page sends a random id it keeps), else a digest of the
    bearer key (one user per key), else the single default user. The header is trusted as given: on a server
    shared by people who must not read each other's memories, give each an API key and leave the header out."""
    named = request.headers.get(USER_HEADER)
    if named is not None:
        if not _USER_ID.match(named):
            raise APIError(400, f"{USER_HEADER} must be 1-128 letters, digits or _.@:-", param=USER_HEADER)
        return named
    key = request.headers.get("authorization", "")
    if key.startswith("Bearer ") and len(key) > 7:
        return "key:" + hashlib.sha256(key[7:].encode()).hexdigest()[:16]
    return DEFAULT_USER


AnswerServiceDep = Annotated[AnswerService, Depends(answer_service)]
ConversationServiceDep = Annotated[ConversationService, Depends(conversation_service)]
DocumentsServiceDep = Annotated[DocumentsService, Depends(documents_service)]
RequestUser = Annotated[str, Depends(request_user)]
