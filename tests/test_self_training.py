"""Self-training from the tree (`rqrag data self-train`, self_training/loop.py + self_training/selection.py).

Selection logic on hand-built trajectories; the run (eval-id refusal, resume, report) with a scripted generator
over real shipped benchmark records and their real BM25 candidates; one slow test with the shipped model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import FakeGenerator

from rqrag.benchmarks.splits import load_split
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.base import Hit
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
from rqrag.self_training.selection import (
    DROP_REASONS,
    SelectionRules,
    choose,
    knew_directly,
    refinement_kind,
    score_trajectory,
    short_answer,
    states_gold,
    training_trajectory,
)
from rqrag.trajectory import Action, Step, Trajectory


ROOT = Path(__file__).resolve().parent.parent
SLICE = ROOT / "rqrag/benchmarks/data/hotpotqa.jsonl"
QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
GOLDS = ("Chief of Protocol",)
GOLD_DOCS = {"q::1", "q::2"}


def _hit(docid: str) -> Hit:
    return Hit(docid, f"title {docid}", f"Kiss and Tell starred Shirley Temple ({docid}).", 1.0)


def _traj(*queries: tuple[Action, str, tuple[str, ...]], answer: str = "Chief of Protocol") -> Trajectory:
    steps = [Step(action, text, tuple(_hit(d) for d in docs)) for action, text, docs in queries]
    return Trajectory((*steps, Step(Action.ANSWER, answer)))


def _score(path_id, trajectory, confidence=0.5, finished=True):
    return score_trajectory(
        path_id,
        trajectory,
        finished=finished,
        confidence=confidence,
        question=QUESTION,
        golds=GOLDS,
        supporting=GOLD_DOCS,
    )


SHIRLEY = (Action.DECOMPOSE, "Who portrayed Corliss Archer in Kiss and Tell?", ("q::1", "q::5"))
TEMPLE = (Action.DECOMPOSE, "Which government positions did Shirley Temple hold?", ("q::2",))
BOTH = (Action.REWRITE, "Shirley Temple actress Corliss Archer diplomat career", ("q::1", "q::2"))


# ------------------------------------------------------------------------------------------ selection


def test_refinement_and_short_answer():
    assert refinement_kind(_traj(BOTH, SHIRLEY)) == "rewrite+decompose"
    assert refinement_kind(_traj(SHIRLEY, TEMPLE)) == "decompose"
    assert refinement_kind(_traj()) == "direct"
    golds = ["Chief of Protocol of the United States", "Chief of Protocol"]
    assert short_answer("She was Chief of Protocol", golds) == "Chief of Protocol"
    assert short_answer("Chief of Protocol of the United States", golds) == golds[0]


def test_fewest_searches_first_then_confidence_and_short_answer_written():
    two = _score("0.0.1", _traj(SHIRLEY, TEMPLE), confidence=0.99)
    one_low = _score("0.3", _traj(BOTH, answer="She served as the Chief of Protocol"), confidence=0.4)
    one_high = _score("0.4", _traj(BOTH, answer="Chief of Protocol."), confidence=0.7)
    choice = choose([two, one_low, one_high], SelectionRules(min_f1=0.5))
    assert choice.kept is one_high and choice.reason is None
    choice = choose([two, one_low], SelectionRules(min_f1=0.5))
    assert choice.kept is one_low  # one search beats two, whatever the confidence
    written = training_trajectory(choice.kept)
    assert written.answer == "Chief of Protocol" and written.queries == one_low.trajectory.queries
    assert choice.by_kind == {
        "decompose": {"finished": 1, "right": 1, "found": 1, "passed": 1},
        "rewrite": {"finished": 1, "right": 1, "found": 1, "passed": 1},
    }


def test_min_f1_decides_what_is_right():
    sentence = _traj(BOTH, answer="The woman who played her later became Chief of Protocol in the government")
    assert choose([_score("0.1", sentence)], SelectionRules(min_f1=0.8)).reason == "no_right_answer"
    assert choose([_score("0.1", sentence)], SelectionRules(min_f1=0.3)).kept is not None


def test_gold_paragraphs_required_and_direct_answers_only_under_none():
    direct = _score("0.0", _traj())
    half = _score("0.1", _traj(SHIRLEY))  # found q::1 of {q::1, q::2}
    assert half.recall == 0.5
    choice = choose([direct, half], SelectionRules(require_supporting="all"))
    assert choice.kept is None and choice.reason == "gold_not_found"
    assert choose([direct, half], SelectionRules(require_supporting="any")).kept is half
    assert choose([direct], SelectionRules(require_supporting="any")).reason == "gold_not_found"
    assert choose([direct, half], SelectionRules(require_supporting="none")).kept is direct


def test_a_direct_answer_is_written_short_only_where_the_model_knew():
    sentence = _score("0.0", _traj(answer="Shirley Temple later served as Chief of Protocol of the United States"))
    knew = knew_directly([sentence, _score("0.1", _traj(SHIRLEY))], QUESTION, GOLDS)
    assert knew is not None and knew.path_id == "0.0" and training_trajectory(knew).answer == "Chief of Protocol"
    guess = _score("0.0", _traj(answer="She was an ambassador to Ghana"))
    assert knew_directly([guess], QUESTION, GOLDS) is None  # not known: no direct record, however short
    searched = _score("0.1", _traj(SHIRLEY, answer="Chief of Protocol"))
    assert knew_directly([searched], QUESTION, GOLDS) is None  # read, not known
    unfinished = _score("0.0", _traj(answer="Chief of Protocol"), finished=False)
    assert knew_directly([unfinished], QUESTION, GOLDS) is None


def test_a_yes_no_gold_must_open_the_direct_answer():
    def direct(answer):
        return score_trajectory(
            "0.0",
            _traj(answer=answer),
            finished=True,
            confidence=0.5,
            question=QUESTION,
            golds=["no"],
            supporting=set(),
        )

    assert knew_directly([direct("No, they were born in different countries.")], QUESTION, ["no"]).short_answer == "no"
    assert knew_directly([direct("There is no record of that film.")], QUESTION, ["no"]) is None


def test_an_option_the_question_names_counts_only_as_a_decision():
    """2Wiki's comparison questions: an answer restating the options, or naming the gold second, knew nothing."""
    q = "Which film was released earlier, Molokai: The Story Of Father Damien or Brahma – The Creator?"
    gold = "Molokai: The Story Of Father Damien"
    assert states_gold("Molokai: The Story of Father Damien was released first.", q, gold)
    assert not states_gold("Molokai: The Story of Father Damien or Brahma – The Creator", q, gold)
    q = "Which film has the director died earlier, Payment On Demand or My Cousin From Warsaw?"
    assert not states_gold(
        "Payment On Demand is the director of the film My Cousin From Warsaw.", q, "My Cousin From Warsaw"
    )
    q = "Which film came first, Mr. Fix-It or People Not As Bad As They Seem?"
    assert not states_gold("Mr. Fix-It and People Not As Bad As They Seem", q, "Mr. Fix-It")
    assert states_gold(
        "Keith Bostic is a 22-year-old actor who is younger than Jerry Glanville.",
        "who is younger Keith Bostic or Jerry Glanville ?",
        "Keith Bostic",
    )
    # A gold the question does not name is found anywhere in the answer.
    assert states_gold(
        "John Lennon was born in Liverpool, England.", "Where was the performer of Well Well Well born?", "Liverpool"
    )


def test_query_filter_rejects_restatements_repeats_and_searches_finding_nothing_new():
    restated = _score("0.1", _traj((Action.REWRITE, QUESTION, ("q::1", "q::2"))))
    assert restated.filter_reason == "restates_question"
    repeated = _score("0.2", _traj(BOTH, (Action.REWRITE, BOTH[1], ("q::1", "q::2"))))
    assert repeated.filter_reason == "repeats_query"
    same_hits = (Action.DECOMPOSE, "Kiss and Tell film cast members", ("q::1", "q::2"))
    nothing_new = _score("0.3", _traj(BOTH, same_hits))
    assert nothing_new.filter_reason == "nothing_new"
    choice = choose([restated, repeated, nothing_new], SelectionRules())
    assert choice.reason == "filtered_query" and "restates_question 1" in choice.detail
    assert choose([restated], SelectionRules(query_filter=False)).kept is restated


def test_a_query_naming_someone_nowhere_to_be_read_is_filtered():
    # "Dean Martens": not in the question, not in anything read before, not in what its own search found.
    invented = _score("0.1", _traj((Action.DECOMPOSE, "Dean Martens film director", ("q::1", "q::2"))))
    assert invented.filter_reason == "invents_entity"
    # "Shirley Temple" from the model's memory, confirmed by its own search's evidence: kept.
    assert _score("0.2", _traj(BOTH)).filter_reason is None
    assert choose([invented], SelectionRules()).reason == "filtered_query"


def test_nothing_finished_is_its_own_reason():
    failed = _score("0.1", Trajectory((Step(Action.DECOMPOSE, "a query", ()),)), finished=False)
    assert choose([failed], SelectionRules()).reason == "no_finished_trajectory"
    assert choose([], SelectionRules()).reason == "no_finished_trajectory"
    assert {"no_finished_trajectory", "no_right_answer", "gold_not_found", "filtered_query"} <= set(DROP_REASONS)


def test_the_report_reads_records_kept_before_refinement_was_named(tmp_path):
    """A resumed run's earlier records call their refinement `kind`; the report counts them with today's."""
    from rqrag.self_training.report import build_report

    def kept(uid: str, key: str, refinement: str) -> dict:
        metadata = {"source": "hotpotqa", key: refinement, "by_kind": {refinement: {"finished": 1, "passed": 1}}}
        metadata.update(n_searches=1, model_answer="Paris")
        return {"id": uid, "trajectory": {"steps": [{"text": "Paris"}]}, "metadata": metadata}

    rows = [kept("old", "kind", "decompose"), kept("new", "refinement", "decompose")]
    (tmp_path / DATA_FILE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = build_report(tmp_path, ["old", "new"], {})
    assert report["kept"] == 2 and report["per_kind"]["decompose"]["kept"] == 2


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
