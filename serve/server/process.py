"""Start `rqrag serve` as a child process on a free localhost port and wait until it is healthy.

Used by the server tests and `scripts/bench_server.py`, which exercise the real server over HTTP:

    with RQRAGServer(log_dir, database, ["--max_depth", "1"]) as server:
        server.client().chat.completions.create(model="rqrag", messages=[...])

Process supervision (own process group, health wait, SIGTERM then SIGKILL) is `rqrag.local_servers.processes`, shared with
the vLLM server helper. Nothing here needs the checkout: the config is the shipped one by name, the child runs in
the caller's folder, and `python` may be another environment's interpreter (tests/test_wheel_standalone.py starts
the server installed from the wheels).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rqrag.local_servers.processes import free_port, start_server_process


class RQRAGServer:
    def __init__(
        self,
        log_dir: Path,
        database: Path,
        extra_args: Sequence[str] = (),
        config: str | Path = "default",  # a shipped config's name (configs/serve/default.yaml) or a YAML path
        startup_timeout: float = 300,
        env: dict[str, str] | None = None,
        port: int | None = None,
        python: str | Path = sys.executable,
        cwd: Path | None = None,
    ):
        self.port = port or free_port()  # a restart on the same port keeps the browser's origin (its storage)
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = Path(log_dir) / f"server-{self.port}.log"
        command = [
            str(python), "-m", "rqrag.cli", "serve", "--config", str(config),
            "--port", str(self.port), "--database_url", f"sqlite:///{database}", *extra_args,
        ]  # fmt: skip
        self._process = start_server_process(
            command,
            port=self.port,
            log_path=self.log,
            env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
            cwd=cwd,
            startup_timeout=startup_timeout,
            name="rqrag serve",
        )
        self.process = self._process.process

    def serving_process(self):
        """The `rqrag serve` process itself (a psutil.Process): `process` is the launcher that watches it."""
        import psutil

        launcher = psutil.Process(self.process.pid)
        for child in launcher.children():
            if "serve" in child.cmdline():
                return child
        return launcher

    def file_workers(self) -> list:
        """The server's file workers (psutil.Process each): the processes its forkserver forked."""
        return [worker for child in self.serving_process().children() for worker in child.children()]

    def log_tail(self, chars: int = 3000) -> str:
        return self._process.log_tail(chars)

    def client(self):
        import openai

        return openai.OpenAI(base_url=f"{self.base}/v1", api_key="unused", timeout=1800, max_retries=0)

    def stop(self) -> None:
        self._process.stop()

    def __enter__(self) -> RQRAGServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
