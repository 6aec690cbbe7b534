"""`from rqrag import Pipeline`: the docs page's example runs as written, on the shipped model and the embedded
corpus, and the API loads the model only when a question needs it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rqrag


DOCS = Path(__file__).resolve().parent.parent / "docs" / "python.md"


def test_pipeline_is_importable_from_the_package_root_without_loading_a_stage_early():
    from rqrag.answer.api import Pipeline

    assert rqrag.Pipeline is Pipeline
    with pytest.raises(AttributeError):
        rqrag.NoSuchThing  # noqa: B018


def test_unknown_settings_are_refused_with_the_known_ones():
    from rqrag.config_loader import ConfigError

    with pytest.raises(ConfigError, match="unknown setting"):
        rqrag.Pipeline.from_config("rqrag_trained", max_dept=1)


@pytest.mark.slow
def test_search_and_extractive_answers_load_no_model(monkeypatch):
    from rqrag.inference import build

    def must_not_load(*args, **kwargs):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(build, "build_decoder", must_not_load)
    pipeline = rqrag.Pipeline.from_config("rqrag_trained", answerer="extractive")
    hits = pipeline.search("Eiffel Tower height", k=2)
    assert len(hits) == 2 and all(h.text for h in hits)
    first, second = pipeline.ask_many(["What is the capital of France?", "Who wrote Hamlet?"])
    assert first.kind.value == "quoted" and first.sources[0]["cited"] and second.text
    assert pipeline.decoder is None and first.tree is None


@pytest.mark.slow
def test_the_docs_example_runs_as_written(capsys):
    code = re.search(r"```python\n(.*?)```", DOCS.read_text(), re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(DOCS), "exec"), namespace)  # noqa: S102  (the page's own example)
    answer, pipeline = namespace["answer"], namespace["pipeline"]
    out = capsys.readouterr().out
    assert answer.text and answer.text in out
    assert answer.kind.value in {"generated", "quoted", "no_answer"} and answer.tree is not None
    assert pipeline.decoder is not None  # loaded once, by the first question, and kept
    assert namespace["record"]["answer"] == answer.text and namespace["record"]["answer_kind"] == answer.kind.value
    assert "Hamlet" in out and "Kilimanjaro" in out
