"""`rqrag ask` through the answer pipeline with the shipped model: what `make demo` prints is an answer, never the
question said back, and it says which kind it is and where it comes from."""

from __future__ import annotations

import json

import pytest

from rqrag.commands import ask
from rqrag.text_quality import echoes


pytestmark = pytest.mark.slow

DEMO = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"


def _json_tail(out: str) -> dict:
    """The JSON record `--json` prints last (the resolved config may be logged before it)."""
    start = out.index("\n{\n") + 1 if not out.startswith("{") else 0
    return json.loads(out[start:])


def test_the_demo_question_gets_an_answer_not_the_question_back(capsys):
    argv = [DEMO, "--config", "configs/decode/rqrag_trained.yaml", "--query_temperature", "0", "--json"]
    assert ask.main(argv) == 0
    record = _json_tail(capsys.readouterr().out)
    answer = record["answer"]
    assert answer and not echoes(answer, DEMO), answer
    assert record["answer_kind"] in ("generated", "quoted")
    cited = [s for s in record["sources"] if s["cited"]]
    assert cited, record["sources"]
    if record["answer_kind"] == "generated":
        # shown only because a passage it read supports it (here: the tree's path that reached Shirley Temple)
        assert record["grounding"]["path_id"] in {t["path_id"] for t in record["trajectories"]}
    else:
        assert " ".join(answer.split()) in " ".join(cited[0]["text"].split())
