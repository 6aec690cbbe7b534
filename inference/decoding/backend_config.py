"""`BackendConfig`: the backend that runs the model: which engine, which model, its precision and limits. One concern of `DecodeConfig` (`decode_config.py`), which inherits it, so a field
is still `config.field` and a YAML file a flat mapping; `@concern` gives it its `--help` group."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern, renamed


@concern(
    "backend",
    "the model and where it runs: in process (hf, vllm), a vLLM server (remote) or any chat-completions endpoint "
    "(chat)",
    common=("model", "prompting"),
)
@dataclass
class BackendConfig:
    model: str = field(
        default="rqrag-smollm2-135m-selftrain",
        metadata={
            "help": "rqrag-smollm2-135m-selftrain (the default: the RQ-RAG model after two rounds of self-training, "
            "best on HotpotQA and both Portuguese document sets), rqrag-smollm2-135m (the first trained model; "
            "with --prompting prompted its base is used instead), smollm2-135m-instruct (the plain base), a "
            "training/sft.py output folder, or a hub id (online users)",
        },
    )
    prompting: Literal["auto", "trained", "prompted"] = field(
        default="auto",
        metadata={
            "help": "how the model is asked for each refinement. trained: it emits RQ-RAG special tokens itself; "
            "prompted: a plain instruct model is asked by an instruction; auto: trained if the tokenizer already "
            "has the tokens (--mode is its deprecated former name)",
            **renamed("mode"),
        },
    )
    prompt_format: Literal["auto", "native", "original"] = field(
        default="auto",
        metadata={
            "help": "trained mode: how the model's context is laid out. native: this package's training (the "
            "tokenizer's chat template); original: a model trained by the original RQ-RAG code (github.com/"
            "chanchimin/RQ-RAG, e.g. the released zorowin123/rq_rag_llama2_7B: <|user|> tags, its task system "
            "prompts, stop at [EOS] or </s>); auto: original if the tokenizer has its [S_Response] token"
        },
    )
    backend: Literal["hf", "vllm", "llamacpp", "remote", "chat"] = field(
        default="hf",
        metadata={
            "help": "hf (transformers, in process), vllm (in process), llamacpp (llama.cpp on the model's GGUF file, in "
            "process: a packaged model, a reader model or a .gguf path), remote (an OpenAI-compatible vLLM server, "
            "token ids) or chat (any chat-completions endpoint: hosted APIs, Ollama, llama.cpp, vLLM; prompted "
            "mode only, --model then only names the local tokenizer that measures prompts)"
        },
    )
    remote_base_url: str | None = field(
        default=None, metadata={"help": "remote/chat backend: the server's base URL, e.g. http://gpu-box:8000/v1"}
    )
    remote_model: str | None = field(
        default=None,
        metadata={"help": "remote/chat backend: the model name the server serves (remote default: --model)"},
    )
    remote_api_key_env: str = field(
        default="OPENAI_API_KEY", metadata={"help": "remote/chat backend: env var of its key"}
    )
    remote_max_context: int | None = field(
        default=None,
        metadata={
            "help": "remote/chat backend: the server's context length (default: the model config's; chat: 8192)"
        },
    )
    # chat backend (rqrag.inference.backends.chat_endpoint)
    chat_logprobs: bool = field(
        default=True,
        metadata={
            "help": "chat backend: ask for token logprobs (ppl/confidence selection). false for endpoints without "
            "them: every strategy then selects by answer agreement (rqrag.inference.decoding.select)"
        },
    )
    chat_concurrency: int = field(default=8, metadata={"help": "chat backend: requests in flight at once"})
    chat_timeout: float = field(default=120.0, metadata={"help": "chat backend: seconds per request before a retry"})
    chat_max_retries: int = field(
        default=2, metadata={"help": "chat backend: retries on timeouts, connection errors, 429 and 5xx"}
    )
    dtype: str | None = field(
        default=None,
        metadata={
            "help": "model dtype (default: float32 with hf; with vllm float32 on CPU, auto on GPU); with hf, auto is "
            "bfloat16 where the GPU or CPU computes it and float32 where the CPU would emulate it; what bfloat16 "
            "saves and changes: docs/speed.md"
        },
    )
    max_batch_size: int = field(default=32, metadata={"help": "hf backend: rows decoded together"})
    prefix_cache_tokens: int = field(
        default=0,
        metadata={
            "help": "hf backend: prompt tokens whose keys and values are kept across calls, so a deeper path's prompt "
            "computes only what its parent's did not (0: off, the default: on 2 CPU cores it computes a quarter fewer "
            "prompt tokens but saves no time, docs/speed.md; inference/backends/prefix_cache.py)"
        },
    )

    @property
    def mode(self) -> str:
        """Deprecated: `prompting` under its former name (`mode` means the retrieval mode elsewhere)."""
        warnings.warn("DecodeConfig.mode is deprecated; use DecodeConfig.prompting", DeprecationWarning, stacklevel=2)
        return self.prompting

    @property
    def model_to_load(self) -> str:
        """Prompted mode is for plain instruct models: asked for one of our trained models, it runs their base."""
        from rqrag.models import DEFAULT_MODEL, TRAINED_MODELS

        return DEFAULT_MODEL if self.model in TRAINED_MODELS and self.prompting == "prompted" else self.model
