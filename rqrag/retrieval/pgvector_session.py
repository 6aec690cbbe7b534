"""What every PostgreSQL + pgvector store of rq-rag does with its connection: open it, make sure the vector
extension is there, and widen an HNSW scan to the number of rows asked for.

Shared by the document store (`pgvector_store.PgVectorIndex`) and the benchmark corpus store (`pg_corpus`).
"""

from __future__ import annotations

import re
from typing import Any

from rqrag.retrieval.base import RetrieverError, RetrieverUnavailable


HNSW_DEFAULT_EF_SEARCH = 40  # pgvector's default; an HNSW scan returns at most ef_search rows
HNSW_MAX_EF_SEARCH = 1000
HNSW_EF_SEARCH_PER_ROW = 2  # candidates the scan keeps per row asked for


def safe_url(database_url: str) -> str:
    """The URL with its password masked, for messages and logs."""
    return re.sub(r"://([^:/@]*):[^/?]*@", r"://\1:***@", database_url)


def connect_postgres(database_url: str, *, autocommit: bool = True):
    """A psycopg connection, or a `RetrieverError` saying what to install or which server did not answer."""
    try:
        import psycopg
    except ImportError as error:
        raise RetrieverError("the PostgreSQL store needs `pip install psycopg[binary] pgvector`") from error
    try:
        return psycopg.connect(database_url, autocommit=autocommit)
    except psycopg.OperationalError as error:
        raise RetrieverUnavailable(f"cannot connect to PostgreSQL at {safe_url(database_url)}: {error}") from error


def ensure_vector_extension(conn: Any) -> None:
    """`CREATE EXTENSION IF NOT EXISTS vector`, with a message the database owner can act on when it is refused."""
    import psycopg

    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege as error:
        raise RetrieverError(
            "the pgvector extension is not enabled in this database and this user may not enable it; "
            "ask its owner to run `CREATE EXTENSION vector`"
        ) from error


def hnsw_ef_search(k: int) -> int:
    """The HNSW candidate list for a top-`k` scan.

    It must be wider than k: at ef_search == k the last rows are the graph's stragglers (recall@150 of 139/150
    on 3,000 random vectors in CI); twice k keeps it near exact.
    """
    return min(HNSW_MAX_EF_SEARCH, max(HNSW_DEFAULT_EF_SEARCH, HNSW_EF_SEARCH_PER_ROW * k))


def set_ef_search(cursor: Any, k: int) -> None:
    """Widen the HNSW scans of the current transaction to a top-`k` search (a no-op at pgvector's default)."""
    ef_search = hnsw_ef_search(k)
    if ef_search != HNSW_DEFAULT_EF_SEARCH:
        cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef_search),))
