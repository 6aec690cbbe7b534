"""The README is a landing page and the manual is the MkDocs site in docs/: the README stays short with the two
fresh-machine commands on its first screen, the site builds strictly (no broken link, image or anchor), and the
measured figures the README used to carry are still in the site, each beside its command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _docs_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(DOCS.rglob("*.md")))


def test_readme_is_a_short_landing_page_with_the_two_commands_first():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; the manual belongs in docs/"
    first_screen = "\n".join(lines[:40])
    assert "make demo" in first_screen
    assert "make test" in first_screen


def test_every_page_the_readme_links_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = {target for target in re.findall(r"\]\((docs/[^)#\s]+)", readme)}
    assert targets, "the README links no page of the manual"
    assert [target for target in sorted(targets) if not (ROOT / target).exists()] == []


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # No --quiet: with it, mkdocs 1.6 drops the warnings before strict mode counts them.
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").exists()


def test_strict_build_fails_on_a_broken_link(tmp_path):
    """The check above means something: the same config over a copy of docs/ with one dead link is refused."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "speed.md").write_text(
        (docs / "speed.md").read_text(encoding="utf-8") + "\n[gone](no_such_page.md)\n", encoding="utf-8"
    )
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    assert "no_such_page.md" in result.stdout + result.stderr


# Figures that the 1,539-line README carried, one or two per page, each with a piece of the command or setting that
# produced it: moving text around must not drop a measurement.
KEY_FIGURES = {
    "answers.md": [
        "| **one decision over the tree, verifier (default)** | **72.5 %**",
        "expected calibration error **0.039**",
    ],
    "ask.md": ["151 trajectories instead of 180", "--limit 60 --actions decompose --max_depth 2"],
    "speed.md": ["| **after** | **5.8** | 3 | 5 | 1,018 | 97 | 2 |", "| hf | **batched** | **74.4** |"],
    "retrieval.md": ["| `rqrag` hybrid (RRF) | 1.445 | 15.0 | **0.822** |", "scripts/bench_retrieval.py"],
    "documents.md": ["**quote-recall@3 0.906**", "**43.8 %**", "**searchable 1.2 s**", "--set heldout --chunkings"],
    "data.md": ["kept 972, dropped 154", "tokens per example: median 70 -> 619, p95 213 -> 1442"],
    "train.md": ["packed / padded real-token throughput: 1.05x", "scripts/bench_train.py --steps 4 --batch_size 4"],
    "self_training.md": ["**+7.7 (+1.4 .. +14.0, 0.009)**", "scripts/heldout_eval.sh"],
    "models.md": ["65.2 min on 2", "loss 4.10 → 1.80", "| **vote** (default) | **22.0** | **38 %** |"],
    "eval.md": [
        "| hotpotqa (f1) | RQ-RAG SmolLM2-135M (trained) | rqrag | 200 | 14.7 | 4.2 |",
        "scripts/eval_small.sh",
    ],
    "paper.md": [
        "| rqrag (the tree) | 21.6 | 4.2 | 13.0 | 25.3 | 49.2 | 4.6 | 1100 + 52 | 2.3 |",
        "| IRCoT | Llama3-8B-Instruct | 41.5",
    ],
    "serve.md": ["| 16 | 28.4 | 60.4 | 2.13× |", "scripts/bench_server.py --max_depth 2"],
    "chat.md": ["**68 ms**", "**117 ms**", "| grounded (default) | 0.02 | 0.02 | 0.96 | 3.21 | 3.21 | 0.30 |"],
    "security.md": ["9.6 s (**3.6×", "scripts/bench_hostile.py --repeats 3"],
    "experiments.md": ["| chunking | 29.84 | 1, 429 | 8.0e-08 |", "216 ANOVA numbers and 2,760 contrast numbers"],
    "verified.md": ["152 s"],
}


@pytest.mark.parametrize("page", sorted(KEY_FIGURES))
def test_key_figures_stay_in_their_pages(page):
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())
    missing = [figure for figure in KEY_FIGURES[page] if " ".join(figure.split()) not in text]
    assert missing == [], f"{page} lost {missing}"


def test_the_headline_figures_are_somewhere_in_the_site():
    text = _docs_text()
    for figure in ("43.8", "0.906", "0.822", "29.2", "0.039", "5.8", "2.13×", "65.2 min"):
        assert figure in text, figure
