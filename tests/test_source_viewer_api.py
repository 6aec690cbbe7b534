"""The source viewer's server side: a library keeps each uploaded file, and serves it and its PDF pages as images
with the quoted sentence painted where the page holds it.

    python -m pytest tests/test_source_viewer_api.py -q

The page test is on a real PDF (the tuning article set's LaTeX article); the API test runs the real app with real
libraries (MiniLM) in process. The chat page's viewer, in Chromium: tests/test_review_page_browser.py.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_documents_api import upload, wait_for

from rqrag.ingest.originals import FolderOriginals, TableOriginals
from rqrag.ingest.page_image import PageNotFound, fold, fold_with_origin, render_page


ARTICLE = Path(__file__).parent / "data" / "articles" / "tuning" / "pt_latex" / "article.pdf"
# On page 2, printed over three lines with two words hyphenated at their ends ("técni-cos", "mode-los").
ON_PAGE_2 = "embora o BM25 continue competitivo quando as consultas contêm termos técnicos raros"


def test_a_folded_page_remembers_where_each_character_came_from():
    page = "Os mode\ufffelos pré-\r\ntreinados  superam\r\nos ge-\r\nnéricos."
    folded, origin = fold_with_origin(page)
    assert folded == fold(page) == "os modelos prétreinados superam os genéricos."
    start = folded.index("superam")
    assert page[origin[start] : origin[start + len("superam") - 1] + 1] == "superam"


def test_the_quoted_sentence_is_painted_on_its_page_and_only_there():
    from PIL import Image

    data = ARTICLE.read_bytes()
    marked = render_page(data, 2, mark=ON_PAGE_2)
    plain = render_page(data, 2)
    elsewhere = render_page(data, 3, mark=ON_PAGE_2)
    assert marked.marked and not plain.marked and not elsewhere.marked and marked.pages == 3
    assert 0.25 < marked.mark_top < 0.35 and plain.mark_top is None  # a third of the way down the left column
    a, b = (Image.open(io.BytesIO(image.png)).convert("RGB") for image in (marked, plain))
    assert a.size == b.size and a.size[0] > 800  # 1.5 × 72 dpi: a page ~900 pixels wide
    changed = int((np.asarray(a) != np.asarray(b)).any(axis=2).sum())
    # the three painted lines: thousands of pixels, not the whole page
    assert 2_000 < changed < a.size[0] * a.size[1] // 10
    with pytest.raises(PageNotFound):
        render_page(data, 4)


def test_a_folder_keeps_each_file_once_and_forgets_it(tmp_path):
    originals = FolderOriginals(tmp_path / "lib.originals")
    originals.keep("ab12", b"first")
    originals.keep("ab12", b"second")  # a retried job: the same id is the same content, kept once
    assert originals.get("ab12") == b"first" and originals.get("../etc") is None
    originals.forget("ab12")
    assert originals.get("ab12") is None and not list((tmp_path / "lib.originals").iterdir())


@pytest.mark.slow
def test_a_table_keeps_each_file_once_for_every_replica(pg_url):
    a, b = TableOriginals(pg_url, "rqrag_lib_viewer"), TableOriginals(pg_url, "rqrag_lib_viewer")
    a.forget("cd34")
    a.keep("cd34", b"%PDF-1.7 bytes")
    b.keep("cd34", b"other")
    assert b.get("cd34") == b"%PDF-1.7 bytes"
    b.forget("cd34")
    assert a.get("cd34") is None


@pytest.mark.slow
def test_a_cited_pdf_is_served_with_its_pages_and_goes_with_its_document(make_app):
    app, service, _ = make_app()
    data = ARTICLE.read_bytes()
    with TestClient(app) as client:
        job = wait_for(client, upload(client, data, "artigo.pdf").json()["job_id"])
        assert job["status"] == "done", job
        doc_id = job["result"]["doc_id"]
        note = client.post(
            "/v1/documents", files={"file": ("nota.md", b"# Nota\n\nUma nota curta.\n", "text/markdown")}
        )
        note_id = wait_for(client, note.json()["job_id"])["result"]["doc_id"]

        file = client.get(f"/v1/documents/{doc_id}/file")
        assert file.status_code == 200 and file.content == data
        assert file.headers["content-type"] == "application/pdf"
        assert file.headers["content-disposition"].startswith("attachment;")

        page = client.get(f"/v1/documents/{doc_id}/pages/2.png", params={"mark": ON_PAGE_2})
        assert page.status_code == 200 and page.content.startswith(b"\x89PNG")
        assert page.headers["x-rqrag-marked"] == "true" and page.headers["x-rqrag-pages"] == "3"
        assert 0.25 < float(page.headers["x-rqrag-mark-top"]) < 0.35
        again = client.get(f"/v1/documents/{doc_id}/pages/2.png", params={"mark": ON_PAGE_2})
        assert again.content == page.content  # drawn once, then cached
        assert (
            client.get(f"/v1/documents/{doc_id}/pages/3.png", params={"mark": ON_PAGE_2}).headers["x-rqrag-marked"]
            == "false"
        )
        assert client.get(f"/v1/documents/{doc_id}/pages/9.png").json()["error"]["code"] == "page_not_found"
        assert client.get(f"/v1/documents/{note_id}/pages/1.png").json()["error"]["code"] == "no_page_images"
        assert client.get(f"/v1/documents/{note_id}/file").content.startswith(b"# Nota")

        assert client.delete(f"/v1/documents/{doc_id}").status_code == 204
        assert client.get(f"/v1/documents/{doc_id}/file").status_code == 404
        assert client.get(f"/v1/documents/{doc_id}/pages/2.png", params={"mark": ON_PAGE_2}).status_code == 404
        assert service.library().originals.get(doc_id) is None


def test_a_cited_passage_keeps_its_quoted_sentence_in_view_and_names_it():
    from rqrag.answer.source_view import SourceView
    from rqrag.retrieval.base import Hit

    filler = "Uma frase de contexto sem a resposta. " * 30  # ~1,140 characters before the quote
    quote = "O corpus reúne 1.840 acórdãos publicados entre 2018 e 2023."
    hit = Hit(
        "d1#3", "artigo.pdf", filler + quote + " Outra frase depois.", 1.0, {"file": "artigo.pdf", "page_start": 3}
    )
    other = Hit("d2#1", "outro.pdf", "Nada a ver com isso.", 0.5, {"file": "outro.pdf"})
    cited, read = SourceView(max_source_chars=600).sources([hit], [hit, other], [], quote=quote.upper())
    assert cited["quote"] == quote and quote in cited["text"] and cited["text"].startswith("…Uma frase")
    assert len(cited["text"]) <= 602 and cited["cited"] and cited["page_start"] == 3
    assert "quote" not in read and not read["cited"]  # only a cited passage marks a quote
    plain = SourceView(max_source_chars=600).sources([hit], [hit], [], quote="Uma frase que não está lá.")[0]
    assert "quote" not in plain and plain["text"] == hit.text[:600]


@pytest.mark.slow
def test_a_page_asked_for_while_every_file_worker_is_busy_is_a_503_to_try_again(make_app):
    import threading
    import time

    app, service, _ = make_app(file_workers=1, page_draw_seconds=1)
    with TestClient(app) as client:
        job = wait_for(client, upload(client, ARTICLE.read_bytes(), "artigo.pdf").json()["job_id"])
        assert job["status"] == "done", job
        busy = threading.Thread(target=service.workers.run, args=(time.sleep, 4))
        busy.start()  # the only worker, taken for longer than a page may wait for it
        time.sleep(0.5)
        page = client.get(f"/v1/documents/{job['result']['doc_id']}/pages/1.png")
        busy.join()
    assert page.status_code == 503 and page.headers["retry-after"] == "5"
    assert page.json()["error"]["code"] == "workers_busy"
