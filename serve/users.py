"""The server's users: who each API key belongs to, kept in a file (or a database row) that holds no key.

    rqrag users add alice --file users.json            # prints alice's new key, once
    rqrag users add root --admin --file users.json
    rqrag serve --config configs/serve/default.yaml --users users.json
    rqrag users add alice --file postgresql+psycopg://rqrag@db/rqrag   # replicas: every server reads the database

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

Each user also gets a random identity (`uid`, 16 upper-case hex digits) when added, and their data is kept under
`NAME-UID` (`Caller.name`): a name removed and added again is a new person who sees nothing of the old one's. The
upper-case digits keep these keys apart from every user name (lower case), so a file from before identities, whose
users' data is keyed by their bare name, keeps working as it was. A removed user's identity stays in the file
(`removed`) until `rqrag users remove NAME --delete_data` has deleted their data, so that command still finds it.
Every record is checked when the file is read: one that could not check a key (an empty hash, a bad salt, no key
id) makes the whole file unreadable, never a user who cannot be authenticated or anyone who can.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as dt
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from dataclasses import dataclass

from rqrag.serve.users_storage import users_storage


FORMAT_VERSION = 1
KEY_PREFIX = "rqrag_"
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
USER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
UID = re.compile(r"[0-9A-F]{16}")
# Whose data: a user's name (a file from before identities) or NAME-UID; both are valid library names after
# `user__` (at most 6 + 32 + 17 characters, letters, digits, '-' and '_').
DATA_OWNER = re.compile(rf"{USER_NAME.pattern}(?:-{UID.pattern})?")
_KEY = re.compile(r"rqrag_([0-9a-f]{8})_([A-Za-z0-9_-]{43})")
_KEY_ID = re.compile(r"[0-9a-f]{8}")
_MAX_REMEMBERED_KEYS = 10_000


class UsersError(ValueError):
    """A users file that cannot be read, or a change to it that cannot be made (a clear message)."""


@dataclass(frozen=True)
class Caller:
    """Who is asking.

    `name` is whose data the request reads and writes: every store (conversations, memories, the private library
    `user__NAME`, ingestion jobs) is keyed by it, and the routes know no other owner. For a user of the users file
    it is their identity (`data_owner`), so that the owner is decided here and nowhere else. `display_name` is what
    people see (the user's name; by default `name`). `authenticated`: it comes from a key in the users file (not
    from a header)."""

    name: str
    admin: bool = False
    authenticated: bool = False
    display_name: str = ""

    def __post_init__(self):
        if not self.display_name:
            object.__setattr__(self, "display_name", self.name)


def check_name(name: str) -> str:
    if not USER_NAME.fullmatch(name or ""):
        raise UsersError(
            f"user name {name!r}: 1-32 lowercase letters, digits, '_' or '-', starting with a letter or digit"
        )
    return name


def data_owner(name: str, uid: str | None) -> str:
    """The key a user's data is kept under: `NAME-UID`, or the bare name for a user added before identities."""
    return f"{name}-{uid}" if uid else name


def check_owner(owner: str) -> str:
    """`owner` if it is a key `data_owner` can give (what `rqrag users remove --delete_data` may delete), else
    `UsersError`."""
    if not DATA_OWNER.fullmatch(owner or ""):
        raise UsersError(f"{owner!r} is not a user's name or NAME-UID identity")
    return owner


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None for any other header.

    The scheme is matched without regard to case, as RFC 7235 (section 2.1) says of every auth scheme: `bearer`
    and `BEARER` are `Bearer`. The token is taken exactly as sent, less the spaces around it, and is one word."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or any(char.isspace() for char in token):
        return None
    return token


def _hash(secret: str, salt: bytes, params: dict) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=params["n"], r=params["r"], p=params["p"], dklen=32)


def _base64(value) -> bytes | None:
    try:
        return base64.b64decode(value, validate=True) if isinstance(value, str) else None
    except (binascii.Error, ValueError):
        return None


def _check_scrypt(params) -> bool:
    if not isinstance(params, dict) or set(params) != {"n", "r", "p"}:
        return False
    if not all(isinstance(params[k], int) and not isinstance(params[k], bool) for k in params):
        return False
    n, r, p = params["n"], params["r"], params["p"]
    # A floor (a record must not make its key cheap to guess) and a ceiling on p (it multiplies the time).
    return n >= 2**10 and n & (n - 1) == 0 and r >= 1 and 1 <= p <= 16 and _scrypt_runs(n, r, p)


@functools.lru_cache(maxsize=16)
def _scrypt_runs(n: int, r: int, p: int) -> bool:
    """Whether hashlib computes scrypt with these parameters (OpenSSL refuses some: over 32 MiB, or n too large
    for r). Tried once per set in a process, so that such a record is a broken file at start, not a 500 at its
    user's first request."""
    try:
        _hash("", bytes(16), {"n": n, "r": r, "p": p})
    except (ValueError, MemoryError):
        return False
    return True


def _check_record(record, where: str) -> dict:
    """`record` if it can check a key (a broken one would let no one in, or be the 500 of every request)."""
    if not isinstance(record, dict):
        raise UsersError(f"{where}: a user is a mapping, not {type(record).__name__}")
    name = record.get("name")
    if not isinstance(name, str) or not USER_NAME.fullmatch(name):
        raise UsersError(f"{where}: user name {name!r} is not a valid name")
    where = f"{where} ({name})"
    if not isinstance(record.get("key_id"), str) or not _KEY_ID.fullmatch(record["key_id"]):
        raise UsersError(f"{where}: no valid key id (8 hex digits)")
    salt = _base64(record.get("salt"))
    if salt is None or len(salt) < 16:
        raise UsersError(f"{where}: the salt is empty or not base64 of at least 16 bytes")
    digest = _base64(record.get("hash"))
    if digest is None or len(digest) != 32:
        raise UsersError(f"{where}: the key hash is empty or not base64 of 32 bytes")
    if not _check_scrypt(record.get("scrypt")):
        raise UsersError(f"{where}: the scrypt parameters are not n (a power of 2, >= 1024), r and p")
    if not isinstance(record.get("admin", False), bool):
        raise UsersError(f"{where}: admin must be true or false")  # "false" as a string would be an admin
    _check_uid(record, where)
    return record


def _check_uid(record: dict, where: str) -> None:
    uid = record.get("uid")
    if uid is not None and (not isinstance(uid, str) or not UID.fullmatch(uid)):
        raise UsersError(f"{where}: the identity (uid) must be 16 upper-case hex digits, or absent")


def _check_former(record, where: str) -> None:
    """A removed user's entry: the name and identity their data may still be kept under."""
    name = record.get("name") if isinstance(record, dict) else None
    if not isinstance(name, str) or not USER_NAME.fullmatch(name) or not record.get("uid"):
        raise UsersError(f"{where}: a removed user needs a name and an identity (uid)")
    _check_uid(record, where)


class UserFile:
    """The users file at `path` (JSON): read on demand, written atomically, checked by `authenticate`."""

    def __init__(self, path: str | os.PathLike):
        self.storage = users_storage(path)  # a file, or the row of a database the servers share
        self.where = self.storage.where
        self.path = getattr(self.storage, "path", None)  # the file's path (None in a database)
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self._users: dict[str, dict] = {}
        self._removed: list[dict] = []  # {name, uid, removed}: identities whose data may still be kept
        self._by_key_id: dict[str, dict] = {}
        self._known_keys: dict[bytes, Caller] = {}

    # ------------------------------------------------------------------------------------------ reading

    def _load(self) -> None:
        """Reread the file when it changed since the last look (and forget every key checked before)."""
        stamp = self.storage.stamp()
        if stamp == self._stamp and stamp is not None:
            return
        if stamp is None:
            raise UsersError(f"{self.where} does not exist (create it with `rqrag users add NAME --file ...`)")
        try:
            data = json.loads(self.storage.read())
            records, removed = data["users"], data.get("removed", [])
            if not isinstance(records, list) or not isinstance(removed, list):
                raise TypeError("'users' and 'removed' must be lists")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise UsersError(f"{self.where} is not a users file: {error}") from None
        if data.get("version") != FORMAT_VERSION:
            raise UsersError(f"{self.where}: version {data.get('version')!r}, expected {FORMAT_VERSION}")
        users, by_key_id = {}, {}
        for number, record in enumerate(records, 1):
            _check_record(record, f"{self.where}, user #{number}")
            if record["name"] in users or record["key_id"] in by_key_id:
                raise UsersError(f"{self.where}: user {record['name']!r} or their key id is there twice")
            users[record["name"]] = by_key_id[record["key_id"]] = record
        for number, former in enumerate(removed, 1):
            _check_former(former, f"{self.where}, removed user #{number}")
        self._users, self._removed, self._by_key_id, self._stamp = users, removed, by_key_id, stamp
        self._known_keys = {}

    def users(self) -> list[dict]:
        """Every user: name, admin, key id and when they were added (never the hash)."""
        with self._lock:
            self._load()
            return [
                {key: record.get(key) for key in ("name", "admin", "key_id", "created")}
                for record in sorted(self._users.values(), key=lambda r: r["name"])
            ]

    def owners(self, name: str) -> list[str]:
        """Every key data of `name` may be kept under: the user's own now, those of earlier users of that name
        whose data was not deleted yet, and the bare name (a user added before identities). What
        `rqrag users remove NAME --delete_data` deletes."""
        check_name(name)
        with self._lock:
            self._load()
            current = self._users.get(name)
            former = [record["uid"] for record in self._removed if record["name"] == name]
        owners = [data_owner(name, current.get("uid"))] if current is not None else []
        owners += [data_owner(name, uid) for uid in former]
        return owners if name in owners else [*owners, name]

    def authenticate(self, authorization: str) -> Caller | None:
        """The user whose key the `Authorization: Bearer ...` header carries (any case of "Bearer"), or None."""
        key = bearer_token(authorization)
        match = _KEY.fullmatch(key) if key else None
        if match is None:
            return None
        digest = hashlib.sha256(key.encode()).digest()
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
        owner = data_owner(record["name"], record.get("uid"))
        caller = Caller(owner, record.get("admin", False), authenticated=True, display_name=record["name"])
        with self._lock:
            if self._by_key_id.get(match.group(1)) is record:  # the file did not change while we hashed
                if len(self._known_keys) >= _MAX_REMEMBERED_KEYS:
                    self._known_keys.clear()
                self._known_keys[digest] = caller
        return caller

    # ------------------------------------------------------------------------------------------ writing

    @contextlib.contextmanager
    def _editing(self):
        """The users (a dict by name) and the removed identities (a list) to change, with every other writer kept
        out (a lock file, or the database row's lock); written back atomically (a file: mode 0600)."""
        with self.storage.editing() as write:
            with self._lock:
                self._stamp = None
                if self.storage.stamp() is not None:
                    self._load()
                    users, removed = dict(self._users), list(self._removed)
                else:
                    users, removed = {}, []
                yield users, removed
                document = {"version": FORMAT_VERSION, "users": list(users.values()), "removed": removed}
                write(json.dumps(document, indent=2) + "\n")
                self._stamp = None

    def add(self, name: str, admin: bool = False) -> str:
        """Add `name` with a new random key and identity; returns the key (shown once: only its hash is kept)."""
        check_name(name)
        with self._editing() as (users, removed):
            if name in users:
                raise UsersError(f"user {name!r} already exists (remove them first to give a new key)")
            key_id = _unused(lambda: secrets.token_hex(4), {record["key_id"] for record in users.values()})
            # A new identity even for a name used before: the new user must not see an earlier one's data.
            uids = {record.get("uid") for record in [*users.values(), *removed]}
            uid = _unused(lambda: secrets.token_hex(8).upper(), uids)
            secret = secrets.token_urlsafe(32)
            salt = secrets.token_bytes(16)
            users[name] = {
                "name": name,
                "uid": uid,
                "admin": bool(admin),
                "key_id": key_id,
                "salt": base64.b64encode(salt).decode(),
                "hash": base64.b64encode(_hash(secret, salt, SCRYPT)).decode(),
                "scrypt": dict(SCRYPT),
                "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            }
        return f"{KEY_PREFIX}{key_id}_{secret}"

    def remove(self, name: str) -> bool:
        """Remove `name` (their key stops working at once); False when there is no such user. Their identity is
        kept among the removed until `forget_removed`, so their data can still be found and deleted."""
        with self._editing() as (users, removed):
            record = users.pop(name, None)
            if record is not None and record.get("uid"):
                when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
                removed.append({"name": name, "uid": record["uid"], "removed": when})
            return record is not None

    def forget_removed(self, name: str) -> int:
        """Drop the removed identities of `name` (once their data is deleted); returns how many there were."""
        check_name(name)
        with self._editing() as (_, removed):
            kept = [record for record in removed if record["name"] != name]
            dropped = len(removed) - len(kept)
            removed[:] = kept
        return dropped


def _unused(draw, taken: set) -> str:
    value = draw()
    while value in taken:
        value = draw()
    return value
