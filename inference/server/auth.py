"""Who is asking: the caller of each request, decided once, before any handler runs.

Three modes, chosen by the server's config (`ServeConfig`):

* **users** (`--users FILE`, `inference/users.py`): the key alone decides. No key, or a key that is not in the
  file, is 401; `X-Rqrag-User` is refused (400), so holding a key never lets anyone speak as someone else.
* **one shared key** (`api_key_env`): the key must match (compared in constant time); who is asking is then the
  `X-Rqrag-User` header as given, else one user per key. Everyone with the key may read everyone's data: a
  single person, or a team that trusts each other.
* **open** (neither; the default, bound to 127.0.0.1): the header, else the single default user.

The page's files, `/health` and `/metrics` are public; everything under `/v1/` needs the caller.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import re

from starlette.requests import Request

from rqrag.inference.memory.conversations import DEFAULT_USER
from rqrag.inference.serve_config import ServeConfig
from rqrag.inference.server.schema import APIError
from rqrag.inference.users import Caller, UserFile, UsersError


USER_HEADER = "x-rqrag-user"
_HEADER_USER_ID = re.compile(r"^[A-Za-z0-9_.@:-]{1,128}$")
PUBLIC_PATHS = ("/health", "/metrics", "/")


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith("/ui/")


class Authenticator:
    """`await identify(request)` -> the request's `Caller`, or an `APIError` (400 or 401)."""

    def __init__(self, serve: ServeConfig):
        self.serve = serve
        self.users = UserFile(serve.users) if serve.users else None
        if self.users is not None:
            self.users.users()  # a missing or broken file stops the server at start, not at the first request

    @property
    def mode(self) -> str:
        return "users" if self.users is not None else "key" if self.serve.api_key_env else "open"

    async def identify(self, request: Request) -> Caller:
        authorization = request.headers.get("authorization", "")
        named = request.headers.get(USER_HEADER)
        if self.users is not None:
            if named is not None:
                raise APIError(
                    400,
                    f"{USER_HEADER} is not accepted on a server with users: your API key says who you are",
                    code="user_header_refused",
                    param=USER_HEADER,
                )
            try:
                # scrypt takes ~50 ms the first time a key is seen: off the event loop.
                caller = await asyncio.to_thread(self.users.authenticate, authorization)
            except UsersError as error:
                raise APIError(500, f"the server's users file cannot be read: {error}", code="users_file") from None
            if caller is None:
                raise APIError(401, "missing or unknown API key (Authorization: Bearer ...)", code="invalid_api_key")
            return caller
        if self.serve.api_key_env:
            expected = os.environ.get(self.serve.api_key_env)
            if expected and not same_key(authorization, f"Bearer {expected}"):
                raise APIError(401, "missing or wrong API key (Authorization: Bearer ...)", code="invalid_api_key")
        if named is not None:
            if not _HEADER_USER_ID.match(named):
                raise APIError(400, f"{USER_HEADER} must be 1-128 letters, digits or _.@:-", param=USER_HEADER)
            return Caller(named)
        if authorization.startswith("Bearer ") and len(authorization) > 7:
            return Caller("key:" + hashlib.sha256(authorization[7:].encode()).hexdigest()[:16])
        return Caller(DEFAULT_USER)


def same_key(given: str, expected: str) -> bool:
    """Whether the request's Authorization header is the expected one, in time that does not depend on where
    they differ (a plain `!=` lets a client guess the key a byte at a time from response times)."""
    return hmac.compare_digest(given.encode(), expected.encode())
