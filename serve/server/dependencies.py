"""How a handler gets its services and its user: FastAPI dependencies, declared in the handler's signature.

    @router.post("/v1/ask")
    async def ask(body: AskRequest, conversations: ConversationServiceDep, user: RequestUser): ...

The app factory (`app.py`) builds the services — the documents service at once, the answering and conversation
services when the app starts (they need the model) — and keeps them on `app.state`; only these functions read it.
A test may swap any of them with `app.dependency_overrides[answer_service] = ...`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from rqrag.serve.answer_service import AnswerService
from rqrag.serve.conversation_service import ConversationService
from rqrag.serve.documents.service import DocumentsService
from rqrag.serve.users import Caller


def answer_service(request: Request) -> AnswerService:
    return request.app.state.service


def conversation_service(request: Request) -> ConversationService:
    return request.app.state.conversations


def documents_service(request: Request) -> DocumentsService:
    return request.app.state.documents


def request_caller(request: Request) -> Caller:
    """Who is asking, as the server's guard decided before the handler (`auth.py`: the key's user with
    `--users`, else the `X-Rqrag-User` header or the default user)."""
    return request.state.caller


def request_user(request: Request) -> str:
    return request.state.caller.name


AnswerServiceDep = Annotated[AnswerService, Depends(answer_service)]
ConversationServiceDep = Annotated[ConversationService, Depends(conversation_service)]
DocumentsServiceDep = Annotated[DocumentsService, Depends(documents_service)]
RequestUser = Annotated[str, Depends(request_user)]
RequestCaller = Annotated[Caller, Depends(request_caller)]
