"""The helpers benchmark scripts share from the package: golden question files and text tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rqrag.eval.golden import load_questions
from rqrag.eval.text_table import print_table, text_table
from rqrag.records import MalformedLine


GOLDEN_PT = Path(__file__).resolve().parent / "data" / "golden_pt"


def test_golden_questions_get_their_key_facts_by_id():
    questions = load_questions(
        GOLDEN_PT / "debian_edu_golden.jsonl", GOLDEN_PT / "debian_edu_key_facts.jsonl", limit=2
    )
    assert [q["id"] for q in questions] == ["pt-factual-01", "pt-factual-02"]
    assert questions[0]["key_facts"] == ["2 de julho de 2001", "Noruega"]
    assert "key_facts" not in load_questions(GOLDEN_PT / "debian_edu_golden.jsonl", limit=1)[0]


def test_a_golden_file_must_be_whole(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "?"}) + "\n{torn\n")
    with pytest.raises(MalformedLine, match="q.jsonl:2"):
        load_questions(path)
    path.write_text(json.dumps({"id": "a", "question": "?"}) + "\n")
    with pytest.raises(ValueError, match=r"lacks \['answer'\]"):
        load_questions(path, required=("id", "question", "answer"))


def test_text_table_aligns_headers_with_their_values(capsys):
    rows = [{"store": "numpy", "size": 10000, "p50": 0.123, "ratio": None}, {"store": "pg", "size": 5, "p50": 12.5}]
    columns = [
        ("store", "store", ""),
        ("size", "size", ","),
        ("p50 ms", "p50", ".2f"),
        ("x", lambda r: r.get("ratio"), ""),
    ]
    assert text_table(rows, columns).splitlines() == [
        "store   size p50 ms   x",
        "numpy 10,000   0.12 n/a",
        "pg         5  12.50 n/a",
    ]
    print_table(rows, columns, title="stores")
    assert capsys.readouterr().out.startswith("\nstores\nstore ")
