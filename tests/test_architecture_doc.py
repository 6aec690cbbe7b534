"""docs/ARCHITECTURE.md cannot drift from the house: every file it names exists, and every room (a top-level
package folder of pyproject.toml's package-dir) is in it."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib


ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
# a path as the document writes one: a room folder, then folders, then a .py file
NAMED_FILE = re.compile(r"(?<![\w./-])((?:[a-z_]+/)+[a-z_0-9]+\.py)\b")


def rooms() -> list[str]:
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return sorted({folder.split("/")[0] for folder in package_dir.values()})


def test_every_file_the_architecture_names_exists():
    named = set(NAMED_FILE.findall(DOC.read_text()))
    assert len(named) > 40  # the path of one question, file by file
    missing = sorted(path for path in named if not (ROOT / path).is_file())
    assert missing == []


def test_every_room_is_in_the_architecture():
    text = DOC.read_text()
    assert [room for room in rooms() if f"{room}/" not in text] == []
