"""Every JSONL line in the project goes through one reader (`rqrag.records`): a bad line is skipped and counted
where the caller can lose it, and an error naming the line where the file must be whole."""

from __future__ import annotations

import gzip
import json

import pytest

from rqrag.records import MalformedLine, ReadStats, jsonl_objects, read_records
from rqrag.resumable import ResumableJsonl
from rqrag.retrieval.candidate_paragraphs import CandidateRetriever
from rqrag.retrieval.passages import read_passages


LINES = ['{"id": "a"}', "", "{not json", "[1, 2]", '{"id": "b"}']


def test_skipping_reader_counts_each_bad_line_with_its_number():
    stats = ReadStats()
    found = list(jsonl_objects(LINES, stats.skip))
    assert found == [(1, {"id": "a"}), (5, {"id": "b"})]
    assert stats.skipped == 2 and [n for n, _ in stats.malformed] == [3, 4]
    assert "not an object" in stats.malformed[1][1]


def test_strict_reader_names_the_file_and_line():
    with pytest.raises(MalformedLine, match=r"golden.jsonl:3: invalid JSON"):
        list(jsonl_objects(LINES, source="golden.jsonl"))


def test_read_records_strict_refuses_what_the_default_skips(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_text("\n".join(LINES) + "\n")
    assert [r["id"] for r in read_records(path)] == ["a", "b"]
    with pytest.raises(MalformedLine, match=r"f.jsonl:3"):
        list(read_records(path, strict=True))
    array = tmp_path / "f.json"
    array.write_text(json.dumps([{"id": "a"}, 3]))
    with pytest.raises(MalformedLine, match=r"f.json\[1\]"):
        list(read_records(array, strict=True))


def test_a_run_file_with_a_bad_line_in_the_middle_is_an_error(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "a"}\n{not json\n{"id": "b"}\n')
    with pytest.raises(MalformedLine, match=r"run.jsonl:2"):
        list(ResumableJsonl(path).read())


def test_candidate_pools_refuse_a_malformed_benchmark_line(tmp_path):
    path = tmp_path / "bench.jsonl"
    path.write_text('{"id": "q"}\n[1]\n')
    with pytest.raises(MalformedLine, match=r"bench.jsonl:2"):
        CandidateRetriever.from_file(path)


def test_gzipped_corpus_lines_are_skipped_and_located(tmp_path):
    path = tmp_path / "c.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write('{"title": "ok", "text": "good"}\n{bad\n{"title": "no text"}\n')
    docs, stats = read_passages(path)
    assert [d.title for d in docs] == ["ok"] and (stats.passages, stats.skipped) == (1, 2)
    assert stats.first_errors[0].startswith(f"{path}:2: invalid JSON")
    assert stats.first_errors[1].startswith(f"{path}:3: record has none of the text fields")
