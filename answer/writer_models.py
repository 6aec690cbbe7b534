"""The chat models that write answers and judge claims: a GGUF model on llama.cpp in this process, or any
OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp's server, a hosted API).

    model = LocalChatModel("qwen2.5-1.5b")                                  # rqrag.gguf_files key or a .gguf path
    model = OpenAIChatModel("http://127.0.0.1:8080/v1", "qwen", api_key_env="OPENAI_API_KEY")
    for text in model.stream(messages, max_tokens=160): ...                 # the reply as it is written
    model.yes_probability(messages)                                         # p that the reply's first word is yes/sim
    model.complete(messages, max_tokens=16)                                 # a short greedy reply (the cloze check)

Both keep a system prompt's prefix cached across questions (llama.cpp's `cache_prompt`; a server's own prefix
cache), so each question pays for its passages and not for the instructions.
"""

from __future__ import annotations

import functools
import math
import os
import queue
import threading
from collections.abc import Iterator, Sequence


YES = ("yes", "sim")
NO = ("no", "não", "nao")
WRITER_CONTEXT = 4096


def _p_yes(first_token: str, logprob: float | None, alternatives: dict[str, float] | None = None) -> float:
    """p(yes) from the reply's first token: from the alternatives' logprobs when the endpoint gave them, else the
    chosen token's own p (yes: p, no: 1 - p), else 1/0 by its text."""
    said = first_token.strip().lower().strip(".!,")
    if alternatives:
        yes = sum(math.exp(lp) for tok, lp in alternatives.items() if tok.strip().lower().strip(".") in YES)
        no = sum(math.exp(lp) for tok, lp in alternatives.items() if tok.strip().lower().strip(".") in NO)
        if yes + no > 0:
            return yes / (yes + no)
    p = math.exp(logprob) if logprob is not None else 1.0
    if said in YES:
        return p
    if said in NO:
        return 1.0 - p
    return 0.0  # neither word: not a yes


class LocalChatModel:
    """A GGUF chat model on llama.cpp (`rqrag.inference.backends.llamacpp`): two slots, so a sentence is judged while
    the next one is written."""

    def __init__(self, model: str = "qwen2.5-1.5b", engine=None):
        self.model = model
        self._engine = engine

    @property
    def name(self) -> str:
        return os.path.basename(self.model)

    @property
    def engine(self):
        if self._engine is None:
            self._engine = _local_engine(self.model)
        return self._engine

    def stream(self, messages: Sequence[dict], max_tokens: int) -> Iterator[str]:
        """The reply's text pieces as llama.cpp writes them (greedy)."""
        request = {
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "top_k": 0,
            "repeat_penalty": 1.0,
            "cache_prompt": True,
            "stream": True,
        }
        pieces: queue.Queue = queue.Queue()
        done, stop = object(), threading.Event()

        def on_chunk(chunk) -> bool:  # True: llama.cpp stops writing
            if isinstance(chunk, dict) and "error" in chunk:
                pieces.put(RuntimeError(f"llama.cpp: {chunk['error']}"))
                return True
            for choice in chunk.get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    pieces.put(text)
            return stop.is_set()

        def run() -> None:
            try:
                self.engine._server.handle_chat_completions(request, on_chunk)
            except Exception as error:  # handed to the reader of the stream
                pieces.put(error)
            finally:
                pieces.put(done)

        threading.Thread(target=run, name="writer-stream", daemon=True).start()
        try:
            while (piece := pieces.get()) is not done:
                if isinstance(piece, Exception):
                    raise piece
                yield piece
        finally:
            # a reader that stops reading (the review's texts are all written) stops the writing too: the slot is
            # free at once instead of writing on to max_tokens
            stop.set()

    def complete(self, messages: Sequence[dict], max_tokens: int) -> str:
        """The greedy reply, whole."""
        return self.engine.chat(messages, max_tokens=max_tokens).text

    def yes_probability(self, messages: Sequence[dict]) -> float:
        reply = self.engine.chat(messages, max_tokens=2)
        first = next((t for t in reply.tokens if t.text.strip()), None)
        return 0.0 if first is None else _p_yes(first.text, first.logprob)


class OpenAIChatModel:
    """Any OpenAI-compatible chat endpoint (`/v1/chat/completions`), the key read from `api_key_env` (a local server
    needs none). Logprobs are asked for the judge; an endpoint without them is read by its reply's word."""

    def __init__(self, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", timeout: float = 120.0):
        if not base_url or not model:
            raise ValueError("an OpenAI-compatible writer needs writer_base_url (ending in /v1) and writer_model")
        from openai import OpenAI

        self.base_url, self.model = base_url, model
        key = os.environ.get(api_key_env) or "no-key"  # llama.cpp, vLLM and Ollama accept any key
        self.client = OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=2)

    @property
    def name(self) -> str:
        return self.model

    def stream(self, messages: Sequence[dict], max_tokens: int) -> Iterator[str]:
        chunks = self.client.chat.completions.create(
            model=self.model, messages=list(messages), max_tokens=max_tokens, temperature=0.0, stream=True
        )
        try:
            for chunk in chunks:
                for choice in chunk.choices or []:
                    if choice.delta and choice.delta.content:
                        yield choice.delta.content
        finally:
            chunks.close()  # a reader that stops reading closes the connection: the server stops writing

    def complete(self, messages: Sequence[dict], max_tokens: int) -> str:
        reply = self.client.chat.completions.create(
            model=self.model, messages=list(messages), max_tokens=max_tokens, temperature=0.0
        )
        return reply.choices[0].message.content or ""

    def yes_probability(self, messages: Sequence[dict]) -> float:
        try:
            reply = self.client.chat.completions.create(
                model=self.model, messages=list(messages), max_tokens=2, temperature=0.0, logprobs=True, top_logprobs=5
            )
        except Exception as error:  # an endpoint that refuses logprobs: ask again for the word alone
            if "logprob" not in str(error).lower():
                raise
            reply = self.client.chat.completions.create(
                model=self.model, messages=list(messages), max_tokens=2, temperature=0.0
            )
        choice = reply.choices[0]
        content = (choice.logprobs.content if choice.logprobs else None) or []
        first = next((t for t in content if t.token.strip()), None)
        if first is None:
            return _p_yes((choice.message.content or "").split()[0] if choice.message.content else "", None)
        alternatives = {alt.token: alt.logprob for alt in (first.top_logprobs or [])}
        return _p_yes(first.token, first.logprob, alternatives)


@functools.lru_cache(maxsize=2)
def _local_engine(model: str):
    """One llama.cpp engine per writer model per process: two slots over one unified cache, so the judge of one
    sentence runs beside the writing of the next."""
    from rqrag.gguf_files import gguf_path
    from rqrag.inference.backends.llamacpp import LlamaCppEngine

    return LlamaCppEngine(gguf_path(model), n_ctx=WRITER_CONTEXT, parallel=2)


def chat_model(writer: str, base_url: str = "", model: str = "", api_key_env: str = "OPENAI_API_KEY"):
    """The writer a config names: `openai` (the endpoint at `base_url` serving `model`), or a GGUF model."""
    if writer == "openai":
        return OpenAIChatModel(base_url, model, api_key_env)
    return LocalChatModel(writer)
