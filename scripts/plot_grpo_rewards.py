"""The reward curve of a GRPO run, finished or still going, from its newest checkpoint's log history.

    .venv/bin/python scripts/plot_grpo_rewards.py runs/train/grpo_smollm2_135m_cpu [--out docs/grpo_reward.png]

`training/grpo.py` draws `reward.png` when a run ends; this draws the same figure (weighted reward per step, its
running mean, each reward function) from `checkpoint-N/trainer_state.json`, so a long CPU run can be looked at,
and its curve committed, while it trains. Prints the mean reward of the first and the last ten steps.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rqrag.training.grpo import plot_rewards


def newest_log_history(run: Path) -> list[dict]:
    state = run / "trainer_state.json"
    if not state.is_file():
        checkpoints = sorted(run.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
        if not checkpoints:
            raise SystemExit(f"{run}: no trainer_state.json and no checkpoint-*/ yet")
        state = checkpoints[-1] / "trainer_state.json"
    return json.loads(state.read_text())["log_history"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the GRPO output directory")
    parser.add_argument("--out", type=Path, default=None, help="figure path (default RUN/reward_so_far.png)")
    args = parser.parse_args(argv)
    history = newest_log_history(args.run)
    rewards = [float(e["reward"]) for e in history if "reward" in e]
    out = plot_rewards(history, args.out or args.run / "reward_so_far.png")
    if out is None:
        print("no reward logged yet", file=sys.stderr)
        return 1
    first, last = rewards[:10], rewards[-10:]
    print(f"{len(rewards)} steps; mean reward of the first {len(first)}: {sum(first) / len(first):.3f}, "
          f"of the last {len(last)}: {sum(last) / len(last):.3f}; figure: {out}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
