"""The cells of a designed experiment: which factor levels run together, how often, and in what order.

The design matrix comes from pyDOE3: `fullfact` for a full factorial; for a fraction, `fracfact` (a generator
string such as "a b ab") or `fracfact_by_res` (the smallest design of a resolution) when every factor has two
levels, and the generalised subset design `gsd` when some factor has more. Each design point runs
`replicates` times (replicate r decodes with seed + r), and all runs are shuffled by `design_seed`, so the
order in which cells execute is random but the same on every rerun.

A cell's id is a hash of its factor levels and replicate, nothing else: a rerun, a resumed run or the same
YAML with its factors listed in another order finds the same ids, and so the records it already wrote.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rqrag.eval.experiments.experiment_config import ExperimentConfig, depth_of_refinement


DESIGN_FILE = "design.csv"


@dataclass(frozen=True)
class Cell:
    cell_id: str
    levels: dict[str, Any]  # factor name -> level, in the config's factor order
    replicate: int
    run_order: int  # position in the randomised execution order, from 0
    design_point: int  # row of the design matrix (replicates of one point share it)

    def level(self, name: str, default: Any = None) -> Any:
        return self.levels.get(name, default)


def cell_id(levels: dict[str, Any], replicate: int) -> str:
    """12 hex characters of the SHA-256 of the levels (keys sorted) and the replicate."""
    text = json.dumps({"levels": levels, "replicate": replicate}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def design_matrix(config: ExperimentConfig) -> np.ndarray:
    """Rows of level indices (0 .. levels-1), one row per design point, columns in factor order."""
    import pyDOE3

    counts = [len(levels) for levels in config.factors.values()]
    if config.design == "full":
        return pyDOE3.fullfact(counts).astype(int)
    if all(n == 2 for n in counts) and (config.fraction_generator or config.fraction_resolution):
        if config.fraction_generator:
            words = config.fraction_generator.split()
            if len(words) != len(counts):
                raise ValueError(
                    f"fraction_generator {config.fraction_generator!r} has {len(words)} words for {len(counts)} factors"
                )
            coded = pyDOE3.fracfact(config.fraction_generator)
        else:
            try:
                coded = pyDOE3.fracfact_by_res(len(counts), config.fraction_resolution)
            except ValueError as error:
                raise ValueError(
                    f"pyDOE3 has no design of resolution {config.fraction_resolution} for {len(counts)} two-level "
                    f"factors ({error}); ask for a lower resolution or give fraction_generator"
                ) from error
        return (np.asarray(coded) > 0).astype(int)  # -1/+1 coding to level indices 0/1
    if not config.fraction_reduction:
        raise ValueError(
            "factors with more than two levels need fraction_reduction (pyDOE3 gsd); fraction_generator and "
            "fraction_resolution apply only when every factor has two levels"
        )
    return np.asarray(pyDOE3.gsd(counts, config.fraction_reduction)).astype(int)


def build_cells(config: ExperimentConfig) -> list[Cell]:
    """Every run of the experiment (design point x replicate), sorted by its randomised run order."""
    names = list(config.factors)
    matrix = design_matrix(config)
    unique_rows = {tuple(row) for row in matrix.tolist()}
    if len(unique_rows) != len(matrix):
        raise ValueError("the design repeats a design point; use replicates to repeat runs")
    runs = []
    for point, row in enumerate(matrix.tolist()):
        levels = {name: config.factors[name][index] for name, index in zip(names, row)}
        for replicate in range(config.replicates):
            runs.append((point, replicate, levels))
    order = np.random.default_rng(config.design_seed).permutation(len(runs))
    cells = [
        Cell(cell_id(levels, replicate), levels, replicate, int(position), point)
        for (point, replicate, levels), position in zip(runs, order)
    ]
    return sorted(cells, key=lambda c: c.run_order)


def write_design(cells: list[Cell], out_dir: str | Path) -> Path:
    """`design.csv`: cell id, run order, design point, replicate and one column per factor."""
    path = Path(out_dir) / DESIGN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    factor_names = list(cells[0].levels) if cells else []
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["cell_id", "run_order", "design_point", "replicate", *factor_names])
        for cell in cells:
            writer.writerow(
                [
                    cell.cell_id,
                    cell.run_order,
                    cell.design_point,
                    cell.replicate,
                    *(cell.levels[n] for n in factor_names),
                ]
            )
    return path


def cell_decode_config(base, cell: Cell, config: ExperimentConfig):
    """The `DecodeConfig` one cell decodes with: the YAML's decode defaults, then the cell's generator preset,
    then its other factor levels; replicate r adds r to the seed. Validated by DecodeConfig itself."""
    changes: dict[str, Any] = {}
    generator = cell.level("generator")
    if generator is not None:
        changes.update(config.generators[generator])
    for name, level in cell.levels.items():
        if name == "search_mode":
            changes["retrieval_mode"] = level
        elif name == "k":
            changes["docs_per_search"] = int(level)
        elif name == "refinement":
            changes["max_depth"] = depth_of_refinement(level)
        elif name not in ("chunking", "generator"):
            changes[name] = level
    changes["seed"] = int(changes.get("seed", base.seed)) + cell.replicate
    return dataclasses.replace(base, **changes)


def generator_key(decode) -> str:
    """What loading a generator depends on: cells with the same key share one loaded model or client."""
    keys = ("backend", "remote_base_url", "remote_model", "dtype", "max_batch_size", "chat_logprobs")
    return json.dumps({"model": decode.model_to_load, **{k: getattr(decode, k) for k in keys}}, sort_keys=True)
