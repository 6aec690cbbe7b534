"""Literature reviews of a user's own library, run as jobs by the server, followed like uploads.

    jobs = ReviewJobs(documents_service)
    job = jobs.submit(owner, topic="avaliação de RAG", index="documents", language="pt")
    jobs.get(job.id, owner).to_dict()   # {"status": "running", "progress": {"stage": "reviewing", "done": 3, ...}}

A review reads the library the server already has open (`rqrag.review.run.run_review` with
`library=`), extractively unless the server writes its answers (`--writer`): then each article's four texts are written
and checked by a writer of the same settings (review/article_texts.py), loaded for the review beside the answers' own. Reviews are jobs of the
application's one job queue (`jobs.py`: statuses queued -> running -> done | failed, each user in turn), in a queue
of their own with its own worker thread: one review runs at a time (a review is seconds of CPU, and it must not hold
the ingestion worker), the others wait; a user may have `MAX_WAITING_PER_USER` reviews waiting. A finished job holds
the review record, review.md, the BibTeX and the CSV; they are kept for the last `MAX_KEPT` jobs (a restart
keeps them: the job queue is in the server's database, where another server, or this one restarted, finds them;
a review whose server died is run again by another).
"""

from __future__ import annotations

import logging
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rqrag.serve.documents.job_queue import JobQueue
from rqrag.serve.documents.jobs import Job, JobStatus
from rqrag.serve.errors import Busy


logger = logging.getLogger(__name__)
MAX_KEPT = 200
MAX_WAITING_PER_USER = 2


@dataclass
class ReviewJob(Job):
    topic: str
    index: str
    language: str | None
    k: int
    doc_ids: list[str] | None = None  # the articles picked on the page (None: what the topic's search finds)
    stage: str | None = None
    done: int = 0
    total: int | None = None
    finished: list[dict] = field(default_factory=list)  # each article as it ended: title, seconds, texts written

    OBJECT: ClassVar[str] = "review.job"

    @classmethod
    def too_many(cls, waiting: int, limit: int, everyone: bool) -> Busy:
        return Busy(f"{waiting} of your reviews are waiting; try again when one has run", code="too_many_jobs")

    def progress(self, stage: str, done: int, total: int, finished: dict | None = None) -> None:
        self.stage, self.done, self.total = stage, done, total
        if finished is not None:
            self.finished.append(finished)

    def to_dict(self) -> dict[str, Any]:
        progress = {"stage": self.stage, "done": self.done, "total": self.total, "finished": list(self.finished)}
        return self.body({"topic": self.topic, "index": self.index, "doc_ids": self.doc_ids, "progress": progress})


class ReviewJobs:
    """The review jobs of a documents service (module docstring)."""

    def __init__(self, service):
        self.service = service
        # The server's writer settings (`--writer` and its check, set by the app): each article's four texts are
        # written by the model kind that writes its answers; empty: the review is extractive.
        self.writing: dict = {}
        settings = service.settings
        self.queue: JobQueue[ReviewJob] = JobQueue(
            ReviewJob,
            None,
            MAX_WAITING_PER_USER,
            kept=MAX_KEPT,
            database_url=getattr(settings, "jobs_database_url", None),
            lease_s=getattr(settings, "job_lease_s", 30.0),
        )

    def get(self, job_id: str, user: str | None = None) -> ReviewJob | None:
        """The job, for its owner (with users, another user's job is None, like one that does not exist)."""
        job = self.queue.get(job_id)
        if job is not None and self.service.settings.users and job.owner != user:
            return None
        return job

    def submit(
        self,
        owner: str | None,
        topic: str,
        index: str,
        language: str | None = None,
        k: int = 30,
        doc_ids: list[str] | None = None,
    ) -> ReviewJob:
        job = ReviewJob(uuid.uuid4().hex, topic, index, language, k, doc_ids, owner=owner)
        self.queue.add(job)
        self.queue.start(self._run, name="rqrag-review")
        return job

    def _run(self, job: ReviewJob) -> None:
        from rqrag.config_loader import ConfigError
        from rqrag.review.review_config import ReviewConfig
        from rqrag.review.run import ReviewFailed, run_review

        try:
            library = self.service.library(job.index)
            with tempfile.TemporaryDirectory(prefix="rqrag-review-") as out:
                config = ReviewConfig(index=job.index, language=job.language, k=job.k, out=out, doc_ids=job.doc_ids,
                                      **self.writing)  # fmt: skip
                outcome = run_review(config, job.topic, progress=job.progress, library=library)
                result = {
                    "review": outcome.record,
                    "markdown": (Path(out) / "review.md").read_text(),
                    "bibtex": (Path(out) / "articles.bib").read_text(),
                    "csv": (Path(out) / "articles.csv").read_text(),
                    "message": outcome.message,
                }
            self.queue.finish(job, JobStatus.DONE, result=result)
        except (ReviewFailed, ConfigError) as error:
            self.queue.finish(job, JobStatus.FAILED, error={"reason": "no_review", "message": str(error)})
        except Exception as error:  # the thread serves every later job: one bad review must not stop it
            logger.exception("review %s failed", job.id)
            message = f"the review failed inside the server ({type(error).__name__}); its log has the details"
            self.queue.finish(job, JobStatus.FAILED, error={"reason": "internal", "message": message})

    def start(self) -> None:
        self.queue.start(self._run, name="rqrag-review")

    def close(self, timeout: float = 0.0) -> None:
        self.queue.close(timeout)
