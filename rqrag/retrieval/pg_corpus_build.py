"""Loading a corpus file into PostgreSQL + pgvector (`pg_corpus.py` has the layout and the search), resumably.

The file is streamed: `commit_rows` passages at a time are read, embedded and stored in one transaction, which
also records in the catalog how many passages of the file are done. Memory therefore holds one batch, whatever
the corpus's size, and a build that is stopped (killed, out of disk, Ctrl-C) loses at most the batch it was on:
run it again and it skips the passages already stored (checking that the file still starts as it did) and
goes on. Each batch goes through COPY into a temporary table, then `INSERT ... ON CONFLICT DO NOTHING`, so a
docid the corpus repeats keeps its first passage and no row is ever stored twice.

The HNSW index is built once, after the last batch (several times faster than maintaining it row by row, see
`PgVectorIndex.build_vector_index`); only then is the corpus marked complete and searchable.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import itertools
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.passages import Passage, indexed_text, iter_passages
from rqrag.retrieval.pg_corpus import (
    CATALOG_SCHEMA,
    CORPUS_SCHEMA,
    TABLE_PREFIX,
    check_corpus_name,
    corpus_sql,
    read_catalog,
)
from rqrag.retrieval.pgvector_session import connect_postgres, ensure_vector_extension


logger = logging.getLogger(__name__)

HNSW_M = 16  # pgvector's defaults
HNSW_EF_CONSTRUCTION = 64
COMMIT_ROWS = 1024

_STAGING = "rqrag_corpus_staging"
_STAGING_SCHEMA = f"CREATE TEMP TABLE IF NOT EXISTS {_STAGING} (LIKE {{table}}) ON COMMIT DELETE ROWS"
_HNSW_INDEX = (
    "CREATE INDEX IF NOT EXISTS {hnsw} ON {table} USING hnsw (embedding vector_ip_ops) "
    "WITH (m = {m}, ef_construction = {ef_construction})"
)


def build_pg_corpus(
    corpus_path: str | Path,
    database_url: str,
    name: str,
    *,
    model: str | None = None,
    encoder: Any = None,
    batch_size: int = 64,
    commit_rows: int = COMMIT_ROWS,
    hnsw_m: int = HNSW_M,
    hnsw_ef_construction: int = HNSW_EF_CONSTRUCTION,
    maintenance_work_mem: str = "512MB",
    overwrite: bool = False,
    show_progress: bool = False,
    on_commit: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Load (or finish loading) `corpus_path` as corpus `name`; returns its catalog row.

    `model` names the encoder (`rqrag.retrieval.encoders`, default the packaged MiniLM); `encoder` is an already
    loaded one of that model. `batch_size` passages go to the encoder at once, `commit_rows` into one
    transaction. `on_commit(rows_read)` is called after each committed batch. `overwrite` drops a corpus of that
    name first; without it, an existing one of another model is refused and an unfinished one is resumed.
    """
    from pgvector.psycopg import register_vector

    from rqrag.retrieval.encoders import canonical_encoder_name, encoder_dimension, load_encoder

    check_corpus_name(name)
    if commit_rows < 1:
        raise ValueError(f"commit_rows must be at least 1, got {commit_rows}")
    model_name = canonical_encoder_name(model if model is not None else getattr(encoder, "name", None))
    encoder = encoder if encoder is not None else load_encoder(model_name)
    dimension = encoder_dimension(encoder)
    started = time.perf_counter()
    with connect_postgres(database_url) as conn, _build_lock(conn, name):
        with conn.transaction():
            # Builds of two corpora at once would race on creating the extension and the catalog: serialise that.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('rqrag-corpus-catalog'))")
            ensure_vector_extension(conn)
            conn.execute(corpus_sql(CATALOG_SCHEMA, name))
            if overwrite:
                conn.execute(corpus_sql("DROP TABLE IF EXISTS {table}", name))
                conn.execute(corpus_sql("DELETE FROM {catalog} WHERE name = %s", name), (name,))
            catalog = read_catalog(conn, name)
            if catalog is None:
                catalog = _register(
                    conn, name, model_name, dimension, encoder, corpus_path, hnsw_m, hnsw_ef_construction
                )
            _check_same_build(catalog, model_name, dimension)
            conn.execute(corpus_sql(CORPUS_SCHEMA, name, dimension=dimension))
            conn.execute(corpus_sql(_STAGING_SCHEMA, name))
        register_vector(conn)
        documents = iter_passages(corpus_path)
        rows_read = _skip_done(conn, name, documents, catalog["rows_read"])
        progress = _progress_bar(show_progress, rows_read, name)
        while batch := list(itertools.islice(documents, commit_rows)):
            _store_batch(conn, name, batch, rows_read, encoder, batch_size)
            rows_read += len(batch)
            progress(len(batch))
            if on_commit is not None:
                on_commit(rows_read)
        if rows_read == 0:
            raise ValueError(f"{corpus_path} has no passages to index")
        _finish(conn, name, maintenance_work_mem, round(time.perf_counter() - started, 3))
        return read_catalog(conn, name)


@contextlib.contextmanager
def _build_lock(conn: Any, name: str) -> Iterator[None]:
    """One builder per corpus: a second one would interleave its batches with the first's.

    Released explicitly, not left to the end of the session: a backend exits a moment after its client closes
    the connection, and a rerun right after a failure would find the lock still held.
    """
    key = f"rqrag-corpus-build:{name}"
    if not conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (key,)).fetchone()[0]:
        raise RetrieverError(f"another `rqrag index build` is loading corpus {name!r} into this database right now")
    try:
        yield
    finally:
        if not conn.closed and conn.info.transaction_status == conn.info.transaction_status.IDLE:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))


def _register(conn, name, model_name, dimension, encoder, corpus_path, hnsw_m, hnsw_ef_construction) -> dict:
    from psycopg.types.json import Jsonb

    meta = {
        "source": str(Path(corpus_path).resolve()),
        "hnsw_m": int(hnsw_m),
        "hnsw_ef_construction": int(hnsw_ef_construction),
        "distance": "inner product of unit vectors (cosine)",
        "query_prefix": getattr(encoder, "query_prefix", None),
        "passage_prefix": getattr(encoder, "passage_prefix", None),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    conn.execute(
        corpus_sql(
            "INSERT INTO {catalog} (name, table_name, embedding_model, dimension, meta) VALUES (%s, %s, %s, %s, %s)",
            name,
        ),
        (name, TABLE_PREFIX + name, model_name, dimension, Jsonb(meta)),
    )
    return read_catalog(conn, name)


def _check_same_build(catalog: dict, model_name: str, dimension: int) -> None:
    if catalog["embedding_model"] != model_name or catalog["dimension"] != dimension:
        raise RetrieverError(
            f"corpus {catalog['name']!r} holds {catalog['dimension']}-d embeddings of {catalog['embedding_model']!r}, "
            f"not of {model_name!r}; pass --overwrite to rebuild it with that model"
        )


def _skip_done(conn: Any, name: str, documents, rows_read: int) -> int:
    """Consume the `rows_read` passages already stored, checking the file still starts with what was stored."""
    if rows_read == 0:
        return 0
    last = conn.execute(corpus_sql("SELECT position, docid FROM {table} ORDER BY position DESC LIMIT 1", name))
    last_position, last_docid = last.fetchone() or (None, None)
    skipped = 0
    for position, doc in enumerate(itertools.islice(documents, rows_read)):  # streamed: one passage at a time
        skipped += 1
        if position == last_position and doc.docid != last_docid:
            raise RetrieverError(
                f"passage {position} of the corpus file is not the one corpus {name!r} stored there "
                f"({last_docid!r}): the file changed since the build began; pass --overwrite to rebuild it"
            )
    if skipped < rows_read:
        raise RetrieverError(
            f"corpus {name!r} already holds {rows_read} passages of a longer file than this one ({skipped}); "
            "pass --overwrite to rebuild it"
        )
    logger.info("corpus %r: resuming after the %d passages already stored", name, rows_read)
    return rows_read


def _store_batch(conn: Any, name: str, batch: list[Passage], first_row: int, encoder, batch_size: int) -> None:
    """Embed `batch` and store it with the new count of passages read, all in one transaction."""
    from psycopg.types.json import Jsonb

    from rqrag.retrieval.encoders import embed

    vectors = embed(encoder, [indexed_text(doc) for doc in batch], "passages", batch_size)
    with conn.transaction(), conn.cursor() as cur:
        copy_sql = f"COPY {_STAGING} (position, docid, title, text, extra, embedding) FROM STDIN (FORMAT BINARY)"
        with cur.copy(copy_sql) as copy:
            copy.set_types(["int8", "text", "text", "text", "jsonb", "vector"])
            for offset, (doc, vector) in enumerate(zip(batch, vectors)):
                copy.write_row((first_row + offset, doc.docid, doc.title, doc.text, Jsonb(doc.extra), vector))
        cur.execute(corpus_sql(f"INSERT INTO {{table}} SELECT * FROM {_STAGING} ON CONFLICT DO NOTHING", name))
        if cur.rowcount < len(batch):
            logger.warning(
                "corpus %r: %d passage(s) repeat an earlier docid; kept the first", name, len(batch) - cur.rowcount
            )
        cur.execute(
            corpus_sql("UPDATE {catalog} SET rows_read = %s, row_count = row_count + %s WHERE name = %s", name),
            (first_row + len(batch), cur.rowcount, name),
        )


def _finish(conn: Any, name: str, maintenance_work_mem: str, seconds: float) -> None:
    """Build the HNSW index (once all rows are in: much faster than row by row) and mark the corpus complete."""
    from psycopg.types.json import Jsonb

    meta = read_catalog(conn, name)["meta"]
    with conn.transaction():
        conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (maintenance_work_mem,))
        conn.execute(corpus_sql(_HNSW_INDEX, name, m=meta["hnsw_m"], ef_construction=meta["hnsw_ef_construction"]))
        conn.execute(corpus_sql("ANALYZE {table}", name))  # statistics for the planner, never gathered while loading
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        finished = {"build_seconds": seconds, "finished": now}
        conn.execute(
            corpus_sql("UPDATE {catalog} SET complete = true, meta = meta || %s WHERE name = %s", name),
            (Jsonb(finished), name),
        )


def _progress_bar(show: bool, done: int, name: str) -> Callable[[int], None]:
    if not show:
        return lambda _rows: None
    from tqdm.auto import tqdm

    bar = tqdm(initial=done, desc=f"loading corpus {name}", unit="passage")
    return bar.update
