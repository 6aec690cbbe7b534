"""CandidateRetriever: every query sees only its own question's paragraphs, in every record format."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.candidate_paragraphs import CandidateRetriever


# Two questions whose pools both talk about rivers; q2's pool matches "river Danube" far better, so a
# retriever that leaked across questions would return q2's paragraphs for q1's query.
IRCOT_RECORDS = [
    {
        "question_id": "q1",
        "question_text": "Which river flows through Paris?",
        "contexts": [
            {"idx": 0, "title": "Paris", "paragraph_text": "Paris lies on the river Seine.", "is_supporting": True},
            {
                "idx": 1,
                "title": "Lyon",
                "paragraph_text": "Lyon is at the confluence of two rivers.",
                "is_supporting": False,
            },
            {"idx": 2, "title": "Cheese", "paragraph_text": "Brie is a soft cheese.", "is_supporting": False},
        ],
    },
    {
        "question_id": "q2",
        "question_text": "Which capitals does the Danube pass?",
        "contexts": [
            {
                "id": "7",
                "title": "Danube",
                "paragraph_text": "The river Danube river river passes Vienna.",
                "is_supporting": True,
            },
            {
                "id": "8",
                "title": "Budapest",
                "paragraph_text": "Budapest straddles the Danube.",
                "is_supporting": True,
            },
        ],
    },
]
MUSIQUE_RECORD = {
    "id": "2hop__1_2",
    "paragraphs": [
        {
            "idx": 0,
            "title": "Stanley",
            "paragraph_text": "Stanley is the seat of Mountrail County.",
            "is_supporting": True,
        },
        {"idx": 1, "title": "Port Blair", "paragraph_text": "Port Blair is a capital.", "is_supporting": False},
    ],
}
HOTPOT_ORIGINAL_RECORD = {
    "_id": "5a8b",
    "context": [["Shirley Temple", ["Shirley Temple was an actress.", " She was a diplomat."]], ["Kiss", ["A film."]]],
    "supporting_facts": [["Shirley Temple", 0], ["Shirley Temple", 1]],
}


@pytest.fixture
def candidates() -> CandidateRetriever:
    return CandidateRetriever.from_records([*IRCOT_RECORDS, MUSIQUE_RECORD, HOTPOT_ORIGINAL_RECORD])


def test_docids_and_supporting_paragraphs_per_format(candidates):
    assert [d.docid for d in candidates.pools["q1"]] == ["q1::0", "q1::1", "q1::2"]
    assert [d.docid for d in candidates.pools["q2"]] == ["q2::7", "q2::8"]
    assert candidates.supporting_docids("q1") == {"q1::0"}
    assert candidates.supporting_docids("q2") == {"q2::7", "q2::8"}
    assert candidates.supporting_docids("2hop__1_2") == {"2hop__1_2::0"}
    assert candidates.supporting_docids("5a8b") == {"5a8b::0"}
    assert candidates.pools["5a8b"][0].text == "Shirley Temple was an actress. She was a diplomat."


def test_a_query_never_returns_another_questions_paragraph(candidates):
    queries = ["river Danube", "river Danube", "river Danube", "capital"]
    qids = ["q1", "q2", "2hop__1_2", "q1"]
    results = candidates.batch_search(queries, k=5, qids=qids)
    for qid, hits in zip(qids, results):
        assert all(h.docid.startswith(f"{qid}::") for h in hits)
    assert [h.docid for h in results[0]] == ["q1::0", "q1::1"]  # "river" and (stemmed) "rivers" in q1's pool
    assert results[1][0].docid == "q2::7"
    assert results[2] == [] and results[3] == []  # nothing in those pools matches


def test_bm25_scores_use_the_pool_alone(candidates):
    """IDF comes from the question's own paragraphs, as with a per-question index (IRCoT's setting)."""
    pool_only = BM25Retriever.from_passages(candidates.pools["q2"], show_progress=False)
    got = candidates.search("river Danube Vienna", k=2, qid="q2")
    want = pool_only.search("river Danube Vienna", k=2)
    assert [(h.docid, h.score) for h in got] == [(h.docid, h.score) for h in want]
    assert got[0].score > got[1].score > 0


def test_qids_are_required_and_must_be_known(candidates):
    with pytest.raises(RetrieverError, match="needs `qids`"):
        candidates.batch_search(["river"], k=1)
    with pytest.raises(RetrieverError, match="needs `qids`"):
        candidates.search("river", k=1)
    with pytest.raises(RetrieverError, match="unknown question id 'nope'"):
        candidates.batch_search(["river"], k=1, qids=["nope"])
    with pytest.raises(RetrieverError, match="unknown question id"):
        candidates.supporting_docids("nope")


def test_pool_indexes_are_built_lazily_once(candidates, monkeypatch):
    built = []
    original = BM25Retriever.from_passages.__func__

    def counting(cls, docs, **kwargs):
        built.append(docs[0].docid)
        return original(cls, docs, **kwargs)

    monkeypatch.setattr(BM25Retriever, "from_passages", classmethod(counting))
    candidates.batch_search(["river", "seine"], k=1, qids=["q1", "q1"])
    candidates.batch_search(["river"], k=1, qids=["q1"])
    assert built == ["q1::0"]


def test_plain_pools_and_duplicate_ids(candidates):
    plain = CandidateRetriever({"x": candidates.pools["q1"]})
    assert plain.search("Seine", k=1, qid="x")[0].docid == "q1::0"
    assert plain.supporting_docids("x") == set()
    with pytest.raises(ValueError, match="twice"):
        CandidateRetriever.from_records([IRCOT_RECORDS[0], IRCOT_RECORDS[0]])


def test_from_file_reads_jsonl_and_json_array(tmp_path):
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in IRCOT_RECORDS))
    array = tmp_path / "r.json"
    array.write_text(json.dumps([MUSIQUE_RECORD]))
    assert set(CandidateRetriever.from_file(jsonl).pools) == {"q1", "q2"}
    assert set(CandidateRetriever.from_file(array).pools) == {"2hop__1_2"}


def test_real_hotpotqa_file_finds_gold_paragraphs():
    from rqrag.benchmarks.files import slice_path

    path = slice_path("hotpotqa")  # the HotpotQA records shipped in the package
    records = [json.loads(line) for line in path.open()][:50]
    retriever = CandidateRetriever.from_records(records)
    results = retriever.batch_search(
        [r["question_text"] for r in records], k=2, qids=[r["question_id"] for r in records]
    )
    recall = np.mean(
        [
            len({h.docid for h in hits} & retriever.supporting_docids(r["question_id"])) / 2
            for r, hits in zip(records, results)
        ]
    )
    assert recall > 0.5  # BM25 top-2 over the 10 candidates recovers most gold paragraphs


@pytest.mark.slow
def test_dense_mode_scores_are_cosines_within_the_pool(minilm_encoder):
    retriever = CandidateRetriever.from_records(IRCOT_RECORDS, mode="dense", encoder=minilm_encoder)
    query = "Which river flows through Paris?"
    hits = retriever.batch_search([query, query], k=3, qids=["q1", "q2"])
    assert [h.docid.split("::")[0] for h in hits[0]] == ["q1"] * 3
    assert [h.docid.split("::")[0] for h in hits[1]] == ["q2"] * 2

    pool = retriever.pools["q1"]
    docs = minilm_encoder.encode([f"{d.title}\n{d.text}" for d in pool])
    q = minilm_encoder.encode([query])[0]
    cosines = docs @ q / (np.linalg.norm(docs, axis=1) * np.linalg.norm(q))
    expected = sorted(zip([d.docid for d in pool], cosines.tolist()), key=lambda item: -item[1])
    assert [h.docid for h in hits[0]] == [d for d, _ in expected]
    assert [h.score for h in hits[0]] == pytest.approx([s for _, s in expected], abs=1e-5)
    assert hits[0][0].docid == "q1::0"
