"""Decoding: the RQ-RAG tree (`decoder.py`), its paths and scores (`tree.py`), how a trajectory is chosen
(`select.py`), the prompt each path continues (`prompting.py`, `prompt_text.py`), the refinement guards and the
decode settings (`decode_config.py`). Imports the backends below it, never the server or memory above it.
"""
