"""Write the train/eval id split of every benchmark under rqrag/benchmarks/splits/.

    python scripts/make_splits.py [--benchmarks-dir DIR]   (the full files: rqrag data fetch all)

Run once; the JSON files are committed and read by data construction (train ids) and evaluation (eval ids).
Re-running on the same files writes the same splits (the assignment is a hash of source and id).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rqrag.benchmarks.sources import DEFAULT_FILES, parse_records
from rqrag.benchmarks.splits import EVAL_SIZES, assign, write_split
from rqrag.paths import benchmarks_dir
from rqrag.records import ReadStats, read_records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--benchmarks-dir",
        type=Path,
        default=None,
        help="the full files (default: RQRAG_BENCHMARKS_DIR or the cache rqrag data fetch fills)",
    )
    args = parser.parse_args(argv)
    root = args.benchmarks_dir or benchmarks_dir()
    for source, n_eval in EVAL_SIZES.items():
        stats = ReadStats()
        examples = parse_records(source, read_records(root / DEFAULT_FILES[source], stats), lambda i, why: None)
        ids = [ex.source_id for ex in examples]
        train, eval_ = assign(source, ids, n_eval)
        path = write_split(source, train, eval_, origin=DEFAULT_FILES[source])
        print(f"{source:>16}: {len(train):4d} train  {len(eval_):4d} eval  -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
