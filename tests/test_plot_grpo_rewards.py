"""scripts/plot_grpo_rewards.py: the reward curve of a GRPO run still training, from its newest checkpoint."""

from __future__ import annotations

import json

from script_modules import load_script


plot = load_script("plot_grpo_rewards")


def test_the_newest_checkpoint_is_plotted_with_first_and_last_means(tmp_path, capsys):
    run = tmp_path / "grpo"
    for step in (2, 10):  # checkpoint-10 is the newest (numeric order, not string order)
        folder = run / f"checkpoint-{step}"
        folder.mkdir(parents=True)
        history = [{"step": s, "reward": s / 10, "rewards/answer_f1/mean": s / 20} for s in range(1, step + 1)]
        (folder / "trainer_state.json").write_text(json.dumps({"log_history": history}))
    assert plot.main([str(run), "--out", str(tmp_path / "r.png")]) == 0
    assert (tmp_path / "r.png").stat().st_size > 1000
    assert "10 steps; mean reward of the first 10: 0.550" in capsys.readouterr().out
    (tmp_path / "empty").mkdir()
    try:
        plot.main([str(tmp_path / "empty")])
    except SystemExit as stop:
        assert "no trainer_state.json" in str(stop)
    else:
        raise AssertionError("a run with no checkpoint must say so")
