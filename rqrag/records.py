"""Reading raw task files without letting one bad line stop a run.

Benchmark and instruction files come as JSONL (one object per line) or as one JSON array. A JSONL line that
does not parse, or parses to something other than an object, is skipped and counted in `ReadStats` with its
line number, so the run report can say what was lost and where. A JSON array file that does not parse is a
hard error: there is no line to skip, and silently reading nothing would hide it. A caller whose file must be whole
(a golden set, a run's own output) reads with `strict=True`: a bad line is then a `MalformedLine` error naming it.

`jsonl_objects` is the line reader underneath, for callers that hold lines rather than a path (a gzipped corpus,
downloaded bytes): every JSONL line in the project is parsed, skipped or refused by it.

For users online, `hf:<dataset>[:<config>]:<split>` reads the same records through `datasets.load_dataset`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


logger = logging.getLogger(__name__)

HUB_PREFIX = "hf:"


@dataclass
class ReadStats:
    """What a read skipped. `malformed` holds (line number, reason) pairs, first ones only."""

    read: int = 0
    skipped: int = 0
    malformed: list[tuple[int, str]] = field(default_factory=list)
    keep_examples: int = 20

    def skip(self, line_no: int, reason: str) -> None:
        self.skipped += 1
        if len(self.malformed) < self.keep_examples:
            self.malformed.append((line_no, reason))


class MalformedLine(ValueError):
    """A line (or JSON array item) that is not a JSON object, in a file the caller needs whole."""


def jsonl_objects(
    lines: Iterable[str], skip: Callable[[int, str], None] | None = None, source: str = "<lines>"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank JSONL line. A line that does not parse, or parses to something
    other than an object, goes to `skip(line number, reason)` when the caller skips and counts (`ReadStats.skip`);
    without `skip` it raises `MalformedLine` naming `source` and the line."""
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            reason = f"invalid JSON: {err.msg}"
        else:
            if isinstance(record, dict):
                yield line_no, record
                continue
            reason = f"line is a JSON {type(record).__name__}, not an object"
        if skip is None:
            raise MalformedLine(f"{source}:{line_no}: {reason}")
        skip(line_no, reason)


def read_records(
    path: str | os.PathLike, stats: ReadStats | None = None, strict: bool = False
) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSONL file, a JSON array file, or a hub dataset (`hf:name[:config]:split`).

    A malformed line or array item is skipped and counted in `stats`, or with `strict` raises `MalformedLine`."""
    stats = stats if stats is not None else ReadStats()
    if str(path).startswith(HUB_PREFIX):
        yield from _read_hub(str(path)[len(HUB_PREFIX) :], stats)
        return
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"input file not found: {path}")
    with path.open(encoding="utf-8") as f:
        head = f.read(4096).lstrip()
        f.seek(0)
        if head.startswith("["):
            try:
                records = json.load(f)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}: not a valid JSON array ({err})") from err
            for i, record in enumerate(records):
                if not isinstance(record, dict):
                    reason = f"array item is {type(record).__name__}, not an object"
                    if strict:
                        raise MalformedLine(f"{path}[{i}]: {reason}")
                    stats.skip(i + 1, reason)
                    continue
                stats.read += 1
                yield record
            return
        for _, record in jsonl_objects(f, None if strict else stats.skip, str(path)):
            stats.read += 1
            yield record
    if stats.skipped:
        logger.warning("%s: skipped %d malformed line(s), e.g. %s", path, stats.skipped, stats.malformed[:3])


def _read_hub(spec: str, stats: ReadStats) -> Iterator[dict[str, Any]]:
    parts = spec.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"hub source must be hf:<dataset>[:<config>]:<split>, got hf:{spec}")
    import datasets

    name, split = parts[0], parts[-1]
    config = parts[1] if len(parts) == 3 else None
    for record in datasets.load_dataset(name, config, split=split):
        stats.read += 1
        yield dict(record)
