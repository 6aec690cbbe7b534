"""Train and eval ids never meet, every id of the shipped slices is in exactly one split, and every eval id is in
its slice (the full files' ids were checked against the splits when the slices were cut:
scripts/make_benchmark_slices.py)."""

from __future__ import annotations

import pytest

from rqrag.benchmarks.files import slice_path
from rqrag.benchmarks.sources import parse_records
from rqrag.benchmarks.splits import EVAL_SIZES, assign, load_split
from rqrag.records import read_records


@pytest.mark.parametrize("source", sorted(EVAL_SIZES))
def test_split_files_are_disjoint_and_sized(source):
    split = load_split(source)
    assert split is not None, f"rqrag/benchmarks/splits/{source}.json is missing"
    assert not split.train & split.eval
    if EVAL_SIZES[source] is None:
        assert not split.train  # evaluation-only source
    else:
        assert len(split.eval) == EVAL_SIZES[source]


@pytest.mark.parametrize("source", sorted(EVAL_SIZES))
def test_every_shipped_id_is_in_exactly_one_split_and_every_eval_id_ships(source):
    ids = {ex.source_id for ex in parse_records(source, read_records(slice_path(source)), lambda *a: None)}
    split = load_split(source)
    assert ids <= split.train | split.eval
    assert split.eval <= ids  # `rqrag eval` runs on every held-out id without a fetched file
    assert len(ids & split.train) == (0 if EVAL_SIZES[source] is None else 16)  # the training ids tests build from


def test_assignment_is_stable_and_order_independent():
    ids = [f"q{i}" for i in range(100)]
    train, eval_ = assign("x", ids, 30)
    assert (train, eval_) == assign("x", list(reversed(ids)), 30)
    assert len(eval_) == 30 and set(train) | set(eval_) == set(ids)
    # Growing the file only adds ids; earlier eval ids stay held out.
    _, eval_more = assign("x", ids + ["q100", "q101"], 32)
    assert set(eval_) <= set(eval_more)
    assert assign("x", ids, None) == ([], sorted(ids))


def test_instruction_sources_have_no_split():
    assert load_split("alpaca") is None
