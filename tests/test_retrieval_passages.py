"""Corpus files: formats, field names, stable docids, and malformed lines skipped but counted."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging

import pytest

from rqrag.retrieval.citations import cite_pages, page_ranges
from rqrag.retrieval.passages import Passage, content_docid, deduplicate_docids, read_passages, write_passages


def test_jsonl_with_all_text_field_names_and_ids(tmp_path):
    path = tmp_path / "c.jsonl"
    records = [
        {"docid": "a", "title": "A", "text": "first"},
        {"id": 7, "title": "B", "paragraph_text": "second", "sources": ["hotpotqa"]},
        {"title": "C", "contents": "third"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    docs, stats = read_passages(path)
    assert [(d.docid, d.title, d.text) for d in docs] == [
        ("a", "A", "first"),
        ("7", "B", "second"),
        (content_docid("C", "third"), "C", "third"),
    ]
    assert docs[1].extra == {"sources": ["hotpotqa"]}
    assert (stats.passages, stats.skipped) == (3, 0)


def test_content_docid_is_sha1_of_title_newline_text():
    expected = "doc-" + hashlib.sha1(b"Title\nSome text").hexdigest()[:16]
    assert content_docid("Title", "Some text") == expected


def test_malformed_lines_are_skipped_counted_and_logged(tmp_path, caplog):
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"title": "ok", "text": "good"}\n'
        "{not json\n"
        '{"title": "no text field"}\n'
        "[1, 2]\n"
        "\n"
        '{"title": "ok2", "text": "also good"}\n'
    )
    with caplog.at_level(logging.WARNING):
        docs, stats = read_passages(path)
    assert [d.title for d in docs] == ["ok", "ok2"]
    assert (stats.passages, stats.skipped) == (2, 3)
    assert "skipped 3 malformed" in caplog.text


def test_gzip_and_json_array_round_trip(tmp_path):
    docs = [Passage("x", "X", "ex"), Passage("y", "Y", "why", extra={"sources": ["musique"]})]
    gz = tmp_path / "c.jsonl.gz"
    assert write_passages(docs, gz) == 2
    with gzip.open(gz, "rt") as f:
        assert json.loads(f.readline())["docid"] == "x"
    assert read_passages(gz)[0] == docs

    array = tmp_path / "c.json"
    array.write_text(json.dumps([d.to_dict() for d in docs] + ["not an object"]))
    read, stats = read_passages(array)
    assert read == docs and stats.skipped == 1


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_passages(tmp_path / "nope.jsonl")


def test_deduplicate_keeps_first():
    docs = [Passage("a", "1", "x"), Passage("b", "2", "y"), Passage("a", "3", "z")]
    kept, dropped = deduplicate_docids(docs)
    assert [d.title for d in kept] == ["1", "2"] and dropped == 1


def test_page_citations_are_formatted_in_one_place():
    assert page_ranges([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"
    assert cite_pages([4]) == "p. 4" and cite_pages(range(4, 7)) == "pp. 4-6" and cite_pages([3, 4, 9]) == "pp. 3-4, 9"
    assert cite_pages(range(2, 4), "página", "páginas") == "páginas 2-3"
