"""The embedded corpus ships with its MiniLM vectors; they must be the vectors MiniLM really gives."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rqrag.paths import PROJECT_DATA_DIR
from rqrag.retrieval.embedded import (
    SHIPPED_EMBEDDINGS_FILE,
    SHIPPED_EMBEDDINGS_META,
    embedded_corpus_hash,
    embedded_corpus_path,
    load_embedded_index,
    shipped_embeddings,
)
from rqrag.retrieval.passages import indexed_text, read_passages


def test_shipped_embeddings_match_the_corpus_file():
    meta = json.loads((PROJECT_DATA_DIR / SHIPPED_EMBEDDINGS_META).read_text())
    docs, _ = read_passages(embedded_corpus_path())
    assert meta["corpus_sha256"] == embedded_corpus_hash()
    assert (meta["rows"], meta["dimension"]) == (len(docs), 384)
    vectors = shipped_embeddings(len(docs))
    assert vectors is not None and vectors.dtype == np.float32 and vectors.shape == (len(docs), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=2e-3)
    assert shipped_embeddings(len(docs) + 1) is None  # a row-count mismatch is never used


@pytest.mark.slow
def test_shipped_embeddings_equal_a_fresh_minilm_encoding(minilm_encoder):
    from rqrag.retrieval.dense import encode

    docs, _ = read_passages(embedded_corpus_path())
    rows = np.random.default_rng(0).choice(len(docs), size=16, replace=False)
    fresh = encode(minilm_encoder, [indexed_text(docs[i]) for i in rows])
    shipped = np.load(PROJECT_DATA_DIR / SHIPPED_EMBEDDINGS_FILE)[rows].astype(np.float32)
    cosines = (fresh * shipped).sum(axis=1) / np.linalg.norm(shipped, axis=1)
    assert cosines.min() > 0.999, cosines


@pytest.mark.slow
def test_hybrid_search_finds_each_hop_once_the_query_is_decomposed(minilm_encoder):
    index = load_embedded_index(("bm25", "dense"), encoder=minilm_encoder, show_progress=False)
    retriever = index.retriever("hybrid")
    question = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
    first, second = retriever.batch_search([question, "What government position did Shirley Temple hold?"], k=5)
    first_titles = [h.title for h in first]
    # The question alone reaches the first hop but not the second: why RQ-RAG decomposes.
    assert "Kiss and Tell (1945 film)" in first_titles and "Shirley Temple" not in first_titles
    assert "Shirley Temple" in [h.title for h in second]
