"""Supervised fine-tuning of the RQ-RAG generator with TRL (`accelerate launch training/sft.py --config ...`)."""
