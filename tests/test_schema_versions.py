"""Schema versions of the server's database (`serve/memory/schema_versions.py`) on real SQLite files: a store
written by the first release is upgraded in place and keeps its rows, the version is recorded, a database of a
newer version is refused with a clear error and left untouched.

    python -m pytest tests/test_schema_versions.py -q
"""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import create_engine, inspect

from rqrag.serve.memory.conversations import DEFAULT_USER, MIGRATIONS, ConversationStore
from rqrag.serve.memory.schema_versions import SchemaTooNew, newest_version, recorded_version
from rqrag.serve.memory.store import MemoryStore
from rqrag.serve.memory.store import metadata as memory_tables


# The tables exactly as the first release created them (before users, titles and trajectories).
FIRST_RELEASE = """
CREATE TABLE conversations (id VARCHAR(64) NOT NULL, created FLOAT NOT NULL, PRIMARY KEY (id));
CREATE TABLE turns (
    id INTEGER NOT NULL, conversation_id VARCHAR(64) NOT NULL, role VARCHAR(16) NOT NULL, content TEXT NOT NULL,
    sources TEXT, created FLOAT NOT NULL, PRIMARY KEY (id), FOREIGN KEY(conversation_id) REFERENCES conversations (id)
);
CREATE INDEX ix_turns_conversation_id ON turns (conversation_id);
INSERT INTO conversations VALUES ('old', 1700000000.0);
INSERT INTO turns VALUES (1, 'old', 'user', 'Who wrote Hamlet?', NULL, 1700000000.0);
INSERT INTO turns VALUES (2, 'old', 'assistant', 'Shakespeare.', '[]', 1700000000.0);
"""

# The memories table of schema version 1: one moment per memory, its telling (`created`, `date`).
MEMORIES_VERSION_1 = """
CREATE TABLE memories (
    id INTEGER NOT NULL, user_id VARCHAR(128) NOT NULL, conversation_id VARCHAR(64), created FLOAT NOT NULL,
    date VARCHAR(10) NOT NULL, time VARCHAR(5) NOT NULL, period_of_day VARCHAR(16) NOT NULL,
    weekday VARCHAR(16) NOT NULL, season VARCHAR(16) NOT NULL, description TEXT NOT NULL, language VARCHAR(8) NOT NULL,
    source VARCHAR(8) NOT NULL, embedding BLOB NOT NULL, PRIMARY KEY (id)
);
CREATE INDEX ix_memories_user_id ON memories (user_id);
CREATE INDEX ix_memories_date ON memories (date);
"""


class NoEncoder:
    def encode(self, texts, normalize_embeddings=True):
        raise AssertionError("opening a store must not embed anything")


@pytest.fixture
def path(tmp_path):
    return tmp_path / "serve.db"


def columns(path, table: str) -> set[str]:
    return {column["name"] for column in inspect(create_engine(f"sqlite:///{path}")).get_columns(table)}


def test_a_store_of_the_first_release_is_upgraded_and_keeps_its_conversations(path):
    with sqlite3.connect(path) as db:
        db.executescript(FIRST_RELEASE)
    store = ConversationStore(f"sqlite:///{path}")
    assert store.schema_version == newest_version(MIGRATIONS) == 2
    assert recorded_version(store.engine, "conversations") == 2
    assert {"user_id", "title", "updated"} <= columns(path, "conversations") and "trajectory" in columns(path, "turns")
    assert "ix_conversations_user_id" in {i["name"] for i in inspect(store.engine).get_indexes("conversations")}
    # The old conversation belongs to the default user and goes on with the new columns.
    assert store.owner("old") == DEFAULT_USER
    assert [m["content"] for m in store.messages("old")] == ["Who wrote Hamlet?", "Shakespeare."]
    store.append_exchange("old", "When?", "1600.", [], trajectory=[{"action": "answer"}])
    assert store.turns("old")[-1]["trajectory"] == [{"action": "answer"}]
    assert [c["id"] for c in store.list_conversations()] == ["old"]
    store.close()


def test_a_store_between_versions_is_recorded_without_adding_twice(path):
    """The code before versions added missing columns on every start: such a store has them but no version."""
    with sqlite3.connect(path) as db:
        db.executescript(FIRST_RELEASE)
        db.executescript(
            "ALTER TABLE conversations ADD COLUMN user_id VARCHAR(128); ALTER TABLE turns ADD COLUMN trajectory TEXT;"
        )
    store = ConversationStore(f"sqlite:///{path}")
    assert recorded_version(store.engine, "conversations") == 2 and "title" in columns(path, "conversations")
    store.close()


def test_a_new_database_is_created_at_the_newest_version_and_reopened_as_is(path):
    url = f"sqlite:///{path}"
    store = ConversationStore(url)
    cid = store.new_conversation("ana", "first")
    store.close()
    with sqlite3.connect(path) as db:
        (updated,) = db.execute("SELECT updated FROM rqrag_schema WHERE store = 'conversations'").fetchone()
    again = ConversationStore(url)
    assert again.owner(cid) == "ana" and again.schema_version == 2
    with sqlite3.connect(path) as db:  # nothing to upgrade: the record is not rewritten
        assert db.execute("SELECT updated FROM rqrag_schema WHERE store = 'conversations'").fetchone() == (updated,)
    again.close()


def test_memories_record_their_own_version_in_the_same_database(path):
    url = f"sqlite:///{path}"
    conversations = ConversationStore(url)
    memories = MemoryStore(url, NoEncoder())
    assert recorded_version(memories.engine, "memories") == 2 == memories.schema_version
    assert recorded_version(memories.engine, "conversations") == 2
    memories.close()
    conversations.close()


def test_a_memories_table_from_before_versions_is_taken_as_version_1_and_upgraded(path):
    with sqlite3.connect(path) as db:
        db.executescript(MEMORIES_VERSION_1)  # as the code before versions created it: no rqrag_schema
    store = MemoryStore(f"sqlite:///{path}", NoEncoder())
    assert "rqrag_schema" in inspect(store.engine).get_table_names()
    assert recorded_version(store.engine, "memories") == 2
    assert {"told_at", "happened_first", "happened_last"} <= columns(path, "memories")
    store.close()


def test_a_memories_table_of_the_newest_shape_without_a_version_is_recorded_without_adding_twice(path):
    engine = create_engine(f"sqlite:///{path}")
    memory_tables.create_all(engine)  # every column already there: the migration adds none, and does not fail
    engine.dispose()
    store = MemoryStore(f"sqlite:///{path}", NoEncoder())
    assert recorded_version(store.engine, "memories") == 2
    store.close()


@pytest.mark.parametrize("store_name", ["conversations", "memories"])
def test_a_database_of_a_newer_version_is_refused_and_left_untouched(path, store_name):
    url = f"sqlite:///{path}"
    ConversationStore(url).close()
    MemoryStore(url, NoEncoder()).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE rqrag_schema SET version = 99 WHERE store = ?", (store_name,))
    with pytest.raises(SchemaTooNew, match=rf"{store_name} tables of schema version 99, newer than this rq-rag knows"):
        ConversationStore(url) if store_name == "conversations" else MemoryStore(url, NoEncoder())
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM rqrag_schema WHERE store = ?", (store_name,)).fetchone() == (99,)


def test_sources_stored_before_origin_was_named_are_read_with_it(path):
    """A turn saved before the rename says a source is a memory with `kind`; it is read back as `origin`, in the
    sources and in each step's evidence, and a source saved today is read as it was written."""
    store = ConversationStore(f"sqlite:///{path}")
    cid = store.new_conversation("ana", "old turn")
    memory = {"docid": "memory:7", "title": "Memória", "text": "Eu tenho um gato.", "kind": "memory"}
    chunk = {"docid": "manual:3", "title": "manual.pdf", "text": "…", "file": "manual.pdf", "page_start": 4}
    steps = [{"action": "question", "text": "q", "query": "q", "evidence": [memory, chunk]}, {"action": "answer"}]
    store.append_exchange(cid, "Tenho gato?", "Sim.", [memory, chunk], trajectory=steps)
    turn = store.turns(cid, "ana")[-1]
    read = {**{k: v for k, v in memory.items() if k != "kind"}, "origin": "memory"}
    assert turn["sources"] == [read, chunk]
    assert turn["trajectory"] == [{**steps[0], "evidence": [read, chunk]}, {"action": "answer"}]
    store.append_exchange(cid, "E hoje?", "Sim.", [read], trajectory=[{**steps[0], "evidence": [read]}])
    assert store.turns(cid, "ana")[-1]["sources"] == [read]
    store.close()
