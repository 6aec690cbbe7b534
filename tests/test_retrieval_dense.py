"""DenseRetriever: FAISS inner-product scores equal cosine similarities of the packaged MiniLM's embeddings."""

from __future__ import annotations

import numpy as np
import pytest

from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.dense import PACKAGED_MODEL, DenseRetriever, resolve_model_path
from rqrag.retrieval.passages import Passage


DOCS = [
    Passage("paris", "Paris", "Paris is the capital and most populous city of France."),
    Passage("python", "Python (programming language)", "Python is a high-level general-purpose programming language."),
    Passage("everest", "Mount Everest", "Mount Everest is Earth's highest mountain above sea level."),
    Passage("jaguar", "Jaguar", "The jaguar is a large cat species native to the Americas."),
]


def expected_cosines(encoder, query: str, docs: list[Passage]) -> dict[str, float]:
    """Cosines computed straight from SentenceTransformer.encode, normalising by hand."""
    doc_vectors = encoder.encode([f"{d.title}\n{d.text}" for d in docs], convert_to_numpy=True)
    query_vector = encoder.encode([query], convert_to_numpy=True)[0]
    doc_vectors = doc_vectors / np.linalg.norm(doc_vectors, axis=1, keepdims=True)
    query_vector = query_vector / np.linalg.norm(query_vector)
    return {d.docid: float(v @ query_vector) for d, v in zip(docs, doc_vectors)}


@pytest.fixture(scope="module")
def dense(minilm_encoder) -> DenseRetriever:
    return DenseRetriever.from_passages(DOCS, encoder=minilm_encoder, show_progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("query", ["What is the capital of France?", "tallest mountain in the world", "big cats"])
def test_scores_are_cosines_of_the_encoder_embeddings(dense, minilm_encoder, query):
    expected = expected_cosines(minilm_encoder, query, DOCS)
    hits = dense.search(query, k=len(DOCS))
    assert [h.docid for h in hits] == sorted(expected, key=lambda d: -expected[d])
    for hit in hits:
        assert hit.score == pytest.approx(expected[hit.docid], abs=1e-5)


@pytest.mark.slow
def test_obvious_queries_find_their_document(dense):
    results = dense.batch_search(["capital of France", "a programming language", "", "highest peak"], k=1)
    assert [[h.docid for h in r] for r in results] == [["paris"], ["python"], [], ["everest"]]


@pytest.mark.slow
def test_k_larger_than_corpus(dense):
    assert len(dense.search("anything", k=50)) == len(DOCS)


@pytest.mark.slow
def test_add_passages_appends_without_reencoding(minilm_encoder):
    retriever = DenseRetriever.from_passages(DOCS[:2], encoder=minilm_encoder, show_progress=False)
    name_before = retriever.name
    retriever.add_passages(DOCS[2:], show_progress=False)
    assert retriever.index.ntotal == len(retriever) == 4
    assert retriever.search("highest mountain on Earth", k=1)[0].docid == "everest"
    assert retriever.name != name_before  # the cache namespace follows the corpus


@pytest.mark.slow
def test_save_and_load_keep_model_name_and_results(dense, minilm_encoder, tmp_path):
    dense.save(tmp_path / "dense")
    loaded = DenseRetriever.load(tmp_path / "dense", encoder=minilm_encoder)
    assert loaded.model == PACKAGED_MODEL
    assert loaded.search("big cats", k=4) == dense.search("big cats", k=4)


def test_model_names_resolve_to_local_folders_only(tmp_path, minilm_path):
    assert str(resolve_model_path(None)) == minilm_path
    assert str(resolve_model_path("sentence-transformers/all-MiniLM-L6-v2")) == minilm_path
    with pytest.raises(RetrieverError, match="not a local sentence-transformers folder"):
        resolve_model_path("BAAI/bge-large-en-v1.5")  # would be a hub download: refused
    with pytest.raises(RetrieverError):
        resolve_model_path(tmp_path)
