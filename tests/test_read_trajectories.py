"""scripts/read_trajectories.py: a run's trees as text, the strategy's pick and the gold paragraphs marked."""

from __future__ import annotations

import json

import pytest
from script_modules import load_script


rt = load_script("read_trajectories")


def _record(qid: str) -> dict:
    hit = {"docid": "d1", "title": "Kiss and Tell (1945 film)", "text": "starring Shirley Temple as Corliss Archer"}
    miss = {"docid": "d9", "title": "Charles Craft", "text": "an English film editor"}
    return {
        "id": qid,
        "question": "Who portrayed Corliss Archer?",
        "gold": {"answers": ["Shirley Temple"], "supporting": ["d1"]},
        "selected": {"vote": 1},
        "scores": {"vote": {"em": 1.0, "f1": 1.0}},
        "trajectories": [
            {"path_id": "0.0", "steps": [{"action": "answer", "text": "An actress who portrayed her"}]},
            {
                "path_id": "0.1",
                "steps": [
                    {"action": "decompose", "text": "Corliss Archer film", "evidence": [hit, miss]},
                    {"action": "answer", "text": "Shirley Temple"},
                ],
            },
        ],
    }


def test_a_tree_reads_with_the_pick_and_the_gold_paragraphs_marked(tmp_path, capsys):
    folder = tmp_path / "run" / "rqrag"
    folder.mkdir(parents=True)
    (folder / "predictions.jsonl").write_text("".join(json.dumps(_record(f"q{i}")) + "\n" for i in range(3)))
    assert rt.main([str(tmp_path / "run"), "--first", "1", "--skip", "1", "--evidence_words", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[q1] Who portrayed Corliss Archer?") and "[q0]" not in out and "[q2]" not in out
    assert "vote picked path 0.1 (em 100, f1 100)" in out and "  → path 0.1" in out and "    path 0.0" in out
    assert "* Kiss and Tell (1945 film): starring Shirley…" in out  # a gold paragraph
    assert "  Charles Craft: an English…" in out and "* Charles Craft" not in out
    assert rt.main([str(tmp_path / "run"), "--ids", "q2", "q0"]) == 0
    assert [line[:4] for line in capsys.readouterr().out.splitlines() if line.startswith("[")] == ["[q2]", "[q0]"]
    with pytest.raises(SystemExit, match="not in the run: q7"):
        rt.main([str(tmp_path / "run"), "--ids", "q7"])
    with pytest.raises(SystemExit, match="does not exist"):
        rt.main([str(tmp_path / "nothing")])
