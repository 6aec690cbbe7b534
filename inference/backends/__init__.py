"""Generation backends: token ids (or chat messages) in, completions with log-probabilities out. `base.py` is the
interface; `hf.py` (transformers), `vllm_engine.py` (vLLM), `remote.py` (an OpenAI-compatible completions
endpoint) and `chat_endpoint.py` (a chat-completions endpoint) implement it. A backend knows nothing of the tree.
"""
