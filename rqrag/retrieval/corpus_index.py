"""A local search index on disk: one docstore shared by a BM25 and (optionally) a dense index.

Layout of an index directory:

    docs.jsonl   the passages, in index order (position i is BM25 row i and FAISS vector i)
    bm25/        the bm25s index
    dense/       the FAISS index and the name of its embedding model (only when built with "dense")
    meta.json    passage count, modes, BM25 language, embedding model, build seconds, creation time, source file

Builds and updates are atomic: everything is written to a temporary sibling directory and renamed into
place only once complete, and `meta.json` is written last. A build killed half-way therefore leaves a
`.NAME.building-*` directory that `load` never mistakes for an index (it tells you to delete it instead).
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rqrag.retrieval.atomic_dir import leftovers, staging, swap_in
from rqrag.retrieval.base import INDEX_MODES, Retriever, RetrieverError, check_search_mode
from rqrag.retrieval.passages import Passage, corpus_fingerprint, deduplicate_docids, read_passages, write_passages
from rqrag.retrieval.renamed import warn_renamed


if TYPE_CHECKING:
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.dense import DenseRetriever
    from rqrag.retrieval.encoders import TextEncoder


logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
DOCS_FILE = "docs.jsonl"
META_FILE = "meta.json"
BM25_DIR = "bm25"
DENSE_DIR = "dense"


def _embedding_model_name(model: str | None, encoder: TextEncoder | None) -> str:
    """The canonical name meta.json records for the dense side, so `load` brings back the same encoder."""
    from rqrag.retrieval.encoders import UNNAMED_SENTENCE_TRANSFORMER, canonical_encoder_name

    if model is None and encoder is not None:
        name = getattr(encoder, "name", UNNAMED_SENTENCE_TRANSFORMER)
        model = None if name == UNNAMED_SENTENCE_TRANSFORMER else name
    return canonical_encoder_name(model)


def _check_modes(modes: Iterable[str]) -> tuple[str, ...]:
    modes = tuple(dict.fromkeys(m.strip() for m in modes if m.strip()))
    unknown = [m for m in modes if m not in INDEX_MODES]
    if unknown or not modes:
        raise ValueError(f"index modes must be a non-empty subset of {INDEX_MODES}, got {modes}")
    return modes


class CorpusIndex:
    """An index directory and its passages; `retriever(mode)` gives a BM25, dense or hybrid retriever."""

    def __init__(self, directory: Path, passages: list[Passage], meta: dict[str, Any], encoder=None):
        self.directory = directory
        self.passages = passages
        self.meta = meta
        self._encoder = encoder
        self._bm25: BM25Retriever | None = None
        self._dense: DenseRetriever | None = None

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(self.meta["modes"])

    @property
    def embedding_model(self) -> str | None:
        return self.meta.get("embedding_model")

    @property
    def language(self) -> str:
        """The language BM25 analyses passages and queries in; indexes from before languages are English."""
        return self.meta.get("language") or "en"

    @property
    def documents(self) -> list[Passage]:
        """Deprecated: the former name of `passages` (a library's documents are the user's files)."""
        warn_renamed("CorpusIndex.documents", "CorpusIndex.passages")
        return self.passages

    def __len__(self) -> int:
        return len(self.passages)

    # ----------------------------------------------------------------- build / load

    @classmethod
    def build(
        cls,
        passages: Sequence[Passage],
        out_dir: str | os.PathLike,
        modes: Iterable[str] = INDEX_MODES,
        *,
        model: str | None = None,
        encoder: TextEncoder | None = None,
        batch_size: int = 64,
        source: str | None = None,
        overwrite: bool = False,
        show_progress: bool = True,
        embeddings=None,
        language: str = "en",
    ) -> CorpusIndex:
        """Index `passages` into `out_dir` atomically. Duplicate docids are dropped (first one kept).

        `language` picks the BM25 analyzer (stopwords and stemmer, see `rqrag.retrieval.bm25`); `model` the
        dense encoder (see `rqrag.retrieval.encoders`, default: `encoder`'s model, else the packaged MiniLM).
        `embeddings` (one unit-length row per passage, in order) skips encoding for the dense side; they
        must come from the same model as `model`.
        """
        from rqrag.retrieval.bm25 import normalize_language

        out_dir = Path(out_dir)
        modes = _check_modes(modes)
        language = normalize_language(language)
        if out_dir.exists() and not overwrite:
            raise FileExistsError(f"{out_dir} already exists; pass overwrite=True (--overwrite) to replace it")
        if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / META_FILE).is_file():
            raise FileExistsError(f"{out_dir} exists and is not an rq-rag index; refusing to replace it")
        docs, dropped = deduplicate_docids(passages)
        if dropped:
            logger.warning("dropped %d passage(s) whose docid repeats an earlier one", dropped)
        if not docs:
            raise ValueError("cannot build an index over zero passages")

        out_dir.parent.mkdir(parents=True, exist_ok=True)
        with staging(out_dir, "building") as staged:
            meta = {
                "format_version": FORMAT_VERSION,
                "num_docs": len(docs),
                "modes": list(modes),
                "language": language,
                "embedding_model": _embedding_model_name(model, encoder) if "dense" in modes else None,
                "build_seconds": {},
                "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "source": source,
                "fingerprint": corpus_fingerprint(d.docid for d in docs),
            }
            write_passages(docs, staged / DOCS_FILE)
            index = cls(staged, docs, meta, encoder=encoder)
            if embeddings is not None and (dropped or len(embeddings) != len(docs)):
                raise ValueError(f"got {len(embeddings)} embeddings for {len(docs)} unique passages")
            for mode in modes:
                index._build_mode(
                    mode, staged, batch_size=batch_size, show_progress=show_progress, embeddings=embeddings
                )
            index._write_meta(staged)
            swap_in(staged, out_dir)
        index.directory = out_dir
        return index

    @classmethod
    def load(cls, directory: str | os.PathLike, encoder: TextEncoder | None = None) -> CorpusIndex:
        """Open a complete index. BM25 and dense components are loaded on first use."""
        directory = Path(directory)
        if not (directory / META_FILE).is_file():
            partial = leftovers(directory)
            hint = f"; found incomplete build(s) {[str(p) for p in partial]} to delete" if partial else ""
            raise RetrieverError(
                f"no complete rq-rag index at {directory}{hint}. Build one with "
                f"`rqrag index build --corpus FILE --out {directory}`"
            )
        meta = json.loads((directory / META_FILE).read_text())
        if meta.get("layout") == "streamed":  # `rqrag index build --streamed`: docstore on disk, dense only
            from rqrag.retrieval.streamed_search import StreamedIndex

            return StreamedIndex(directory, meta, encoder=encoder)
        passages, _ = read_passages(directory / DOCS_FILE)
        if len(passages) != meta["num_docs"]:
            raise RetrieverError(
                f"{directory}: meta.json says {meta['num_docs']} docs but docs.jsonl has {len(passages)}"
            )
        return cls(directory, passages, meta, encoder=encoder)

    @staticmethod
    def is_index(directory: str | os.PathLike) -> bool:
        return (Path(directory) / META_FILE).is_file()

    # ----------------------------------------------------------------- retrievers

    def bm25(self) -> BM25Retriever:
        from rqrag.retrieval.bm25 import BM25Retriever

        self._require_mode("bm25")
        if self._bm25 is None:
            self._bm25 = BM25Retriever.load(self.directory / BM25_DIR, passages=self.passages)
        return self._bm25

    def dense(self) -> DenseRetriever:
        from rqrag.retrieval.dense import DenseRetriever

        self._require_mode("dense")
        if self._dense is None:
            self._dense = DenseRetriever.load(
                self.directory / DENSE_DIR, passages=self.passages, encoder=self._encoder
            )
        return self._dense

    def searchable_mode(self, mode: str) -> str:
        """The mode a search asking for `mode` gets from this index: `mode` when the index has it; else what the
        index has ("hybrid" on a BM25-only index searches BM25), logged once so the user knows."""
        check_search_mode(mode)
        has = {m for m in ("bm25", "dense") if m in self.modes}
        wanted = {"bm25", "dense"} if mode == "hybrid" else {mode}
        if wanted <= has:
            return mode
        got = "hybrid" if has == {"bm25", "dense"} else next(iter(has))
        logger.warning(
            "the index at %s has %s only: searching %s instead of %s (`rqrag index build --modes bm25,dense` for both)",
            self.directory, sorted(has), got, mode,
        )  # fmt: skip
        return got

    def retriever(self, mode: str = "hybrid", *, rrf_k: int | None = None, depth: int | None = None) -> Retriever:
        """A retriever over this index: "bm25", "dense", or "hybrid" (RRF of both); an index built with fewer
        modes answers with those (`searchable_mode`), and the retriever's `search_mode` says which."""
        mode = self.searchable_mode(mode)
        if mode == "bm25":
            retriever = self.bm25()
        elif mode == "dense":
            retriever = self.dense()
        else:
            from rqrag.retrieval.hybrid import DEFAULT_RRF_K, HybridRetriever

            retriever = HybridRetriever(self.bm25(), self.dense(), rrf_k=rrf_k or DEFAULT_RRF_K, depth=depth)
        try:
            retriever.search_mode = mode
        except AttributeError:  # a retriever with slots keeps its own name of what it searches
            pass
        return retriever

    def _require_mode(self, mode: str) -> None:
        if mode not in self.modes:
            raise RetrieverError(
                f"the index at {self.directory} was built without {mode!r} (it has {list(self.modes)}); rebuild with "
                f"`rqrag index build --modes {','.join(sorted({*self.modes, mode}))}` or call add_modes"
            )

    # ----------------------------------------------------------------- updates

    def add_passages(self, passages: Iterable[Passage], show_progress: bool = True) -> int:
        """Add passages whose docids are new; returns how many were added.

        bm25s has no incremental add (its score matrix bakes in N and the average length), so BM25 is
        rebuilt over all passages; the FAISS flat index is appended to, so only new passages are embedded.
        The updated index is staged in a sibling directory and swapped in atomically.
        """
        known = {p.docid for p in self.passages}
        new_docs, _ = deduplicate_docids(p for p in passages if p.docid not in known)
        if not new_docs:
            return 0
        all_docs = self.passages + new_docs
        with staging(self.directory, "updating") as staged:
            self._copy_extra_files(staged)
            write_passages(all_docs, staged / DOCS_FILE)
            bm25 = dense = None
            if "bm25" in self.modes:
                from rqrag.retrieval.bm25 import BM25Retriever

                bm25 = BM25Retriever.from_passages(all_docs, show_progress=show_progress, language=self.language)
                bm25.save(staged / BM25_DIR, write_docs=False)
            if "dense" in self.modes:
                dense = self.dense()
                dense.add_passages(new_docs, show_progress=show_progress)
                dense.save(staged / DENSE_DIR, write_docs=False)
            self.meta.update(
                num_docs=len(all_docs),
                fingerprint=corpus_fingerprint(d.docid for d in all_docs),
                updated=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            )
            self._write_meta(staged)
            swap_in(staged, self.directory)
        self.passages = all_docs
        self._bm25, self._dense = bm25, dense
        return len(new_docs)

    def add_documents(self, documents: Iterable[Passage], show_progress: bool = True) -> int:
        """Deprecated: the former name of `add_passages`."""
        warn_renamed("CorpusIndex.add_documents", "CorpusIndex.add_passages")
        return self.add_passages(documents, show_progress=show_progress)

    def add_modes(
        self, modes: Iterable[str], batch_size: int = 64, show_progress: bool = True, embeddings=None
    ) -> None:
        """Build the given index modes that are missing (e.g. add "dense" to a BM25-only index)."""
        missing = [m for m in _check_modes(modes) if m not in self.modes]
        if not missing:
            return
        with staging(self.directory, "updating", create=False) as staged:
            shutil.copytree(self.directory, staged)
            if "dense" in missing and not self.meta.get("embedding_model"):
                self.meta["embedding_model"] = _embedding_model_name(None, self._encoder)
            for mode in missing:
                self._build_mode(
                    mode, staged, batch_size=batch_size, show_progress=show_progress, embeddings=embeddings
                )
            self.meta["modes"] = [m for m in INDEX_MODES if m in {*self.modes, *missing}]
            self._write_meta(staged)
            swap_in(staged, self.directory)
        self._bm25 = self._dense = None  # reload from the committed directory on next use

    # ----------------------------------------------------------------- helpers

    def _build_mode(self, mode: str, root: Path, *, batch_size: int, show_progress: bool, embeddings=None) -> None:
        started = time.perf_counter()
        logger.info("building the %s index over %d passages", mode, len(self.passages))
        if mode == "bm25":
            from rqrag.retrieval.bm25 import BM25Retriever

            BM25Retriever.from_passages(self.passages, show_progress=show_progress, language=self.language).save(
                root / BM25_DIR, write_docs=False
            )
        else:
            from rqrag.retrieval.dense import DenseRetriever

            if embeddings is not None:
                dense = DenseRetriever.from_embeddings(
                    self.passages, embeddings, model=self.meta["embedding_model"], encoder=self._encoder
                )
                dense.save(root / DENSE_DIR, write_docs=False)
                self.meta.setdefault("build_seconds", {})[mode] = round(time.perf_counter() - started, 3)
                return
            DenseRetriever.from_passages(
                self.passages,
                model=self.meta["embedding_model"],
                encoder=self._encoder,
                batch_size=batch_size,
                show_progress=show_progress,
            ).save(root / DENSE_DIR, write_docs=False)
        seconds = round(time.perf_counter() - started, 3)
        self.meta.setdefault("build_seconds", {})[mode] = seconds
        logger.info("built the %s index in %.1f s", mode, seconds)

    def _copy_extra_files(self, root: Path) -> None:
        """Carry over files that are not index components (e.g. the resolved_config.yaml of the build)."""
        for path in self.directory.iterdir():
            if path.is_file() and path.name not in (DOCS_FILE, META_FILE):
                shutil.copy2(path, root / path.name)

    def _write_meta(self, root: Path) -> None:
        # Written last inside the staged directory, so its presence marks a complete index.
        (root / META_FILE).write_text(json.dumps(self.meta, indent=2) + "\n")


def build_index_from_file(
    corpus_path: str | os.PathLike, out_dir: str | os.PathLike, modes: Iterable[str] = INDEX_MODES, **kwargs: Any
) -> CorpusIndex:
    """Read a corpus file (see `rqrag.retrieval.passages`) and build an index of it."""
    passages, stats = read_passages(corpus_path)
    logger.info("read %d passages from %s (%d malformed skipped)", stats.passages, corpus_path, stats.skipped)
    return CorpusIndex.build(passages, out_dir, modes, source=str(Path(corpus_path).resolve()), **kwargs)
