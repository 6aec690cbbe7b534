"""The scripts under scripts/ are not a package; tests that call their functions load them with `load_script`."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str) -> ModuleType:
    """scripts/<name>.py as a module (its `if __name__ == "__main__"` block does not run)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
