"""Open a document library by name, folder or database (`rqrag.ingest.library` describes the design).

from rqrag.ingest.libraries import open_library
library = open_library("manuals", language="pt")
"""

from __future__ import annotations

import os

from rqrag.ingest.library import DEFAULT_NAME, DocumentLibrary, library_path
from rqrag.ingest.local_library import LocalLibrary
from rqrag.ingest.pg_library import PgLibrary


def open_library(
    index: str | os.PathLike | None = None,
    *,
    database_url: str | None = None,
    language: str | None = None,
    embedding_model: str | None = None,
    chunking=None,
    encoder=None,
) -> DocumentLibrary:
    """The library `index` names (a plain name, a folder, or with `database_url` a PostgreSQL table prefix).

    `language`, `embedding_model` and `chunking` (a `ChunkingConfig`) apply to a new library; for an existing
    one they must match what it was created with, or be None. `encoder` skips loading the embedding model.
    """
    options = {"language": language, "embedding_model": embedding_model, "chunking": chunking, "encoder": encoder}
    if database_url:
        return PgLibrary(database_url, str(index or DEFAULT_NAME), **options)
    return LocalLibrary(library_path(index), **options)
