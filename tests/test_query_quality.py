"""scripts/query_quality.py: hand-computed query checks and bootstrap, then the script on a real runner output."""

from __future__ import annotations

import json

import pytest
from fakes import FakeGenerator
from script_modules import load_script

from rqrag.eval.eval_config import EvalConfig
from rqrag.eval.runner import run_eval
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.select import STRATEGIES
from rqrag.trajectory import Action


qq = load_script("query_quality")


def test_jaccard_restatement_by_hand():
    # {who, directed, titanic} both ways once "the" and "?" are gone: 3/3
    assert qq.jaccard("Who directed Titanic?", "who directed the Titanic") == 1.0
    # {titanic, director, birth, year} vs {when, was, titanic, director, born}: 2 shared of 7
    assert qq.jaccard("Titanic director birth year", "When was the Titanic director born?") == pytest.approx(2 / 7)
    # 4 of 5 words is exactly the 0.8 threshold (restates); 3 of 4 is 0.75 (does not)
    assert qq.restates_any("red green blue pink", ["red green blue pink gold"])
    assert not qq.restates_any("red green blue", ["red green blue pink"])
    # any earlier text counts: the question or a preceding query of the same trajectory
    assert qq.restates_any("Titanic director", ["Who directed Titanic?", "the Titanic director"])
    assert not qq.restates_any("Titanic director", [])
    assert qq.jaccard("", "?") == 1.0  # two empty word sets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Who directed Titanic?", True),
        ("is Paris in France", True),  # an auxiliary verb first, no question mark
        ("Paris, France?", True),  # a question mark, no question word
        ("Titanic director", False),
        ("Whoever wrote Hamlet", False),  # "whoever" is not "who"
        ("", False),
    ],
)
def test_question_phrasing(text, expected):
    assert qq.phrased_as_question(text) is expected


def _step(action, text, docids=()):
    return {
        "action": action,
        "text": text,
        "evidence": [{"docid": d, "title": d, "text": "", "score": 1.0} for d in docids],
    }


Q1 = _step("rewrite", "who directed the Titanic", ["A", "B"])
Q2 = _step("decompose", "Titanic director birth year", ["C"])
Q3 = _step("disambiguate", "Titanic (1997 film) director", ["D"])
RECORD = {
    "id": "q",
    "question": "Who directed Titanic?",
    "gold": {"answers": ["James Cameron"], "supporting": ["A", "C"]},
    "trajectories": [
        {"path_id": "0.0.0", "steps": [Q1, _step("answer", "Cameron")]},
        {"path_id": "0.0.1.0", "steps": [Q1, Q2, _step("answer", "1954")]},
        {"path_id": "0.1", "steps": [_step("answer", "Cameron")]},
        {"path_id": "0.2.0", "steps": [Q3]},  # failed below its query: the query still counts, once
    ],
}


def test_queries_are_counted_once_per_tree_node():
    nodes = qq.query_nodes(RECORD)
    assert [(n["node"], n["text"], n["earlier"]) for n in nodes] == [
        ("0.0", Q1["text"], []),
        ("0.0.1", Q2["text"], [Q1["text"]]),
        ("0.2", Q3["text"], []),
    ]


def test_new_evidence_rate_by_hand():
    # The question alone found A; gold is {A, C}, so only C is new. Q1 {A, B}: no; Q2 {C}: yes; Q3 {D}: no.
    stats = qq.query_stats([RECORD], {"q": ["A"]})
    assert stats["new_evidence_rate"] == pytest.approx(1 / 3) and stats["new_evidence_queries"] == 3
    # Q1 restates the question (Jaccard 3/3); Q2 {titanic, director, birth, year} shares only "titanic" with
    # the question and with Q1 (1/6 each); Q3 {titanic, 1997, film, director} 1/6 with the question.
    assert stats["restated"] == pytest.approx(1 / 3)
    assert stats["question_phrased"] == pytest.approx(1 / 3)  # only Q1 starts with "who"
    # Without standard RAG the first search (Q1: A, B) is the baseline and is not rated: Q2 yes, Q3 no.
    alone = qq.query_stats([RECORD])
    assert alone["new_evidence_rate"] == pytest.approx(1 / 2) and alone["baseline"] == "first_search"
    # Gold unknown: nothing to rate, but the queries are still described.
    unknown = qq.query_stats([{**RECORD, "gold": {"answers": ["x"]}}], {"q": ["A"]})
    assert unknown["new_evidence_rate"] is None and unknown["queries"] == 3


def test_paired_bootstrap_by_hand():
    same = qq.paired_bootstrap([1, 0, 1, 0.5], [1, 0, 1, 0.5])
    assert same["delta"] == 0.0 and same["p"] == 0.5 and same["ci95"] == [0.0, 0.0]  # every resample ties
    # diffs (1, 0): a resample's mean is 0 with prob 1/4 (both draws 0), else > 0 -> p = 1/4 * 1/2 = 0.125
    assert qq.paired_bootstrap([1, 0], [0, 0])["p"] == pytest.approx(0.125, abs=0.01)
    # diffs (-1, 1): mean < 0 w.p. 1/4, = 0 w.p. 1/2 -> p = 1/4 + 1/2 * 1/2 = 0.5
    assert qq.paired_bootstrap([0, 1], [1, 0])["p"] == pytest.approx(0.5, abs=0.015)
    better = [1.0] * 25 + [0.0] * 5  # right on 25 of 30 questions ...
    worse = [1.0] * 10 + [0.0] * 20  # ... against 10 of 30, on the same questions
    result = qq.paired_bootstrap(better, worse)
    assert result["delta"] == pytest.approx(0.5) and result["p"] < 0.05 and result["ci95"][0] > 0
    assert qq.paired_bootstrap(worse, better)["p"] > 0.95
    assert qq.paired_bootstrap(better, worse, seed=3) == qq.paired_bootstrap(better, worse, seed=3)
    assert qq.paired_bootstrap([], [])["p"] is None


def test_gap_closed_by_hand():
    assert qq.gap_closed(0.5, 0.4, 0.8) == pytest.approx(0.25)  # (0.5 - 0.4) / (0.8 - 0.4)
    assert qq.gap_closed(0.3, 0.4, 0.8) == pytest.approx(-0.25)  # worse than ppl
    assert qq.gap_closed(0.5, 0.5, 0.5) is None  # no gap to close


def _script(prompt, action, request):
    if action is Action.ANSWER:
        return ["unknown", "Chief of Protocol", "Shirley Temple"][min(prompt.count("[R_Evidences]"), 2)], 0.9
    return "Corliss Archer Kiss and Tell", {Action.REWRITE: 0.8, Action.DECOMPOSE: 0.6}.get(action, 0.3)


def test_the_script_reads_a_real_eval_run(tmp_path, smollm2_tokenizer, capsys):
    # refinement_guards off: the scripted queries repeat themselves, and the tree under test is the full one.
    decode = DecodeConfig(prompting="trained", max_depth=2, actions=["rewrite", "decompose"], refinement_guards=False)
    config = EvalConfig(
        task="hotpotqa", limit=3, systems=["rqrag", "no_retrieval", "standard_rag"], output_dir=str(tmp_path / "run")
    )
    run_eval(
        config, decode, decoder=TreeDecoder(decode, FakeGenerator(smollm2_tokenizer, _script), smollm2_tokenizer, None)
    )

    assert qq.main([str(tmp_path / "run"), "--resamples", "500"]) == 0
    report = json.loads((tmp_path / "query_quality.json").read_text())  # next to the run
    run = report["runs"][str(tmp_path / "run")]
    # Per question 2 queries at depth 1 and 2 x 2 below them; every depth-2 query repeats its parent's words.
    assert run["queries"]["queries"] == 3 * 6
    assert run["queries"]["restated"] == pytest.approx(12 / 18) and run["queries"]["baseline"] == "standard_rag"
    assert list(run["strategies"]) == list(STRATEGIES)
    for row in run["strategies"].values():
        assert row["f1"] <= run["upper_bound"]["f1"] + 1e-9
        assert row["vs_standard_rag"]["n"] == row["vs_no_retrieval"]["n"] == 3
    assert run["strategies"]["ppl"]["gap_closed"] in (0.0, None)
    assert run["systems"]["no_retrieval"]["gold_recall"] is None  # never searched
    out = capsys.readouterr().out
    assert "| upper bound |" in out and "Δf1 vs standard_rag" in out


def test_invented_entities_by_hand():
    # A capitalised word the query names that neither the question nor the evidence read before it holds.
    assert qq.invented_entities("Dean Martens film director", "Who directed Kiss and Tell?", []) == ["Dean", "Martens"]
    assert qq.invented_entities("Kiss and Tell director", "Who directed Kiss and Tell?", []) == []
    # Read in evidence before the query: not invented (case does not matter), nor are question words.
    seen = ["Shirley Temple starred in Kiss and Tell (1945)."]
    assert qq.invented_entities("What office did Shirley Temple hold", "Who played Corliss Archer?", seen) == []
    assert qq.invented_entities("When was TEMPLE born", "Who played Corliss Archer?", seen) == []
    nodes = qq.query_nodes(
        {
            "question": "Who directed Titanic?",
            "trajectories": [
                {
                    "path_id": "0.0.0.0",
                    "steps": [
                        {"action": "rewrite", "text": "Titanic director", "evidence": [
                            {"docid": "A", "title": "Titanic (1997 film)", "text": "Directed by James Cameron."}]},
                        {"action": "decompose", "text": "James Cameron birth year", "evidence": []},
                        {"action": "decompose", "text": "Toby Nugantano birth year", "evidence": []},
                        {"action": "answer", "text": "1954", "evidence": []},
                    ],
                }
            ],
        }
    )  # fmt: skip
    assert [n["invented"] for n in nodes] == [[], [], ["Toby", "Nugantano"]]
    stats = qq.query_stats([{"id": "q", "question": "Who directed Titanic?", "trajectories": [
        {"path_id": "0.0.0.0", "steps": [
            {"action": "rewrite", "text": "Titanic director", "evidence": []},
            {"action": "decompose", "text": "Toby Nugantano birth year", "evidence": []}]}]}])  # fmt: skip
    assert stats["invented_entity_rate"] == pytest.approx(1 / 2)
