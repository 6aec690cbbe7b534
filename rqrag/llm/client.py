"""The JSON chat client: async chat calls to any OpenAI-compatible endpoint, cached on disk.

Core, because every stage that asks a chat model for JSON uses it: the data builder's annotators
(`rqrag.data_construction`), the memory writer's judge, the literature review, the experiments' analysis.

- Transport, concurrency and errors: `rqrag.llm.openai_endpoint.OpenAIEndpoint`, shared with the tree decoder's
  endpoint backends: the SDK's own retries with backoff, at most `concurrency` calls in flight however many
  examples wait, one error policy.
- Cache: every successful reply is stored in SQLite under a hash of (model, messages, parameters), so a rerun
  or a resumed run pays nothing for what it already asked; failures are never cached, so they are retried.
- Structured output: `response_format` is `json_schema` (OpenAI and vLLM enforce the schema), `json_object`
  (older OpenAI models such as gpt-3.5-turbo) or `text` (the prompt alone asks for JSON).

A call that still fails after its retries raises `LLMUnavailable`; the data builder leaves that example for the
next run instead of recording it as dropped. A request the endpoint rejects as invalid (`LLMRejected`) is
the example's fault and is dropped with a reason; a wrong key, model or URL (401/403/404, `EndpointRefused`)
stops the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rqrag.llm.openai_endpoint import EndpointRejected, EndpointStats, EndpointUnavailable, OpenAIEndpoint


RESPONSE_FORMATS = ("json_schema", "json_object", "text")


class LLMUnavailable(EndpointUnavailable):
    """The endpoint could not be reached or kept failing after retries (not the example's fault)."""


class LLMRejected(EndpointRejected, ValueError):
    """The endpoint refused this request as invalid (HTTP 400/413/422, e.g. a prompt beyond its context)."""


class NotAJSONObject(ValueError):
    """A reply that is not exactly one JSON object: each caller says so in its own error type."""


def load_json_object(reply: str | None) -> dict[str, Any]:
    """The one JSON object a schema-asked reply holds. A ```json fence around it is still that object;
    anything else around it (prose, a second object) is not, so the reply is rejected rather than guessed at."""
    text = (reply or "").strip()
    if text.startswith("```"):
        text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotAJSONObject(f"not JSON ({error.msg} at character {error.pos})") from error
    if not isinstance(data, dict):
        raise NotAJSONObject(f"expected a JSON object, got {type(data).__name__}")
    return data


@dataclass(frozen=True)
class Reply:
    """One chat completion: the text the endpoint sent back, why it stopped, its refusal if any, and whether the
    reply cache answered instead of the endpoint."""

    content: str
    finish_reason: str | None
    refusal: str | None = None
    cached: bool = False


@dataclass
class LLMStats(EndpointStats):
    """The endpoint's counters (the endpoint keeps them) and the replies the cache answered instead."""

    cache_hits: int = 0


class ReplyCache:
    """SQLite key -> reply. One connection guarded by a lock: writes are tiny and the event loop is one thread."""

    def __init__(self, path: str | os.PathLike):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")
        self._lock = threading.Lock()

    def get(self, key: str) -> Reply | None:
        with self._lock:
            row = self._conn.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return Reply(**json.loads(row[0]), cached=True) if row else None

    def put(self, key: str, reply: Reply) -> None:
        payload = json.dumps(
            {"content": reply.content, "finish_reason": reply.finish_reason, "refusal": reply.refusal}
        )
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, payload))

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class ChatClient:
    """Cached, concurrency-limited chat completions returning the reply text."""

    def __init__(
        self,
        *,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout: float = 60.0,
        max_retries: int = 4,
        concurrency: int = 8,
        response_format: str = "json_schema",
        cache_path: str | os.PathLike | None = None,
    ):
        if response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {RESPONSE_FORMATS}, got {response_format!r}")
        self.model = model
        self.base_url = base_url
        self.params = {"temperature": temperature, "max_tokens": max_tokens}
        self.response_format = response_format
        self.cache = ReplyCache(cache_path) if cache_path else None
        self.stats = LLMStats()
        self.endpoint = OpenAIEndpoint(
            base_url,
            model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            concurrency=concurrency,
            label="chat endpoint",
            stats=self.stats,
        )

    @classmethod
    def from_settings(cls, settings, cache_path: str | os.PathLike | None = None) -> ChatClient:
        """A client from any config with the `llm_*` connection fields and the generation settings (the data
        builder's and `rqrag review`'s); the key is read from the environment variable `llm_api_key_env` names."""
        return cls(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=os.environ.get(settings.llm_api_key_env),
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
            concurrency=settings.concurrency,
            response_format=settings.response_format,
            cache_path=cache_path,
        )

    def _key(self, messages: tuple[dict, ...], schema: dict | None) -> str:
        blob = json.dumps(
            [self.model, list(messages), self.params, self.response_format, schema], sort_keys=True, ensure_ascii=False
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def _format_argument(self, name: str, schema: dict | None) -> dict | None:
        if schema is None or self.response_format == "text":
            return None
        if self.response_format == "json_object":
            return {"type": "json_object"}
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}

    async def chat(self, messages: tuple[dict, ...], *, schema: dict | None = None, name: str = "reply") -> Reply:
        key = self._key(messages, schema)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.stats.cache_hits += 1
            return hit
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages), **self.params}
        if (response_format := self._format_argument(name, schema)) is not None:
            kwargs["response_format"] = response_format
        # EndpointRefused (a wrong key, model or URL) passes through: no example will get through, so stop the run.
        try:
            response = await self.endpoint.request(lambda client: client.chat.completions.create(**kwargs))
        except EndpointUnavailable as error:
            raise LLMUnavailable(str(error), error.status) from error
        except EndpointRejected as error:
            raise LLMRejected(str(error), error.status) from error
        if not response.choices:
            self.stats.failures += 1
            raise LLMUnavailable("the endpoint returned no choices")
        choice = response.choices[0]
        reply = Reply(
            content=choice.message.content or "",
            finish_reason=choice.finish_reason,
            refusal=getattr(choice.message, "refusal", None),
        )
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply

    async def close(self) -> None:
        await self.endpoint.aclose()
        if self.cache is not None:
            self.cache.close()
