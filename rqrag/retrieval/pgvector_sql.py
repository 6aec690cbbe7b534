"""The SQL of `rqrag.retrieval.pgvector_store`: schema, HNSW index, searches (`{name}` placeholders are filled
with quoted identifiers by `PgVectorIndex._sql`), the text-search configuration per language, and a result row as
a `Hit`."""

from __future__ import annotations

from typing import Any

from rqrag.retrieval.base import Hit


_SCHEMA = """
CREATE TABLE IF NOT EXISTS {documents} (
    doc_id text PRIMARY KEY,
    name text NOT NULL DEFAULT '',
    size_bytes bigint,
    sha256 text,
    chunk_count integer NOT NULL,
    language text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    metadata jsonb NOT NULL DEFAULT '{{}}'
);
CREATE TABLE IF NOT EXISTS {chunks} (
    docid text PRIMARY KEY,
    doc_id text NOT NULL REFERENCES {documents} (doc_id) ON DELETE CASCADE,
    position integer NOT NULL,
    title text NOT NULL DEFAULT '',
    text text NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{{}}',
    embedding vector({dimension}),  -- NULL while a document's vectors are being computed
    tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector({config}::regconfig, title), 'A') || to_tsvector({config}::regconfig, text)
    ) STORED
);
CREATE INDEX IF NOT EXISTS {hnsw} ON {chunks} USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS {gin} ON {chunks} USING gin (tsv);
CREATE INDEX IF NOT EXISTS {by_doc} ON {chunks} (doc_id);
"""

# Tables made before two-stage adds declared the embedding NOT NULL; a metadata-only change, run when needed.
_EMBEDDING_NULLABLE = """
SELECT attnotnull FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'
"""

_VECTOR_INDEX = "CREATE INDEX IF NOT EXISTS {hnsw} ON {chunks} USING hnsw (embedding vector_cosine_ops)"

# The embedding column's declared type and the expression of the generated full-text column.
_COLUMN_FACTS = """
SELECT
    (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
     WHERE attrelid = %s::regclass AND attname = 'embedding'),
    (SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
     JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
     WHERE d.adrelid = %s::regclass AND a.attname = 'tsv')
"""

_DENSE_QUERY = """
SELECT docid, title, text, metadata, doc_id, 1 - (embedding <=> %(v)s) AS score
FROM {chunks}
WHERE embedding IS NOT NULL
ORDER BY embedding <=> %(v)s
LIMIT %(k)s
"""

# plainto_tsquery ANDs the lexemes ('a' & 'b'); OR-ing them instead ranks partial matches (module docstring).
# Lexemes never contain spaces, so replacing ' & ' cannot touch a lexeme. Normalisation 1 divides the rank by
# 1 + log(document length), so long chunks do not win just by repeating words.
_FULL_TEXT_QUERY = """
SELECT c.docid, c.title, c.text, c.metadata, c.doc_id, ts_rank_cd(c.tsv, q.query, 1) AS score
FROM {chunks} c,
     (SELECT replace(plainto_tsquery(%(config)s::regconfig, %(query)s)::text, ' & ', ' | ')::tsquery AS query) q
WHERE c.tsv @@ q.query
ORDER BY score DESC, c.docid
LIMIT %(k)s
"""


# ISO 639-1 codes to the text-search configurations PostgreSQL ships; full configuration names work as well.
TEXT_SEARCH_CONFIGS = {
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french", "ga": "irish", "hi": "hindi",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "nl": "dutch", "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip


def text_search_config(language: str) -> str:
    """The PostgreSQL text-search configuration for a language code ("pt" -> "portuguese") or name."""
    language = language.strip().lower()
    return TEXT_SEARCH_CONFIGS.get(language, language)


def _jsonb(value: dict[str, Any]):
    from psycopg.types.json import Jsonb

    return Jsonb(value)


def _hit(row: tuple) -> Hit:
    docid, title, text, metadata, doc_id, score = row
    return Hit(docid=docid, title=title, text=text, score=float(score), extra={**metadata, "doc_id": doc_id})
