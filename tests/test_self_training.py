"""Self-training from the tree (`rqrag data self-train`, self_training/loop.py): the run (eval-id refusal, resume,
report) with a scripted generator over real shipped benchmark records and their real BM25 candidates; one slow test
with the shipped model. The selection rules are tests/test_self_training_selection.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import FakeGenerator
from test_self_training_selection import BOTH, QUESTION, _traj

from rqrag.benchmarks.splits import load_split
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.self_training.loop import (
    DATA_FILE,
    DIRECT_FILE,
    DROPPED_FILE,
    EvalIdRefused,
    KeptOrDropped,
    SelfTrainConfig,
    format_report,
    load_training_questions,
    run_self_training,
)
from rqrag.self_training.selection import DROP_REASONS
from rqrag.trajectory import Action


ROOT = Path(__file__).resolve().parent.parent
SLICE = ROOT / "rqrag/benchmarks/data/hotpotqa.jsonl"


# ------------------------------------------------------------------------------------------ the run


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def _gold_script(answers: dict[str, str]):
    """Answers each question with its gold span; queries name the start of the question (found by BM25)."""

    def script(prompt, action, request):
        question = next(q for q in answers if q in prompt)
        if action is Action.ANSWER:
            return answers[question], 0.9
        return " ".join(question.split()[:8]), 0.5

    return script


def _slice_records(train: int, eval_: int) -> list[dict]:
    split = load_split("hotpotqa")
    records = [json.loads(line) for line in SLICE.read_text().splitlines()]
    picked = [r for r in records if r["question_id"] in split.train][:train]
    return picked + [r for r in records if r["question_id"] in split.eval][:eval_]


def _run(tmp_path, tok, records, decoder_cls=TreeDecoder, **overrides):
    data_file = tmp_path / "planted.jsonl"
    data_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    answers = {r["question_text"]: r["answers_objects"][0]["spans"][0] for r in records}
    decode = DecodeConfig(prompting="trained", max_depth=1, actions=["decompose"], retrieval_mode="bm25")
    config = SelfTrainConfig(
        out_dir=str(tmp_path / "out"),
        sources=["hotpotqa"],
        source_files=[f"hotpotqa={data_file}"],
        batch_size=1,
        **{"require_supporting": "none", **overrides},
    )
    decoder = decoder_cls(decode, FakeGenerator(tok, _gold_script(answers)), tok, retriever=None)
    return run_self_training(config, decode, decoder=decoder), Path(config.out_dir)


def test_no_eval_id_reaches_training_data(tmp_path, smollm2_tokenizer):
    """A file of one's own that holds an eval id next to train ids: the eval id is refused at loading, and the
    writer refuses one even if a record for it were made."""
    records = _slice_records(train=2, eval_=1)
    eval_id = records[-1]["question_id"]
    report, out = _run(tmp_path, smollm2_tokenizer, records)
    ids = [r["id"] for r in _records(out / DATA_FILE)] + [r["id"] for r in _records(out / DROPPED_FILE)]
    assert sorted(ids) == sorted(f"hotpotqa:{r['question_id']}" for r in records[:2])
    assert f"hotpotqa:{eval_id}" not in (out / DATA_FILE).read_text()
    assert report["loaded"]["hotpotqa"]["eval_ids_refused"] == 1 and report["kept"] == 2

    writer = KeptOrDropped(tmp_path / "other")
    with pytest.raises(EvalIdRefused):
        writer.append({"id": f"hotpotqa:{eval_id}", "messages": [], "trajectory": {}, "metadata": {}})
    with pytest.raises(EvalIdRefused):  # a direct companion riding on a drop is checked too
        writer.append({"id": "hotpotqa:x", "reason": "no_right_answer", "direct": {"id": f"hotpotqa:{eval_id}"}})
    writer.close()
    assert not _records(tmp_path / "other" / DATA_FILE) and not _records(tmp_path / "other" / DIRECT_FILE)


def test_a_range_of_training_ids_picks_up_where_an_earlier_round_stopped(tmp_path):
    """`name:start-end`: round 2 on the questions round 1 (`name:start`) did not use, eval ids still refused."""
    planted = tmp_path / "planted.jsonl"
    planted.write_text("".join(json.dumps(r) + "\n" for r in _slice_records(train=4, eval_=1)))

    def uids(spec: str) -> tuple[list[str], dict]:
        config = SelfTrainConfig(out_dir=str(tmp_path), sources=[spec], source_files=[f"hotpotqa={planted}"])
        questions, stats = load_training_questions(config)
        return [ex.uid for _, ex in questions], stats["hotpotqa"]

    everything, stats = uids("hotpotqa")
    first, _ = uids("hotpotqa:2")
    rest, rest_stats = uids("hotpotqa:2-4")
    assert len(everything) == 4 and stats["eval_ids_refused"] == 1
    assert first + rest == everything and len(rest) == 2 and rest_stats["before_range"] == 2
    assert uids("hotpotqa:3-9")[0] == everything[3:]
    for bad in ("hotpotqa:4-2", "hotpotqa:x", "hotpotqa:2-"):
        with pytest.raises(ValueError):
            SelfTrainConfig(sources=[bad])


def test_records_are_training_records_with_short_answers(tmp_path, smollm2_tokenizer):
    from rqrag.training.data import tokenize_record

    records = _slice_records(train=2, eval_=0)
    report, out = _run(tmp_path, smollm2_tokenizer, records)
    kept = _records(out / DATA_FILE)
    assert len(kept) == 2 and report["per_source"]["hotpotqa"]["kept_rate"] == 1.0
    for record in kept:
        meta = record["metadata"]
        assert meta["origin"] == "self_train" and meta["round"] == 1 and meta["f1"] == 1.0
        assert meta["n_searches"] == 0 and meta["refinement"] == "direct"  # fewest searches: the direct answer wins
        assert record["trajectory"]["steps"][-1]["text"] in meta["gold_answers"]
        ids = tokenize_record(record, smollm2_tokenizer)
        assert len(ids["input_ids"]) == meta["n_tokens"] and any(label != -100 for label in ids["labels"])
    assert (out / "resolved_config.yaml").is_file() and json.loads((out / "report.json").read_text())["kept"] == 2


def test_direct_answers_the_model_knew_are_written_apart_and_short(tmp_path, smollm2_tokenizer):
    """The scripted model answers every depth with the gold span: each question gets its searched record in
    data.jsonl and its direct answer in direct.jsonl; with direct_records off there is none."""
    records = _slice_records(train=2, eval_=0)
    report, out = _run(tmp_path, smollm2_tokenizer, records, require_supporting="any")
    direct = _records(out / DIRECT_FILE)
    assert sorted(r["id"] for r in direct) == sorted(f"hotpotqa:{r['question_id']}" for r in records)
    for record in direct:
        meta = record["metadata"]
        assert meta["origin"] == "self_train_direct" and meta["n_searches"] == 0
        assert [s["action"] for s in record["trajectory"]["steps"]] == ["answer"]
        assert record["trajectory"]["steps"][0]["text"] in meta["gold_answers"]
    assert report["direct"]["written"] == 2 and "direct answers the model knew: 2" in format_report(report)

    (tmp_path / "off").mkdir()
    _, off = _run(tmp_path / "off", smollm2_tokenizer, records, require_supporting="any", direct_records=False)
    assert not _records(off / DIRECT_FILE) and len(_records(off / DATA_FILE)) + len(_records(off / DROPPED_FILE)) == 2


def test_gold_required_writes_searched_trajectories_with_whole_passages(tmp_path, smollm2_tokenizer):
    records = _slice_records(train=3, eval_=0)
    report, out = _run(tmp_path, smollm2_tokenizer, records, require_supporting="any")
    kept, dropped = _records(out / DATA_FILE), _records(out / DROPPED_FILE)
    assert len(kept) + len(dropped) == 3
    assert all(r["reason"] in DROP_REASONS for r in dropped)
    pools = {
        f"hotpotqa:{r['question_id']}": {" ".join(c["paragraph_text"].split()) for c in r["contexts"]} for r in records
    }
    for record in kept:  # a direct answer never counts as having found the gold
        assert record["metadata"]["n_searches"] >= 1 and record["metadata"]["recall"] > 0
        for step in record["trajectory"]["steps"][:-1]:
            assert all(" ".join(hit["text"].split()) in pools[record["id"]] for hit in step["evidence"])  # uncut
    assert report["per_kind"]["direct"]["passed"] == 0


def test_training_reads_gold_silver_and_self_training_files_together(tmp_path, smollm2_tokenizer):
    """Two builds' metadata differ (datasets' JSON loader fails on that); `dataset_path` joined by commas works."""
    from rqrag.training.data import load_records, tokenize_dataset

    _, out = _run(tmp_path, smollm2_tokenizer, _slice_records(train=2, eval_=0))
    gold = tmp_path / "offline.jsonl"
    trajectory = _traj(BOTH)
    record = {
        "id": "hotpotqa:gold",
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": "unused"}],
        "trajectory": trajectory.to_dict(),
        "metadata": {"category": "decompose", "queries_filtered": {"nothing_new": 1}, "annotator": "gold"},
    }
    gold.write_text(json.dumps(record) + "\n")
    train, _ = load_records(f"{gold},{out / DATA_FILE}")
    assert sorted(train["id"]) == sorted(["hotpotqa:gold", *(r["id"] for r in _records(out / DATA_FILE))])
    assert len(tokenize_dataset(train, smollm2_tokenizer, max_length=None)) == 3


class DiesOnSecondBatch(TreeDecoder):
    """A decoder that dies like a killed process on its second call: what was written so far must survive."""

    calls = [0]

    def decode(self, questions):
        self.calls[0] += 1
        if self.calls[0] == 2:
            raise KeyboardInterrupt("killed")
        return super().decode(questions)


def test_killed_run_resumes_without_losing_or_repeating(tmp_path, smollm2_tokenizer):
    records = _slice_records(train=4, eval_=0)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, smollm2_tokenizer, records, decoder_cls=DiesOnSecondBatch)
    out = tmp_path / "out"
    first = _records(out / DATA_FILE)
    assert len(first) == 1
    with (out / DATA_FILE).open("a") as f:  # a kill in the middle of a write leaves a torn line
        f.write('{"id": "hotpotqa:torn", "mess')
    report, _ = _run(tmp_path, smollm2_tokenizer, records)
    done = _records(out / DATA_FILE)
    ids = [r["id"] for r in done]
    assert len(ids) == len(set(ids)) == 4 and done[0] == first[0]
    assert report["questions"] == 4 and report["this_run"]["written"] == 3


@pytest.mark.slow
def test_shipped_model_end_to_end(tmp_path):
    """`rqrag data self-train` with the shipped model on 2 HotpotQA training questions: one record per question,
    kept ones parse back through training/data.py."""
    from rqrag.models import load_tokenizer, resolve_model
    from rqrag.training.data import tokenize_record

    out = tmp_path / "st"
    command = [
        sys.executable, "-m", "rqrag.cli", "data", "self-train", "--config", str(ROOT / "configs/data/self_train.yaml"),
        "--sources", "hotpotqa:2", "--out_dir", str(out), "--batch_size", "2", "--width", "1",
        "--actions", "decompose", "--require_supporting", "any",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stderr[-3000:]
    kept, dropped = _records(out / DATA_FILE), _records(out / DROPPED_FILE)
    split = load_split("hotpotqa")
    assert len(kept) + len(dropped) == 2
    assert all(r["id"].split(":", 1)[1] in split.train for r in kept + dropped)
    assert all(r["reason"] in DROP_REASONS and r["detail"] for r in dropped)
    assert "self-training:" in result.stdout and "trajectories per refinement kind" in result.stdout
    tokenizer = load_tokenizer(resolve_model("rqrag-smollm2-135m"))
    for record in kept:
        assert record["metadata"]["f1"] >= 0.8 and record["metadata"]["recall"] > 0
        ids = tokenize_record(record, tokenizer)
        assert len(ids["input_ids"]) == record["metadata"]["n_tokens"]
    report = json.loads((out / "report.json").read_text())
    assert report["questions"] == 2 and set(report["per_source"]) == {"hotpotqa"}
