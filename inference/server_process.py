"""Start `rqrag serve` as a child process on a free localhost port and wait until it is healthy.

Used by the server tests and `scripts/bench_server.py`, which exercise the real server over HTTP:

    with RQRAGServer(log_dir, database, ["--max_depth", "1"]) as server:
        server.client().chat.completions.create(model="rqrag", messages=[...])
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rqrag.local_server import free_port
from rqrag.paths import PROJECT_ROOT


class RQRAGServer:
    def __init__(
        self,
        log_dir: Path,
        database: Path,
        extra_args: Sequence[str] = (),
        config: Path = PROJECT_ROOT / "configs/serve/default.yaml",
        startup_timeout: float = 300,
    ):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = Path(log_dir) / f"server-{self.port}.log"
        command = [
            sys.executable, "-m", "rqrag.cli", "serve", "--config", str(config),
            "--port", str(self.port), "--database_url", f"sqlite:///{database}", *extra_args,
        ]  # fmt: skip
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._wait_healthy(startup_timeout)

    def _wait_healthy(self, timeout: float) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"rqrag serve exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.base}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"rqrag serve not healthy after {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.is_file() else ""

    def client(self):
        import openai

        return openai.OpenAI(base_url=f"{self.base}/v1", api_key="unused", timeout=1800, max_retries=0)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def __enter__(self) -> RQRAGServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
