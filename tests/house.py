"""The checkout's package folders, from the one list that defines them: pyproject.toml's package-dir table (every
stage folder mapped into `rqrag`), after the core `rqrag/` itself. The house tests walk these.

    PACKAGE_FOLDERS   # ("rqrag", "data_construction", "training", ..., "cli")
"""

from __future__ import annotations

from pathlib import Path

import tomllib


ROOT = Path(__file__).resolve().parents[1]


def package_folders() -> tuple[str, ...]:
    mapped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    stages = [folder for folder in mapped.values() if (ROOT / folder / "__init__.py").exists()]  # configs: data only
    return ("rqrag", *stages)


PACKAGE_FOLDERS = package_folders()
