"""What a soak (`scripts/soak.py`) checks at the end beyond turns, memories and documents: jobs and chunks.

    jobs_unfinished(http, accepted_job_ids)   # the accepted upload jobs that never ended (or vanished)
    chunks_stored_twice(database_url)         # chunk rows beyond one per (document, position), in every library

A job the server accepted (202) must end, done, failed or cancelled, however many replicas were killed while it
waited or ran: a job whose replica died is taken over by another once its lease runs out. A job taken over runs
again from the start, and must not store any chunk of its document twice.
"""

from __future__ import annotations

import time

from rqrag.serve.documents.job_queue import MAX_JOBS_KEPT


FINISHED = {"done", "failed", "cancelled"}


def jobs_unfinished(http, job_ids: set[str], wait_s: float = 180.0) -> list[str]:
    """The accepted jobs that are still queued or running after `wait_s` (the last ones may still be running when
    the clients stop), or that the server no longer knows although fewer than it keeps were accepted."""
    deadline = time.monotonic() + wait_s
    pending = set(job_ids)
    lost: list[str] = []
    while pending:
        for job in sorted(pending):
            reply = http.get(f"/v1/documents/jobs/{job}")
            if reply.status_code == 404:
                if len(job_ids) <= MAX_JOBS_KEPT:
                    lost.append(job)
                pending.discard(job)
            elif reply.status_code == 200 and reply.json()["status"] in FINISHED:
                pending.discard(job)
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(2.0)
    return sorted(lost + sorted(pending))


def chunks_stored_twice(database_url: str) -> int:
    """How many chunk rows repeat a (document, position) another row has, over every PostgreSQL library."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        tables = [
            name
            for (name,) in conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'rqrag_docs_%_chunks'")
        ]
        twice = 0
        for table in tables:
            query = f'SELECT count(*) - count(DISTINCT (doc_id, position)) FROM "{table}"'
            twice += conn.execute(query).fetchone()[0]
    return twice
