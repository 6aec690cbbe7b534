"""Who is asking: the caller of each request, decided once, before any handler runs.

Three modes, chosen by the server's config (`ServeConfig`):

* **users** (`--users FILE`, `serve/users.py`): the key alone decides. No key, or a key that is not in the
  file, is 401; `X-Rqrag-User` is refused (400), so holding a key never lets anyone speak as someone else. The
  caller's data is kept under their identity (`Caller.name`, `NAME-UID`), so a name removed and added again is a
  new person; `/v1/me` shows their name (`Caller.display_name`).
* **one shared key** (`api_key_env`): the key must match (compared in constant time); who is asking is then the
  `X-Rqrag-User` header as given, else one user per key. Everyone with the key may read everyone's data: a
  single person, or a team that trusts each other. The key is read from the variable once, at start.
* **open** (neither; the default, bound to 127.0.0.1): the header, else the single default user.

It fails closed. A key source that names nothing refuses to start the server (`AuthSetupError`, a `ConfigError`:
`rqrag serve` prints it and exits 2): `api_key_env` naming a variable that is unset, empty or only whitespace;
`users` or `api_key_env` given as an empty name (which would otherwise be the open mode); a users file that is
missing or has a record that cannot check a key. The message names the variable or file, never a key. A users file
that breaks while the server runs is 503 `users_file` for every keyed request until it is mended; the response
says nothing of where the file is (the server's log does).

The `Authorization` header is `Bearer <key>` with the scheme in any case (`bearer`, `BEARER`): RFC 7235 makes
every auth scheme case-insensitive, and clients differ. The key itself must match exactly, in both keyed modes.

The page's files, `/health` and `/metrics` are public; everything under `/v1/` needs the caller.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import re

from starlette.requests import Request

from rqrag.config_loader import ConfigError
from rqrag.serve.memory.conversations import DEFAULT_USER
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.schema import APIError
from rqrag.serve.users import Caller, UserFile, UsersError, bearer_token


logger = logging.getLogger(__name__)

USER_HEADER = "x-rqrag-user"
_HEADER_USER_ID = re.compile(r"^[A-Za-z0-9_.@:-]{1,128}$")
PUBLIC_PATHS = ("/health", "/ready", "/metrics", "/")  # a load balancer checks /ready with no key


class AuthSetupError(ConfigError):
    """The server's settings name a key source that holds no key: it would answer everyone, so it does not start."""


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith("/ui/")


def _named(setting: str, what: str, value: str | None) -> str | None:
    """`value`, unless it was given as an empty name (`--users ""`), which must not quietly mean "no keys"."""
    if value is not None and not value.strip():
        raise AuthSetupError(f"{setting} is set but empty: give {what}, or leave {setting} out")
    return value


def shared_key(variable: str) -> str:
    """The key in the environment variable `variable`, without the spaces around it; `AuthSetupError` when it is
    unset or holds nothing. The message names the variable only: the value may be a key with a typo."""
    value = os.environ.get(variable)
    if value is None:
        raise AuthSetupError(
            f"api_key_env names {variable}, which is not set in the server's environment: set it to the key clients "
            "must send, or leave api_key_env out"
        )
    if not value.strip():
        raise AuthSetupError(f"api_key_env names {variable}, which is empty: set it to the key clients must send")
    if any(char.isspace() for char in value.strip()):
        # `Bearer <key>` carries one word: no request could ever match, and the operator would not know why.
        raise AuthSetupError(f"api_key_env names {variable}, whose key has spaces inside: a key is one word")
    return value.strip()


class Authenticator:
    """`await identify(request)` -> the request's `Caller`, or an `APIError` (400, 401 or 503). Built at the
    server's start, where it raises `AuthSetupError` rather than let a server with no key answer everyone."""

    def __init__(self, serve: ServeConfig):
        self.serve = serve
        users_path = _named("users", "the users file", serve.users)
        key_env = _named("api_key_env", "the name of the variable that holds the key", serve.api_key_env)
        self._key = shared_key(key_env) if key_env else None
        self.users = UserFile(users_path) if users_path else None
        if self.users is not None:
            try:
                if not self.users.users():  # a missing or broken file stops the server at start
                    logger.warning(
                        "users file %s has no users yet: every request is 401 until one is added", users_path
                    )
            except UsersError as error:
                raise AuthSetupError(str(error)) from None

    @property
    def mode(self) -> str:
        return "users" if self.users is not None else "key" if self._key is not None else "open"

    async def identify(self, request: Request) -> Caller:
        authorization = request.headers.get("authorization", "")
        named = request.headers.get(USER_HEADER)
        if self.users is not None:
            return await self._user(authorization, named)
        token = bearer_token(authorization)
        if self._key is not None and not same_key(f"Bearer {token or ''}", f"Bearer {self._key}"):
            raise APIError(401, "missing or wrong API key (Authorization: Bearer ...)", code="invalid_api_key")
        if named is not None:
            if not _HEADER_USER_ID.match(named):
                raise APIError(400, f"{USER_HEADER} must be 1-128 letters, digits or _.@:-", param=USER_HEADER)
            return Caller(named)
        if token:
            return Caller("key:" + hashlib.sha256(token.encode()).hexdigest()[:16])
        return Caller(DEFAULT_USER)

    async def _user(self, authorization: str, named: str | None) -> Caller:
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
            # The operator needs the file and what is wrong with it; a client needs neither (nor the path).
            logger.error("cannot check a key: %s", error)
            raise APIError(
                503, "the server cannot check keys now: its users file is unreadable", code="users_file"
            ) from None
        if caller is None:
            raise APIError(401, "missing or unknown API key (Authorization: Bearer ...)", code="invalid_api_key")
        return caller


def same_key(given: str, expected: str) -> bool:
    """Whether two keys (as `Bearer <key>`, the header's canonical form) are the same, in time that does not depend
    on where they differ (a plain `!=` lets a client guess the key a byte at a time from response times)."""
    return hmac.compare_digest(given.encode(), expected.encode())
