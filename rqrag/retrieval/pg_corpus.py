"""A benchmark corpus in PostgreSQL + pgvector, searched through an HNSW index: `--retriever corpus` for corpora
that outgrow one machine's memory (a Wikipedia dump has ~21M passages, ~32 GB of 384-d float32 vectors).

`rqrag index build --corpus FILE --database_url URL --name NAME` loads it (`pg_corpus_build.py`);
`PgCorpus(URL, NAME)` searches it. Each corpus is one table, plus its row in a catalog table shared by all:

    rqrag_corpus_<name>  position (the passage's place among the corpus file's passages: the resume point),
                         docid (unique: a repeated one keeps its first passage, as the local index does),
                         title, text, extra (the record's other fields, JSONB), embedding vector(dim)
    rqrag_corpora        one row per corpus: name, its table, embedding model, dimension, passages read from
                         the file and rows stored (committed together with each batch), whether the build
                         finished, and JSONB meta (source file, HNSW m / ef_construction, encoder prefixes, times)

Passages are embedded as the local dense index embeds them (`indexed_text`: title line, then text; unit-length
rows, with the model's "passage: " prefix where it has one), so the HNSW index is over inner products
(`vector_ip_ops`), which for unit vectors is the cosine similarity the local FAISS index scores with. Queries
are embedded by the same model as queries (e5's "query: " prefix). Only dense search exists here: a hybrid
request is answered densely, with a warning.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from rqrag.retrieval.base import Hit, RetrieverError, check_qids, check_search_mode
from rqrag.retrieval.pgvector_session import connect_postgres, safe_url, set_ef_search


logger = logging.getLogger(__name__)

CATALOG_TABLE = "rqrag_corpora"
TABLE_PREFIX = "rqrag_corpus_"
NAME_PATTERN = re.compile(r"[a-z0-9_]{1,40}")

CATALOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS {catalog} (
    name text PRIMARY KEY,
    table_name text NOT NULL,
    embedding_model text NOT NULL,
    dimension integer NOT NULL,
    rows_read bigint NOT NULL DEFAULT 0,
    row_count bigint NOT NULL DEFAULT 0,
    complete boolean NOT NULL DEFAULT false,
    meta jsonb NOT NULL DEFAULT '{{}}'
)
"""

CORPUS_SCHEMA = """
CREATE TABLE IF NOT EXISTS {table} (
    position bigint PRIMARY KEY,
    docid text NOT NULL UNIQUE,
    title text NOT NULL DEFAULT '',
    text text NOT NULL,
    extra jsonb NOT NULL DEFAULT '{{}}',
    embedding vector({dimension}) NOT NULL
)
"""

# `<#>` is the negative inner product: ascending order is the most similar first, and its negation the score.
_NEAREST = """
SELECT docid, title, text, extra, -(embedding <#> %(v)s) AS score
FROM {table}
ORDER BY embedding <#> %(v)s
LIMIT %(k)s
"""

_CATALOG_COLUMNS = ("name", "table_name", "embedding_model", "dimension", "rows_read", "row_count", "complete", "meta")


def check_corpus_name(name: str) -> str:
    """`name` if it can name a corpus table (lower-case letters, digits and _, at most 40), else a ValueError."""
    if not NAME_PATTERN.fullmatch(name or ""):
        raise ValueError(f"a PostgreSQL corpus name must match {NAME_PATTERN.pattern}, got {name!r}")
    return name


def corpus_sql(template: str, name: str, **literals: Any):
    """A statement with the catalog, the corpus table and its HNSW index filled in as quoted names, and
    `literals` (the dimension, HNSW parameters) as quoted values."""
    from psycopg import sql

    table = TABLE_PREFIX + check_corpus_name(name)
    names = {"catalog": sql.Identifier(CATALOG_TABLE), "table": sql.Identifier(table),
             "hnsw": sql.Identifier(f"{table}_hnsw")}  # fmt: skip
    names.update({key: sql.Literal(value) for key, value in literals.items()})
    return sql.SQL(template).format(**{k: v for k, v in names.items() if "{" + k + "}" in template})


def read_catalog(conn: Any, name: str) -> dict[str, Any] | None:
    """The catalog row of corpus `name` as a dict, or None when there is no such corpus (or no catalog yet)."""
    if conn.execute("SELECT to_regclass(%s)", (CATALOG_TABLE,)).fetchone()[0] is None:
        return None
    statement = corpus_sql(f"SELECT {', '.join(_CATALOG_COLUMNS)} FROM {{catalog}} WHERE name = %s", name)
    row = conn.execute(statement, (name,)).fetchone()
    return dict(zip(_CATALOG_COLUMNS, row)) if row else None


class PgCorpus:
    """A corpus built by `build_pg_corpus`, searched densely through its HNSW index; a `Retriever`.

    `encoder` embeds the queries; by default the model the corpus was built with (`load_encoder`), loaded on
    first search. One connection is shared (and serialised) by all threads.
    """

    search_mode = "dense"  # whatever mode was asked: no BM25 side in PostgreSQL (`rqrag search` prints this)

    uses_qids = False  # one corpus for every question

    def __init__(self, database_url: str, name: str, encoder: Any = None):
        from pgvector.psycopg import register_vector

        self.database_url = database_url
        self.corpus = check_corpus_name(name)
        self._encoder = encoder
        self._lock = threading.RLock()
        self._conn = connect_postgres(database_url)
        try:
            self.catalog = read_catalog(self._conn, name)
            if self.catalog is None:
                raise RetrieverError(
                    f"no corpus {name!r} in the PostgreSQL database at {safe_url(database_url)}; build it with "
                    f"`rqrag index build --corpus FILE --database_url URL --name {name}`"
                )
            if not self.catalog["complete"]:
                raise RetrieverError(
                    f"the build of corpus {name!r} stopped after {self.catalog['rows_read']} passages; run the same "
                    "`rqrag index build` again to finish it (it resumes after the last stored batch)"
                )
            register_vector(self._conn)
        except BaseException:
            self._conn.close()
            raise

    @property
    def embedding_model(self) -> str:
        return self.catalog["embedding_model"]

    @property
    def meta(self) -> dict[str, Any]:
        return self.catalog["meta"]

    @property
    def name(self) -> str:
        """Names the corpus, its model and its size, so a search cache never serves another build's hits."""
        return f"pgcorpus:{self.corpus}:{self.embedding_model}:{self.catalog['row_count']}"

    @property
    def encoder(self):
        if self._encoder is None:
            from rqrag.retrieval.encoders import load_encoder

            self._encoder = load_encoder(self.embedding_model)
        return self._encoder

    def __len__(self) -> int:
        return int(self.catalog["row_count"])

    def retriever(self, mode: str = "dense", **_options: Any) -> PgCorpus:
        """This corpus as a retriever: dense search is all it has (see the module docstring)."""
        if check_search_mode(mode) == "bm25":
            raise RetrieverError(f"the PostgreSQL corpus {self.corpus!r} has dense (HNSW) search only, not bm25")
        if mode == "hybrid":
            logger.warning("the PostgreSQL corpus %r has no bm25 side: searching it densely", self.corpus)
        return self

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """The `k` nearest passages of each query (`qids` are ignored); blank queries get no hits."""
        from rqrag.retrieval.encoders import embed

        check_qids(queries, qids)
        active = [i for i, query in enumerate(queries) if query.strip()]
        results: list[list[Hit]] = [[] for _ in queries]
        if k <= 0 or not active:
            return results
        vectors = embed(self.encoder, [queries[i] for i in active], "queries")
        for i, hits in zip(active, self.search_vectors(vectors, k)):
            results[i] = hits
        return results

    def search_vectors(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        """The `k` passages of largest inner product with each (unit-length) query vector, through HNSW."""
        statement = corpus_sql(_NEAREST, self.corpus)
        results = []
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            set_ef_search(cur, k)
            for vector in np.asarray(vectors, dtype=np.float32):
                cur.execute(statement, {"v": vector, "k": k})
                results.append([_hit(row) for row in cur.fetchall()])
        return results

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> PgCorpus:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def _hit(row: tuple) -> Hit:
    docid, title, text, extra, score = row
    return Hit(docid=docid, title=title, text=text, score=float(score), extra=dict(extra or {}))
