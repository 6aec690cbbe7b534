"""The scale-out document store: chunks and their embeddings in PostgreSQL with pgvector.

Same job as the embedded on-disk index (`corpus_index.py`), for stores that outgrow one process or are shared
by several servers: `PgVectorIndex(database_url, encoder)` opens (and on first use creates) two tables,

    <prefix>_documents  one row per uploaded document: doc_id, name, size_bytes, sha256, chunk_count, language,
                        created_at, metadata (JSONB)
    <prefix>_chunks     one row per chunk: docid, doc_id (cascade delete), position, title, text, metadata (JSONB:
                        page_start, page_end, strategy, ...), embedding vector(dim), and a generated tsvector
                        over title (weight A) and text in the store's text-search configuration

with an HNSW index (cosine distance) on the embedding and a GIN index on the tsvector. Searches come in three
modes: "dense" (nearest embeddings through HNSW, score = cosine similarity), "bm25" (PostgreSQL full-text
search ranked by `ts_rank_cd`, cover density: *not* BM25, the mode name only keeps the CLI's vocabulary), and
"hybrid" (reciprocal-rank fusion of the two, `fusion.py`). Each hit's `extra` holds its chunk's metadata.

The full-text query ORs the query's lexemes (plainto_tsquery with its ANDs turned into ORs): a natural-language
question rarely has every one of its words in the passage that answers it, and an AND query would then find
nothing, where BM25 would still rank the passages sharing the most (and rarest) words first.

The text-search configuration (stemmer and stop words) is fixed when the tables are created, because the
tsvector column is generated with it; opening the same tables with another language is refused.

`add_document` keeps the HNSW graph up to date row by row, which is right for uploads but slow for a whole
corpus: for a bulk load, `drop_vector_index()`, add the documents, then `build_vector_index()` once (about 5x
faster at 10k vectors, `scripts/bench_vector_stores.py`). Opening a store recreates a missing HNSW index.
"""

from __future__ import annotations

import copy
import logging
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from rqrag.retrieval.base import Hit, RetrieverError, RetrieverUnavailable, check_qids, check_search_mode
from rqrag.retrieval.encoders import embed, encoder_dimension
from rqrag.retrieval.fusion import DEFAULT_DEPTH, DEFAULT_RRF_K, fuse_hits, with_borrowed_ranks
from rqrag.retrieval.passages import Passage, indexed_text
from rqrag.retrieval.pgvector_session import connect_postgres, ensure_vector_extension, set_ef_search
from rqrag.retrieval.pgvector_sql import (  # noqa: F401  (text_search_config: re-exported)
    _COLUMN_FACTS,
    _DENSE_QUERY,
    _EMBEDDING_NULLABLE,
    _FULL_TEXT_QUERY,
    _SCHEMA,
    _VECTOR_INDEX,
    _hit,
    _jsonb,
    text_search_config,
)


logger = logging.getLogger(__name__)


DOCUMENT_COLUMNS = ("doc_id", "name", "size_bytes", "sha256")
_PREFIX_PATTERN = re.compile(r"[a-z_][a-z0-9_]{0,39}")


class PgVectorIndex:
    """Documents, chunks and embeddings in PostgreSQL; `search` / `batch_search` make it a `Retriever`.

    `encoder` embeds passages and queries: anything `rqrag.retrieval.encoders.embed` takes (a `TextEncoder`, or
    any object with `encode(texts, normalize_embeddings=True)` returning a float32 matrix). It may be None when every call passes its own vectors
    (`add_document(embeddings=...)`, `search_vectors`), which is what the benchmark does; `dimension` is then
    required. `mode` is the default search mode. One connection is shared (and serialised) by all threads.
    """

    uses_qids = False  # one shared store: results do not depend on the question

    def __init__(
        self,
        database_url: str,
        encoder: Any = None,
        *,
        language: str = "en",
        table_prefix: str = "rqrag",
        embedding_model: str | None = None,
        dimension: int | None = None,
        mode: str = "hybrid",
        rrf_k: int = DEFAULT_RRF_K,
        depth: int = DEFAULT_DEPTH,
    ):
        if not _PREFIX_PATTERN.fullmatch(table_prefix):
            raise ValueError(f"table_prefix must match {_PREFIX_PATTERN.pattern}, got {table_prefix!r}")
        check_search_mode(mode)
        self.database_url = database_url
        self.encoder = encoder
        self.language = language
        self.ts_config = text_search_config(language)
        self.table_prefix = table_prefix
        self.embedding_model = embedding_model
        if dimension is None and encoder is None:
            raise ValueError("without an encoder, PgVectorIndex needs the embedding `dimension`")
        self.dimension = dimension if dimension is not None else encoder_dimension(encoder)
        self.mode = mode
        self.rrf_k = rrf_k
        self.depth = depth
        self._lock = threading.RLock()
        self._connection = self._connect()
        self._create_schema()

    # ----------------------------------------------------------------- connection and schema

    def _connect(self):
        return connect_postgres(self.database_url)

    @property
    def _conn(self):
        """The connection, opened again when the server dropped it (a restart): the call that met the drop
        failed (psycopg marks the connection broken), the next one reconnects instead of failing forever."""
        if self._connection.closed or self._connection.broken:
            from pgvector.psycopg import register_vector

            with self._lock:
                if self._connection.closed or self._connection.broken:
                    logger.warning("reconnecting to PostgreSQL for %s", self.table_prefix)
                    self._connection = self._connect()
                    register_vector(self._connection)
        return self._connection

    def _sql(self, template: str):
        """A statement with the table and index names (quoted), language and dimension filled in."""
        from psycopg import sql

        names = {
            "documents": sql.Identifier(f"{self.table_prefix}_documents"),
            "chunks": sql.Identifier(f"{self.table_prefix}_chunks"),
            "hnsw": sql.Identifier(f"{self.table_prefix}_chunks_embedding_hnsw"),
            "gin": sql.Identifier(f"{self.table_prefix}_chunks_tsv_gin"),
            "by_doc": sql.Identifier(f"{self.table_prefix}_chunks_doc_id"),
            "config": sql.Literal(self.ts_config),
            "dimension": sql.Literal(self.dimension),
        }
        return sql.SQL(template).format(**{k: v for k, v in names.items() if "{" + k + "}" in template})

    def _rows(self, template: str, params: Any = None, one: bool = False) -> Any:
        """Run a statement on the shared connection: all its rows, or with `one` the first (None if no rows)."""
        with self._lock:
            cursor = self._conn.execute(self._sql(template), params)
            return cursor.fetchone() if one else cursor.fetchall()

    def _create_schema(self) -> None:
        from pgvector.psycopg import register_vector

        with self._lock, self._conn.transaction():
            # Two processes opening a new store at once would race on CREATE ... IF NOT EXISTS; serialise them.
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"rqrag-schema:{self.table_prefix}",))
            ensure_vector_extension(self._conn)
            if not self._conn.execute("SELECT 1 FROM pg_ts_config WHERE cfgname = %s", (self.ts_config,)).fetchone():
                raise ValueError(f"PostgreSQL has no text-search configuration {self.ts_config!r} ({self.language!r})")
            self._conn.execute(self._sql(_SCHEMA))
            if self._conn.execute(_EMBEDDING_NULLABLE, (f"{self.table_prefix}_chunks",)).fetchone()[0]:
                self._conn.execute(self._sql("ALTER TABLE {chunks} ALTER COLUMN embedding DROP NOT NULL"))
        register_vector(self._conn)
        self._check_existing_tables()

    def _check_existing_tables(self) -> None:
        """Refuse to mix languages, dimensions or embedding models in one pair of tables."""
        table = f"{self.table_prefix}_chunks"
        column_type, tsv_expression = self._rows(_COLUMN_FACTS, (table, table), one=True)
        if column_type != f"vector({self.dimension})":
            raise RetrieverError(f"{table} stores {column_type} embeddings but the encoder gives {self.dimension}")
        if f"'{self.ts_config}'" not in tsv_expression:
            raise RetrieverError(f"{table} was created for another language: its full-text column is {tsv_expression}")
        stored = self._rows("SELECT metadata->>'embedding_model' FROM {chunks} LIMIT 1", one=True)
        if stored and stored[0] and self.embedding_model and stored[0] != self.embedding_model:
            raise RetrieverError(f"{table} holds embeddings of {stored[0]!r}, not of {self.embedding_model!r}")

    def drop_vector_index(self) -> None:
        """Drop the HNSW index before a bulk load: rows then go in without graph updates (dense search scans)."""
        with self._lock, self._conn.transaction():
            self._conn.execute(self._sql("DROP INDEX IF EXISTS {hnsw}"))

    def build_vector_index(self, maintenance_work_mem: str = "1GB", workers: int | None = None) -> None:
        """(Re)build the HNSW index over all rows at once, several times faster than maintaining it row by row.

        The build is fastest while the graph fits in `maintenance_work_mem` (about 1.6 kB per 384-d vector at
        the default m = 16); `workers` parallel processes help it (PostgreSQL's default: 2).
        """
        with self._lock, self._conn.transaction():
            self._conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (maintenance_work_mem,))
            if workers is not None:
                self._conn.execute("SELECT set_config('max_parallel_maintenance_workers', %s, true)", (str(workers),))
            self._conn.execute(self._sql(_VECTOR_INDEX))

    def drop_tables(self) -> None:
        """Delete this store's tables and everything in them (benchmarks and tests clean up with this)."""
        with self._lock, self._conn.transaction():
            self._conn.execute(self._sql("DROP TABLE IF EXISTS {chunks}, {documents}"))

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __enter__(self) -> PgVectorIndex:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ----------------------------------------------------------------- documents

    def add_document(
        self, meta: dict[str, Any], chunks: Sequence[Passage], embeddings: np.ndarray | str | None = None
    ) -> bool:
        """Store a document and its chunks in one transaction; False (nothing written) if `doc_id` is known.

        `meta` needs a `doc_id`; `name`, `size_bytes` and `sha256` have their own columns and any other key goes
        to the metadata JSON. Each chunk's `extra` (page span, chunking strategy, ...) becomes its metadata. Chunk
        docids must be unique across the store. `embeddings` (one row per chunk) skips encoding; "pending" stores
        the chunks without vectors (found by full-text search only) until `set_embeddings`. If anything fails
        half-way (a wrong vector dimension, a repeated chunk docid), nothing of the document is stored.
        """
        doc_id = str(meta.get("doc_id") or "")
        if not doc_id:
            raise ValueError("meta must have a non-empty 'doc_id'")
        if self.has_document(doc_id):
            return False
        if isinstance(embeddings, str) and embeddings == "pending":
            vectors = [None] * len(chunks)
        elif embeddings is not None:
            vectors = embeddings
        else:
            vectors = self._encode([indexed_text(c) for c in chunks], "passages")
        if len(vectors) != len(chunks):
            raise ValueError(f"got {len(vectors)} embeddings for {len(chunks)} chunks")
        extra_meta = {key: value for key, value in meta.items() if key not in DOCUMENT_COLUMNS}
        model = {"embedding_model": self.embedding_model} if self.embedding_model else {}
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            cur.execute(
                self._sql(
                    "INSERT INTO {documents} (doc_id, name, size_bytes, sha256, chunk_count, language, metadata) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (doc_id) DO NOTHING RETURNING doc_id"
                ),
                (doc_id, meta.get("name") or "", meta.get("size_bytes"), meta.get("sha256"), len(chunks),
                 self.language, _jsonb(extra_meta)),
            )  # fmt: skip
            if cur.fetchone() is None:  # another process stored it between our check and this insert
                return False
            copy_sql = (
                "COPY {chunks} (docid, doc_id, position, title, text, metadata, embedding) FROM STDIN (FORMAT BINARY)"
            )
            with cur.copy(self._sql(copy_sql)) as copy:
                copy.set_types(["text", "text", "int4", "text", "text", "jsonb", "vector"])
                for position, (chunk, vector) in enumerate(zip(chunks, vectors)):
                    metadata = _jsonb({**chunk.extra, **model})
                    vector = None if vector is None else np.asarray(vector, np.float32)
                    copy.write_row((chunk.docid, doc_id, position, chunk.title, chunk.text, metadata, vector))
        return True

    def set_embeddings(self, doc_id: str, embeddings: np.ndarray, metadata_drop: str | None = None) -> None:
        """Fill the vectors of a document stored with `embeddings="pending"` (row i for its chunk at position i),
        and drop `metadata_drop` from its metadata, in one transaction."""
        vectors = np.asarray(embeddings, dtype=np.float32)
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            cur.executemany(
                self._sql("UPDATE {chunks} SET embedding = %s WHERE doc_id = %s AND position = %s"),
                [(vector, doc_id, position) for position, vector in enumerate(vectors)],
            )
            if metadata_drop:
                cur.execute(
                    self._sql("UPDATE {documents} SET metadata = metadata - %s WHERE doc_id = %s"),
                    (metadata_drop, doc_id),
                )

    def pending_documents(self) -> list[str]:
        """The doc_ids stored with `embeddings="pending"` whose vectors were never set (an add killed mid-way)."""
        return [row[0] for row in self._rows("SELECT doc_id FROM {documents} WHERE metadata ? 'vectors'")]

    def document_chunks(self, doc_id: str) -> list[Passage]:
        """A document's chunks in position order, as `add_document` got them."""
        rows = self._rows(
            "SELECT docid, title, text, metadata FROM {chunks} WHERE doc_id = %s ORDER BY position", (doc_id,)
        )
        return [Passage(docid=docid, title=title, text=text, extra=metadata) for docid, title, text, metadata in rows]

    def has_document(self, doc_id: str) -> bool:
        return self._rows("SELECT 1 FROM {documents} WHERE doc_id = %s", (doc_id,), one=True) is not None

    def remove_document(self, doc_id: str) -> bool:
        """Delete a document and (by cascade) its chunks; False if there was no such document."""
        return (
            self._rows("DELETE FROM {documents} WHERE doc_id = %s RETURNING doc_id", (doc_id,), one=True) is not None
        )

    def list_documents(self) -> list[dict[str, Any]]:
        """Every stored document, oldest first, as plain dicts (created_at as an ISO-8601 string)."""
        rows = self._rows(
            "SELECT doc_id, name, size_bytes, sha256, chunk_count, language, created_at, metadata "
            "FROM {documents} ORDER BY created_at, doc_id"
        )
        keys = ("doc_id", "name", "size_bytes", "sha256", "chunk_count", "language", "created_at", "metadata")
        return [{**dict(zip(keys, row)), "created_at": row[6].isoformat()} for row in rows]

    def chunks_table_bytes(self) -> int:
        """Disk used by the chunks table with its indexes and TOAST (embeddings, text, HNSW graph)."""
        table = f"{self.table_prefix}_chunks"
        return int(self._rows("SELECT pg_total_relation_size(%s::regclass)", (table,), one=True)[0])

    def __len__(self) -> int:
        """The number of chunks (the searchable passages, as `len` of the embedded index counts them)."""
        return int(self._rows("SELECT count(*) FROM {chunks}", one=True)[0])

    # ----------------------------------------------------------------- search

    @property
    def name(self) -> str:
        """Changes whenever documents are added or removed, so a search cache never serves a stale store."""
        count, digest, waiting = self._rows(
            "SELECT count(*), md5(coalesce(string_agg(doc_id, '|' ORDER BY doc_id), '')), "
            "count(*) FILTER (WHERE metadata ? 'vectors') FROM {documents}",
            one=True,
        )
        model = self.embedding_model or f"dim{self.dimension}"
        pending = f":pending{waiting}" if waiting else ""  # vectors still to come change what a search finds
        return f"pgvector:{self.mode}:{self.table_prefix}:{self.ts_config}:{model}:{count}-{digest[:12]}{pending}"

    def retriever(self, mode: str) -> PgVectorIndex:
        """A view of this store searching in `mode` by default (same connection), as `CorpusIndex.retriever`."""
        view = copy.copy(self)  # shallow: the connection and its lock are shared, closing either closes both
        view.mode = check_search_mode(mode)
        return view

    def search(self, query: str, k: int = 3, qid: str | None = None, *, mode: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, mode=mode)[0]

    def batch_search(
        self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None, *, mode: str | None = None
    ) -> list[list[Hit]]:
        """Ranked hits per query (`qids` are ignored); each hit's `extra` has its chunk metadata and doc_id. The
        database gone away is `RetrieverUnavailable` (answered as such; the connection reopens on the next call)."""
        import psycopg

        try:
            return self._batch_search(queries, k, qids, mode)
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            raise RetrieverUnavailable(f"the document database is unavailable: {error}") from None

    def _batch_search(self, queries, k, qids, mode) -> list[list[Hit]]:
        check_qids(queries, qids)
        mode = check_search_mode(mode or self.mode)
        active = [i for i, query in enumerate(queries) if query.strip()]
        results: list[list[Hit]] = [[] for _ in queries]
        if k <= 0 or not active:
            return results
        depth = k if mode != "hybrid" else max(k, self.depth)
        dense = sparse = None
        if mode in ("dense", "hybrid"):
            dense = self.search_vectors(self._encode([queries[i] for i in active], "queries"), depth)
        if mode in ("bm25", "hybrid"):
            sparse = [self._full_text_search(queries[i], depth) for i in active]
        waiting = set(self.pending_documents()) if mode == "hybrid" else set()
        if waiting:  # chunks stored without vectors yet: the dense side borrows their full-text rank
            dense = [with_borrowed_ranks(s, d, waiting, depth) for s, d in zip(sparse, dense)]
        for row, i in enumerate(active):
            if mode == "dense":
                results[i] = dense[row]
            elif mode == "bm25":
                results[i] = sparse[row]
            else:
                results[i] = fuse_hits([sparse[row], dense[row]], k, self.rrf_k)
        return results

    def search_vectors(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        """Nearest chunks of each query vector by cosine similarity, through the HNSW index."""
        statement = self._sql(_DENSE_QUERY)
        results = []
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            set_ef_search(cur, k)
            for vector in np.asarray(vectors, dtype=np.float32):
                cur.execute(statement, {"v": vector, "k": k})
                results.append([_hit(row) for row in cur.fetchall()])
        return results

    def _full_text_search(self, query: str, k: int) -> list[Hit]:
        rows = self._rows(_FULL_TEXT_QUERY, {"config": self.ts_config, "query": query, "k": k})
        return [_hit(row) for row in rows]

    def query_plan(self, query: str, mode: str = "dense", k: int = 10) -> str:
        """PostgreSQL's EXPLAIN of the statement a dense or full-text search runs (is the index used?)."""
        if check_search_mode(mode) == "dense":
            statement, params = _DENSE_QUERY, {"v": self._encode([query], "queries")[0], "k": k}
        elif mode == "bm25":
            statement, params = _FULL_TEXT_QUERY, {"config": self.ts_config, "query": query, "k": k}
        else:
            raise ValueError("hybrid runs both the dense and the bm25 statements; explain them one at a time")
        return "\n".join(row[0] for row in self._rows("EXPLAIN " + statement, params))

    def _encode(self, texts: list[str], side: str) -> np.ndarray:
        if self.encoder is None:
            raise RetrieverError("this PgVectorIndex has no encoder; pass embeddings or query vectors explicitly")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return embed(self.encoder, texts, side)
