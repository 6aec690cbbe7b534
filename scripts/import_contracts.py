"""Check the import-linter contracts of pyproject.toml from a source checkout, without building a wheel.

    python scripts/import_contracts.py            # exit 0 when every contract is kept (run by `make test`)

The checkout keeps the stages at its top (inference/, answer/, ...) and pyproject's [tool.setuptools.package-dir]
maps them into one namespace (`rqrag.inference`, ...); grimp, which import-linter builds its graph with, finds a
package by walking one folder. So the installed layout is laid out in a temporary folder as symbolic links to the
checkout's own .py files (real folders, linked files: nothing is copied or built, and a line number in a report
is the checkout's), and `lint-imports` runs there with that folder first on the import path.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]


def package_folders(pyproject: Path) -> dict[str, Path]:
    """Each Python package of the project and the checkout folder that holds it (data-only ones left out)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: import-linter's own dependency reads TOML there
        import tomli as tomllib

    setup = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]
    mapped = setup.get("package-dir", {})
    folders = {}
    for package in setup["packages"]:
        # a package's folder: its own mapping, else its nearest mapped parent's folder plus the rest of its name
        parts = package.split(".")
        for cut in range(len(parts), 0, -1):
            head = ".".join(parts[:cut])
            if head in mapped:
                folder = ROOT / mapped[head] / Path(*parts[cut:])
                break
        else:
            folder = ROOT / Path(*parts)
        if (folder / "__init__.py").is_file():
            folders[package] = folder
    return folders


def lay_out(folders: dict[str, Path], target: Path) -> None:
    """The installed tree under `target`: a folder per package, each .py file a link to the checkout's."""
    for package, folder in folders.items():
        where = target / Path(*package.split("."))
        where.mkdir(parents=True, exist_ok=True)
        for source in folder.glob("*.py"):
            (where / source.name).symlink_to(source)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pyproject", default=str(ROOT / "pyproject.toml"))
    args = parser.parse_args(argv)
    pyproject = Path(args.pyproject).resolve()
    linter = Path(sys.executable).with_name("lint-imports")
    with tempfile.TemporaryDirectory(prefix="rqrag-contracts-") as tmp:
        lay_out(package_folders(pyproject), Path(tmp))
        env = {**os.environ, "PYTHONPATH": tmp}
        return subprocess.run([str(linter), str(pyproject), "--no-cache"], cwd=tmp, env=env).returncode


if __name__ == "__main__":
    raise SystemExit(main())
