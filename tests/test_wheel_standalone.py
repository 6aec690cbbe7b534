"""The package stands alone: the rq-rag and rq-rag-models wheels, installed (not editable) into a fresh venv, answer
from an empty folder, with configs taken by name and the default model's adapters found in the installed package.

    python -m pytest tests/test_wheel_standalone.py -q

The fresh venv sees the project venv's dependencies (torch, transformers, ...) through a .pth line naming its
site-packages, which pip does not read for .pth files of its own: the editable finder of the checkout is not
installed there, so `rqrag` can only come from the wheel, and the test checks it does. The first part needs no
wheel: where models and configs are looked for, in a checkout and outside one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
import venv
from pathlib import Path

import httpx
import pytest
from test_packaging import build_wheel

import rqrag.paths
from rqrag.models import DEFAULT_RQRAG_MODEL, ModelResolutionError, resolve_model
from rqrag.paths import ModelsNotInstalled, configs_dir, models_dir
from rqrag.serve.server.process import RQRAGServer


REPO = Path(__file__).resolve().parent.parent
QUESTION = "What is the capital of France?"


# ------------------------------------------------------------------------------- where the shipped files are


def test_a_checkout_uses_its_own_models_and_configs():
    assert models_dir() == REPO / "models"
    assert configs_dir() == REPO / "configs"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """rqrag as if installed: the folder above it is site-packages (no pyproject.toml), holding another package's
    models/ and configs/ that must never be taken for ours."""
    site = tmp_path / "site-packages"
    (site / "models" / DEFAULT_RQRAG_MODEL).mkdir(parents=True)
    (site / "configs").mkdir()
    monkeypatch.setattr(rqrag.paths, "PROJECT_ROOT", site)
    return tmp_path


def test_installed_models_come_from_the_rq_rag_models_package_only(installed, monkeypatch):
    with pytest.raises(ModelsNotInstalled, match="pip install rq-rag-models"):
        models_dir()
    # the name that used to fail: "cannot resolve model 'rqrag-smollm2-135m-selftrain'", now with its install line
    with pytest.raises(ModelResolutionError, match=f"{DEFAULT_RQRAG_MODEL}.*pip install rq-rag-models"):
        resolve_model(DEFAULT_RQRAG_MODEL)
    own = installed / "my_model"  # a user's own folder needs no shipped models
    own.mkdir()
    (own / "config.json").write_text("{}")
    assert resolve_model(own) == str(own)

    companion = installed / "companion"
    (companion / rqrag.paths.MODELS_PACKAGE).mkdir(parents=True)
    monkeypatch.syspath_prepend(str(companion))
    assert models_dir() == companion / rqrag.paths.MODELS_PACKAGE


def test_installed_configs_are_the_wheels(installed):
    assert configs_dir() == Path(rqrag.paths.__file__).resolve().parent / "configs"


# ------------------------------------------------------------------------------------- the wheels, installed


def _fresh_venv(root: Path, wheels: list[Path]) -> Path:
    """A venv holding only the wheels, over the project venv's dependencies; returns its bin/ folder."""
    venv.create(root, with_pip=False)
    python = root / "bin" / "python"
    paths = json.loads(
        subprocess.run(
            [python, "-c", "import json, sysconfig; print(json.dumps(sysconfig.get_paths()))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(paths["purelib"], "project_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index"]
        + [str(w) for w in wheels],
        check=True,
        capture_output=True,
    )
    return root / "bin"


def _run(command: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.mark.slow
def test_the_installed_wheels_answer_from_an_empty_folder(tmp_path):
    start = time.perf_counter()
    wheels = [build_wheel(REPO, tmp_path / "wheel"), build_wheel(REPO / "models", tmp_path / "models_wheel")]
    bin_dir = _fresh_venv(tmp_path / "fresh", wheels)
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    # RQRAG_CACHE_DIR stays the test cache (conftest.py): the merged adapters are keyed by their files' hash, so
    # the installed copies reuse the checkout's merges instead of rebuilding them.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"HF_HUB_OFFLINE": "1", "DDGS_PROXY": "http://127.0.0.1:9"}  # no web search, online or not

    where = _run(
        [
            bin_dir / "python",
            "-c",
            "import rqrag, rqrag.paths as p; print(rqrag.__file__, p.models_dir(), p.configs_dir())",
        ],
        empty,
        env,
    ).stdout.split()
    fresh = str(tmp_path / "fresh")
    assert all(found.startswith(fresh) for found in where), where  # the wheels', not the checkout's

    listed = _run([bin_dir / "rqrag", "config", "list"], empty, env).stdout
    assert any(line.split()[:2] == ["rqrag_trained", "decode"] for line in listed.splitlines()), listed
    shown = _run([bin_dir / "rqrag", "config", "show", "rqrag_trained"], empty, env).stdout
    assert shown == (REPO / "configs" / "decode" / "rqrag_trained.yaml").read_text()

    small = ["--max_depth", "1", "--answer_max_tokens", "24", "--query_max_tokens", "24"]  # as tests/test_server.py
    asked = _run(
        [bin_dir / "rqrag", "ask", QUESTION, "--config", "rqrag_trained", "--json", *small], empty, env
    ).stdout
    record = json.loads(asked[asked.index("{") :])
    assert record["answer"].strip() and record["answer_kind"], record
    # the default model's adapters, resolved
    assert record["model_loaded"] and record["prompting"] == "trained", record

    # The Python API from the same empty folder (docs/python.md): the one-liner, with the small settings.
    api = (
        "from rqrag import Pipeline; p = Pipeline.from_config('rqrag_trained', max_depth=1, answer_max_tokens=24, "
        "query_max_tokens=24); a = p.ask('What is the capital of France?'); print(a.kind.value); print(a.text)"
    )
    kind, text = _run([bin_dir / "python", "-c", api], empty, env).stdout.strip().splitlines()[-2:]
    assert kind in {"generated", "quoted", "no_answer"} and text.strip()

    flags = [*small, "--memories", "false"]  # the memory embedder is not what this test is about
    # The shipped serve config by name (RQRAGServer's default), the wheel's interpreter, the empty folder.
    with RQRAGServer(tmp_path, tmp_path / "chat.db", flags, env=env, python=bin_dir / "python", cwd=empty) as server:
        reply = httpx.post(f"{server.base}/v1/ask", json={"question": QUESTION}, timeout=600)
    assert reply.status_code == 200, reply.text
    assert reply.json()["answer"].strip()
    print(f"wheels built, installed and used in {time.perf_counter() - start:.1f} s")
