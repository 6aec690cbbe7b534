"""Benchmark tasks load the shipped files, keep held-out ids only, and score answers by their metric."""

from __future__ import annotations

import json

import pytest

from rqrag.benchmarks.splits import load_split
from rqrag.eval.tasks import TASKS, get_task


@pytest.mark.parametrize("name", sorted(TASKS))
def test_task_loads_only_held_out_ids(name):
    task = get_task(name)
    examples, stats = task.load()
    split = load_split(task.source)
    uids = [ex.uid for ex in examples]
    assert len(uids) == len(set(uids)) == len(split.eval)
    assert {u.split(":", 1)[1] for u in uids} == set(split.eval)
    assert not {u.split(":", 1)[1] for u in uids} & split.train
    assert stats.outside_split == min(len(split.train), 16)  # the shipped slice's training ids (data/SOURCES.md)
    assert all(ex.question.strip() and ex.golds for ex in examples)


def test_limit_keeps_file_order():
    task = get_task("hotpotqa")
    first, _ = task.load(limit=5)
    all_, _ = task.load()
    assert [e.uid for e in first] == [e.uid for e in all_[:5]]


def test_multihop_examples_carry_candidates_and_gold_paragraphs():
    examples, _ = get_task("musique").load(limit=10)
    for ex in examples:
        assert len(ex.pool) >= 10
        gold = {f"{ex.uid}::{p['idx']}" for p in ex.pool if p["is_supporting"]}
        assert ex.supporting == gold and len(gold) >= 2


def test_scores_per_task():
    hotpot = get_task("hotpotqa")
    ex = hotpot.load(limit=1)[0][0]
    assert hotpot.score(ex.golds[0], ex) == {"em": 1.0, "f1": 1.0}
    assert hotpot.score(None, ex) == {"em": 0.0, "f1": 0.0}

    arc = get_task("arc_challenge")
    q = arc.load(limit=1)[0][0]
    wrong = next(label for label, _ in q.choices if label != q.gold_label)
    assert arc.score(f"{q.gold_label}. {dict(q.choices)[q.gold_label]}", q) == {"acc": 1.0}
    assert arc.score(f"The answer is {wrong}", q) == {"acc": 0.0}

    popqa = get_task("popqa")
    p = popqa.load(limit=1)[0][0]
    assert popqa.score(f"I believe it is {p.golds[-1]}.", p) == {"match": 1.0}

    asqa = get_task("asqa")
    a = asqa.load(limit=1)[0][0]
    assert a.answer_sets and asqa.score(" and ".join(s[0] for s in a.answer_sets), a) == {"str_em": 1.0}


def test_own_file_is_used_whole_and_bad_lines_are_counted(tmp_path):
    path = tmp_path / "mine.jsonl"
    good = {"id": "x1", "question": "Who wrote Hamlet?", "answers": ["Shakespeare", "William Shakespeare"]}
    path.write_text(json.dumps(good) + "\n{not json\n" + json.dumps({"id": "x2"}) + "\n")
    examples, stats = get_task("popqa").load(data_file=str(path))
    assert [e.uid for e in examples] == ["popqa:x1"]
    assert stats.read.skipped == 1 and stats.unusable == 1


def test_unknown_task_and_split_are_refused_and_the_training_split_holds_training_ids_only():
    from rqrag.benchmarks.splits import load_split

    with pytest.raises(ValueError, match="unknown task"):
        get_task("squad")
    with pytest.raises(ValueError, match="split must be"):
        get_task("hotpotqa").load(split="dev")
    # the trees the answer verifier is fitted on: training ids, never an eval id
    split = load_split("hotpotqa")
    examples, _ = get_task("hotpotqa").load(split="train", limit=8)
    ids = {ex.uid.split(":", 1)[1] for ex in examples}
    assert len(ids) == 8 and ids <= split.train and not ids & split.eval
