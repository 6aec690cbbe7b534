"""scripts/compare_models.py: a retrained model against the one it would replace, paired on the same questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_modules import load_script


cm = load_script("compare_models")


def _record(qid: str, f1: float, answer: str) -> dict:
    steps = [{"action": "decompose", "text": "q", "evidence": []}, {"action": "answer", "text": answer}]
    return {
        "id": qid,
        "strategy": "vote",
        "scores": {"vote": {"f1": f1}, "ppl": {"f1": 0.0}},
        "trajectories": [
            {"path_id": "0.0", "steps": [{"action": "answer", "text": answer}]},
            {"path_id": "0.1.0", "steps": steps},
        ],
    }


def _run(tmp_path: Path, name: str, records: list[dict]) -> Path:
    folder = tmp_path / name / "rqrag"
    folder.mkdir(parents=True)
    (folder / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records) + '{"torn')
    return tmp_path / name


def test_the_new_model_is_compared_on_the_questions_both_answered(tmp_path, capsys):
    old = _run(tmp_path, "old", [_record(f"q{i}", 0.0, "a long sentence of an answer") for i in range(30)])
    better = [_record(f"q{i}", 1.0 if i < 20 else 0.0, "Paris") for i in range(30)] + [_record("extra", 1.0, "x")]
    new = _run(tmp_path, "new", better)
    assert cm.main([str(old), str(new)]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["questions"] == 30  # "extra" is only in the new run; the torn line is skipped
    assert result["new"] == pytest.approx(20 / 30) and result["old"] == 0.0
    assert result["new_minus_old"]["p"] < 0.05 and result["new_minus_old"]["ci95"][0] > 0
    assert result["answer_step_words"] == {"old": 6.0, "new": 1.0}  # every answer step, the direct one included
    # The other way round the old model is no better.
    assert cm.compare(cm.load(new, "rqrag"), cm.load(old, "rqrag"), "vote", "f1", 2000, 0)["new_minus_old"]["p"] > 0.95


def test_the_tree_is_compared_with_another_system_of_the_same_run(tmp_path, capsys):
    """--old_system: the 2Wiki question is whether the tree beats the same model's direct answer."""
    run = _run(tmp_path, "run", [_record(f"q{i}", 1.0 if i < 15 else 0.5, "Paris") for i in range(30)])
    direct = run / "no_retrieval"
    direct.mkdir()
    (direct / "predictions.jsonl").write_text(
        "".join(json.dumps({**_record(f"q{i}", 0.5, "it is Paris"), "strategy": "direct"}) + "\n" for i in range(30))
    )
    assert cm.main([str(run), str(run), "--old_system", "no_retrieval"]) == 0
    out = capsys.readouterr().out.splitlines()
    result = json.loads(out[-1])
    assert "(old: no_retrieval)" in out[0] and result["old"] == 0.5 and result["new"] == pytest.approx(0.75)
    assert result["new_minus_old"]["p"] < 0.05
    assert (
        cm.main([str(run), str(run)]) == 0
        and json.loads(capsys.readouterr().out.splitlines()[-1])["new_minus_old"]["delta"] == 0
    )
