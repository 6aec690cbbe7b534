"""The installed layout: one `rqrag` namespace, and imports that point one way (import-linter on the wheel).

    python -m pytest tests/test_packaging.py -q

The stage folders of the checkout (data_construction/, training/, inference/, answer/, serve/, eval/,
self_training/) install as `rqrag.inference` etc. through setuptools' package-dir mapping; these tests build the
real wheel, install it into a clean venv and check that nothing else of ours is importable (`build_wheel` is also
what tests/test_wheel_standalone.py installs). import-linter (grimp) finds packages by
walking their folder, which only the installed layout has, so the contracts run on the unpacked wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parent.parent
STAGES = ("data_construction", "training", "inference", "answer", "serve", "eval", "self_training", "fit")
# Every mapped folder of the checkout: the stages, the literature review, and the CLI (cli/, a room of its own).
FOLDERS = (*STAGES, "review", "cli")


def build_wheel(project: Path, out: Path) -> Path:
    """The wheel of `project` (the checkout, or its models/ folder: the rq-rag-models wheel) written into `out`.

    setuptools stages a wheel in the project's build/lib and never empties it, so a module moved or deleted since
    an earlier build would still ship (and satisfy the checks below); DIST_EXTRA_CONFIG points the build and its
    egg-info at a fresh folder instead, which also leaves the checkout as it was. `make wheels` does the same.
    """
    scratch = Path(tempfile.mkdtemp(prefix="rqrag-build-"))
    settings = scratch / "dist.cfg"
    settings.write_text(f"[build]\nbuild_base = {scratch / 'build'}\n[egg_info]\negg_base = {scratch}\n")
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out)]
    try:
        subprocess.run(
            [*command, str(project)],
            check=True,
            capture_output=True,
            env={**os.environ, "DIST_EXTRA_CONFIG": str(settings)},
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (path,) = out.glob("*.whl")
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(REPO, tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def unpacked(wheel, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(root)
    return root


def test_wheel_holds_only_rqrag_and_every_stage_module(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"rqrag"}
    for stage in FOLDERS:
        for source in (REPO / stage).rglob("*.py"):  # the areas of a stage (inference/decoding/...) included
            relative = source.relative_to(REPO).as_posix()
            assert f"rqrag/{relative}" in names, f"{relative} missing from the wheel"
    assert "rqrag/data_construction/prompts/system.txt" in names
    assert "rqrag/serve/server/web/index.html" in names
    assert "rqrag/configs/decode/rqrag_trained.yaml" in names  # `--config rqrag_trained` from any folder
    assert "rqrag/benchmarks/splits/hotpotqa.json" in names


def test_clean_venv_exposes_only_the_rqrag_namespace(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", site, str(wheel)],
        check=True,
        capture_output=True,
    )
    probe = (
        "import importlib.util as u, json; "
        f"print(json.dumps({{m: u.find_spec(m) is not None for m in {list(FOLDERS)!r} + "
        f"['rqrag.' + s for s in {list(FOLDERS)!r}]}}))"
    )
    # Run from an empty folder: the checkout's own folders must not be what answers.
    out = subprocess.run([python, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    found = __import__("json").loads(out.stdout)
    assert {s: found[s] for s in FOLDERS} == dict.fromkeys(FOLDERS, False)
    assert all(found[f"rqrag.{s}"] for s in FOLDERS)


def _lint_imports(site: Path, cwd: Path) -> subprocess.CompletedProcess:
    linter = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert linter, "import-linter is not installed (pip install -e '.[test]')"
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([linter, str(REPO / "pyproject.toml")], cwd=cwd, env=env, capture_output=True, text=True)


def test_import_contracts_are_kept(unpacked, tmp_path):
    result = _lint_imports(unpacked, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "bad_import"),
    [
        ("rqrag/text/answer_text.py", "import rqrag.inference.decoding.select"),  # the core reaching up into a stage
        ("rqrag/paths.py", "import rqrag.cli.commands.config_catalog"),  # the core reaching up into the CLI
        ("rqrag/inference/decoding/select.py", "import rqrag.eval.metrics"),  # a stage importing a later one
        ("rqrag/adapters.py", "import rqrag.models"),  # a circle between core modules (models imports adapters)
        ("rqrag/inference/backends/hf.py", "import rqrag.inference.decoding.tree"),  # a backend knowing the tree
        ("rqrag/serve/memory/store.py", "import rqrag.serve.server.app"),  # memory reaching up to HTTP
        ("rqrag/review/reviewer.py", "import rqrag.serve.server.schema"),  # documents speaking HTTP
        ("rqrag/serve/answer_service.py", "import rqrag.serve.server.schema"),  # a service raising HTTP errors
        ("rqrag/serve/answer_service.py", "import rqrag.inference.decoding.tree"),  # serve past the answer API
        ("rqrag/inference/decoding/decoder.py", "import rqrag.answer.pipeline"),  # decoding above its caller
        ("rqrag/eval/engine.py", "import rqrag.self_training.selection"),  # the eval engine leaning on self-training
        ("rqrag/training/data.py", "import rqrag.self_training.loop"),  # training reaching into self-training
        ("rqrag/review/run.py", "import rqrag.serve.server.app"),  # the review speaking HTTP
    ],
)
def test_import_contracts_catch_a_violation(unpacked, tmp_path, module, bad_import):
    site = tmp_path / "site"
    shutil.copytree(unpacked, site)
    target = site / module
    target.write_text(target.read_text() + f"\n{bad_import}\n")
    result = _lint_imports(site, tmp_path)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout


def test_every_core_module_is_in_the_core_layer():
    """A core module missing from the layers contract would be free to import any stage: list them all."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    core = {name.strip() for name in contracts[0]["layers"][-1].split(":")}
    (no_stage,) = [c for c in contracts if c["name"] == "the core imports no stage"]
    assert set(no_stage["source_modules"]) == core  # the two lists of the core stay one list
    modules = {p.stem for p in (REPO / "rqrag").glob("*.py")} | {
        p.parent.name for p in (REPO / "rqrag").glob("*/__init__.py")
    }
    top = {"__init__"}  # the package root (its lazy `rqrag.Pipeline`); the CLI is its own folder, cli/
    assert {f"rqrag.{m}" for m in modules - top} <= core
