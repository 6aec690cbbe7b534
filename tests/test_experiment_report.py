"""The experiment report (`eval/experiments/experiment_report.py`) on scores with a known structure: the ART ANOVA (question as
subject) finds the effect that is there and not the one that is not, contrasts follow, NaNs are counted."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rqrag.eval.experiments.experiment_report import analyse_metric, describe, per_question, write_report


def scores(seed: int = 0) -> pd.DataFrame:
    """30 questions x refinement (none/tree) x mode (bm25/hybrid) x k (3/5): tree adds 0.25 to a bounded score,
    mode and k do nothing; each question has its own difficulty."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(30):
        difficulty = rng.uniform(0, 0.6)
        for refinement in ("none", "tree"):
            for mode in ("bm25", "hybrid"):
                for k in (3, 5):
                    value = difficulty + (0.25 if refinement == "tree" else 0.0) + rng.normal(0, 0.08)
                    rows.append(
                        {"question_id": f"q{q}", "refinement": refinement, "mode": mode, "k": k,
                         "f1": float(np.clip(value, 0, 1)), "fixed": "smollm2"}
                    )  # fmt: skip
    return pd.DataFrame(rows)


def test_the_art_anova_finds_the_real_effect_only():
    data = scores()
    result = analyse_metric(data, ["refinement", "mode", "k", "fixed"], "f1")
    assert result["factors"] == ["refinement", "mode", "k"]  # a factor held fixed is not tested
    anova = result["anova"].set_index("term")
    assert anova.loc["refinement", "p"] < 1e-6 and anova.loc["mode", "p"] > 0.01 and anova.loc["k", "p"] > 0.01
    assert "refinement:mode:k" in anova.index  # interactions up to the full order
    contrasts = result["contrasts"]["refinement"]
    assert len(contrasts) == 1 and contrasts["p_adjusted"].iloc[0] < 1e-6


def test_descriptives_count_nans_and_incomplete_questions_are_dropped():
    data = scores()
    data.loc[data.index[:3], "f1"] = np.nan  # question q0 misses three of its eight cells
    table = describe(data, ["refinement"], ["f1"])
    none = table[table["level"] == "none"].iloc[0]
    assert none["nan"] == 3 and none["n"] == 117 and none["ci95_low"] < none["mean"] < none["ci95_high"]
    balanced, dropped = per_question(data, ["refinement", "mode", "k"], "f1")
    assert dropped == 1 and balanced["question_id"].nunique() == 29


def test_the_report_is_written_with_tables_plots_and_csvs(tmp_path):
    report = write_report(scores(), ["refinement", "mode", "k"], ["f1"], tmp_path, "Test study")
    text = report.read_text()
    assert "# Test study" in text and "| refinement |" in text and "ART-C contrasts of `refinement`" in text
    for name in ("scores.csv", "descriptives.csv", "anova_f1.csv", "contrasts_f1.csv", "histograms.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert (tmp_path / "interactions_f1.png").stat().st_size > 10_000
    anova = pd.read_csv(tmp_path / "anova_f1.csv")
    assert set(anova["term"]) >= {"refinement", "mode", "k"}
