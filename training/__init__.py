"""`rqrag.training` — installed from the checkout's `training/` folder (setuptools package-dir).

Supervised fine-tuning of the RQ-RAG generator with TRL (`accelerate launch training/sft.py --config ...`; data
`data.py`, new token rows `token_rows.py`) and GRPO on its own sampled paths with real retrieval
(`accelerate launch training/grpo.py --config ...`; rollouts `rollouts.py`).
"""
