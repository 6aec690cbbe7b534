"""Your documents: a user's PDF, DOCX, HTML, Markdown or text file turned into page-cited retrieval chunks.

`extract` reads pages (type detected from the bytes), `clean` removes what the typesetter added (running
headers, page numbers, contents pages, hyphenation), `chunking` cuts the text with its page spans, and
`pipeline.ingest_bytes` / `ingest_path` do all of it in one call.

The submodules import their heavy dependencies (pypdf, trafilatura, LangChain's splitters) only when used.
"""

from rqrag.ingest.chunking import Chunk, ChunkingConfig, chunk_pages
from rqrag.ingest.clean import clean_pages, normalise_characters
from rqrag.ingest.extract import IngestError, Page, detect_file_type, extract_pages
from rqrag.ingest.pipeline import IngestedDocument, content_id, ingest_bytes, ingest_path


__all__ = [
    "Chunk",
    "ChunkingConfig",
    "IngestError",
    "IngestedDocument",
    "Page",
    "chunk_pages",
    "clean_pages",
    "content_id",
    "detect_file_type",
    "extract_pages",
    "ingest_bytes",
    "ingest_path",
    "normalise_characters",
]
