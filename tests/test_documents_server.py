"""A question over the user's PDF, answered by the real server (`rqrag serve`, the shipped model), cites its page.

    python -m pytest tests/test_documents_server.py -q

The whole 104-page Portuguese manual goes in through `POST /v1/documents` (background job, polled), then golden
questions (tests/data/golden_pt) are asked through `/v1/ask` with the `documents` retriever: the sources must
name the file and a page span, and for most questions one source's span holds the page of the golden evidence.
"""

from __future__ import annotations

import concurrent.futures
import json
import time

import httpx
import pytest
from manual import GOLDEN, MANUAL

from rqrag.answer.messages import MESSAGES, Message
from rqrag.serve.server.process import RQRAGServer


pytestmark = pytest.mark.slow

# Factual questions: one evidence page each.
QUESTIONS = [q for q in map(json.loads, GOLDEN.read_text().splitlines()) if q["category"] == "factual"][:5]


def _ask(base: str, question: str) -> httpx.Response:
    return httpx.post(f"{base}/v1/ask", json={"question": question, "retriever": "documents"}, timeout=600)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not MANUAL.is_file():
        pytest.skip(f"{MANUAL} is not on this machine")
    tmp = tmp_path_factory.mktemp("documents-server")
    flags = ["--retrievers", "documents", "corpus", "--documents_dir", str(tmp / "libraries")]
    flags += ["--documents_language", "pt", "--max_depth", "1"]
    running = RQRAGServer(tmp, tmp / "conversations.db", flags)
    yield running
    running.stop()


@pytest.mark.heavy
def test_a_question_over_the_uploaded_pdf_cites_the_right_page(server):
    with httpx.Client(base_url=server.base, timeout=600) as client:
        accepted = client.post("/v1/documents", files={"file": (MANUAL.name, MANUAL.read_bytes(), "application/pdf")})
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["job_id"]
        deadline = time.monotonic() + 900
        while (job := client.get(f"/v1/documents/jobs/{job_id}").json())["status"] not in ("done", "failed"):
            assert time.monotonic() < deadline, job
            time.sleep(1)
        assert job["status"] == "done", job
        assert job["progress"]["pages_total"] == 104

        # asked together, as users would: the server shares one decode among them
        with concurrent.futures.ThreadPoolExecutor(len(QUESTIONS)) as pool:
            replies = list(pool.map(lambda q: _ask(server.base, q["question"]), QUESTIONS))
        cited = 0
        for question, reply in zip(QUESTIONS, replies):
            assert reply.status_code == 200, reply.text
            body = reply.json()
            assert body["answer"]
            sources = body["sources"]
            assert all(s["file"] == MANUAL.name and s["page_start"] <= s["page_end"] for s in sources)
            pages = {e["page"] for e in question["evidence"]}
            cited += any(s["page_start"] <= page <= s["page_end"] for s in sources for page in pages)
            assert body["answer"] != MESSAGES[Message.NOT_FOUND]["pt"]
        # Most, not all, of the questions must cite the page of their evidence among the selected answer's sources.
        assert cited >= 3, f"{cited} of {len(QUESTIONS)} questions cited the golden page"

        # A question the manual says nothing about gets the library-language "not found", not a guess.
        reply = client.post("/v1/ask", json={"question": "Quem pintou a Mona Lisa?", "retriever": "documents"})
        assert reply.status_code == 200, reply.text
        assert reply.json()["answer"] == MESSAGES[Message.NOT_FOUND]["pt"] and reply.json()["sources"] == []
