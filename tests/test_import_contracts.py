"""The import-linter contracts run from the source checkout (scripts/import_contracts.py), with no wheel built: every
contract of pyproject.toml is kept, and a contract the code breaks is reported as broken, with the offending import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "import_contracts.py"


def _run(pyproject: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--pyproject", str(pyproject)], capture_output=True, text=True, timeout=300
    )


def test_every_contract_is_kept_from_the_checkout():
    done = _run(ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout and "KEPT" in done.stdout


def test_a_broken_contract_is_reported_with_the_import(tmp_path):
    text = (ROOT / "pyproject.toml").read_text()
    probe = (
        '[[tool.importlinter.contracts]]\nname = "probe: the answer step never imports the tree"\n'
        'type = "forbidden"\nsource_modules = ["rqrag.answer"]\nforbidden_modules = ["rqrag.inference"]\n\n'
    )
    marker = "[[tool.importlinter.contracts]]"
    (tmp_path / "pyproject.toml").write_text(text.replace(marker, probe + marker, 1))
    done = _run(tmp_path / "pyproject.toml")
    assert done.returncode != 0
    assert "probe: the answer step never imports the tree BROKEN" in done.stdout
    assert "rqrag.answer.api -> rqrag.inference" in done.stdout
