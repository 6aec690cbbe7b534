"""`rqrag ask` rejects bad input before it loads anything."""

from __future__ import annotations

import pytest

from rqrag.commands import ask


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_exits_2_before_loading_a_model(question, monkeypatch, capsys):
    def must_not_load(config, retriever=None):
        raise AssertionError("the model was loaded for an empty question")

    monkeypatch.setattr("rqrag.inference.build.build_decoder", must_not_load)
    with pytest.raises(SystemExit) as exit_info:
        ask.main([question])
    assert exit_info.value.code == 2
    assert "the question is empty" in capsys.readouterr().err
