"""scripts/bench_retrieval.py run end to end on a small real index (BM25 + MiniLM + FAISS): every system is timed,
the JSON it writes holds each row, and the ratios are against raw bm25s of the same run."""

from __future__ import annotations

import json

import pytest
from script_modules import load_script

from rqrag.retrieval.corpus_index import CorpusIndex
from rqrag.retrieval.embedded import embedded_corpus_path
from rqrag.retrieval.passages import read_passages


bench = load_script("bench_retrieval")


@pytest.mark.slow
def test_the_benchmark_times_every_system_on_an_existing_index(tmp_path, capsys):
    passages, _ = read_passages(embedded_corpus_path())
    index_dir = tmp_path / "index"
    CorpusIndex.build(passages[:60], index_dir, modes=("bm25", "dense"), show_progress=False)
    out = tmp_path / "bench.json"

    assert bench.main(["--index", str(index_dir), "--queries", "4", "--repeats", "1", "--out", str(out)]) == 0

    results = json.loads(out.read_text())
    rows = results["search"]
    assert {"raw bm25s", "rqrag bm25", "rqrag dense", "rqrag hybrid", "hybrid: fusion only"} <= set(rows)
    assert rows["raw bm25s"]["ratio_to_raw_bm25s"] == 1.0
    assert all(row["seconds"] > 0 and row["queries_per_second"] > 0 for row in rows.values())
    assert results["queries"]["count"] == 4
    assert results["hybrid_over_raw_bm25s"] == rows["rqrag hybrid"]["ratio_to_raw_bm25s"]
    assert "build" not in results  # --index skips the build
    printed = capsys.readouterr().out
    assert "hybrid / raw bm25s" in printed and "(b) batch search" in printed
