"""`rqrag.training` — installed from the checkout's `training/` folder (setuptools package-dir).

Supervised fine-tuning of the RQ-RAG generator with TRL (`accelerate launch training/sft.py --config ...`).
"""
