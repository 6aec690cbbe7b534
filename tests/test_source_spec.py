"""One source-spec grammar for data construction and self-training (`rqrag.benchmarks.source_spec`)."""

from __future__ import annotations

import pytest

from rqrag.benchmarks.source_spec import SourceSpec, parse_source_spec
from rqrag.data_construction.data_config import DataBuildConfig
from rqrag.data_construction.pipeline import load_examples


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("hotpotqa", SourceSpec("hotpotqa", 0, None)),
        ("hotpotqa:", SourceSpec("hotpotqa", 0, None)),
        ("hotpotqa:5", SourceSpec("hotpotqa", 0, 5)),
        (" hotpotqa :2-4", SourceSpec("hotpotqa", 2, 4)),
    ],
)
def test_a_spec_names_a_source_and_the_range_of_its_usable_examples(spec, parsed):
    assert parse_source_spec(spec) == parsed


@pytest.mark.parametrize("bad", ["hotpotqa:x", "hotpotqa:2-", "hotpotqa:-3", "hotpotqa:4-2", "hotpotqa:0", ":5"])
def test_a_spec_that_reads_nothing_or_is_not_a_spec_is_refused(bad):
    with pytest.raises(ValueError):
        parse_source_spec(bad)


def test_positions_before_and_at_the_end_of_the_range():
    spec = parse_source_spec("musique:2-4")
    assert [p for p in range(1, 7) if not spec.before(p)][:3] == [3, 4, 5]
    assert [spec.last(p) for p in (3, 4)] == [False, True]
    assert not parse_source_spec("musique").last(10**6)


def test_data_build_reads_a_range_as_self_training_does():
    """`name:start-end` in `rqrag data build`: the examples a first run of `name:start` did not read."""

    def uids(spec: str) -> list[str]:
        return [ex.uid for ex in load_examples(DataBuildConfig(sources=[spec]))[0]]

    first, rest, both = uids("arc_challenge:3"), uids("arc_challenge:3-5"), uids("arc_challenge:5")
    assert len(first) == 3 and len(rest) == 2 and first + rest == both
