"""Prometheus metrics of the server, in a registry of its own (several apps in one process stay apart)."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest


class ServerMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self):
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "rqrag_requests", "HTTP requests by endpoint and status", ["endpoint", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "rqrag_request_seconds",
            "request latency",
            ["endpoint"],
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160, 320, 640),
            registry=self.registry,
        )
        self.batch_size = Histogram(
            "rqrag_batch_questions",
            "questions per decoder batch",
            buckets=(1, 2, 4, 8, 16, 32, 64),
            registry=self.registry,
        )
        self.model_calls = Counter("rqrag_model_calls", "generator calls", registry=self.registry)
        self.prompt_tokens = Counter("rqrag_prompt_tokens", "prompt tokens requested", registry=self.registry)
        self.prompt_tokens_computed = Counter(
            "rqrag_prompt_tokens_computed",
            "prompt tokens run through the model after prefix reuse",
            registry=self.registry,
        )
        self.generated_tokens = Counter("rqrag_generated_tokens", "tokens generated", registry=self.registry)
        # What the serving benchmark reads (scripts/bench_serving.py): how busy the one model thread is, and how
        # many expansions each depth's generator call carries (what admitting questions at every depth raises).
        self.model_busy_seconds = Counter(
            "rqrag_model_busy_seconds", "time the model thread spent decoding", registry=self.registry
        )
        self.depth_expansions = Histogram(
            "rqrag_depth_expansions",
            "expansions per depth's generator call",
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
            registry=self.registry,
        )

    _KNOWN = ("/v1/chat/completions", "/v1/ask", "/v1/models", "/health", "/metrics")

    def observe(self, endpoint: str, status: int, seconds: float) -> None:
        endpoint = endpoint if endpoint in self._KNOWN else "other"  # unbounded label values would leak memory
        self.requests.labels(endpoint, str(status)).inc()
        self.latency.labels(endpoint).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
