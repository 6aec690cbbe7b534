"""Append-only JSONL output that survives being killed at any moment.

A run writes each finished record as one `write()` of one line and flushes it; a killed process can leave at
most one partial last line. On start, `ResumableJsonl` cuts that partial line off (it was never finished,
so nothing is lost), reads the ids already present, and the pipeline skips them: a restarted run writes
every missing record once and no record twice.

Two such files make a run's state: `data.jsonl` (kept records) and `dropped.jsonl` (examples dropped for a
reason that a rerun would not change: refusals, format errors, missed supporting paragraphs). Examples that
failed only because the endpoint was unreachable are in neither, so the next run tries them again.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rqrag.records import jsonl_objects


logger = logging.getLogger(__name__)


class ResumableJsonl:
    def __init__(self, path: str | os.PathLike, id_key: str = "id"):
        self.path = Path(path)
        self.id_key = id_key
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.repaired_bytes = self._cut_partial_tail()
        self.ids: set[str] = {str(r[id_key]) for r in self.read()}
        self._file = self.path.open("a", encoding="utf-8")

    def _cut_partial_tail(self) -> int:
        """Truncate an unterminated last line left by a killed writer; returns the bytes removed."""
        if not self.path.exists():
            return 0
        with self.path.open("rb+") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            if size == 0:
                return 0
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return 0
            # Walk back to the last newline (blocks of 64 KiB; records are far smaller than a file).
            pos = size
            while pos > 0:
                step = min(65536, pos)
                f.seek(pos - step)
                block = f.read(step)
                cut = block.rfind(b"\n")
                if cut >= 0:
                    keep = pos - step + cut + 1
                    break
                pos -= step
            else:
                keep = 0
            f.truncate(keep)
        logger.warning(
            "%s: removed an unfinished last line (%d bytes) left by an interrupted run", self.path, size - keep
        )
        return size - keep

    def read(self) -> Iterator[dict[str, Any]]:
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as f:
            for _, record in jsonl_objects(f, source=str(self.path)):
                yield record

    def __contains__(self, record_id: str) -> bool:
        return record_id in self.ids

    def append(self, record: dict[str, Any]) -> bool:
        """Write `record` unless its id is already in the file; returns whether it was written."""
        record_id = str(record[self.id_key])
        if record_id in self.ids:
            return False
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()
        self.ids.add(record_id)
        return True

    def sync(self) -> None:
        """Flush to the disk itself (after each chunk): survives a machine crash, not only a killed process."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            self.sync()
            self._file.close()

    def __enter__(self) -> ResumableJsonl:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
