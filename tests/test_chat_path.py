"""The path of a chat request in docs/ARCHITECTURE.md is the path the code takes: a real server (the shipped model
and the embedded corpus, uvicorn on localhost) answers `POST /v1/chat` in a fresh interpreter up to its first model
call, where everything waiting on that call is read: the model thread's stack, the stacks of the event loop's
worker threads, and the request's live coroutines. The package files among them must be the ones the document lists
between its `chat-first-model-call` markers, at most nine (issue 65). The model call itself is replaced by one that
records and refuses: what is checked is how the request gets there, not what the model says.

What is not the request's is left out by construction: coroutines already alive before the request (the app's
lifespan and the middleware around it) and the server's own background threads (each named `rqrag-…`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from stack_files import documented_files


ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
MAX_FILES = 9  # issue 65: a chat request reaches its first model call through at most nine files

pytestmark = pytest.mark.slow  # a real server with the shipped model and index: ~45 s


PROBE = r"""
import gc, inspect, json, socket, sys, threading, time, traceback
from pathlib import Path

import httpx, uvicorn

from rqrag.config_loader import make_parser, parse
from rqrag.inference.backends import hf
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app

root, workdir = Path(sys.argv[1]), Path(sys.argv[2])
sys.path.insert(0, str(root / "tests"))
from stack_files import package_file

seen = []

def live_coroutines():
    for obj in gc.get_objects():
        if inspect.iscoroutine(obj) or inspect.isasyncgen(obj):
            frame = obj.cr_frame if inspect.iscoroutine(obj) else obj.ag_frame
            if frame is not None and package_file(root, frame.f_code.co_filename):
                yield obj, frame


def record(self, requests, *args, **kwargs):
    if not seen:
        files = []
        caller = threading.get_ident()
        names = {thread.ident: thread.name for thread in threading.enumerate()}
        for _, frame in live_coroutines():
            if id(frame) not in before:
                files.append(package_file(root, frame.f_code.co_filename))
        for ident, frame in sys._current_frames().items():
            if ident == caller or not names.get(ident, "").startswith("rqrag-"):
                files += [package_file(root, entry.filename) for entry in traceback.extract_stack(frame)]
        seen.append(sorted({f for f in files if f} | {package_file(root, hf.__file__)}))
    raise RuntimeError("stopped at the first model call")


hf.HFGenerator.generate = record
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
sock.close()
parser = make_parser(DecodeConfig, ServeConfig, prog="probe")
decode, serve, _ = parse(parser, ["--config", "configs/serve/default.yaml", "--port", str(port),
                                  "--database_url", f"sqlite:///{workdir}/conversations.db"])
server = uvicorn.Server(uvicorn.Config(create_app(decode, serve), host="127.0.0.1", port=port, log_level="warning"))
threading.Thread(target=server.run, daemon=True).start()
for _ in range(1200):
    try:
        if httpx.get(f"http://127.0.0.1:{port}/ready").status_code == 200:
            break
    except httpx.HTTPError:
        pass
    time.sleep(0.5)
before = {id(frame) for _, frame in live_coroutines()}  # the app's, alive before any request
reply = httpx.post(f"http://127.0.0.1:{port}/v1/chat", json={"question": "Who wrote the play Hamlet?"}, timeout=600)
print("PROBE " + json.dumps({"status": reply.status_code, "files": seen[0] if seen else None}))
server.should_exit = True
"""


@pytest.fixture(scope="module")
def chat_path(tmp_path_factory) -> list[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    workdir = tmp_path_factory.mktemp("chat_path")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT), str(workdir)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=ROOT,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("PROBE ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    found = json.loads(line.removeprefix("PROBE "))
    assert found["status"] == 200 and found["files"], found
    return found["files"]


def test_a_chat_request_reaches_the_model_through_the_documented_files(chat_path):
    documented = documented_files(ARCHITECTURE.read_text(), "chat-first-model-call")
    assert sorted(documented) == chat_path
    assert len(documented) <= MAX_FILES
    assert documented[0] == "serve/server/body_limit.py" and documented[-1] == "inference/backends/hf.py"
