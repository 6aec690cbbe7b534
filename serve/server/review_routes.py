"""The server's review endpoints: start a literature review of the caller's own library, follow it, read it.

    curl -X POST http://127.0.0.1:8000/v1/reviews -H 'Content-Type: application/json' \
        -d '{"topic": "avaliação de RAG", "language": "pt"}'        # 202 {"job_id": "...", "status": "queued"}
    curl http://127.0.0.1:8000/v1/reviews/JOB_ID                    # {"status": "done", "result": {"review": ...,
                                                                    #   "markdown": "# Revisão...", "bibtex": ...}}
    curl -O http://127.0.0.1:8000/v1/reviews/JOB_ID/articles.csv    # also review.md and articles.bib

`doc_ids` picks the articles to review (the page's checkboxes); without it the review takes what the topic's search
finds. One article stored twice (a DOCX and a PDF of it) is reviewed and listed once (`rqrag.review.twins`).

The review is `rqrag review`'s, extractive (no model), over the library `index` names (default: the caller's own
with users, else the server's), run as a job like an upload (`serve/documents/review_jobs.py`, in the application's
one job queue, `serve/documents/jobs.py`, each user in turn): statuses queued, running (with `progress.stage`:
searching, reviewing, writing, and `done`/`total` documents), done (with `result`) or failed (with `error`). With
users, only the owner sees a job (another's is 404) and a library is readable under the documents' rules
(`readable_indexes`).
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from rqrag.serve.server.dependencies import DocumentsServiceDep, RequestCaller
from rqrag.serve.server.schema import APIError


REVIEWS_PATH = "/v1/reviews"
# A finished review's files: name -> (the job result's key, media type).
DOWNLOADS = {
    "review.md": ("markdown", "text/markdown; charset=utf-8"),
    "articles.bib": ("bibtex", "application/x-bibtex; charset=utf-8"),
    "articles.csv": ("csv", "text/csv; charset=utf-8"),
}


class ReviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str = Field(min_length=1, max_length=500)
    index: str | None = Field(default=None, max_length=100)
    language: Literal["en", "pt"] | None = None
    k: int = Field(default=30, ge=1, le=200)
    doc_ids: list[str] | None = Field(default=None, min_length=1, max_length=200)


def review_router() -> APIRouter:
    router = APIRouter()

    @router.post(REVIEWS_PATH, responses={202: {"description": "queued: the review job"}})
    async def start_review(body: ReviewRequest, service: DocumentsServiceDep, caller: RequestCaller):
        """Start a review of a library the caller may read; 202 with the job to follow (`Location`)."""
        topic = " ".join(body.topic.split())
        if not topic:
            raise APIError(400, "the topic is empty", code="invalid_topic", param="topic")
        index = service.readable_indexes(caller.name, body.index)[0]
        job = service.reviews.submit(caller.name, topic, index, body.language, body.k, body.doc_ids)
        return JSONResponse(job.to_dict(), status_code=202, headers={"Location": f"{REVIEWS_PATH}/{job.id}"})

    @router.get(REVIEWS_PATH + "/{job_id}", responses={404: {"description": "no such review job, or another's"}})
    async def review_job(job_id: str, service: DocumentsServiceDep, caller: RequestCaller):
        """A review job: its status and progress, and once done the review (record, review.md, BibTeX)."""
        job = service.reviews.get(job_id, caller.name)
        if job is None:
            raise APIError(404, f"no review job {job_id!r}", code="job_not_found", param="job_id")
        return job.to_dict()

    @router.get(REVIEWS_PATH + "/{job_id}/{name}", responses={404: {"description": "no such review, or not done"}})
    async def review_file(job_id: str, name: str, service: DocumentsServiceDep, caller: RequestCaller):
        """A finished review's files, as downloads: review.md, articles.bib, articles.csv."""
        job = service.reviews.get(job_id, caller.name)
        if job is None or name not in DOWNLOADS:
            raise APIError(404, f"no file {name!r} of review job {job_id!r}", code="job_not_found", param="job_id")
        if job.status != "done" or not job.result:
            raise APIError(404, f"review job {job_id!r} is {job.status}: no files yet", code="review_not_done")
        key, media = DOWNLOADS[name]
        headers = {"Content-Disposition": f'attachment; filename="{name}"', "X-Content-Type-Options": "nosniff"}
        return Response(job.result.get(key) or "", media_type=media, headers=headers)

    return router
