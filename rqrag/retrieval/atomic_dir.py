"""Replacing a whole folder atomically: write the new version beside it, then swap it in by renaming.

    with staging(index_dir, "building") as staged:   # .NAME.building-<pid>-<random>, deleted if anything fails
        write_everything_into(staged)
        swap_in(staged, index_dir)

`os.rename` of a directory is atomic, so readers see the old version or the new one, never half of either.
Replacing takes two renames (the old version out to `.NAME.retired-*`, the new one in); a writer killed between
them leaves no folder at NAME and the old version in its retired sibling, which `leftovers` finds and the next
writer puts back (`rqrag.ingest.local_library`). Every temporary folder of NAME, and of a temporary folder of
NAME (a build staged inside a staged library update), starts with ".NAME." after its leading dots: `leftovers`
knows that naming, so nothing else has to.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path


RETIRED = "retired"  # the purpose of the old version moved aside by `swap_in`


def temp_sibling(directory: Path, purpose: str) -> Path:
    """A fresh name beside `directory` for a version in the making ("building", "staging", "retired", ...)."""
    return directory.parent / f".{directory.name}.{purpose}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def is_retired(path: Path) -> bool:
    """Whether a leftover is an old version `swap_in` moved aside (to put back if nothing replaced it)."""
    return f".{RETIRED}-" in path.name


def leftovers(directory: str | os.PathLike) -> list[Path]:
    """Temporary folders that interrupted writers of `directory` left beside it, sorted by name."""
    directory = Path(directory)
    if not directory.parent.is_dir():
        return []
    prefix = f"{directory.name}."
    return sorted(
        p
        for p in directory.parent.iterdir()
        if p.name.startswith(".") and p.name.lstrip(".").startswith(prefix) and p.is_dir()
    )


@contextlib.contextmanager
def staging(directory: Path, purpose: str, create: bool = True) -> Iterator[Path]:
    """A temporary sibling of `directory` to write a new version into (created unless `create` is False);
    deleted if the block fails, KeyboardInterrupt included, so a failed write leaves nothing behind."""
    staged = temp_sibling(directory, purpose)
    if create:
        staged.mkdir()
    try:
        yield staged
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


def swap_in(staged: Path, target: Path) -> None:
    """Rename a complete version into place, replacing the one at `target` if any. If the second rename fails,
    the old version is put back; killed between the two renames, the old version waits in a retired sibling."""
    if not target.exists():
        os.rename(staged, target)
        return
    retired = temp_sibling(target, RETIRED)
    os.rename(target, retired)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)
