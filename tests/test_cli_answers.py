"""`rqrag ask` through the answer pipeline with the default model: what `make demo` prints is an answer, never the
question said back, and it says which kind it is and where it comes from."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from rqrag.cli.commands import ask
from rqrag.text.text_quality import echoes


pytestmark = pytest.mark.slow

DEMO = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"


def _json_tail(out: str) -> dict:
    """The JSON record `--json` prints last (the resolved config may be logged before it)."""
    start = out.index("\n{\n") + 1 if not out.startswith("{") else 0
    return json.loads(out[start:])


@pytest.fixture(scope="module")
def demo_record() -> dict:
    """`make demo`'s question asked once as `make demo` asks it (the written answer, greedy queries: the same tree
    every run); both demo tests read it."""
    argv = [DEMO, "--config", "configs/decode/rqrag_written.yaml", "--query_temperature", "0", "--json"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert ask.main(argv) == 0
    return _json_tail(printed.getvalue())


def test_the_demo_question_gets_an_answer_not_the_question_back(demo_record):
    record = demo_record
    answer = record["answer"]
    assert answer and not echoes(answer, DEMO), answer
    assert record["answer_kind"] == "written", record["answer_kind"]
    cited = [s for s in record["sources"] if s["cited"]]
    assert cited, record["sources"]
    written = record["written"]
    assert written["shown"] and all(s["check"]["ok"] and s["cites"] for s in written["shown"]), written
    # the short answer first, then each shown sentence
    assert answer.startswith(written["short"]) and all(s["text"] in answer for s in written["shown"])


def test_the_demo_answer_holds_the_position_asked_for_with_its_confidence(demo_record):
    """The tree answered the bridge entity ("Shirley Temple"); the writer read what that path found and wrote the
    position she held, in a sentence the check let through, with the passage quoted under it. Before the written
    answer this test read the tree's decision alone: in float32 (`dtype: auto` on a CPU without bf16 arithmetic) its
    quote is a sentence on a British office its reader favoured (p 0.13 against 0.05), a margin this test cannot pin."""
    record = demo_record
    shown = " ".join(s["text"] for s in record["written"]["shown"])
    assert "Chief of Protocol" in shown, record["answer"]
    quotes = [s["check"]["quote"] for s in record["written"]["shown"]]
    assert any("Chief of Protocol" in q for q in quotes), quotes
    assert 0.0 <= record["confidence"] <= 1.0
    assert record["grounding"]["verifier"] == "rqrag-smollm2-135m-selftrain"  # a name, no path


@pytest.mark.heavy
def test_the_eiffel_tower_question_is_answered_paris(capsys):
    """Sampled queries, as the default config has them (seeded: the same tree every run). With the first trained
    model eight paths said Paris and one read a page on a clock tower in West Bengal; with the self-trained default
    "Paris" leads the tree (p 0.38, "Madison Avenue" 0.21) just under the threshold, so the reply quotes a sentence
    of its evidence that says Paris, not the sentence about Strasbourg's capital status the question's words favour,
    and says which answer the tree holds. The corpus has no page on the Eiffel Tower: the best passage found sits at
    the on-topic floor (cosine 0.8299 against 0.83), so by default the reply says nothing found is about it, a margin
    too thin to pin on any machine. This test is about the decision's quote, so it runs with that rule off
    (`--no_on_topic`); the rule has its own tests (tests/test_on_topic.py)."""
    question = "What is the capital of the country where the Eiffel Tower stands?"
    argv = [question, "--json", "--no_on_topic"]  # as the issue asked it, every other setting its default
    assert ask.main(argv) == 0
    record = _json_tail(capsys.readouterr().out)
    assert "Paris" in record["answer"], record["answer"]
    assert "West Bengal" not in record["answer"] and "Strasbourg" not in record["answer"]
    assert record["grounding"]["generated"] == "Paris" and 0.0 < record["confidence"] <= 1.0
    if record["answer_kind"] == "generated":
        assert record["confidence"] >= 0.4
    else:
        assert record["answer_kind"] == "quoted" and record["confidence"] < 0.4
