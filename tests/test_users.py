"""The users file and `rqrag users`: keys are shown once and never stored, checked in constant time, and a removed
user's key stops working at once, also in a process that already checked it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from rqrag.serve import users as users_module
from rqrag.serve.users import Caller, UserFile, UsersError


def test_a_key_works_for_its_user_only_and_the_file_keeps_no_key(tmp_path):
    path = tmp_path / "users.json"
    users = UserFile(path)
    alice, root = users.add("alice"), users.add("root", admin=True)
    assert alice != root and alice.startswith("rqrag_")
    seen_alice, seen_root = users.authenticate(f"Bearer {alice}"), users.authenticate(f"Bearer {root}")
    assert (seen_alice.display_name, seen_alice.admin, seen_alice.authenticated) == ("alice", False, True)
    assert (seen_root.display_name, seen_root.admin, seen_root.authenticated) == ("root", True, True)
    text = path.read_text()
    secret = alice.split("_", 2)[2]  # rqrag_<key id>_<secret>: the secret itself may hold "_" (base64url)
    assert alice not in text and secret not in text  # only a salted hash of it
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    # Another process (a fresh reader) agrees.
    assert UserFile(path).authenticate(f"Bearer {alice}") == seen_alice


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
    assert server_side.authenticate(f"Bearer {key}").display_name == "bob"  # now remembered by this process
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


def test_a_lower_case_bearer_scheme_is_the_same_key(tmp_path):
    # RFC 7235: the auth scheme is case-insensitive; only the key itself must match exactly.
    users = UserFile(tmp_path / "users.json")
    key = users.add("alice")
    assert (
        users.authenticate(f"bearer {key}")
        == users.authenticate(f"BEARER {key}")
        == users.authenticate(f"Bearer {key}")
    )
    assert users.authenticate(f"Bearer {key.upper()}") is None


def test_a_name_given_again_is_a_new_person_whose_data_is_not_the_old_ones(tmp_path):
    path = tmp_path / "users.json"
    users = UserFile(path)
    old_bob = users.authenticate(f"Bearer {users.add('bob')}")
    alice = users.authenticate(f"Bearer {users.add('alice')}")
    assert old_bob.name != "bob" and old_bob.name.startswith("bob-")  # the data key: name and a random identity
    assert users.remove("bob") is True
    new_bob = users.authenticate(f"Bearer {users.add('bob')}")
    assert new_bob.display_name == old_bob.display_name == "bob"
    assert new_bob.name != old_bob.name  # so stores keyed by it hold nothing of the old bob for the new one
    assert alice.name not in (old_bob.name, new_bob.name)
    # The file remembers the removed bob's identity, so his data can still be deleted by name later.
    assert set(users.owners("bob")) == {new_bob.name, old_bob.name, "bob"}
    assert users.forget_removed("bob") == 1
    assert set(users.owners("bob")) == {new_bob.name, "bob"}
    assert set(UserFile(path).owners("alice")) == {alice.name, "alice"}


def test_a_file_from_before_identities_keeps_keying_data_by_name(tmp_path):
    path = tmp_path / "users.json"
    key = UserFile(path).add("bob")
    data = json.loads(path.read_text())
    for record in data["users"]:
        del record["uid"]
    path.write_text(json.dumps(data))
    users = UserFile(path)
    assert users.authenticate(f"Bearer {key}") == Caller("bob", admin=False, authenticated=True)
    assert users.owners("bob") == ["bob"]
    users.add("carol")  # a newcomer to an old file gets an identity; bob keeps his name as his data key
    assert users.authenticate(f"Bearer {key}").name == "bob"
    assert users.remove("bob") and users.owners("bob") == ["bob"]


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("hash", "", "hash"),
        ("hash", "not base64!", "hash"),
        ("salt", "", "salt"),
        ("key_id", "", "key id"),
        ("uid", "", "identity"),
        ("uid", "bob", "identity"),
        ("name", "../root", "name"),
        ("scrypt", {"n": 0, "r": 8, "p": 1}, "scrypt"),
        ("scrypt", None, "scrypt"),
        ("scrypt", {"n": 2**17, "r": 8, "p": 1}, "scrypt"),  # valid, but more memory than hashlib allows
        ("admin", "false", "admin"),
    ],
)
def test_a_record_that_cannot_check_a_key_is_a_broken_file(tmp_path, field, value, message):
    path = tmp_path / "users.json"
    UserFile(path).add("alice")
    data = json.loads(path.read_text())
    data["users"][0][field] = value
    path.write_text(json.dumps(data))
    with pytest.raises(UsersError, match=message):
        UserFile(path).users()


def test_a_user_named_twice_in_the_file_is_a_broken_file(tmp_path):
    path = tmp_path / "users.json"
    UserFile(path).add("alice")
    data = json.loads(path.read_text())
    data["users"].append(dict(data["users"][0]))
    path.write_text(json.dumps(data))
    with pytest.raises(UsersError, match="twice"):
        UserFile(path).users()


def test_a_removed_user_without_an_identity_is_a_broken_file(tmp_path):
    path = tmp_path / "users.json"
    UserFile(path).add("alice")
    data = json.loads(path.read_text())
    data["removed"] = [{"name": "bob", "removed": "2026-01-01T00:00:00+00:00"}]
    path.write_text(json.dumps(data))
    with pytest.raises(UsersError, match="removed user #1"):
        UserFile(path).users()


def rqrag(*args, cwd):
    return subprocess.run([sys.executable, "-m", "rqrag.cli", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.slow
def test_the_users_command(tmp_path):
    for argv in (["users", "--help"], ["users", "add", "--help"], ["users", "list", "--help"]):
        shown = rqrag(*argv, cwd=tmp_path)
        assert shown.returncode == 0 and "usage" in shown.stdout
    added = rqrag("users", "add", "alice", "--file", "u.json", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    key = added.stdout.strip()
    assert UserFile(tmp_path / "u.json").authenticate(f"Bearer {key}").display_name == "alice"
    assert rqrag("users", "add", "root", "--admin", "--file", "u.json", cwd=tmp_path).returncode == 0
    listed = rqrag("users", "list", "--file", "u.json", cwd=tmp_path).stdout
    assert "alice\tuser" in listed and "root\tadmin" in listed and key not in listed
    again = rqrag("users", "add", "alice", "--file", "u.json", cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr
    assert rqrag("users", "remove", "alice", "--file", "u.json", cwd=tmp_path).returncode == 0
    assert UserFile(tmp_path / "u.json").authenticate(f"Bearer {key}") is None
    assert rqrag("users", "remove", "alice", "--file", "u.json", cwd=tmp_path).returncode == 1
