"""The one logistic scorer (`rqrag.logistic`) and its one fit (`rqrag.fit.logistic`): a probability as worked
out by hand, scikit-learn's coefficients on standardised features, the verifier and the reader scoring a row through
the same code, and every shipped file loading and saving back to the same bytes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rqrag.fit.logistic import fit_logistic
from rqrag.logistic import LogisticScorer, sigmoid


# two features; the second has scale 0 (constant in training), so it is divided by 1
HAND = LogisticScorer(("a", "b"), (1.0, 2.0), (2.0, 0.0), (0.5, -1.0), 0.25)


def synthetic(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three features on different scales, the label a noisy function of the first two."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * [1.0, 20.0, 0.3] + [0.0, 5.0, -1.0]
    y = (X[:, 0] + X[:, 1] / 20 + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_the_probability_is_the_hand_computation():
    # z = 0.25 + 0.5 * (3 - 1) / 2 - 1.0 * (5 - 2) / 1 = -2.25
    assert HAND.logits([{"a": 3.0, "b": 5.0}])[0] == pytest.approx(-2.25)
    assert HAND.probability({"a": 3.0, "b": 5.0}) == pytest.approx(1 / (1 + math.exp(2.25)))
    # a feature the row lacks reads 0: z = 0.25 + 0.5 * (0 - 1) / 2 - 1.0 * (0 - 2) = 2.0
    assert HAND.probability({}) == pytest.approx(1 / (1 + math.exp(-2.0)))
    rows = [{"a": 3.0, "b": 5.0}, {}]
    assert list(HAND.probabilities(rows)) == [HAND.probability(r) for r in rows]
    # the same rows as a matrix in feature order
    assert list(HAND.logits(np.array([[3.0, 5.0], [0.0, 0.0]]))) == list(HAND.logits(rows))
    assert len(HAND.logits([])) == 0


def test_the_sigmoid_is_clipped_at_fifty():
    assert sigmoid(1000.0) == 1.0
    assert sigmoid(-1000.0) == sigmoid(-50.0) == pytest.approx(1 / (1 + math.exp(50.0)))


def test_the_file_form_round_trips_and_refuses_unknown_features_and_ragged_lengths():
    assert LogisticScorer.from_dict(HAND.to_dict(), {"a", "b"}) == HAND
    with pytest.raises(ValueError, match=r"verifier names features this version does not compute: \['b'\]"):
        LogisticScorer.from_dict(HAND.to_dict(), {"a"}, what="verifier")
    with pytest.raises(ValueError, match="same length"):
        LogisticScorer(("a", "b"), (0.0,), (1.0, 1.0), (1.0, 1.0), 0.0)
    with pytest.raises(ValueError, match="2 columns"):
        HAND.logits(np.zeros((4, 3)))


def test_the_fit_is_scikit_learn_on_standardised_features():
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    X, y = synthetic()
    scorer = fit_logistic(X, y, ("x0", "x1", "x2"), C=0.5)
    scaler = StandardScaler().fit(X)
    model = LogisticRegression(C=0.5, max_iter=2000).fit(scaler.transform(X), y)
    assert scorer.features == ("x0", "x1", "x2")
    assert scorer.mean == tuple(scaler.mean_) and scorer.scale == tuple(scaler.scale_)
    assert scorer.coef == tuple(model.coef_[0]) and scorer.intercept == model.intercept_[0]
    # held-back p as scikit-learn gives them, bit for bit: the verifier's threshold is chosen from these
    held = synthetic(50, seed=1)[0]
    assert np.array_equal(scorer.probabilities(held), model.predict_proba(scaler.transform(held))[:, 1])


def test_the_reader_spread_is_numpys_and_a_constant_feature_keeps_scale_one():
    from sklearn.linear_model import LogisticRegression

    X, y = synthetic()
    X[:, 2] = 4.0  # constant, exactly representable: a deviation of exactly 0 either way
    scorer = fit_logistic(X, y, ("x0", "x1", "x2"), C=1.0, max_iter=3000, scaling="numpy")
    mean, scale = X.mean(axis=0), X.std(axis=0)
    assert scale[2] == 0 and scorer.scale[2] == 1.0
    scale[2] = 1.0
    model = LogisticRegression(C=1.0, max_iter=3000).fit((X - mean) / scale, y)
    assert scorer.mean == tuple(mean) and scorer.scale == tuple(scale) and scorer.coef == tuple(model.coef_[0])
    assert fit_logistic(X, y, ("x0", "x1", "x2"), scaling="scaler").scale[2] == 1.0
    with pytest.raises(ValueError, match="scaling"):
        fit_logistic(X, y, ("x0", "x1", "x2"), scaling="robust")


def test_the_verifier_and_the_reader_score_a_row_through_the_same_scorer():
    from rqrag.answer.candidate_answers import AnswerCandidate
    from rqrag.answer.reading.span_features import SPAN_FEATURES
    from rqrag.answer.verifier import Verifier

    # two features both the tree's candidates and the reader's spans compute
    verifier = Verifier(("words", "sentence_rank"), (3.0, 1.5), (2.0, 1.0), (-0.4, -0.9), 0.3, 0.5)
    span = LogisticScorer.from_dict(verifier.to_dict(), SPAN_FEATURES)  # the reader's loader, on the same numbers
    assert span == verifier.scorer
    rows = [{"words": 2.0, "sentence_rank": 0.0}, {"words": 7.0, "sentence_rank": 4.0}]
    for row in rows:
        assert verifier.probability(row) == sigmoid(span.logits([row])[0])
    candidates = [AnswerCandidate(f"answer {i}", f"answer {i}", features=row) for i, row in enumerate(rows)]
    verifier.score(candidates)
    assert [c.p for c in candidates] == list(span.probabilities(rows))


def test_the_shipped_verifier_judge_and_reader_load_and_save_back_the_same_bytes(tmp_path):
    from rqrag.answer.reading.model_decision import judge_for
    from rqrag.answer.reading.span_reader import Reader, ReaderModel, default_reader_path
    from rqrag.answer.verifier import Verifier

    verifier = Verifier.for_model(None)  # the default model's
    judge = judge_for("qwen2.5-1.5b")
    reader = Reader.default().model
    assert verifier is not None and judge is not None and reader is not None
    for loaded in (verifier, judge):
        assert isinstance(loaded.scorer, LogisticScorer) and loaded.scorer.features == loaded.features
        assert 0.0 < loaded.probability({}) < 1.0
    for scorer in (reader.sentence, reader.span):
        assert isinstance(scorer, LogisticScorer) and len(scorer.features) == len(scorer.coef)
    # saved again, byte for byte the files that ship
    for loaded, name in ((verifier, "verifier"), (judge, "judge")):
        again = loaded.save(tmp_path / name).read_text()
        shipped = "rqrag-smollm2-135m-selftrain/verifier" if name == "verifier" else "reader/qwen2.5-1.5b"
        assert again == (default_reader_path().parents[1] / shipped / "verifier.json").read_text()
    model = ReaderModel(reader.sentence, reader.span, reader.report)
    assert model.save(tmp_path / "reader").read_text() == default_reader_path().read_text()
    assert json.loads(default_reader_path().read_text())["span"]["features"] == list(reader.span.features)
