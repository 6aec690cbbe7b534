"""Literature reviews of a user's own library, run as jobs by the server, followed like uploads.

    jobs = ReviewJobs(documents_service)
    job = jobs.submit(owner, topic="avaliação de RAG", index="documents", language="pt")
    jobs.get(job.id, owner).to_dict()   # {"status": "running", "progress": {"stage": "reviewing", "done": 3, ...}}

A review reads the library the server already has open (`rqrag.review.run.run_review` with
`library=`), extractively: no model is started inside a server that is serving one. One review runs at a time on
its own thread (a review is seconds of CPU, and it must not hold the ingestion worker), the others wait in order;
a user may have `MAX_WAITING_PER_USER` reviews waiting. A finished job holds the review record, review.md and the
BibTeX; they are kept for the last `MAX_KEPT` jobs, in memory (a restart forgets them, as it does upload jobs).
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rqrag.serve.errors import Busy


logger = logging.getLogger(__name__)
MAX_KEPT = 200
MAX_WAITING_PER_USER = 2


@dataclass
class ReviewJob:
    id: str
    owner: str | None
    topic: str
    index: str
    language: str | None
    k: int
    status: str = "queued"  # queued -> running -> done | failed
    stage: str | None = None
    done: int = 0
    total: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None

    def progress(self, stage: str, done: int, total: int) -> None:
        self.stage, self.done, self.total = stage, done, total

    def to_dict(self) -> dict[str, Any]:
        out = {
            "object": "review.job",
            "job_id": self.id,
            "status": self.status,
            "topic": self.topic,
            "index": self.index,
            "progress": {"stage": self.stage, "done": self.done, "total": self.total},
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


class ReviewJobs:
    """The review jobs of a documents service (module docstring)."""

    def __init__(self, service):
        self.service = service
        self._jobs: collections.OrderedDict[str, ReviewJob] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="rqrag-review")

    def get(self, job_id: str, user: str | None = None) -> ReviewJob | None:
        """The job, for its owner (with users, another user's job is None, like one that does not exist)."""
        job = self._jobs.get(job_id)
        if job is not None and self.service.settings.users and job.owner != user:
            return None
        return job

    def submit(self, owner: str | None, topic: str, index: str, language: str | None = None, k: int = 30) -> ReviewJob:
        job = ReviewJob(uuid.uuid4().hex, owner, topic, index, language, k)
        with self._lock:
            waiting = sum(j.owner == owner and j.status == "queued" for j in self._jobs.values())
            if waiting >= MAX_WAITING_PER_USER:
                raise Busy(f"{waiting} of your reviews are waiting; try again when one has run", code="too_many_jobs")
            self._jobs[job.id] = job
            while len(self._jobs) > MAX_KEPT:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest].status in ("queued", "running"):
                    break
                self._jobs.pop(oldest)
        self._pool.submit(self._run, job)
        return job

    def _run(self, job: ReviewJob) -> None:
        from rqrag.config import ConfigError
        from rqrag.review.config import ReviewConfig
        from rqrag.review.run import ReviewFailed, run_review

        job.status, job.started_at = "running", time.time()
        try:
            library = self.service.library(job.index)
            with tempfile.TemporaryDirectory(prefix="rqrag-review-") as out:
                config = ReviewConfig(index=job.index, language=job.language, k=job.k, out=out)
                outcome = run_review(config, job.topic, progress=job.progress, library=library)
                job.result = {
                    "review": outcome.record,
                    "markdown": (Path(out) / "review.md").read_text(),
                    "bibtex": (Path(out) / "articles.bib").read_text(),
                    "message": outcome.message,
                }
            job.status = "done"
        except (ReviewFailed, ConfigError) as error:
            job.status, job.error = "failed", {"reason": "no_review", "message": str(error)}
        except Exception as error:  # the thread serves every later job: one bad review must not stop it
            logger.exception("review %s failed", job.id)
            message = f"the review failed inside the server ({type(error).__name__}); its log has the details"
            job.status, job.error = "failed", {"reason": "internal", "message": message}
        finally:
            job.finished_at = time.time()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
