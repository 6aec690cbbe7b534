"""Strict parsing of annotator replies, the answer check, the retention draw and the resumable output file."""

from __future__ import annotations

import json

import pytest

from rqrag.benchmarks.sources import LOADERS, SourceExample
from rqrag.data_construction.annotate import Annotator, answer_agrees
from rqrag.data_construction.prompts import FormatError, PromptBook, Refusal, parse_answer, parse_queries
from rqrag.resumable import ResumableJsonl


def test_queries_parse_strictly():
    assert parse_queries(
        "decompose", '{"queries": ["Who directed Titanic?", " ", "Who directed Titanic?", "b"]}', 4
    ) == [
        "Who directed Titanic?",
        "b",
    ]
    assert parse_queries("decompose", '```json\n{"queries": ["a", "b", "c"]}\n```', 2) == ["a", "b"]
    numbered = '{"queries": ["1. Who won?", "2. Who won?", "- When?", "1990s music"]}'
    assert parse_queries("decompose", numbered, 4) == ["Who won?", "When?", "1990s music"]
    assert parse_queries("multi_turn", '{"needs_search": false, "query": ""}', 4) == []
    assert parse_queries("multi_turn", '{"needs_search": true, "query": "capital of France"}', 4) == [
        "capital of France"
    ]
    assert parse_queries("single_hop", '{"query": "[EOS] tides moon"}', 4) == ["tides moon"]  # no control tokens
    bad = [
        ("decompose", "Here are the questions: 1. a 2. b"),
        ("decompose", '{"queries": "a"}'),
        ("decompose", '{"queries": [1, 2]}'),
        ("decompose", '{"queries": ["", " "]}'),
        ("decompose", '["a", "b"]'),
        ("single_hop", '{"question": "a"}'),
        ("multi_turn", '{"needs_search": "yes", "query": "a"}'),
        ("multi_turn", '{"needs_search": true, "query": ""}'),
        ("decompose", 'Sure! {"queries": ["a"]}'),
    ]
    for task, reply in bad:
        with pytest.raises(FormatError):
            parse_queries(task, reply, 4)
    with pytest.raises(Refusal):
        parse_queries("decompose", "I'm sorry, but I can't help with that.", 4)
    assert parse_answer('{"answer": " Paris "}') == "Paris"
    with pytest.raises(Refusal):
        parse_answer('{"answer": "I cannot answer that."}')
    with pytest.raises(FormatError):
        parse_answer('{"answer": ""}')


def test_prompts_fill_every_placeholder_and_keep_braces_in_questions():
    book = PromptBook()
    conversation = [{"role": "user", "content": "What does {x} mean in $HOME?"}]
    for task in ("multi_turn", "single_hop", "decompose", "disambiguate"):
        prompt = book.refine(task, conversation, max_queries=3)
        system, user = prompt.messages
        assert system["role"] == "system" and "JSON" in system["content"]
        assert "What does {x} mean in $HOME?" in user["content"] and "$" not in user["content"].replace("$HOME", "")
        assert prompt.schema["type"] == "object"
    answer = book.answer("single_hop", conversation, "Title: A\nText: b")
    assert "Title: A" in answer.messages[1]["content"] and "letter of the" in answer.messages[1]["content"]


def _choice(label="B") -> SourceExample:
    record = {
        "id": "1",
        "question_stem": "Q?",
        "choices": {"text": ["a dog", "the moon"], "label": ["A", "B"]},
        "answerKey": label,
    }
    return LOADERS["openbookqa"](record, 0)


def test_answer_check_for_choices_and_short_answers():
    ex = _choice("B")
    assert answer_agrees(ex, "B. the moon, because tides follow it.")
    assert answer_agrees(ex, "(B) the moon")
    assert not answer_agrees(ex, "A. a dog")
    assert answer_agrees(ex, "The moon pulls the oceans.")  # the right option's text, no letter
    assert not answer_agrees(ex, "A dog barks.")  # the article "A" is not option A, and the text is wrong
    qa = SourceExample(
        "hotpotqa", "1", "decompose", ({"role": "user", "content": "q"},), "Chief of Protocol", ("Chief of Protocol",)
    )
    assert answer_agrees(qa, "She served as chief of protocol.")
    assert not answer_agrees(qa, "She was an actress.")
    chat = SourceExample("alpaca", "1", "multi_turn", ({"role": "user", "content": "hi"},), "hello")
    assert answer_agrees(chat, "anything")  # nothing to check against


def test_retention_draw_is_seeded_and_close_to_the_ratio():
    examples = [
        SourceExample("s", str(i), "multi_turn", ({"role": "user", "content": "q"},), "a") for i in range(2000)
    ]
    annotator = Annotator(None, PromptBook(), retention_ratio=0.3, seed=1)
    kept = [annotator.keeps_original_answer(ex) for ex in examples]
    assert 0.26 < sum(kept) / len(kept) < 0.34
    assert kept == [
        Annotator(None, PromptBook(), retention_ratio=0.3, seed=1).keeps_original_answer(ex) for ex in examples
    ]
    assert not any(Annotator(None, PromptBook(), retention_ratio=0.0).keeps_original_answer(ex) for ex in examples)
    assert all(Annotator(None, PromptBook(), retention_ratio=1.0).keeps_original_answer(ex) for ex in examples)
    empty = SourceExample("mt_bench", "1", "multi_turn", ({"role": "user", "content": "q"},), "")
    assert not Annotator(None, PromptBook(), retention_ratio=1.0).keeps_original_answer(empty)  # nothing to keep


def test_resumable_jsonl_cuts_a_partial_line_and_never_duplicates(tmp_path):
    path = tmp_path / "data.jsonl"
    with ResumableJsonl(path) as out:
        assert out.append({"id": "a", "x": 1}) and out.append({"id": "b", "x": 2})
        assert not out.append({"id": "a", "x": 3})
    with path.open("a") as f:
        f.write('{"id": "c", "x": 3, "unfinished')  # what a kill in the middle of a write leaves
    out = ResumableJsonl(path)
    assert out.repaired_bytes > 0 and out.ids == {"a", "b"}
    assert out.append({"id": "c", "x": 3}) and not out.append({"id": "b", "x": 9})
    out.close()
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["a", "b", "c"]


def test_resumable_jsonl_with_a_single_partial_line(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text('{"id": "a"')
    out = ResumableJsonl(path)
    assert out.ids == set() and path.read_text() == ""
    out.close()


def test_one_json_object_per_reply_for_every_schema_client():
    """The annotator and `rqrag review` read schema replies through one parser: a fence is fine, prose
    around the object, an array or broken JSON are rejected with the reason."""
    from rqrag.llm.client import NotAJSONObject, load_json_object
    from rqrag.review.reviewer import MalformedReview, parse_review

    assert load_json_object('```json\n{"a": 1}\n```') == {"a": 1}
    assert load_json_object('```\n{"a": 1}```') == {"a": 1}
    for reply, reason in [
        ('Sure! {"a": 1}', "not JSON"),
        ('{"a": 1} hope this helps', "not JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
        ("", "not JSON"),
        (None, "not JSON"),
    ]:
        with pytest.raises(NotAJSONObject, match=reason):
            load_json_object(reply)
    with pytest.raises(FormatError, match="expected a JSON object"):
        parse_queries("decompose", '["a"]', 2)
    with pytest.raises(MalformedReview, match="expected a JSON object"):
        parse_review('["a"]')
