"""llama.cpp's OpenAI-compatible HTTP server for a GGUF model, on CPUs, from the `xllamacpp` wheel (no build).

    python -m rqrag.local_servers.gguf_server --model qwen2.5-1.5b --port 8080        # serve until Ctrl-C
    rqrag ask "..." --writer openai --writer_base_url http://127.0.0.1:8080/v1 --writer_model qwen2.5-1.5b

    with serve_gguf("qwen2.5-0.5b") as server:                           # a child process, stopped on exit
        server.base_url                                                  # http://127.0.0.1:PORT/v1

The model in its own process behind an OpenAI-compatible endpoint is how the writer scales out (docs/answers.md):
several `rqrag serve` replicas share one model server, and the same flags reach vLLM serving a 7B on a GPU, Ollama
or a hosted API. `--model` is a key of `rqrag.gguf_files.SPLIT_MODELS` or a path to a .gguf file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from rqrag.local_servers.processes import ServerProcess, free_port, start_server_process


def run(model: str, port: int, host: str = "127.0.0.1", n_ctx: int = 4096, parallel: int = 2) -> None:
    """Serve `model` on http://host:port/v1 until interrupted (this process)."""
    import xllamacpp

    from rqrag.gguf_files import gguf_path

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf_path(model))
    params.n_ctx, params.n_parallel, params.kv_unified = n_ctx, parallel, True
    params.port, params.warmup = port, False
    params.hostnames = [host]
    server = xllamacpp.Server(params)
    print(f"serving {model} at {server.listening_address}/v1", flush=True)
    try:
        threading.Event().wait()  # the server's own threads answer; this one only keeps the process
    except KeyboardInterrupt:
        pass


@contextlib.contextmanager
def serve_gguf(model: str, port: int | None = None, startup_timeout: float = 120) -> Iterator[ServerProcess]:
    """`model` served by a child process on localhost (`run`), its `/health` answered before this yields; the
    process group is stopped on exit."""
    port = port or free_port()
    log = Path(tempfile.mkdtemp(prefix="gguf-server-")) / "server.log"
    command = [sys.executable, "-m", "rqrag.local_servers.gguf_server", "--model", model, "--port", str(port)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    server = start_server_process(
        command, port=port, log_path=log, env=env, startup_timeout=startup_timeout, name=f"llama.cpp {model}"
    )
    try:
        yield server
    finally:
        server.stop()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m rqrag.local_servers.gguf_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--model", default="qwen2.5-1.5b", help="a reader model key or a .gguf path")
    parser.add_argument("--port", type=int, default=8080, help="the port to listen on")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--n_ctx", type=int, default=4096, help="tokens of KV cache, shared by the slots")
    parser.add_argument("--parallel", type=int, default=2, help="requests decoded side by side")
    args = parser.parse_args(argv)
    run(args.model, args.port, args.host, args.n_ctx, args.parallel)


if __name__ == "__main__":
    main()
