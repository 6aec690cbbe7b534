"""Train and eval ids never meet, and every id of the shipped benchmark files is in exactly one split."""

from __future__ import annotations

import pytest
from conftest import SHARED_BENCHMARKS

from rqrag.benchmarks.sources import DEFAULT_FILES, parse_records
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


@pytest.mark.skipif(not SHARED_BENCHMARKS.is_dir(), reason="../shared/data/benchmarks not present")
@pytest.mark.parametrize("source", sorted(EVAL_SIZES))
def test_every_shipped_id_is_in_exactly_one_split(source):
    ids = {
        ex.source_id
        for ex in parse_records(source, read_records(SHARED_BENCHMARKS / DEFAULT_FILES[source]), lambda *a: None)
    }
    split = load_split(source)
    assert ids == split.train | split.eval


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
