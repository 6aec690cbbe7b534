"""The experiment runner end to end: a real library of a few pages of the Portuguese manual, the shipped model at
depth 0 and 1, records and metrics, shared retrieval, a rerun that does nothing, and a `kill -9` mid-run.

    python -m pytest tests/test_experiment_runner.py -q            # the slow ones need ~2-4 minutes on 2 cores
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from killing import kill_after_first_line
from manual import GOLDEN, needs_manual, pdf_pages

from rqrag.eval.experiments.metrics import normalise_for_quotes, quotes_found, summarize_cells


ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------------------ metrics (fast)


def test_quote_matching_forgives_typography_only():
    chunk = "O projeto “Skolelinux” foi fun-\n   dado em 2 de julho\nde 2001 na Noruega."
    assert normalise_for_quotes(chunk) == 'O projeto "Skolelinux" foi fundado em 2 de julho de 2001 na Noruega.'
    assert quotes_found(['projeto "Skolelinux" foi fundado em 2 de julho'], [chunk]) == (True, True)
    assert quotes_found(["fundado em 3 de julho"], [chunk]) == (False, False)
    assert quotes_found(["na Noruega", "na Suécia"], ["x", chunk]) == (True, False)  # one of two quotes
    assert quotes_found([], [chunk]) == (False, False)


def test_summary_counts_missing_scores_instead_of_hiding_them():
    records = [
        {"cell_id": "a", "run_order": 1, "levels": {"k": 3}, "seconds": 1.0, "metrics": {"f1": 1.0, "faith": None}},
        {"cell_id": "a", "run_order": 1, "levels": {"k": 3}, "seconds": 2.0, "metrics": {"f1": 0.0, "faith": 0.5}},
        {
            "cell_id": "b",
            "run_order": 0,
            "levels": {"k": 5},
            "seconds": 1.5,
            "metrics": {"f1": 0.5, "faith": math.nan},
        },
    ]
    rows = summarize_cells(records, ["f1", "faith"])
    assert [r["cell_id"] for r in rows] == ["b", "a"]  # run order
    b, a = rows
    assert (a["f1_mean"], a["f1_missing"], a["faith_mean"], a["faith_missing"]) == (0.5, 0, 0.5, 1)
    assert (b["faith_mean"], b["faith_missing"], b["questions"], b["k"]) == (None, 1, 1, 5)
    assert a["seconds"] == 3.0


def test_cut_retriever_searches_once_at_the_largest_k():
    from rqrag.eval.experiments.runner import CutRetriever
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage

    docs = [Passage(f"d{i}", "", f"servidor tjener rede {' '.join(['cliente'] * i)} número {i}") for i in range(8)]
    inner = BM25Retriever.from_passages(docs, language="pt")
    cut = CutRetriever(inner, max_k=5)
    three = cut.batch_search(["servidor cliente", "rede"], k=3)
    five = cut.batch_search(["servidor cliente", "rede", "servidor cliente"], k=5)
    assert cut.inner_queries == 2 and cut.lookups == 5
    for short, long, direct in zip(three, five, inner.batch_search(["servidor cliente", "rede"], k=3)):
        assert [h.docid for h in short] == [h.docid for h in long[:3]] == [h.docid for h in direct]
    with pytest.raises(ValueError, match="largest k"):
        cut.search("rede", k=6)


# ------------------------------------------------------------------------------------------ end to end (slow)


def _tiny_config(folder: Path, out: Path) -> Path:
    """2 cells (standard RAG vs a depth-1 tree) x 3 golden questions whose evidence is on pages 8-12."""
    folder.mkdir(parents=True, exist_ok=True)
    pdf = folder / "manual_p8-12.pdf"
    if not pdf.is_file():
        pdf.write_bytes(pdf_pages(8, 12))
    golden = folder / "golden.jsonl"
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()[:3]
    golden.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = {
        "name": "tiny",
        "corpus": [str(pdf)],
        "golden": str(golden),
        "factors": {
            "chunking": ["recursive:1000/150"],
            "search_mode": ["bm25"],
            "k": [3],
            "refinement": ["none", "tree:1"],
        },
        "question_batch_size": 1,  # one append per answer: the kill below lands between two of them
        "output_dir": str(out),
        "model": "rqrag-smollm2-135m",
        "prompting": "trained",
        "dtype": "bfloat16",
        "actions": ["decompose"],
        "query_temperature": 0.0,
        "query_max_tokens": 24,
        "answer_max_tokens": 24,
    }
    path = folder / "tiny.yaml"
    path.write_text("# tiny experiment for tests\n" + yaml.safe_dump(config, allow_unicode=True))
    return path


def _records(path: Path) -> list[dict]:
    """The complete lines only: a killed writer may leave an unterminated last one."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n")[:-1] if line.strip()]


def _runner(config_path: Path):
    from rqrag.config_loader import make_parser, parse
    from rqrag.eval.experiments.experiment_config import ExperimentConfig
    from rqrag.eval.experiments.runner import ExperimentRunner
    from rqrag.inference.decoding.decode_config import DecodeConfig

    decode, config, _ = parse(make_parser(DecodeConfig, ExperimentConfig), ["--config", str(config_path)])
    return ExperimentRunner(config, decode)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The tiny experiment run once in-process: (runner, summary, output folder)."""
    folder = tmp_path_factory.mktemp("experiment")
    runner = _runner(_tiny_config(folder, folder / "out"))
    summary = runner.run()
    return runner, summary, folder / "out"


@pytest.mark.slow
@needs_manual
@pytest.mark.heavy
def test_every_cell_answers_every_question_with_metrics(finished):
    runner, summary, out = finished
    records = _records(out / "records.jsonl")
    assert len(records) == 6 and len({r["id"] for r in records}) == 6
    assert {(r["levels"]["refinement"], r["question_id"]) for r in records} == {
        (level, f"pt-factual-0{i}") for level in ("none", "tree:1") for i in (1, 2, 3)
    }
    for record in records:
        m = record["metrics"]
        assert 0.0 <= m["f1"] <= 1.0 and m["em"] in (0.0, 1.0)
        assert m["evidence_hit"] in (0.0, 1.0) and m["evidence_all"] <= m["evidence_hit"]
        assert len(record["first_search"]) == 3 and all(  # pages of the 5-page excerpt
            1 <= p[0] <= 5 for p in (h["pages"] for h in record["first_search"])
        )
        # Scored on what a user reads: the grounded answer of the same pipeline as every surface.
        assert record["answer_kind"] in ("generated", "quoted", "no_answer", "not_found")
        assert (record["prediction"] is None) == (record["answer_kind"] in ("no_answer", "not_found"))
        if record["prediction"]:
            assert -1.0 <= m["similarity"] <= 1.0
        else:
            assert m["similarity"] is None
    none_cell = [r for r in records if r["levels"]["refinement"] == "none"]
    tree_cell = [r for r in records if r["levels"]["refinement"] == "tree:1"]
    assert all(len(r["trajectories"]) == 1 and r["queries"] == [] for r in none_cell)  # standard RAG: one answer
    assert sum(len(r["trajectories"]) for r in tree_cell) > 3  # the tree answered at depth 0 and after a refinement
    assert sum(r["metrics"]["evidence_hit"] for r in none_cell) >= 2  # BM25 top 3 of 5 pages finds the quotes
    # Both cells searched each question once between them: the second cell's first searches came from the cache.
    (retriever,) = runner.retrievers.values()
    assert retriever.inner_queries <= retriever.lookups - 3
    by_question = {}
    for record in records:
        by_question.setdefault(record["question_id"], set()).add(tuple(h["docid"] for h in record["first_search"]))
    assert all(len(v) == 1 for v in by_question.values())
    # The outputs beside the records.
    assert summary["complete"] and summary["records"] == 6
    assert len((out / "design.csv").read_text().splitlines()) == 3
    assert len((out / "summary.csv").read_text().splitlines()) == 3
    resolved = yaml.safe_load((out / "resolved_config.yaml").read_text())
    assert resolved["ExperimentConfig"]["factors"]["refinement"] == ["none", "tree:1"]
    assert resolved["DecodeConfig"]["actions"] == ["decompose"]
    assert summary["missing_scores"]["f1"] == 0 and "faithfulness" not in summary["missing_scores"]


@pytest.mark.slow
@needs_manual
@pytest.mark.heavy
def test_rerun_of_a_finished_experiment_does_nothing(finished):
    _, _, out = finished
    catalog = out / "indexes" / "recursive-1000-150" / "documents.json"
    before = (out / "records.jsonl").read_bytes(), os.stat(catalog).st_ino
    runner = _runner(out.parent / "tiny.yaml")
    summary = runner.run()
    assert summary["complete"]
    assert ((out / "records.jsonl").read_bytes(), os.stat(catalog).st_ino) == before
    assert runner.generators == {} and runner.libraries == {}  # nothing loaded, nothing indexed


@pytest.mark.slow
@needs_manual
@pytest.mark.heavy
def test_kill_9_mid_run_then_rerun_loses_and_repeats_nothing(tmp_path):
    out = tmp_path / "out"
    config = _tiny_config(tmp_path, out)
    records = out / "records.jsonl"
    command = [sys.executable, "-m", "rqrag.cli.commands.experiment", "run", "--config", str(config)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    kill_after_first_line(command, records, cwd=ROOT, env=env, log=tmp_path / "killed_run.log")
    done = _records(records)
    assert 1 <= len(done) < 6, "the run should have been killed part-way"
    with records.open("a") as f:  # what a kill in the middle of a write leaves
        f.write('{"id": "torn:pt-factual-01", "cell_')

    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    final = _records(records)
    ids = [r["id"] for r in final]
    assert len(ids) == len(set(ids)) == 6
    assert final[: len(done)] == done  # what the killed run wrote is kept as it was
    cells = {r["cell_id"] for r in final}
    assert len(cells) == 2 and all(sum(r["cell_id"] == c for r in final) == 3 for c in cells)
    assert json.loads((out / "summary.json").read_text())["complete"]


def test_flat_rows_put_levels_and_metrics_in_columns():
    from rqrag.eval.experiments.metrics import flatten_records

    record = {
        "cell_id": "c1", "question_id": "q1", "category": "factual", "replicate": 0, "run_order": 4,
        "levels": {"k": 3, "search_mode": "bm25"}, "metrics": {"f1": 0.5, "similarity": None},
    }  # fmt: skip
    (row,) = flatten_records([record], ["f1", "similarity", "faithfulness"])
    assert row == {
        "cell_id": "c1", "question_id": "q1", "category": "factual", "replicate": 0, "run_order": 4,
        "k": 3, "search_mode": "bm25", "f1": 0.5, "similarity": None, "faithfulness": None,
    }  # fmt: skip


@pytest.mark.slow
@needs_manual
@pytest.mark.heavy
def test_report_and_generated_queries_on_the_finished_run(finished, capsys):
    """`rqrag experiment report` and `queries` on the tiny run: the ART table of refinement (3 questions as
    subjects), the plots, and per-mode ranking of one generated query per page."""
    from rqrag.cli.commands.experiment import main

    _, _, out = finished
    config = out.parent / "tiny.yaml"
    assert main(["report", "--config", str(config), "--report_dir", str(out / "report")]) == 0
    report = (out / "report" / "report.md").read_text()
    assert "## Aligned Rank Transform ANOVA" in report and "| refinement |" in report
    assert (out / "report" / "interactions_f1.png").stat().st_size > 0
    assert (out / "report" / "resolved_config.yaml").is_file()
    capsys.readouterr()
    assert main(["queries", "--config", str(config)]) == 0
    table = pd.read_csv(out / "retrieval_on_generated_queries.csv")
    assert list(table["mode"]) == ["bm25"] and table.loc[0, "queries"] >= 4  # one per text page of pages 8-12
    assert 0 < table.loc[0, "mrr"] <= 1 and table.loc[0, "not_found"] < 0.5  # excerpts are found by their words


def test_ragas_is_retried_after_a_failure_and_for_empty_scores_only(monkeypatch):
    """A judge call that raises is tried again after a pause; a sample whose scores came back empty is judged
    again on its own; after `judge_retries` extra attempts what is still empty stays None."""
    from types import SimpleNamespace

    from rqrag.eval import rag_metrics
    from rqrag.eval.experiments.metrics import RAGAS_JUDGED, ragas_with_retries

    calls, pauses = [], []
    replies = iter(
        [
            RuntimeError("judge unreachable"),
            [dict.fromkeys(RAGAS_JUDGED, 0.5), {"faithfulness": 1.0}],  # the second sample came back partial
            [{"faithfulness": 1.0}],  # its other four never parse
            [{"faithfulness": 1.0}],
        ]
    )

    def judged(batch, judge, base_url):
        calls.append([s.id for s in batch])
        reply = next(replies)
        if isinstance(reply, Exception):
            raise reply
        return reply

    monkeypatch.setattr(rag_metrics, "ragas_scores", judged)
    monkeypatch.setattr("time.sleep", pauses.append)
    config = SimpleNamespace(
        judge_base_url="http://judge", judge_model="m", judge_api_key_env="K", judge_timeout=1.0, judge_retries=2
    )
    samples = [{"id": i, "question": "q", "answer": "a", "contexts": ["c"], "reference": "r"} for i in ("s1", "s2")]
    first, second = ragas_with_retries(samples, config)
    assert calls == [["s1", "s2"], ["s1", "s2"], ["s2"]]  # 1 + judge_retries attempts, only the unfinished again
    pauses = [p for p in pauses if p > 0]  # tenacity sleeps 0 s before judging a partial reply again
    assert len(pauses) == 1 and pauses[0] <= 30  # a pause after the failure only
    assert first == dict.fromkeys(RAGAS_JUDGED, 0.5)
    assert second == {**dict.fromkeys(RAGAS_JUDGED), "faithfulness": 1.0}
    assert ragas_with_retries([], config) == []
