"""The checkout's package folders, from the one list that defines them: pyproject.toml's package-dir table (every
stage folder mapped into `rqrag`), after the core `rqrag/` itself, read by scripts/layout_page.py. The house tests
walk these.

    PACKAGE_FOLDERS   # ("rqrag", "data_construction", "training", ..., "cli")
"""

from __future__ import annotations

from script_modules import load_script


PACKAGE_FOLDERS = load_script("layout_page").package_folders()
