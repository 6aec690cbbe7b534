"""The experiment's design: cells from pyDOE3, replicates, a randomised but repeatable run order, stable ids,
what each cell decodes with, and the shipped experiment configs.

    python -m pytest tests/test_experiment_design.py -q
"""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from rqrag.eval.experiments.design import build_cells, cell_decode_config, generator_key, write_design
from rqrag.eval.experiments.experiment_config import (
    ExperimentConfig,
    chunking_from_level,
    chunking_label,
    depth_of_refinement,
)
from rqrag.inference.decoding.decode_config import DecodeConfig


CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "experiments"
SMALL = {
    "chunking": ["recursive:1000/150", "recursive:500/100"],
    "search_mode": ["bm25", "dense", "hybrid"],
    "k": [3, 5],
    "refinement": ["none", "tree:1"],
}


def test_full_factorial_has_every_combination_once_in_a_shuffled_order():
    cells = build_cells(ExperimentConfig(factors=dict(SMALL), design_seed=3))
    assert len(cells) == 24
    combos = {tuple(c.levels[n] for n in SMALL) for c in cells}
    assert combos == set(itertools.product(*SMALL.values()))
    assert [c.run_order for c in cells] == list(range(24))  # returned in run order
    assert len({c.cell_id for c in cells}) == 24
    by_point = [c.design_point for c in cells]
    assert by_point != sorted(by_point)  # the run order is not the design matrix's order


def test_run_order_repeats_for_a_seed_and_changes_with_it():
    first = [c.cell_id for c in build_cells(ExperimentConfig(factors=dict(SMALL), design_seed=3))]
    again = [c.cell_id for c in build_cells(ExperimentConfig(factors=dict(SMALL), design_seed=3))]
    other = [c.cell_id for c in build_cells(ExperimentConfig(factors=dict(SMALL), design_seed=4))]
    assert first == again
    assert other != first and sorted(other) == sorted(first)  # same cells, another order


def test_cell_ids_depend_on_levels_and_replicate_not_on_factor_order():
    reordered = dict(reversed(list(SMALL.items())))
    ids = {(tuple(sorted(c.levels.items())), c.cell_id) for c in build_cells(ExperimentConfig(factors=dict(SMALL)))}
    ids_reordered = {
        (tuple(sorted(c.levels.items())), c.cell_id) for c in build_cells(ExperimentConfig(factors=reordered))
    }
    assert ids == ids_reordered


def test_replicates_share_a_design_point_and_get_their_own_ids():
    cells = build_cells(ExperimentConfig(factors={"k": [3, 5], "search_mode": ["bm25"]}, replicates=3))
    assert len(cells) == 6 and len({c.cell_id for c in cells}) == 6
    for point in (0, 1):
        runs = [c for c in cells if c.design_point == point]
        assert sorted(c.replicate for c in runs) == [0, 1, 2]
        assert len({str(c.levels) for c in runs}) == 1


def test_fractional_by_generator_string_aliases_the_third_factor():
    factors = {"search_mode": ["bm25", "dense"], "k": [3, 5], "refinement": ["none", "tree:1"]}
    config = ExperimentConfig(factors=factors, design="fractional", fraction_generator="a b ab")
    cells = build_cells(config)
    assert len(cells) == 4
    for cell in cells:  # c = ab in -1/+1 coding: the third factor is high exactly when the first two agree
        a = factors["search_mode"].index(cell.levels["search_mode"])
        b = factors["k"].index(cell.levels["k"])
        c = factors["refinement"].index(cell.levels["refinement"])
        assert c == int(a == b)


def test_fractional_by_resolution_is_balanced():
    factors = {"k": [3, 5], "search_mode": ["bm25", "dense"], "refinement": ["none", "tree:1"], "width": [1, 2]}
    cells = build_cells(ExperimentConfig(factors=factors, design="fractional", fraction_resolution=3))
    assert len(cells) == 8  # 2^(4-1)
    for name, levels in factors.items():
        assert sorted(sum(c.levels[name] == level for c in cells) for level in levels) == [4, 4]
    with pytest.raises(ValueError, match="no design of resolution 5"):
        build_cells(ExperimentConfig(factors=factors, design="fractional", fraction_resolution=5))


def test_fractional_with_multilevel_factors_uses_a_generalised_subset():
    config = ExperimentConfig(factors=dict(SMALL), design="fractional", fraction_reduction=2)
    cells = build_cells(config)
    assert 0 < len(cells) < 24
    for name, levels in SMALL.items():
        assert {c.levels[name] for c in cells} == set(levels)
    with pytest.raises(ValueError, match="fraction_reduction"):
        build_cells(ExperimentConfig(factors=dict(SMALL), design="fractional", fraction_generator="a b c d"))


def test_each_cell_decodes_with_its_levels():
    generators = {"small": {"model": "smollm2-135m-instruct", "prompting": "prompted"}}
    factors = {
        "search_mode": ["dense"],
        "k": [5],
        "refinement": ["tree:2"],
        "generator": ["small"],
        "strategy": ["ppl"],
    }
    config = ExperimentConfig(factors=factors, generators=generators, replicates=2)
    base = DecodeConfig(seed=10, max_depth=1)
    decoded = {c.replicate: cell_decode_config(base, c, config) for c in build_cells(config)}
    for replicate, decode in decoded.items():
        assert (decode.retrieval_mode, decode.docs_per_search, decode.max_depth) == ("dense", 5, 2)
        assert (decode.model, decode.prompting, decode.strategy) == ("smollm2-135m-instruct", "prompted", "ppl")
        assert decode.seed == 10 + replicate
    assert generator_key(decoded[0]) == generator_key(decoded[1])  # replicates share one loaded model
    assert generator_key(decoded[0]) != generator_key(base)


def test_refinement_none_is_standard_rag_depth_zero():
    config = ExperimentConfig(factors={"refinement": ["none", "tree:1"]})
    depths = {
        c.levels["refinement"]: cell_decode_config(DecodeConfig(), c, config).max_depth for c in build_cells(config)
    }
    assert depths == {"none": 0, "tree:1": 1}


@pytest.mark.parametrize(
    "factors, generators, message",
    [
        ({"colour": ["red"]}, {}, "unknown factor"),
        ({"chunking": ["recursive:1000"]}, {}, "chunking level"),
        ({"generator": ["big"]}, {"small": {}}, "not defined"),
        ({"k": [3, 3]}, {}, "repeats a level"),
        ({"k": [0]}, {}, "positive integers"),
        ({"search_mode": ["sparse"]}, {}, "search_mode"),
        ({"refinement": ["tree:0"]}, {}, "depth >= 1"),
        ({}, {}, "factors is empty"),
    ],
)
def test_bad_configs_are_refused_with_the_reason(factors, generators, message):
    with pytest.raises(ValueError, match=message):
        ExperimentConfig(factors=factors, generators=generators)


def test_fractional_needs_its_parameter():
    with pytest.raises(ValueError, match="fractional design needs"):
        ExperimentConfig(factors={"k": [3, 5]}, design="fractional")


def test_level_parsers():
    chunking = chunking_from_level("recursive:500/100")
    assert (chunking.strategy, chunking.chunk_size, chunking.chunk_overlap) == ("recursive", 500, 100)
    assert chunking_from_level("paragraph:50-300").max_words == 300
    assert chunking_from_level("semantic:90").percentile == 90.0
    assert chunking_label("recursive:1000/150") == "recursive-1000-150"
    assert (depth_of_refinement("none"), depth_of_refinement("tree:3")) == (0, 3)


def test_design_csv_lists_every_run(tmp_path):
    cells = build_cells(ExperimentConfig(factors=dict(SMALL), replicates=2))
    path = write_design(cells, tmp_path)
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 48
    assert list(rows[0]) == ["cell_id", "run_order", "design_point", "replicate", *SMALL]
    assert [int(r["run_order"]) for r in rows] == list(range(48))
    assert {r["cell_id"] for r in rows} == {c.cell_id for c in cells}


@pytest.mark.parametrize("name, runs", [("pt_manual_small.yaml", 12), ("pt_manual_full.yaml", 108)])
def test_shipped_configs_parse_with_overrides(name, runs, tmp_path):
    from rqrag.config_loader import make_parser, parse

    parser = make_parser(DecodeConfig, ExperimentConfig)
    decode, config, _ = parse(parser, ["--config", str(CONFIGS / name)])
    cells = build_cells(config)
    assert len(cells) == runs
    assert all(cell_decode_config(decode, c, config) for c in cells)  # every cell is a valid DecodeConfig
    assert (CONFIGS / name).read_text().startswith("#")
    _, narrowed, _ = parse(parser, ["--config", str(CONFIGS / name), "--factors", "{k: [3], search_mode: [bm25]}"])
    assert narrowed.factors == {"k": [3], "search_mode": ["bm25"]}


def test_design_command_writes_the_cells(tmp_path, capsys):
    from rqrag.cli.commands.experiment import main

    code = main(["design", "--config", str(CONFIGS / "pt_manual_small.yaml"), "--output_dir", str(tmp_path)])
    assert code == 0
    rows = list(csv.DictReader((tmp_path / "design.csv").open()))
    assert len(rows) == 12 and "12 runs" in capsys.readouterr().out
