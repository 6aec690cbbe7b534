"""The data-construction query filter: each drop reason on hand-made cases, and on real benchmark records."""

from __future__ import annotations

import pytest

from rqrag.data_construction.query_filter import filter_new_evidence, filter_text, jaccard, text_reason
from rqrag.retrieval.base import Hit


QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"


def test_jaccard_by_hand():
    # {who, directed, titanic} vs {who, directed, film, titanic}: 3 shared of 4 -> 0.75
    assert jaccard("Who directed Titanic?", "Who directed the film Titanic") == pytest.approx(0.75)
    assert jaccard("", "") == 1.0


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        (QUESTION, "restates_question"),
        (
            "What government position was held by the woman who portrayed Corliss Archer in Kiss and Tell",
            "restates_question",
        ),
        ("Kiss and Tell 1945 film Corliss Archer", None),
        ("Shirley Temple government position", None),
        ("Tell", "not_a_query"),  # one content word
        ("The answer is Chief of Protocol of the United States", "not_a_query"),  # states the gold answer
        (" ".join(["word"] * 41), "not_a_query"),
    ],
)
def test_text_reasons(query, reason):
    assert text_reason(query, QUESTION, earlier=[], answers=["Chief of Protocol"]) == reason


def test_repeats_and_order():
    kept, dropped = filter_text(
        [
            "Kiss and Tell Corliss Archer",
            "Corliss Archer Kiss and Tell film",
            "Shirley Temple government position",
            QUESTION,
        ],
        QUESTION,
        ["Chief of Protocol"],
    )
    # The second repeats the first (Jaccard 4/5 = 0.8); the last restates the question.
    assert kept == ["Kiss and Tell Corliss Archer", "Shirley Temple government position"]
    assert dropped == {"repeats_query": 1, "restates_question": 1}


def test_yes_no_answers_are_not_statements():
    assert text_reason("Ed Wood nationality yes", "Were Scott Derrickson and Ed Wood American?", [], ["yes"]) is None


def _hit(docid):
    return Hit(docid, docid, "text", 1.0)


def test_a_search_that_finds_nothing_new_is_dropped():
    searched = [
        ("q1", [_hit("a"), _hit("b")]),
        ("q2", [_hit("b"), _hit("a")]),
        ("q3", [_hit("b"), _hit("c")]),
        ("q4", []),
    ]
    kept, dropped = filter_new_evidence(searched)
    assert [q for q, _ in kept] == ["q1", "q3"]
    assert dropped == {"nothing_new": 2}


def test_gold_and_silver_build_with_the_filter_on_real_records(smollm2_tokenizer, tmp_path):
    """Multi-hop training data from the benchmarks' own annotations, filtered, with no LLM at all."""
    import asyncio
    import json

    from rqrag.data_construction.data_config import DataBuildConfig
    from rqrag.data_construction.pipeline import DATA_FILE, DROPPED_FILE, run_build
    from rqrag.data_construction.run_report import format_report, write_report

    config = DataBuildConfig(
        out_dir=str(tmp_path),
        sources=["hotpotqa:8", "2wikimultihopqa:6", "musique:6"],
        annotator="auto",
        retention_ratio=1.0,
        require_supporting="all",
        multihop_retriever="candidates",
        candidates_mode="bm25",
        max_length=2048,
        chunk_size=8,
    )
    result = asyncio.run(run_build(config, tmp_path, smollm2_tokenizer))
    assert result.llm_stats == {} and result.pending == 0
    records = [json.loads(line) for line in (tmp_path / DATA_FILE).read_text().splitlines()]
    drops = [json.loads(line) for line in (tmp_path / DROPPED_FILE).read_text().splitlines()]
    assert len(records) + len(drops) == 20 and len(records) >= 10
    origins = {r["metadata"]["source"]: r["metadata"]["refinement_origin"] for r in records}
    assert origins.get("hotpotqa") == "silver" and origins.get("2wikimultihopqa") == "gold"
    for record in records:
        meta = record["metadata"]
        question = record["messages"][-2]["content"]
        queries = [s["text"] for s in record["trajectory"]["steps"][:-1]]
        assert queries and all(text_reason(q, question, [], meta["gold_answers"]) is None for q in queries)
        assert record["trajectory"]["steps"][-1]["text"] == meta["original_answer"]  # the short gold span
        assert len(meta["original_answer"].split()) <= 10
    report = write_report(result)
    assert "refinements kept / dropped by the query filter" in format_report(report)
    kept_queries = sum(r["metadata"]["n_queries"] for r in records)
    assert sum(c.get("kept", 0) for c in report["query_filter"].values()) == kept_queries
