"""Cut the benchmark slices that ship inside the package (rqrag/benchmarks/data/<source>.jsonl).

    python scripts/make_benchmark_slices.py --benchmarks-dir PATH/TO/FULL/FILES

`PATH/TO/FULL/FILES` holds the full files in the layout of `DEFAULT_FILES` (what `rqrag data fetch all` writes
to `RQRAG_BENCHMARKS_DIR`, or the workplace copy these slices were first cut from). A slice keeps, in file order
and byte for byte as JSON, only the records the repository's configs and tests use:

* every record whose id is in the source's **eval** split (`rqrag eval --config configs/eval/<task>.yaml` runs
  on all of them, and the benchmark figures of docs/eval.md are on them);
* the first `TRAIN_RECORDS` usable records of the **train** split (16: room above the largest `name:N` a test
  asks for, `hotpotqa:3-9` in `tests/test_self_training.py`); a full training build reads the fetched files;
* for the instruction sources, which have no split, their first `TRAIN_RECORDS` usable records.

Records a loader cannot use (36 of 2Wiki's 200 have no context) are left out. Before writing, the script checks
that every id of each full file is in exactly one split (the invariant `tests/test_data_splits.py` checked
against the full files). Re-running on the same files writes the same slices.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rqrag.benchmarks.files import SLICES_DIR, slice_path
from rqrag.benchmarks.sources import DEFAULT_FILES, LOADERS, BadRecord
from rqrag.benchmarks.splits import load_split
from rqrag.paths import benchmarks_dir
from rqrag.records import read_records


TRAIN_RECORDS = 16


def cut(source: str, full_file: Path) -> tuple[list[dict], int]:
    """(the records kept, the usable records read) of one full file."""
    split = load_split(source)
    kept: list[dict] = []
    ids: set[str] = set()
    train_kept = 0
    for position, record in enumerate(read_records(full_file)):
        try:
            qid = LOADERS[source](record, position).source_id
        except (BadRecord, KeyError, TypeError, AttributeError, IndexError):
            continue  # unusable: no config or test can read it
        ids.add(qid)
        held_out = split is not None and qid in split.eval
        if held_out or train_kept < TRAIN_RECORDS:
            kept.append(record)
            train_kept += not held_out
    if split is not None and ids != split.train | split.eval:
        raise SystemExit(f"{full_file}: its ids are not the split's ({len(ids ^ (split.train | split.eval))} differ)")
    return kept, len(ids)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--benchmarks-dir", type=Path, default=None, help="the full files (default: RQRAG_BENCHMARKS_DIR)"
    )
    args = parser.parse_args(argv)
    root = args.benchmarks_dir or benchmarks_dir()
    SLICES_DIR.mkdir(parents=True, exist_ok=True)
    for source, relative in DEFAULT_FILES.items():
        kept, usable = cut(source, root / relative)
        lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in kept)
        slice_path(source).write_text(lines, encoding="utf-8")
        size = slice_path(source).stat().st_size
        print(f"{source:>16}: {len(kept):4d} of {usable:4d} usable records  {size / 1024:7.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
