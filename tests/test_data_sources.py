"""Loaders: every benchmark slice shipped in the package parses, hub layouts parse, bad lines and records are counted."""

from __future__ import annotations

import json

import pytest

from rqrag.benchmarks.files import slice_path
from rqrag.benchmarks.sources import (
    DEFAULT_FILES,
    LOADERS,
    SourceExample,
    hotpot_silver_queries,
    musique_gold_queries,
    parse_records,
    wiki2_gold_queries,
)
from rqrag.records import ReadStats, read_records


# Every eval id plus the first 16 training ids (instruction sources: their first 16 records); the full files hold
# 500, 164 usable, 292, 948, 1172, 500, 1399, 1000, 175, 100 and 80 (rqrag/benchmarks/data/SOURCES.md).
EXPECTED_COUNTS = {
    "hotpotqa": 250 + 16,
    "2wikimultihopqa": 100 + 16,
    "musique": 150 + 16,
    "asqa": 448 + 16,
    "arc_challenge": 672 + 16,
    "openbookqa": 300 + 16,
    "popqa": 1399,
    "alpaca": 16,
    "self_instruct": 16,
    "oasst": 16,
    "mt_bench": 16,
}


def _load(source: str, path) -> tuple[list[SourceExample], ReadStats, list]:
    stats, bad = ReadStats(), []
    examples = list(parse_records(source, read_records(path, stats), lambda i, why: bad.append((i, why))))
    return examples, stats, bad


@pytest.mark.parametrize("source", sorted(DEFAULT_FILES))
def test_every_shipped_slice_loads_completely(source):
    examples, stats, bad = _load(source, slice_path(source))
    # The slices hold usable records only (the 36 of 2Wiki's 200 that carry no `context` were left out).
    assert stats.skipped == 0 and not bad
    assert len(examples) == EXPECTED_COUNTS[source]
    assert len({ex.source_id for ex in examples}) == len(examples)  # ids are unique within a source
    for ex in examples:
        assert ex.messages[-1]["role"] == "user" and ex.question.strip()
        assert ex.category in ("multi_turn", "decompose", "disambiguate", "single_hop")
        if source != "mt_bench":
            assert ex.answer.strip()


def test_multihop_examples_carry_their_candidates_and_supporting_paragraphs():
    examples, _, _ = _load("hotpotqa", slice_path("hotpotqa"))
    first = examples[0]
    assert first.answer == "Chief of Protocol" and first.category == "decompose"
    assert sum(p["is_supporting"] for p in first.pool) == 2 and len(first.pool) == 10
    record = first.pool_record()
    assert record["question_id"] == "hotpotqa:" + first.source_id  # unique across benchmark files


def test_multiple_choice_question_lists_options_and_answer_names_the_key():
    examples, _, _ = _load("arc_challenge", slice_path("arc_challenge"))
    ex = examples[0]
    assert ex.question.splitlines()[1:] == [f"{label}. {text}" for label, text in ex.choices]
    assert ex.answer == "C. Planetary days will become shorter." and ex.extra["answer_label"] == "C"


def test_musique_decomposition_fills_hop_answers_and_flattens_triples():
    decomposition = [
        {
            "question": "Van Hook Township >> located in the administrative territorial entity",
            "answer": "Mountrail County",
        },
        {"question": "#1 >> capital", "answer": "Stanley"},
        {"question": "Who founded #2?", "answer": "someone"},
    ]
    queries, answers = musique_gold_queries(decomposition)
    assert queries == (
        "Van Hook Township located in the administrative territorial entity",
        "Mountrail County capital",
        "Who founded Stanley?",
    )
    assert answers == ("Mountrail County", "Stanley", "someone")


def test_hub_layouts_parse():
    hotpot = {
        "id": "h1",
        "question": "Which came first?",
        "answer": "A",
        "context": {"title": ["A", "B"], "sentences": [["A was 1990.", "More."], ["B was 2000."]]},
        "supporting_facts": {"title": ["A"], "sent_id": [0]},
    }
    arc = {"id": "a1", "question": "Q?", "choices": {"text": ["x", "y"], "label": ["A", "B"]}, "answerKey": "B"}
    asqa = {
        "sample_id": "s1",
        "ambiguous_question": "Who won?",
        "qa_pairs": [{"question": "Who won in 2001?", "short_answers": ["X"]}],
        "annotations": [{"long_answer": "X won in 2001."}],
    }
    (h,) = [LOADERS["hotpotqa"](hotpot, 0)]
    assert [p["is_supporting"] for p in h.pool] == [True, False] and h.pool[0]["paragraph_text"] == "A was 1990. More."
    assert LOADERS["arc_challenge"](arc, 0).answer == "B. y"
    assert LOADERS["asqa"](asqa, 0).gold_queries == ("Who won in 2001?",)


def test_malformed_lines_and_unusable_records_are_counted_not_fatal(tmp_path):
    path = tmp_path / "mixed.jsonl"
    good = {"id": "1", "question_stem": "Q?", "choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "A"}
    no_key = {**good, "id": "2", "answerKey": "Z"}  # answer key not among the options
    path.write_text("\n".join([json.dumps(good), "{not json", "[1, 2]", "", json.dumps(no_key), '{"id": "3"']) + "\n")
    examples, stats, bad = _load("openbookqa", path)
    assert [ex.source_id for ex in examples] == ["1"]
    assert stats.read == 2 and stats.skipped == 3
    assert [n for n, _ in stats.malformed] == [2, 3, 6]
    assert len(bad) == 1 and "answer key" in bad[0][1]


def test_a_broken_json_array_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[{"instruction": "a", "output": "b"},')
    with pytest.raises(ValueError, match="not a valid JSON array"):
        list(read_records(path))


def test_unknown_source_is_rejected():
    with pytest.raises(ValueError, match="unknown source"):
        list(parse_records("nope", iter([]), lambda i, why: None))


def test_2wiki_evidence_triples_become_one_sub_question_per_hop_on_real_records():
    examples, _, _ = _load("2wikimultihopqa", slice_path("2wikimultihopqa"))
    by_question = {ex.question: ex for ex in examples}
    ex = by_question["What is the place of birth of the director of film The Zone (2017 Film)?"]
    # Hop 2 asks about the bridge entity, the director hop 1 finds.
    assert ex.gold_queries == ("What is the director of The Zone?", "What is the place of birth of Denys Desjardins?")
    assert ex.gold_query_answers == ("Denys Desjardins", "Montreal, Quebec")
    assert ex.extra["refinement_origin"] == "gold"
    assert all(e.gold_queries for e in examples)  # every usable record has triples
    assert wiki2_gold_queries([["A", "father", "B"], ["A", "father", "B"], ["bad"]]) == (
        ("What is the father of A?",),
        ("B",),
    )


def test_hotpot_silver_queries_name_each_supporting_paragraph_on_real_records():
    examples, _, _ = _load("hotpotqa", slice_path("hotpotqa"))
    first = examples[0]  # bridge: Kiss and Tell -> Shirley Temple -> Chief of Protocol
    assert first.gold_queries == (
        "Kiss and Tell (1945 film) Corliss Archer",
        "Shirley Temple government position held woman portrayed",
    )
    assert first.extra["refinement_origin"] == "silver"
    titles = {p["title"] for p in first.pool if p["is_supporting"]}
    assert any(q.startswith("Shirley Temple") for q in first.gold_queries) and "Shirley Temple" in titles
    assert sum(bool(ex.gold_queries) for ex in examples) == len(examples)


def test_hotpot_silver_queries_for_a_comparison_question():
    pool = [
        {
            "title": "Scott Derrickson",
            "paragraph_text": "Scott Derrickson is an American director.",
            "is_supporting": True,
        },
        {"title": "Ed Wood", "paragraph_text": "Edward Wood Jr. was an American filmmaker.", "is_supporting": True},
        {"title": "Other", "paragraph_text": "Unrelated.", "is_supporting": False},
    ]
    queries, answers = hotpot_silver_queries("Were Scott Derrickson and Ed Wood of the same nationality?", pool)
    assert queries == ("Scott Derrickson nationality", "Ed Wood nationality") and answers == ("", "")
    assert hotpot_silver_queries("Who?", pool[2:]) == ((), ())
