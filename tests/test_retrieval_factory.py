"""`build_retriever` kinds, cache wrapping, and a light `import rqrag.retrieval`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rqrag.retrieval import (
    BM25Retriever,
    CachedRetriever,
    CandidateRetriever,
    CorpusIndex,
    Passage,
    Retriever,
    WebRetriever,
    build_retriever,
)


def test_import_does_not_load_heavy_backends():
    code = (
        "import sys, rqrag.retrieval as r; "
        "print(sorted(m for m in ('bm25s', 'torch', 'faiss', 'sentence_transformers', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_corpus_kind_over_a_built_index_with_cache(tmp_path):
    docs = [Passage("a", "Alpha", "apples and pears"), Passage("b", "Beta", "bananas")]
    CorpusIndex.build(docs, tmp_path / "idx", modes=["bm25"], show_progress=False)
    retriever = build_retriever("corpus", mode="bm25", index_dir=tmp_path / "idx", cache_path=tmp_path / "c.sqlite")
    assert isinstance(retriever, CachedRetriever) and isinstance(retriever.inner, BM25Retriever)
    assert isinstance(retriever, Retriever)
    assert retriever.search("pears", k=2)[0].docid == "a"
    assert retriever.search("pears", k=2)[0].docid == "a" and retriever.hits == 1


def test_candidates_kind_from_a_file(tmp_path):
    path = tmp_path / "q.jsonl"
    record = {
        "question_id": "q",
        "contexts": [{"idx": 0, "title": "T", "paragraph_text": "river", "is_supporting": True}],
    }
    path.write_text(json.dumps(record) + "\n")
    retriever = build_retriever("candidates", candidates_path=path)
    assert isinstance(retriever, CandidateRetriever) and retriever.mode == "bm25"
    assert retriever.search("river", k=1, qid="q")[0].docid == "q::0"
    with pytest.raises(ValueError, match="candidates_path"):
        build_retriever("candidates")


def test_web_kind_and_unknown_kind():
    web = build_retriever("web", timeout=3, retries=0)
    assert isinstance(web, WebRetriever) and web.timeout == 3 and web.retries == 0
    with pytest.raises(ValueError, match="corpus"):
        build_retriever("elasticsearch")


def test_unknown_kind_error_lists_every_kind():
    from rqrag.retrieval.registry import RETRIEVER_KINDS

    with pytest.raises(ValueError) as error:
        build_retriever("elasticsearch")
    message = str(error.value)
    assert "'elasticsearch'" in message and all(kind in message for kind in RETRIEVER_KINDS)
    assert "documents+memories" in message  # the server's kinds are named too


def test_a_server_kind_says_where_it_is_built():
    with pytest.raises(ValueError, match="rqrag serve --retrievers documents"):
        build_retriever("documents")


def test_unknown_search_mode_lists_the_modes(tmp_path):
    with pytest.raises(ValueError, match=r"unknown search mode 'fuzzy'.*'bm25', 'dense', 'hybrid'"):
        build_retriever("corpus", mode="fuzzy", index_dir=tmp_path)


def test_an_opened_index_is_searched_as_itself_with_its_metadata(tmp_path):
    docs = [Passage("a", "Alpha", "apples and pears", extra={"file": "f.pdf"}), Passage("b", "Beta", "bananas")]
    index = CorpusIndex.build(docs, tmp_path / "idx", modes=["bm25"], show_progress=False)

    class Library:  # what a document library offers the factory: retriever(mode) with hits carrying `extra`
        def retriever(self, mode):
            return index.retriever(mode)

    retriever = build_retriever("corpus", mode="bm25", index=Library())
    assert isinstance(retriever, BM25Retriever) and retriever.search("pears", k=1)[0].docid == "a"


def test_candidates_hybrid_falls_back_to_bm25(tmp_path, caplog):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question_id": "q", "contexts": [{"idx": 0, "title": "T", "paragraph_text": "r"}]}))
    with caplog.at_level("WARNING"):
        retriever = build_retriever("candidates", mode="hybrid", candidates_path=path)
    assert retriever.mode == "bm25" and "hybrid is not available" in caplog.text
