"""The server's episodic memory, assembled from its config: the store beside the conversations and the judge
that decides what is worth remembering.

The store (`serve/memory/store.py`) shares `database_url` with the conversation store, so one file (or one
PostgreSQL database) holds a user's conversations and memories; its vectors come from the same multilingual
embedder the document library uses by default, loaded once per process (`SharedEncoder`).

The judge is a chat model asked with a JSON schema (`rqrag.llm.client.ChatClient`): the endpoint
`memory_llm_base_url` names, else the chat backend's own when the server generates through one. Without
either, `serve/memory/writer.py` decides by its rule (first-person statements).
"""

from __future__ import annotations

import logging
import os

from rqrag.answer import DecodeConfig
from rqrag.serve.serve_config import ServeConfig


logger = logging.getLogger(__name__)

JUDGE_MAX_TOKENS = 160  # one sentence and a boolean: a looping small model is cut here, then the rule decides
JUDGE_TIMEOUT_S = 30.0


def open_memories(serve: ServeConfig):
    """The memory store in the conversations' database; its embedder loads on the first memory or search."""
    from rqrag.retrieval.shared_encoder import SharedEncoder
    from rqrag.serve.memory.store import MemoryStore

    return MemoryStore(serve.database_url, SharedEncoder(serve.memory_embedding_model))


def memory_judge(serve: ServeConfig, decode: DecodeConfig):
    """A JSON-schema chat client for the memory decision, or None (the rule decides)."""
    from rqrag.llm.client import ChatClient

    if serve.memory_llm_base_url:
        base_url, model = serve.memory_llm_base_url, serve.memory_llm_model
        api_key = os.environ.get("OPENAI_API_KEY")
    elif decode.backend == "chat" and decode.remote_base_url:
        base_url, model = decode.remote_base_url, decode.remote_model
        api_key = os.environ.get(decode.remote_api_key_env)
    else:
        return None
    if not model:
        raise ValueError("memory_llm_model must name the model served at memory_llm_base_url")
    logger.info("memories: %s at %s decides what is worth remembering (JSON schema)", model, base_url)
    return ChatClient(
        base_url=base_url,
        model=model,
        api_key=api_key,
        max_tokens=JUDGE_MAX_TOKENS,
        timeout=JUDGE_TIMEOUT_S,
        max_retries=1,
        concurrency=2,
    )
