"""The server's document endpoints, in process, on the real app with a scripted generator and real libraries.

    python -m pytest tests/test_documents_api.py -q

Upload -> background job -> listed -> found by `/v1/ask` -> deleted; every bad upload gets its 4xx and stores
nothing; `/v1/ask` is answered while the 104-page manual is being ingested.
"""

from __future__ import annotations

import io
import time

import pytest
from fastapi.testclient import TestClient
from manual import MANUAL, needs_manual, pdf_pages

from rqrag.serve.server.upload_checks import safe_filename


def blank_pdf(pages: int = 2) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(595, 842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def middle_words(text: str, n: int = 14) -> str:
    words = text.split()
    start = max(0, len(words) // 2 - n // 2)
    return " ".join(words[start : start + n])


def upload(client, data: bytes, name: str = "manual.pdf", **form):
    return client.post("/v1/documents", files={"file": (name, data, "application/pdf")}, data=form)


def wait_for(client, job_id: str, timeout: float = 600) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/documents/jobs/{job_id}").json()
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job['status']} after {timeout} s")


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("../../etc/passwd.pdf", "passwd.pdf"),
        ("C:\\Users\\ana\\relatório final.pdf", "relatório final.pdf"),
        ("..", "document"),
        (".hidden.pdf", "hidden.pdf"),
        ("a\x00b\n.pdf", "ab.pdf"),
        (None, "document"),
    ],
)
def test_safe_filename_keeps_a_plain_base_name(raw, safe):
    assert safe_filename(raw) == safe


@pytest.mark.slow
@needs_manual
def test_upload_job_list_ask_and_delete(make_app):
    app, service, state = make_app()
    part = pdf_pages(72, 83)
    with TestClient(app) as client:
        accepted = upload(client, part, "manual-parte.pdf")
        assert accepted.status_code == 202, accepted.text
        body = accepted.json()
        assert accepted.headers["location"] == f"/v1/documents/jobs/{body['job_id']}"
        job = wait_for(client, body["job_id"])
        assert job["status"] == "done", job
        assert job["progress"]["pages_done"] == job["progress"]["pages_total"] == 12
        assert job["progress"]["chunks_done"] == job["result"]["chunks"] > 0
        doc_id = job["result"]["doc_id"]

        listed = client.get("/v1/documents").json()
        assert [(d["doc_id"], d["name"], d["pages"]) for d in listed["data"]] == [(doc_id, "manual-parte.pdf", 12)]
        assert client.get(f"/v1/documents/{doc_id}").json()["chunk_count"] == job["result"]["chunks"]

        # /v1/ask searches the library: the decoder's rewrite is words from the middle of a chunk on page 7. (The
        # reader also reads the question's own search, as on every surface: its hits are sources too.)
        chunks = service.library()._refresh(with_index=True).chunks
        target = next(c for c in chunks.values() if c.extra["page_start"] == c.extra["page_end"] == 7)
        state["query"] = middle_words(target.text)
        reply = client.post("/v1/ask", json={"question": "Onde o manual fala disso?", "max_depth": 1})
        assert reply.status_code == 200, reply.text
        sources = reply.json()["sources"]
        assert all(s["docid"].startswith(doc_id) and s["title"] == "manual-parte.pdf" for s in sources)
        pages = [(chunks[s["docid"]].extra["page_start"], chunks[s["docid"]].extra["page_end"]) for s in sources]
        assert any(first <= 7 <= last for first, last in pages), pages

        again = upload(client, part, "same bytes, other name.pdf")
        assert again.status_code == 200
        assert again.json()["status"] == "duplicate" and again.json()["doc_id"] == doc_id

        assert client.delete(f"/v1/documents/{doc_id}").status_code == 204
        assert client.get("/v1/documents").json()["data"] == []
        assert client.delete(f"/v1/documents/{doc_id}").status_code == 404
        assert client.get(f"/v1/documents/{doc_id}").status_code == 404
        assert client.post("/v1/ask", json={"question": "E agora?", "max_depth": 1}).json()["sources"] == []
        assert client.get("/v1/documents/jobs/no-such-job").status_code == 404


@needs_manual
@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("png renamed .pdf", 415, "unsupported"),
        ("encrypted pdf", 422, "encrypted"),
        ("corrupt pdf", 422, "corrupt"),
        ("empty file", 422, "empty"),
        ("blank pdf", 422, "empty"),
    ],
)
def test_bad_uploads_get_a_4xx_with_the_reason_and_nothing_is_stored(make_app, case, status, code):
    data = {
        "png renamed .pdf": b"\x89PNG\r\n\x1a\n" + bytes(2048),
        "encrypted pdf": pdf_pages(72, 73, password="segredo"),
        "corrupt pdf": b"%PDF-1.7\n" + bytes(range(256)) * 16,
        "empty file": b"",
        "blank pdf": blank_pdf(),
    }[case]
    app, service, _ = make_app(ingest=False)
    client = TestClient(app)  # no lifespan: the checks answer before the decoder or an encoder is needed
    response = upload(client, data, "documento.pdf")
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and "documento.pdf" in error["message"]
    assert client.get("/v1/documents").json()["data"] == []
    assert len(service.queue) == 0


def test_requests_that_are_not_uploads_are_refused(make_app):
    app, service, _ = make_app(ingest=False)
    client = TestClient(app)
    assert client.post("/v1/documents", json={"file": "manual.pdf"}).status_code == 400
    response = upload(client, b"texto simples", "nota.txt", index="../../etc")
    assert response.status_code == 400 and response.json()["error"]["param"] == "index"
    assert client.get("/v1/documents", params={"index": "a/b"}).status_code == 400


def test_uploads_over_the_size_limit_get_413(make_app):
    limit = 100_000
    app, service, _ = make_app(ingest=False, max_upload_bytes=limit)
    client = TestClient(app)
    # Over the limit plus the multipart envelope: refused by the body limit, while the body is read.
    response = upload(client, b"%PDF-1.7\n" + bytes(limit + 100_000))
    assert response.status_code == 413 and response.json()["error"]["code"] == "request_too_large"
    # Within the envelope but over the limit: refused when the file part is counted.
    response = upload(client, b"%PDF-1.7\n" + bytes(limit + 1_000))
    assert response.status_code == 413 and response.json()["error"]["code"] == "file_too_large"
    # Other routes keep the server-wide limit (1 MB by default), uploads are not a way around it.
    assert client.post("/v1/ask", content=b"x" * 1_500_000).status_code == 413
    assert client.get("/v1/documents").json()["data"] == [] and len(service.queue) == 0


@pytest.mark.slow
@needs_manual
def test_a_path_in_the_file_name_is_stored_as_a_plain_name(make_app, tmp_path):
    app, service, _ = make_app()
    with TestClient(app) as client:
        job = wait_for(client, upload(client, pdf_pages(86, 88), "../../etc/passwd.pdf").json()["job_id"])
        assert job["status"] == "done" and job["name"] == "passwd.pdf"
        assert [d["name"] for d in client.get("/v1/documents").json()["data"]] == ["passwd.pdf"]
    assert not list(tmp_path.parent.rglob("passwd.pdf"))  # the name is a label; no file was written under it


@pytest.mark.slow
@needs_manual
def test_ask_is_answered_while_a_104_page_manual_is_ingested(make_app):
    app, service, state = make_app()
    manual = MANUAL.read_bytes()
    with TestClient(app) as client:
        small = wait_for(client, upload(client, pdf_pages(86, 88), "small.pdf").json()["job_id"])
        assert small["status"] == "done"
        accepted = upload(client, manual, MANUAL.name)
        assert accepted.status_code == 202
        job_id = accepted.json()["job_id"]

        def ask() -> tuple[float, set[str]]:
            started = time.monotonic()
            reply = client.post("/v1/ask", json={"question": "O que é o Debian Edu?", "max_depth": 1})
            assert reply.status_code == 200 and reply.json()["generated_answer"] == "resposta"
            # "resposta" is in no passage: the user reads a sentence of the library instead (the grounded answer)
            assert reply.json()["answer_kind"] == "quoted" and reply.json()["answer"] != "resposta"
            assert reply.json()["sources"]
            return time.monotonic() - started, {s["title"] for s in reply.json()["sources"]}

        while_reading, titles = ask()
        # While its pages are read the manual is not in the library yet: the only document is the small one.
        assert titles == {"small.pdf"}
        # Once its text is committed it is searchable by its words while its chunks are embedded, and a
        # question's query is embedded by the same model meanwhile.
        deadline = time.monotonic() + 600
        while not (progress := client.get(f"/v1/documents/jobs/{job_id}").json()["progress"])["searchable"]:
            assert time.monotonic() < deadline and progress["embedded"] is False
            time.sleep(0.1)
        while_embedding, titles = ask()
        assert MANUAL.name in titles  # the manual's own words answer "what is Debian Edu" before its vectors
        answered_at = time.time()
        running = client.get(f"/v1/documents/jobs/{job_id}").json()
        assert running["status"] == "running", running
        # The same bytes while the first copy is still being ingested: that job, not a second one.
        pending = upload(client, manual, "copy.pdf")
        assert pending.status_code == 202 and pending.json()["job_id"] == job_id

        job = wait_for(client, job_id)
        assert job["status"] == "done", job
        assert job["finished_at"] > answered_at
        assert job["progress"]["pages_total"] == 104
        print(
            f"asks answered in {while_reading:.2f} s (reading pages) and {while_embedding:.2f} s (embedding chunks); "
            f"{job['result']['chunks']} chunks ingested in {job['finished_at'] - job['started_at']:.1f} s"
        )
