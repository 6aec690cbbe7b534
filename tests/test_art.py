"""The ART ANOVA and ART-C contrasts against numbers from R's ARTool 0.11.2.

tests/data/artool/reference.json holds ARTool's `anova(art(...))` rows and `summary(art.con(...))` tables for
ARTool's own example data sets (the CSVs next to it); tests/data/artool/SOURCES.md says how they were made. R is
not needed to run these tests.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rqrag.eval.experiments.art import aligned_responses, alignment_check, art_anova
from rqrag.eval.experiments.art_contrasts import art_contrasts


FIXTURES = Path(__file__).resolve().parent / "data" / "artool"
REFERENCE = json.loads((FIXTURES / "reference.json").read_text())
EXAMPLES = {example["name"]: example for example in REFERENCE["examples"]}
BETWEEN = [name for name, example in EXAMPLES.items() if example["subject"] is None]
WITH_SUBJECT = [name for name, example in EXAMPLES.items() if example["subject"] is not None]
CONTRAST_CASES = [
    (name, table["term"], table["adjust"]) for name, example in EXAMPLES.items() for table in example["contrasts"]
]
TOLERANCE = 1e-6


def close(ours: float, theirs: float) -> bool:
    """Within 1e-6 relative (so tiny p values count too), or 1e-9 absolute for R's rounding noise around a true zero
    (an estimate of exactly 0 that R prints as -2.5e-14)."""
    return abs(ours - theirs) <= max(TOLERANCE * abs(theirs), 1e-9)


def load(name: str) -> pd.DataFrame:
    return pd.read_csv(FIXTURES / EXAMPLES[name]["csv"])


def run_anova(name: str) -> pd.DataFrame:
    example = EXAMPLES[name]
    return art_anova(load(name), example["response"], example["factors"], subject=example["subject"])


def test_fixtures_cover_the_required_examples():
    assert {"higgins1990_table1", "higgins1990_table5_error_tray"} <= set(EXAMPLES)
    assert len(BETWEEN) >= 2 and len(WITH_SUBJECT) >= 2
    assert any(example["name"].startswith("elkin") and example["contrasts"] for example in EXAMPLES.values())


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_anova_matches_artool(name):
    ours = run_anova(name).set_index("term")
    reference = EXAMPLES[name]["anova"]
    assert list(ours.index) == [row["term"] for row in reference]
    for row in reference:
        mine = ours.loc[row["term"]]
        assert mine["df_num"] == row["Df"] and mine["df_den"] == row["Df_res"], row["term"]
        for ours_key, their_key in [("F", "F"), ("p", "p"), ("sum_sq", "SS"), ("sum_sq_error", "SS_res")]:
            assert close(mine[ours_key], row[their_key]), (row["term"], ours_key, mine[ours_key], row[their_key])
        eta = row["SS"] / (row["SS"] + row["SS_res"])
        assert close(mine["partial_eta_sq"], eta)


@pytest.mark.parametrize("name", WITH_SUBJECT)
def test_repeated_measures_effects_are_tested_in_arttools_strata(name):
    subject = EXAMPLES[name]["subject"]
    ours = run_anova(name).set_index("term")["error"]
    for row in EXAMPLES[name]["anova"]:
        assert ours[row["term"]] == (subject if row["error"] == subject else "within")


@pytest.mark.parametrize("name,term,adjust", CONTRAST_CASES)
def test_art_c_contrasts_match_artool(name, term, adjust):
    example = EXAMPLES[name]
    table = next(t for t in example["contrasts"] if t["term"] == term and t["adjust"] == adjust)
    ours = art_contrasts(load(name), example["response"], example["factors"], term, example["subject"], adjust)
    assert list(ours["contrast"]) == [row["contrast"] for row in table["rows"]]
    for mine, row in zip(ours.to_dict("records"), table["rows"]):
        assert mine["df"] == row["df"]
        for ours_key, their_key in [
            ("estimate", "estimate"),
            ("SE", "SE"),
            ("t", "t_ratio"),
            ("p_adjusted", "p_value"),
        ]:
            assert close(mine[ours_key], row[their_key]), (row["contrast"], ours_key, mine[ours_key], row[their_key])


def test_unadjusted_p_is_below_the_adjusted_one():
    example = EXAMPLES["elkin_abc"]
    table = art_contrasts(load("elkin_abc"), "Y", example["factors"], "A:B:C", adjust="bonferroni")
    assert np.allclose(table["p_adjusted"], np.minimum(1.0, table["p"] * len(table)))
    same = art_contrasts(load("elkin_abc"), "Y", example["factors"], "A:B:C", adjust="none")
    assert (same["p_adjusted"] == same["p"]).all()


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_alignment_check_passes_on_arttools_examples(name):
    example = EXAMPLES[name]
    check = alignment_check(load(name), example["response"], example["factors"], subject=example["subject"])
    assert check["ok"].all()
    assert (check["column_sum"].abs() < 1e-8).all()
    assert check["max_abs_F_other_effects"].max() < 1e-8
    assert close(check["max_abs_F_other_effects"].max(), example["aligned_anova_max_abs_F"])


def test_alignment_check_flags_a_wrong_alignment():
    data = load("higgins1990_table1")
    aligned = aligned_responses(data, "Response", ["Row", "Column"])
    wrong = aligned.copy()
    # Forgetting to subtract the other main effect leaves Column's effect in the Row column.
    column_means = data.groupby("Column")["Response"].transform("mean")
    wrong["Row"] = aligned["Row"] + column_means - data["Response"].mean()
    check = alignment_check(data, "Response", ["Row", "Column"], aligned=wrong).set_index("term")
    assert not check.loc["Row", "ok"] and check.loc["Row", "max_abs_F_other_effects"] > 1.0
    assert check.loc["Column", "ok"] and check.loc["Row:Column", "ok"]
    shifted = aligned.assign(**{"Row:Column": aligned["Row:Column"] + 0.5})
    flagged = alignment_check(data, "Response", ["Row", "Column"], aligned=shifted).set_index("term")
    assert not flagged.loc["Row:Column", "ok"] and flagged.loc["Row:Column", "column_sum"] == pytest.approx(18.0)


def test_max_order_limits_the_reported_effects_but_not_the_model():
    example = EXAMPLES["elkin_abc"]
    full = run_anova("elkin_abc").set_index("term")
    two_way = art_anova(load("elkin_abc"), "Y", example["factors"], max_order=2).set_index("term")
    assert list(two_way.index) == ["A", "B", "C", "A:B", "A:C", "B:C"]
    assert np.allclose(two_way["F"], full.loc[two_way.index, "F"], rtol=1e-12)
    assert (two_way["df_den"] == full["df_den"].iloc[0]).all()


def test_categorical_level_order_is_kept_in_contrast_names():
    data = load("higgins1990_table5")
    data["Moisture"] = pd.Categorical(data["Moisture"], categories=["m4", "m3", "m2", "m1"])
    table = art_contrasts(data, "DryMatter", ["Moisture", "Fertilizer"], "Moisture", adjust="none")
    assert table["contrast"].iloc[0] == "m4 - m3"


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d.assign(Response=d["Response"].astype(str)), "must be numeric"),
        (lambda d: d.assign(Row="r1"), "only one level"),
        (
            lambda d: d[~((d["Row"] == "r2") & (d["Column"] == "c3"))],
            "1 of 9 cells of Row x Column have no observations",
        ),
        (lambda d: d.assign(Response=d["Response"].where(d.index % 12 != 0)), "3 of 36 rows have missing values"),
        (lambda d: d.assign(Column=d["Column"].where(d.index != 5)), "1 of 36 rows have missing values"),
        (lambda d: d.drop(columns="Column"), "columns not in the data"),
    ],
)
def test_invalid_inputs_are_refused_with_a_reason(mutate, message):
    data = mutate(load("higgins1990_table1"))
    with pytest.raises(ValueError, match=message):
        art_anova(data, "Response", ["Row", "Column"])


def test_one_observation_per_cell_leaves_no_residual():
    data = load("higgins1990_table1").groupby(["Row", "Column"], as_index=False).first()
    with pytest.raises(ValueError, match="no residual degrees of freedom"):
        art_anova(data, "Response", ["Row", "Column"], check_alignment=False)


def test_unbalanced_repeated_measures_are_refused():
    data = load("higgins1990_table5").iloc[1:]
    with pytest.raises(ValueError, match="balanced design"):
        art_anova(data, "DryMatter", ["Moisture", "Fertilizer"], subject="Tray")


def test_contrast_arguments_are_checked():
    data = load("higgins1990_table5")
    with pytest.raises(ValueError, match="adjust must be one of"):
        art_contrasts(data, "DryMatter", ["Moisture", "Fertilizer"], "Moisture", adjust="tukey")
    with pytest.raises(ValueError, match="distinct factors"):
        art_contrasts(data, "DryMatter", ["Moisture", "Fertilizer"], "Moisture:Light")
    with pytest.raises(ValueError, match="mixes between-subject"):
        art_contrasts(data, "DryMatter", ["Moisture", "Fertilizer"], "Moisture:Fertilizer", subject="Tray")


def test_no_warning_when_the_alignment_is_fine():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_anova("interaction_test_data")


def test_a_response_that_never_varies_within_subjects_gets_no_made_up_f():
    """A 0/1 score identical in every cell of each subject: the aligned ranks all tie, so F and p are NaN."""
    rows = [
        {"S": f"s{s}", "A": a, "B": b, "Y": float(s % 3 == 0)}
        for s in range(12)
        for a in ("x", "y")
        for b in ("u", "v")
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the alignment check has nothing to check either
        table = art_anova(pd.DataFrame(rows), "Y", ["A", "B"], subject="S")
    assert table["F"].isna().all() and table["p"].isna().all()
    assert np.isfinite(table["df_den"]).all()
