"""Where a benchmark's records are read from: the full file when it was fetched, else the slice shipped here.

    default_file("hotpotqa")   # <benchmarks_dir()>/hotpotqa/hotpotqa_dev_500_ircot_format.jsonl if fetched,
                               # else rqrag/benchmarks/data/hotpotqa.jsonl (the slice in the package)

The repository stands alone: `rqrag/benchmarks/data/` ships, for every source, the records its configs and tests
use (every eval-split id, the first few training ids; `scripts/make_benchmark_slices.py` says how they were cut,
`data/SOURCES.md` where they come from and under which licence). The full files (every training id, for
`rqrag data build --config configs/data/offline.yaml`) are fetched on request with `rqrag data fetch <name>` into
`benchmarks_dir()` (`RQRAG_BENCHMARKS_DIR`, else the rq-rag cache); once there they are preferred.
"""

from __future__ import annotations

import logging
from pathlib import Path

from rqrag.benchmarks.sources import DEFAULT_FILES
from rqrag.paths import benchmarks_dir


logger = logging.getLogger(__name__)

SLICES_DIR = Path(__file__).resolve().parent / "data"


class BenchmarkFileMissing(FileNotFoundError):
    """Neither the full file nor a shipped slice is there; the message says which command fetches it."""


def slice_path(source: str) -> Path:
    return SLICES_DIR / f"{source}.jsonl"


def full_file(source: str, root: str | Path | None = None) -> Path:
    """Where the full file of `source` is (or would be, once fetched) under `root` (default: `benchmarks_dir()`)."""
    if source not in DEFAULT_FILES:
        raise ValueError(f"unknown source {source!r}; known sources: {sorted(DEFAULT_FILES)}")
    return Path(root or benchmarks_dir()) / DEFAULT_FILES[source]


def is_slice(path: str | Path) -> bool:
    return Path(path).resolve().parent == SLICES_DIR


def default_file(source: str, root: str | Path | None = None) -> Path:
    """The file `source`'s records are read from when no file is given: the full one, else the shipped slice.

    An explicit `root` (a folder of full files the user named) must hold the file: no silent fallback to a slice.
    """
    full = full_file(source, root)
    if full.is_file():
        return full
    if root is not None:
        raise BenchmarkFileMissing(
            f"{source}: {full} not found; `rqrag data fetch {source} --dir {root}` downloads it there "
            f"(needs the internet), or leave the folder unset to use the slice shipped with rq-rag"
        )
    shipped = slice_path(source)
    if shipped.is_file():
        logger.info(
            "%s: reading the slice shipped with rq-rag (%s: eval ids and a few training ids); "
            "`rqrag data fetch %s` downloads the full file",
            source,
            shipped.name,
            source,
        )
        return shipped
    raise BenchmarkFileMissing(
        f"{source}: no data. {full} is not there and this installation ships no slice of it; "
        f"run `rqrag data fetch {source}` (needs the internet) or pass a file of your own"
    )
