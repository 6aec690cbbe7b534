"""The users file and `rqrag users`: keys are shown once and never stored, checked in constant time, and a removed
user's key stops working at once, also in a process that already checked it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from rqrag.inference import users as users_module
from rqrag.inference.users import Caller, UserFile, UsersError


def test_a_key_works_for_its_user_only_and_the_file_keeps_no_key(tmp_path):
    path = tmp_path / "users.json"
    users = UserFile(path)
    alice, root = users.add("alice"), users.add("root", admin=True)
    assert alice != root and alice.startswith("rqrag_")
    assert users.authenticate(f"Bearer {alice}") == Caller("alice", admin=False, authenticated=True)
    assert users.authenticate(f"Bearer {root}") == Caller("root", admin=True, authenticated=True)
    text = path.read_text()
    secret = alice.split("_", 2)[2]  # rqrag_<key id>_<secret>: the secret itself may hold "_" (base64url)
    assert alice not in text and secret not in text  # only a salted hash of it
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    # Another process (a fresh reader) agrees.
    assert UserFile(path).authenticate(f"Bearer {alice}").name == "alice"


@pytest.mark.parametrize(
    "header",
    ["", "Bearer", "Bearer ", "Basic abc", "Bearer rqrag_00000000_" + "A" * 43, "bearer nonsense", "Bearer ../../x"],
)
def test_anything_but_a_known_key_is_no_one(tmp_path, header):
    users = UserFile(tmp_path / "users.json")
    users.add("alice")
    assert users.authenticate(header) is None


def test_a_key_with_one_changed_character_is_refused(tmp_path):
    users = UserFile(tmp_path / "users.json")
    key = users.add("alice")
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert users.authenticate(f"Bearer {tampered}") is None
    other_id = "rqrag_" + ("0" * 8) + key[len("rqrag_") + 8 :]  # alice's secret under another key id
    assert users.authenticate(f"Bearer {other_id}") is None


def test_the_hash_is_compared_in_constant_time(tmp_path, monkeypatch):
    compared = []
    real = users_module.hmac.compare_digest

    def compare_digest(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(users_module.hmac, "compare_digest", compare_digest)
    users = UserFile(tmp_path / "users.json")
    key = users.add("alice")
    users.authenticate(f"Bearer {key[:-1]}x")
    assert len(compared) == 1 and len(compared[0][0]) == 32


def test_removing_a_user_revokes_a_key_already_checked(tmp_path):
    path = tmp_path / "users.json"
    server_side = UserFile(path)
    key = UserFile(path).add("bob")
    assert server_side.authenticate(f"Bearer {key}").name == "bob"  # now remembered by this process
    assert UserFile(path).remove("bob") is True  # another process (the CLI) edits the file
    assert server_side.authenticate(f"Bearer {key}") is None
    assert UserFile(path).remove("bob") is False


def test_names_and_files_are_checked(tmp_path):
    users = UserFile(tmp_path / "users.json")
    for bad in ("Alice", "../root", "a b", "", "x" * 33, "user__x'; drop"):
        with pytest.raises(UsersError):
            users.add(bad)
    users.add("alice")
    with pytest.raises(UsersError, match="already exists"):
        users.add("alice")
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(UsersError, match="not a users file"):
        UserFile(tmp_path / "broken.json").users()
    (tmp_path / "future.json").write_text(json.dumps({"version": 99, "users": []}))
    with pytest.raises(UsersError, match="version 99"):
        UserFile(tmp_path / "future.json").users()
    with pytest.raises(UsersError, match="does not exist"):
        UserFile(tmp_path / "missing.json").users()


def rqrag(*args, cwd):
    return subprocess.run([sys.executable, "-m", "rqrag.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_the_users_command(tmp_path):
    for argv in (["users", "--help"], ["users", "add", "--help"], ["users", "list", "--help"]):
        shown = rqrag(*argv, cwd=tmp_path)
        assert shown.returncode == 0 and "usage" in shown.stdout
    added = rqrag("users", "add", "alice", "--file", "u.json", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    key = added.stdout.strip()
    assert UserFile(tmp_path / "u.json").authenticate(f"Bearer {key}").name == "alice"
    assert rqrag("users", "add", "root", "--admin", "--file", "u.json", cwd=tmp_path).returncode == 0
    listed = rqrag("users", "list", "--file", "u.json", cwd=tmp_path).stdout
    assert "alice\tuser" in listed and "root\tadmin" in listed and key not in listed
    again = rqrag("users", "add", "alice", "--file", "u.json", cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr
    assert rqrag("users", "remove", "alice", "--file", "u.json", cwd=tmp_path).returncode == 0
    assert UserFile(tmp_path / "u.json").authenticate(f"Bearer {key}") is None
    assert rqrag("users", "remove", "alice", "--file", "u.json", cwd=tmp_path).returncode == 1
