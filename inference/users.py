"""The server's users: who each API key belongs to, kept in a file that holds no key.

    rqrag users add alice --file users.json            # prints alice's new key, once
    rqrag users add root --admin --file users.json
    rqrag serve --config configs/serve/default.yaml --users users.json

    users = UserFile("users.json")
    users.add("alice")                                  # -> the key "rqrag_3f9c0a1e_..." (never stored)
    users.authenticate("Bearer rqrag_3f9c0a1e_...")     # -> Caller(name="alice", admin=False)

A key is `rqrag_<key id>_<secret>`. The key id (8 hex digits, random) says which user's record to check, so a
request costs one hash, not one per user; the secret (32 random bytes) is checked against a salted scrypt hash
(`hashlib.scrypt`, n=2^14, r=8, p=1: ~50 ms and 16 MiB per try), compared in constant time. Only the key id, the
salt and the hash are written; a stolen file does not let anyone in.

A key checked once is remembered in this process (by its SHA-256) until the file changes, so a busy client does not
pay scrypt per request; `rqrag users remove` rewrites the file and the server, which looks at its modification
time on every request, forgets every key at once. Writes are atomic (a temporary file renamed over the old one)
and serialised with a lock file; the file is created readable by its owner only.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path


FORMAT_VERSION = 1
KEY_PREFIX = "rqrag_"
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
USER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_KEY = re.compile(r"rqrag_([0-9a-f]{8})_([A-Za-z0-9_-]{43})")
_MAX_REMEMBERED_KEYS = 10_000


class UsersError(ValueError):
    """A users file that cannot be read, or a change to it that cannot be made (a clear message)."""


@dataclass(frozen=True)
class Caller:
    """Who is asking. `authenticated`: the name comes from a key in the users file (not from a header)."""

    name: str
    admin: bool = False
    authenticated: bool = False


def check_name(name: str) -> str:
    if not USER_NAME.fullmatch(name or ""):
        raise UsersError(
            f"user name {name!r}: 1-32 lowercase letters, digits, '_' or '-', starting with a letter or digit"
        )
    return name


def _hash(secret: str, salt: bytes, params: dict) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=params["n"], r=params["r"], p=params["p"], dklen=32)


class UserFile:
    """The users file at `path` (JSON): read on demand, written atomically, checked by `authenticate`."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self._users: dict[str, dict] = {}
        self._by_key_id: dict[str, dict] = {}
        self._known_keys: dict[bytes, Caller] = {}

    # ------------------------------------------------------------------------------------------ reading

    def _file_stamp(self) -> tuple | None:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def _load(self) -> None:
        """Reread the file when it changed since the last look (and forget every key checked before)."""
        stamp = self._file_stamp()
        if stamp == self._stamp and stamp is not None:
            return
        if stamp is None:
            raise UsersError(
                f"users file {self.path} does not exist (create it with `rqrag users add NAME --file ...`)"
            )
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            users = {record["name"]: record for record in data["users"]}
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise UsersError(f"users file {self.path} is not a users file: {error}") from None
        if data.get("version") != FORMAT_VERSION:
            raise UsersError(f"users file {self.path}: version {data.get('version')!r}, expected {FORMAT_VERSION}")
        self._users, self._stamp = users, stamp
        self._by_key_id = {record["key_id"]: record for record in users.values()}
        self._known_keys = {}

    def users(self) -> list[dict]:
        """Every user: name, admin, key id and when they were added (never the hash)."""
        with self._lock:
            self._load()
            return [
                {key: record[key] for key in ("name", "admin", "key_id", "created")}
                for record in sorted(self._users.values(), key=lambda r: r["name"])
            ]

    def authenticate(self, authorization: str) -> Caller | None:
        """The user whose key the `Authorization: Bearer ...` header carries, or None."""
        scheme, _, key = (authorization or "").partition(" ")
        match = _KEY.fullmatch(key.strip()) if scheme.lower() == "bearer" else None
        if match is None:
            return None
        digest = hashlib.sha256(key.strip().encode()).digest()
        with self._lock:
            self._load()
            known = self._known_keys.get(digest)
            record = self._by_key_id.get(match.group(1))
        if known is not None:
            return known
        if record is None:
            return None
        salt = base64.b64decode(record["salt"])
        expected = base64.b64decode(record["hash"])
        if not hmac.compare_digest(_hash(match.group(2), salt, record["scrypt"]), expected):
            return None
        caller = Caller(record["name"], bool(record["admin"]), authenticated=True)
        with self._lock:
            if self._by_key_id.get(match.group(1)) is record:  # the file did not change while we hashed
                if len(self._known_keys) >= _MAX_REMEMBERED_KEYS:
                    self._known_keys.clear()
                self._known_keys[digest] = caller
        return caller

    # ------------------------------------------------------------------------------------------ writing

    @contextlib.contextmanager
    def _editing(self):
        """The users as a dict to change, under the lock file; written back atomically, mode 0600."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with self._lock:
                self._stamp = None
                if self.path.exists():
                    self._load()
                    users = dict(self._users)
                else:
                    users = {}
                yield users
                body = json.dumps({"version": FORMAT_VERSION, "users": list(users.values())}, indent=2)
                fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as out:
                        out.write(body + "\n")
                    os.chmod(tmp, 0o600)
                    os.replace(tmp, self.path)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
                self._stamp = None

    def add(self, name: str, admin: bool = False) -> str:
        """Add `name` with a new random key; returns the key (shown once: only its hash is kept)."""
        check_name(name)
        with self._editing() as users:
            if name in users:
                raise UsersError(f"user {name!r} already exists (remove them first to give a new key)")
            taken = {record["key_id"] for record in users.values()}
            key_id = secrets.token_hex(4)
            while key_id in taken:
                key_id = secrets.token_hex(4)
            secret = secrets.token_urlsafe(32)
            salt = secrets.token_bytes(16)
            users[name] = {
                "name": name,
                "admin": bool(admin),
                "key_id": key_id,
                "salt": base64.b64encode(salt).decode(),
                "hash": base64.b64encode(_hash(secret, salt, SCRYPT)).decode(),
                "scrypt": dict(SCRYPT),
                "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            }
        return f"{KEY_PREFIX}{key_id}_{secret}"

    def remove(self, name: str) -> bool:
        """Remove `name` (their key stops working at once); False when there is no such user."""
        with self._editing() as users:
            return users.pop(name, None) is not None
