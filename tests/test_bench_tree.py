"""scripts/bench_tree.py's bookkeeping (floors, merged vs unmerged rows, the table) with a scripted generator."""

from __future__ import annotations

import argparse

import pytest
from fakes import FakeGenerator
from script_modules import load_script
from test_decoder import DOCS, script


bench = load_script("bench_tree")


def _record(qid: str, question: str) -> dict:
    contexts = [{"id": str(i), "title": d.title, "paragraph_text": d.text} for i, d in enumerate(DOCS)]
    return {"question_id": qid, "question_text": question, "contexts": contexts}


def test_merged_and_unmerged_batched_rows_share_their_floors(smollm2_tokenizer, capsys):
    from rqrag.inference.decoding.tree import Question

    records = [_record("qa", "alpha: which volcano is in Tanzania?"), _record("qb", "beta: which large cat?")]
    questions = [Question(r["question_id"], [{"role": "user", "content": r["question_text"]}]) for r in records]
    args = argparse.Namespace(model="fake", prompting="trained", depth=1, width=2, guards=False, max_tokens=16)
    args.max_batch_size = 4
    shared = {"hf": {"tokenizer": smollm2_tokenizer, "new": lambda: FakeGenerator(smollm2_tokenizer, script)}}
    configs = bench.configurations(["hf"], ["batched", "per_action"])
    assert configs == [("hf", "batched", True), ("hf", "batched", False), ("hf", "per_action", False)]
    merged, plain, per_action = (bench.run(*c, args, questions, records, shared) for c in configs)

    # Per question: root 3 actions x 2 greedy samples + answer = 7 expansions, 4 distinct; 6 children answer,
    # 3 distinct. Merged, the backend is asked for exactly the distinct ones.
    assert plain["requests"] == per_action["requests"] == 2 * 13 and merged["requests"] == 2 * 7
    assert merged["unique_expansions"] == plain["unique_expansions"] == per_action["unique_expansions"] == 2 * 7
    assert merged["unique_expansion_prompt_tokens"] == plain["unique_expansion_prompt_tokens"]
    assert merged["prompt_tokens"] == merged["unique_expansion_prompt_tokens"] < plain["prompt_tokens"]
    assert merged["unique_tree_tokens"] == plain["unique_tree_tokens"]  # the token floor does not move
    assert merged["answers"] == plain["answers"] == per_action["answers"] == ["Kilimanjaro", "Jaguar"]
    assert merged["decoder"]["merged"] == 2 * 6 and plain["decoder"]["merged"] == 0
    assert merged["duplicate_expansions"] == 0 and plain["duplicate_expansions"] == 2 * 6

    bench.print_report([merged, plain, per_action], args)
    out = capsys.readouterr().out
    assert "hf batched, merged/unmerged: requests 26 -> 14 (0.54)" in out
    assert "identical answers across schedules and merging: hf yes" in out


def test_the_demo_bench_counts_each_repeat_alone_and_runs_the_before_config(smollm2_tokenizer, monkeypatch, capsys):
    """scripts/bench_demo.py with a scripted generator: each row's work is one answer's (not the running totals
    that include the warm-up and the earlier repeats), and the "before" settings reach the decoder."""
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.inference.decoding.tree import Question
    from rqrag.retrieval.bm25 import BM25Retriever

    demo = load_script("bench_demo")
    retriever = BM25Retriever.from_passages(DOCS, show_progress=False)

    def fake_decoder(config):
        return TreeDecoder(config, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, retriever)

    monkeypatch.setattr("rqrag.inference.build.build_decoder", fake_decoder)
    question = "alpha: which volcano is in Tanzania?"
    rows = {
        name: demo.time_config(name, demo.demo_config(o), question, 3)
        for name, o in [("before", demo.BEFORE), ("after", {})]
    }
    for name, row in rows.items():
        once = fake_decoder(demo.demo_config(demo.BEFORE if name == "before" else {}))
        once.decode([Question("once", [{"role": "user", "content": question}])])
        g = once.generator.stats
        expected = (g.model_calls, g.requests, g.generated_tokens, once.stats.searches)
        assert (row["model_calls"], row["expansions"], row["generated_tokens"], row["searches"]) == expected, name
        assert row["answer"] == "Kilimanjaro" and row["same_answer_every_repeat"] and len(row["seconds"]) == 3
    # Three refinements at depth 2 without merging cost more than the shipped decompose-only tree.
    assert rows["before"]["expansions"] > rows["after"]["expansions"] and rows["after"]["searches"] >= 1
    with pytest.raises(SystemExit) as exit_info:
        demo.main(["--help"])
    assert exit_info.value.code == 0 and "--repeats" in capsys.readouterr().out


def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--help"])
    assert exit_info.value.code == 0 and "--width" in capsys.readouterr().out
