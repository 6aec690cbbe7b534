"""The documents service: the server's named document libraries and the background ingestion of uploads.

    service = DocumentsService(DocumentsSettings(documents_dir="libraries", documents_language="pt"))
    job = service.submit(service.index_name(None), "manual.pdf", data, content_doc_id(data))
    service.job(job.id).status                       # JobStatus: queued -> running -> done | failed
    service.retriever()                              # what the `documents` retriever searches
    service.view_for("alice")                        # with users: alice's own library and the shared ones

With users (`rqrag serve --users FILE`) every user has a private library, `user__NAME`, where their uploads go,
and the server has shared libraries (`shared_libraries`) every user searches and only admins change: the
`writable_index` and `readable_indexes` rules below are the whole of document ownership. Request-given names
may not contain "__", so no one names another user's library. Without users there is one library for everyone
(the single-user local mode).

Accepted files are ingested one at a time by a single background thread (extract, clean, chunk, embed, swap the
index in), so an upload never holds up a question: searches keep reading the library's previous version until the
new one is swapped in, and share the encoder with the ingestion one batch at a time. The jobs, their statuses,
their cancelling and the per-user queue limits are `serve/documents/jobs.py` (the one job queue, reviews' too);
what one file may cost (archive sizes, chunks) is `rqrag.ingest.limits`, from the settings here.

The HTTP routes that use it are `serve/server/documents_routes.py`; it speaks no HTTP itself: a bad library name
is a `BadRequest`, a full queue `Busy`, a library whose files the server cannot write `Unavailable`
(`storage_faults`: the client is told the storage failed, the server's log says where) (`rqrag.serve.errors`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rqrag.serve.database import is_postgres
from rqrag.serve.documents.job_queue import JobQueue
from rqrag.serve.documents.jobs import IngestionJob, JobCancelled, JobStatus
from rqrag.serve.documents.review_jobs import ReviewJobs
from rqrag.serve.errors import BadRequest, Forbidden, NotFound, Unavailable
from rqrag.serve.serve_config import DocumentsConfig, ServeConfig


if TYPE_CHECKING:
    from rqrag.ingest.limits import IngestLimits


logger = logging.getLogger(__name__)

_INDEX_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
PRIVATE_PREFIX = "user__"  # + the user's name: a private library (request-given names may not contain "__")


@dataclass
class DocumentsSettings(DocumentsConfig):
    """What the documents service runs with: the server's documents config (`DocumentsConfig`, the same fields
    under the same names) and the four facts it takes from the rest of the server (`from_serve`)."""

    retrieval_mode: str = "hybrid"
    jobs_database_url: str | None = None  # where the job queue is kept (the server's database; None: in memory)
    job_lease_s: float = 30.0  # a job whose server stopped renewing for this long is taken over by another
    users: bool = False  # keys name users: private libraries plus the shared ones

    def __post_init__(self):
        self.shared_libraries = list(self.shared_libraries or [self.documents_index])

    @classmethod
    def from_serve(cls, serve: ServeConfig) -> DocumentsSettings:
        values = {f.name: getattr(serve, f.name) for f in fields(DocumentsConfig)}
        jobs_url = serve.database_url
        if (
            values["documents_database_url"] is None
            and values["documents_dir"] is None
            and jobs_url
            and is_postgres(jobs_url)
        ):
            # servers sharing one PostgreSQL share their libraries too (unless told to keep them in a folder)
            values["documents_database_url"] = jobs_url
        return cls(**values, jobs_database_url=jobs_url, job_lease_s=serve.job_lease_seconds, users=bool(serve.users))

    def chunking(self):
        """The chunking of a library the server creates: the library default, with the sizes the config gives."""
        if self.documents_chunk_size is None and self.documents_chunk_overlap is None:
            return None
        from rqrag.ingest.chunking import ChunkingConfig

        default = ChunkingConfig()
        return ChunkingConfig(
            chunk_size=self.documents_chunk_size or default.chunk_size,
            chunk_overlap=self.documents_chunk_overlap
            if self.documents_chunk_overlap is not None
            else default.chunk_overlap,
        )

    def ingest_limits(self) -> IngestLimits:
        """What one upload may cost, for `precheck` and the library's `add` (`rqrag.ingest.limits.IngestLimits`)."""
        from rqrag.ingest.limits import IngestLimits

        return IngestLimits(
            self.max_upload_uncompressed_bytes, self.max_upload_compression_ratio, self.max_chunks_per_document
        )

    def worker_limits(self):
        """The file workers' pool: its size and what one file may cost in it (`rqrag.ingest.file_workers`)."""
        from rqrag.ingest.file_workers import WorkerLimits

        return WorkerLimits(
            workers=self.file_workers,
            memory_mb=self.file_worker_memory_mb,
            cpu_seconds=self.file_worker_cpu_seconds,
            wall_seconds=self.file_worker_seconds,
        )


def storage_unavailable(error: Exception, action: str = "written") -> Unavailable:
    """A library's files failing (a read-only or full disk, permissions: any `OSError`) as `Unavailable`, logged.
    The client learns that the server's storage refused, not where it is: the path is in the server's log only."""
    logger.error("document library storage failed: %s", error, exc_info=error)
    return Unavailable(
        f"the document library cannot be {action} right now: the server's storage refused it; try again later, "
        "or tell the server's administrator",
        code="storage_unavailable",
    )


@contextlib.contextmanager
def storage_faults(action: str = "written") -> Iterator[None]:
    """Raise what `storage_unavailable` makes of an `OSError` inside the block."""
    import psycopg

    from rqrag.retrieval.base import RetrieverUnavailable

    try:
        yield
    except OSError as error:
        raise storage_unavailable(error, action) from None
    except (psycopg.OperationalError, psycopg.InterfaceError, RetrieverUnavailable) as error:
        raise storage_unavailable(error, action) from None  # a PostgreSQL library's server went away


class DocumentsService:
    """The libraries the server opened (by name) and the ingestion jobs with their one worker thread."""

    def __init__(self, settings: DocumentsSettings | None = None, encoder: Any = None):
        self.settings = settings or DocumentsSettings()
        self._encoder = encoder  # tests pass a loaded model; otherwise each library loads its own on first use
        self._libraries: dict[str, Any] = {}
        self.queue: JobQueue[IngestionJob] = JobQueue(
            IngestionJob,
            self.settings.max_queued_uploads,
            self.settings.max_queued_uploads_per_user,
            database_url=self.settings.jobs_database_url,
            lease_s=self.settings.job_lease_s,
        )
        self.reviews = ReviewJobs(self)  # literature reviews of a library, one at a time (review_jobs.py)
        self._libraries_lock = threading.Lock()  # opening a PostgreSQL library may take seconds
        from rqrag.ingest.file_workers import FileWorkers

        # Every user's file is opened in these processes, never in the server's: a file that crashes a reader or
        # asks for gigabytes costs one worker, replaced, and fails with its reason.
        self.workers = FileWorkers(self.settings.worker_limits())

    def index_name(self, name: str | None) -> str:
        """A library name a request gave (or the default one), checked: a plain name, never a path."""
        name = (name or "").strip() or self.settings.documents_index
        if not _INDEX_NAME.fullmatch(name) or "__" in name:
            raise BadRequest(
                "index must be a plain name: letters, digits, '-' and '_' (at most 64, no '__')", param="index"
            )
        return name

    # ----------------------------------------------------------------- ownership

    def private_index(self, user: str) -> str:
        return f"{PRIVATE_PREFIX}{user}"

    def _shared(self, name: str) -> str:
        name = self.index_name(name)
        if name not in self.settings.shared_libraries:
            raise NotFound(
                f"no library {name!r} here: leave `index` out for your own documents, or name a shared library "
                f"({', '.join(self.settings.shared_libraries)})",
                code="library_not_found",
                param="index",
            )
        return name

    def writable_index(self, user: str, admin: bool, name: str | None) -> str:
        """The library an upload or a removal by `user` goes to: their own unless they name a shared one, which
        only an admin changes. Without users, the named (or default) library."""
        if not self.settings.users:
            return self.index_name(name)
        if not (name or "").strip():
            return self.private_index(user)
        name = self._shared(name)
        if not admin:
            raise Forbidden(f"only an admin changes the shared library {name!r}", code="shared_library", param="index")
        return name

    def readable_indexes(self, user: str, name: str | None = None) -> list[str]:
        """The libraries `user` reads: the named shared one, else their own and every shared one."""
        if not self.settings.users:
            return [self.index_name(name)]
        if (name or "").strip():
            return [self._shared(name)]
        return [self.private_index(user), *self.settings.shared_libraries]

    def view_for(self, user: str | None):
        """What the `documents` retriever searches for `user`: one library, or (with users) their own and the
        shared ones that hold documents, searched together (`LibraryView`)."""
        if not self.settings.users:
            return self.library()
        from rqrag.serve.documents.view import LibraryView

        names = self.readable_indexes(user) if user else self.settings.shared_libraries
        libraries = [self.library(name) for name in names]
        return LibraryView([lib for lib in libraries if lib.list()] or libraries[:1])

    def library(self, name: str | None = None):
        """The library `name` (validated), opened once; the server's language and model apply to new ones."""
        from rqrag.ingest.libraries import open_library
        from rqrag.ingest.library import LibraryError, library_path

        private = bool(name) and name.startswith(PRIVATE_PREFIX) and _INDEX_NAME.fullmatch(name)
        name = name if private else self.index_name(name)
        with self._libraries_lock:
            if name not in self._libraries:
                if self.settings.documents_database_url:
                    where = name
                elif self.settings.documents_dir:
                    where = str(Path(self.settings.documents_dir).expanduser() / name)
                else:
                    where = str(library_path(name))
                options = {"database_url": self.settings.documents_database_url, "encoder": self._encoder}
                try:
                    library = open_library(
                        where,
                        language=self.settings.documents_language,
                        embedding_model=self.settings.documents_embedding_model,
                        chunking=self.settings.chunking(),
                        **options,
                    )
                except LibraryError as error:  # made with other settings (e.g. by `rqrag docs add`): it keeps them
                    logger.warning("library %s: %s; using its own settings", name, error)
                    library = open_library(where, **options)
                self._libraries[name] = library
            return self._libraries[name]

    def retriever(self, name: str | None = None, mode: str | None = None):
        """The library's current documents as a retriever (it follows adds and removes)."""
        return self.library(name).retriever(mode or self.settings.retrieval_mode)

    # ----------------------------------------------------------------- jobs

    def job(self, job_id: str, user: str | None = None) -> IngestionJob | None:
        """The job, for its owner (with users, another user's job is None, like one that does not exist)."""
        job = self.queue.get(job_id)
        if job is not None and self.settings.users and job.owner != user:
            return None
        return job

    def cancel(self, job_id: str, user: str | None = None) -> IngestionJob:
        """Cancel `user`'s job (see `JobQueue.cancel`); another user's job is `NotFound`, like one that does not
        exist, under the rule that shows jobs (`job`)."""
        job = self.job(job_id, user)
        if job is None:
            raise NotFound(f"no ingestion job {job_id!r}", code="job_not_found", param="job_id")
        return self.queue.cancel(job)

    def pending(self, index: str, doc_id: str) -> IngestionJob | None:
        """The job already queued or running for these bytes in this library (not one being cancelled)."""
        return self.queue.active(lambda job: job.index == index and job.doc_id == doc_id)

    def submit(self, index: str, name: str, data: bytes, doc_id: str, owner: str | None = None) -> IngestionJob:
        job = IngestionJob(uuid.uuid4().hex, index, name, doc_id, len(data), data, owner=owner)
        self.queue.add(job)
        self.queue.start(self._run, name="rqrag-ingestion")
        return job

    def start(self) -> None:
        """Start the workers (the server's start-up): jobs queued before a restart, or by another server, run."""
        self.queue.start(self._run, name="rqrag-ingestion")
        self.reviews.start()

    def _run(self, job: IngestionJob) -> None:
        from rqrag.ingest.extract import IngestError
        from rqrag.ingest.file_workers import WorkersBusy

        try:
            library = self.library(job.index)
            if job.status is JobStatus.CANCELLING:  # cancelled while its server died: undo what that server stored
                if job.doc_id in library.pending():
                    library.remove(job.doc_id)
                raise JobCancelled(job.id)
            limits = self.settings.ingest_limits()
            result = library.add(job.data, job.name, progress=job.progress, limits=limits, workers=self.workers)
            self.queue.finish(job, JobStatus.DONE, result={**result.to_dict(), "document": library.get(result.doc_id)})
        except JobCancelled:
            logger.info("ingestion of %s cancelled (job %s)", job.name, job.id)
            self.queue.finish(job, JobStatus.CANCELLED)
        except IngestError as error:
            self.queue.finish(job, JobStatus.FAILED, error={"reason": error.reason, "message": error.message})
        except WorkersBusy as error:
            self.queue.finish(job, JobStatus.FAILED, error={"reason": "workers_busy", "message": str(error)})
        except OSError as error:  # the library's files: the job says what a client may know (no server paths)
            unavailable = storage_unavailable(error)
            self.queue.finish(
                job, JobStatus.FAILED, error={"reason": unavailable.code, "message": unavailable.message}
            )
        except Exception as error:  # the worker must outlive any one bad file; the message keeps server paths out
            logger.exception("ingesting %s failed (job %s)", job.name, job.id)
            message = f"ingestion failed inside the server ({type(error).__name__}); its log has the details"
            self.queue.finish(job, JobStatus.FAILED, error={"reason": "internal", "message": message})

    def close(self, timeout: float = 5.0) -> None:
        """Drain: the workers take no new job and end their current ones (waiting at most `timeout`; one still
        running is handed back to the other servers); close the libraries' connections."""
        self.reviews.close(timeout)
        self.queue.close(timeout)
        self.workers.close()
        for library in self._libraries.values():
            library.close()
