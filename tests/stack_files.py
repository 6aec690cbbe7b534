"""What the two path tests share (tests/test_question_path.py, tests/test_chat_path.py): the checkout's own file
behind a stack frame, and the numbered file list docs/ARCHITECTURE.md keeps between a pair of markers. The probes
those tests run in a fresh interpreter import this module too (they put tests/ on their path)."""

from __future__ import annotations

import re
from pathlib import Path


def package_file(root: Path, filename: str) -> str | None:
    """`filename` relative to the checkout `root` when it is one of the checkout's files (not the venv's)."""
    path = Path(filename).resolve()
    if path.is_file() and path.is_relative_to(root) and ".venv" not in path.relative_to(root).parts:
        return path.relative_to(root).as_posix()
    return None


def documented_files(text: str, marker: str) -> list[str]:
    """The files listed, in order, between `<!-- MARKER:start -->` and `<!-- MARKER:end -->` in `text`."""
    block = re.search(rf"<!-- {marker}:start -->(.*?)<!-- {marker}:end -->", text, re.S)
    assert block, f"docs/ARCHITECTURE.md lost its {marker} markers"
    return re.findall(r"^\d+\. `([^`]+)`", block.group(1), re.M)
