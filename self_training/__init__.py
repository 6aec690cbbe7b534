"""`rqrag.self_training` — installed from the checkout's `self_training/` folder (setuptools package-dir).

The tree's own trajectories as new training data (`rqrag data self-train --config configs/data/self_train.yaml`):
`loop.py` runs the tree on training ids through the eval engine and writes gold/silver rows in the HF chat format
that `training/sft.py` reads; `selection.py` keeps the trajectories worth learning (right answer, evidence read,
queries that brought new evidence, no invented entities). It sits above eval and below the CLI; no stage imports it
(import-linter contract in pyproject.toml).
"""
