"""scripts/compare_answer_runs.py, the before/after check of a change that must leave answers alone: it finds a
changed answer, kind or confidence and a missing record, and passes two identical runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def _run(folder: Path, records: list[dict]) -> Path:
    (folder / "rqrag").mkdir(parents=True)
    (folder / "rqrag" / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def _record(qid: str, text: str = "Paris", kind: str = "generated", p: float = 0.81) -> dict:
    return {
        "id": qid,
        "prediction": "Paris",
        "seconds": 1.0,
        "grounded": {"text": text, "kind": kind, "confidence": p},
    }


def test_identical_runs_pass_and_each_change_is_reported(tmp_path):
    from compare_answer_runs import main

    before = _run(tmp_path / "before", [_record("q1"), _record("q2")])
    same = _run(tmp_path / "same", [{**_record("q1"), "seconds": 9.0}, _record("q2")])  # timings are not compared
    assert main([str(before), str(same)]) == 0
    for name, changed in [
        ("text", [_record("q1", text="Lyon"), _record("q2")]),
        ("kind", [_record("q1", kind="quoted"), _record("q2")]),
        ("confidence", [_record("q1", p=0.8), _record("q2")]),
        ("missing", [_record("q1")]),
    ]:
        assert main([str(before), str(_run(tmp_path / name, changed))]) == 1, name
