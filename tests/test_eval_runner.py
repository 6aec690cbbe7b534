"""The benchmark runner: records, baselines, reports, and resume — with a scripted generator for the logic,
and the real SmolLM2 through `rqrag eval` for the interrupt/resume path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import FakeGenerator
from killing import kill_after_first_line

from rqrag.config_loader import ConfigError
from rqrag.eval.benchmark_report import markdown_table
from rqrag.eval.eval_config import EvalConfig
from rqrag.eval.runner import run_eval
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.select import DEFINITIONS, STRATEGIES
from rqrag.trajectory import Action


ROOT = Path(__file__).resolve().parent.parent


def _script(prompt, action, request):
    # Queries name the question's first words; answers change with the number of evidence blocks read, so
    # deeper trajectories answer differently and the oracle can beat a strategy.
    if action is Action.ANSWER:
        return ["unknown", "Chief of Protocol", "Shirley Temple"][min(prompt.count("[R_Evidences]"), 2)], 0.9
    return "Corliss Archer Kiss and Tell", {Action.REWRITE: 0.8, Action.DECOMPOSE: 0.6}.get(action, 0.3)


def _run(tmp_path, tok, systems, guards=False, **overrides):
    # refinement_guards off: the scripted queries repeat themselves, and the tree under test is the full one.
    decode = DecodeConfig(prompting="trained", max_depth=2, actions=["rewrite", "decompose"], refinement_guards=guards)
    config = EvalConfig(
        task="hotpotqa", limit=3, systems=systems, output_dir=str(tmp_path / "run"), batch_size=2, **overrides
    )
    decoder = TreeDecoder(decode, FakeGenerator(tok, _script), tok, retriever=None)
    return run_eval(config, decode, decoder=decoder), Path(config.output_dir)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_systems_records_and_reports(tmp_path, smollm2_tokenizer):
    summary, out = _run(tmp_path, smollm2_tokenizer, ["rqrag", "no_retrieval", "standard_rag"])
    tree = _records(out / "rqrag" / "predictions.jsonl")
    direct = _records(out / "no_retrieval" / "predictions.jsonl")
    single = _records(out / "standard_rag" / "predictions.jsonl")
    assert [r["id"] for r in tree] == [r["id"] for r in direct] == [r["id"] for r in single]
    assert len(tree) == 3

    # Depth 2 with two query actions: 1 + 2 + 4 answered trajectories; the baselines have exactly one.
    assert all(len(r["trajectories"]) == 7 for r in tree)
    assert all(len(r["trajectories"]) == 1 and r["trajectories"][0]["steps"][0]["action"] == "answer" for r in direct)
    for r in single:
        (t,) = r["trajectories"]
        first = t["steps"][0]
        assert first["action"] == "rewrite" and first["text"] == r["question"]  # the question itself, searched once
        assert len(first["evidence"]) == 3 and all(h["docid"].startswith(r["id"] + "::") for h in first["evidence"])
        assert t["answer"] == "Chief of Protocol"  # one evidence block read
        assert 0.0 <= r["retrieval"]["recall"] <= 1.0 and len(r["retrieval"]["ranks"]) == 1

    # The oracle takes the best trajectory: the one-search answer is the gold of the first question.
    first = tree[0]
    assert first["gold"]["answers"] == ["Chief of Protocol"]
    assert first["oracle"]["em"] == 1.0
    assert first["oracle"]["em"] >= max(s["em"] for s in first["scores"].values())
    assert direct[0]["oracle"]["em"] == 0.0  # "unknown"

    s = summary["systems"]
    assert s["rqrag"]["questions"] == 3 and s["rqrag"]["missing"] == 0
    assert s["rqrag"]["oracle"]["f1"] >= max(v["f1"] for v in s["rqrag"]["strategies"].values())
    assert s["standard_rag"]["retrieval"]["searches"] == 3
    assert json.loads((out / "summary.json").read_text()) == summary
    assert (out / "strategies.png").stat().st_size > 5000
    assert (out / "resolved_config.yaml").is_file()
    table = markdown_table([summary])
    assert table.count("\n") == 4 and "| rqrag |" in table
    header = [cell.strip() for cell in table.splitlines()[0].strip("|").split("|")]
    assert header[4:6] == ["ppl", "±95 %"] and set(STRATEGIES) <= set(header)  # every strategy has a column
    rows = {line.split(" | ")[2]: dict(zip(header, line.strip("| ").split(" | "))) for line in table.splitlines()[2:]}
    assert rows["no_retrieval"]["gold recall"] == "–"  # never searched: no recall, not 0 %
    assert rows["standard_rag"]["gold recall"] == f"{100 * s['standard_rag']['retrieval']['recall']:.1f}"
    assert rows["rqrag"]["other (ppl)"] == f"em {100 * s['rqrag']['strategies']['ppl']['em']:.1f}"
    assert rows["rqrag"]["±95 %"] == f"{100 * s['rqrag']['ci95']['f1']:.1f}"
    assert rows["rqrag"]["vote"] == f"{100 * s['rqrag']['strategies']['vote']['f1']:.1f}"
    assert summary["strategy_definitions"] == DEFINITIONS  # the summary names what each score means

    # The answer a user would read, through the same answer pipeline as every surface: vote's answer when its
    # evidence supports it (here the gold, found in the scripted candidates), scored beside the strategies.
    for record in tree:
        grounded = record["grounded"]
        assert grounded["kind"] in ("generated", "quoted", "no_answer")
        if grounded["kind"] == "generated":  # one of the tree's own answers, the path it came from named
            by_path = {t["path_id"]: t["answer"] for t in record["trajectories"]}
            assert by_path[grounded["path_id"]].strip() == grounded["answer"]
        assert set(record["scores"]["grounded"]) == set(record["scores"]["vote"])
    assert set(s["rqrag"]["strategies"]["grounded"]) == {"em", "f1"}


def test_records_count_the_work_the_tree_saved(tmp_path, smollm2_tokenizer):
    # Both actions emit the same query: with guards on, each question's second query at depth 0 repeats the
    # first (not searched) and nothing deeper is new; the record and the summary say how many were stopped.
    summary, out = _run(tmp_path, smollm2_tokenizer, ["rqrag"], guards=True)
    tree = _records(out / "rqrag" / "predictions.jsonl")
    assert all(r["guarded"] >= 1 and r["stopped_at"] is None for r in tree)
    assert all(isinstance(r["merged"], int) for r in tree)
    s = summary["systems"]["rqrag"]
    assert s["guarded_per_question"] == sum(r["guarded"] for r in tree) / 3
    assert s["stopped_early"] == 0.0
    unguarded, _ = _run(tmp_path / "off", smollm2_tokenizer, ["rqrag"])
    assert unguarded["systems"]["rqrag"]["guarded_per_question"] == 0.0
    assert s["trajectories_per_question"] < unguarded["systems"]["rqrag"]["trajectories_per_question"]


def test_existing_run_needs_resume_or_overwrite(tmp_path, smollm2_tokenizer):
    _run(tmp_path, smollm2_tokenizer, ["no_retrieval"])
    with pytest.raises(ConfigError, match="--resume"):
        _run(tmp_path, smollm2_tokenizer, ["no_retrieval"])
    summary, out = _run(tmp_path, smollm2_tokenizer, ["no_retrieval"], resume=True)  # nothing left to do
    assert len(_records(out / "no_retrieval" / "predictions.jsonl")) == 3
    summary, out = _run(tmp_path, smollm2_tokenizer, ["no_retrieval"], overwrite=True)
    assert len(_records(out / "no_retrieval" / "predictions.jsonl")) == 3


def test_answers_lost_to_an_unreachable_server_are_asked_again_on_resume(tmp_path, smollm2_tokenizer):
    """The engine's rule, shared with `rqrag experiment`: a question that failed only because the generator could
    not be reached is not recorded (it would score 0 for good), so `--resume` asks it again."""

    def server_down(prompt, action, request):
        raise ConnectionError("server unreachable")

    decode = DecodeConfig(prompting="trained", max_depth=2, actions=["rewrite", "decompose"], refinement_guards=False)
    config = EvalConfig(task="hotpotqa", limit=3, systems=["no_retrieval"], output_dir=str(tmp_path / "run"))
    down = TreeDecoder(decode, FakeGenerator(smollm2_tokenizer, server_down), smollm2_tokenizer, retriever=None)
    summary = run_eval(config, decode, decoder=down)
    predictions = Path(config.output_dir) / "no_retrieval" / "predictions.jsonl"
    assert predictions.read_text() == "" and summary["transient_failures"] == 3
    assert summary["systems"]["no_retrieval"]["missing"] == 3

    summary, out = _run(tmp_path, smollm2_tokenizer, ["no_retrieval"], resume=True)
    records = _records(predictions)
    assert len(records) == 3 and not any(r["error"] for r in records)
    assert summary["systems"]["no_retrieval"]["missing"] == 0 and "transient_failures" not in summary


@pytest.mark.slow
@pytest.mark.heavy
def test_interrupted_eval_resumes_without_losing_or_repeating(tmp_path):
    """Kill a real `rqrag eval` (SmolLM2, prompted) after its first batch, leave a torn line, and resume."""
    out = tmp_path / "arc"
    predictions = out / "no_retrieval" / "predictions.jsonl"
    command = [
        sys.executable, "-m", "rqrag.cli", "eval", "--config", str(ROOT / "configs/eval/arc_challenge.yaml"),
        "--model", "smollm2-135m-instruct", "--prompting", "prompted", "--systems", "no_retrieval",
        "--limit", "4", "--batch_size", "1", "--answer_max_tokens", "8", "--output_dir", str(out),
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    kill_after_first_line(command, predictions, cwd=ROOT, env=env, log=tmp_path / "killed_run.log")
    done = _records(predictions)
    assert 1 <= len(done) < 4, "the run should have been killed part-way"
    with predictions.open("a") as f:  # what a kill in the middle of a write leaves
        f.write('{"id": "arc_challenge:torn", "syst')

    result = subprocess.run([*command, "--resume"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    records = _records(predictions)
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)) == 4
    assert records[: len(done)] == done  # earlier answers kept as they were
    summary = json.loads((out / "summary.json").read_text())
    assert summary["systems"]["no_retrieval"]["questions"] == 4 and summary["systems"]["no_retrieval"]["missing"] == 0


def test_candidate_retrieval_follows_retrieval_mode_and_cache(tmp_path, minilm_path):
    """Multi-hop tasks search each question's candidates with the configured mode (dense as in the paper's
    App. B.4, not always BM25) and through the configured cache."""
    from rqrag.eval.runner import build_task_retriever
    from rqrag.eval.tasks import get_task
    from rqrag.retrieval.cache import CachedRetriever

    task = get_task("hotpotqa")
    examples, _ = task.load(limit=2)
    decode = DecodeConfig(prompting="trained", retrieval_mode="dense", retrieval_cache=str(tmp_path / "cache.sqlite"))
    retriever = build_task_retriever(task, examples, decode)
    assert isinstance(retriever, CachedRetriever)
    assert retriever.inner.mode == "dense"
    hits = retriever.batch_search([examples[0].question], k=2, qids=[examples[0].uid])
    assert len(hits[0]) == 2 and (tmp_path / "cache.sqlite").is_file()

    plain = build_task_retriever(task, examples, DecodeConfig(prompting="trained", retrieval_mode="bm25"))
    assert plain.mode == "bm25"
