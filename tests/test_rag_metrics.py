"""Ragas metrics of a run file: sample extraction, retrieval ranks, and a real judged run on a local server."""

from __future__ import annotations

import json

import pytest

from rqrag.eval.rag_metrics import main, retrieval_summary, samples_from_run


def _record(qid, prediction, evidence, ranks=None):
    steps = [{"action": "rewrite", "text": "q", "evidence": evidence}, {"action": "answer", "text": prediction}]
    record = {
        "id": qid,
        "question": f"question {qid}?",
        "gold": {"answers": ["Chief of Protocol", "chief"]},
        "prediction": prediction,
        "strategy": "ppl",
        "selected": {"ppl": 1} if prediction else {},
        "trajectories": [{"answer": "other", "steps": []}, {"answer": prediction, "steps": steps}],
    }
    if ranks is not None:
        record["retrieval"] = {"recall": 0.5, "recall_max": 0.5, "ranks": ranks}
    return record


EVIDENCE = [
    {
        "docid": "d1",
        "title": "Shirley Temple",
        "text": "She served as Chief of Protocol of the United States.",
        "score": 1.0,
    },
    {"docid": "d2", "title": "Kiss and Tell", "text": "A 1945 film starring Shirley Temple.", "score": 0.5},
]


def _write_run(path):
    lines = [
        json.dumps(_record("a", "Chief of Protocol", EVIDENCE, ranks=[1])),
        "{torn line",
        json.dumps(_record("b", None, [], ranks=[None])),
        json.dumps(_record("c", "ambassador", EVIDENCE[1:], ranks=[2, None])),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_samples_take_the_selected_trajectory_and_count_the_rest(tmp_path):
    samples, counts = samples_from_run(_write_run(tmp_path / "predictions.jsonl"))
    assert counts == {"records": 3, "unanswered": 1, "malformed_lines": 1}
    assert [s.id for s in samples] == ["a", "c"]
    assert samples[0].contexts == [f"{h['title']}: {h['text']}" for h in EVIDENCE]
    assert samples[0].reference == "Chief of Protocol" and samples[1].answer == "ambassador"
    # Ranks of the scored samples only: [1] and [2, None] -> MR 1.5, MRR (1 + 0.5 + 0) / 3, P@1 1/3
    summary = retrieval_summary(samples)
    assert summary["searches"] == 3
    assert summary["mr"] == pytest.approx(1.5)
    assert summary["mrr"] == pytest.approx(0.5)
    assert summary["p@1"] == pytest.approx(1 / 3)


def _judge_requests(root_url: str) -> float:
    """Finished requests of the vLLM judge, from its Prometheus /metrics."""
    import httpx

    text = httpx.get(f"{root_url}/metrics", timeout=10).text
    return sum(
        float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("vllm:request_success_total{")
    )


@pytest.mark.slow
@pytest.mark.vllm
@pytest.mark.heavy
def test_ragas_with_the_local_judge(tmp_path, openai_server):
    run = _write_run(tmp_path / "predictions.jsonl")
    before = _judge_requests(openai_server.root_url)
    code = main(
        [
            "--run", str(run), "--judge_base_url", openai_server.base_url, "--judge_model", openai_server.served_name,
            "--metrics", "answer_relevancy", "faithfulness", "semantic_similarity",
        ]
    )  # fmt: skip
    assert code == 0
    after = _judge_requests(openai_server.root_url)
    report = json.loads((tmp_path / "rag_metrics.json").read_text())
    assert report["scored"] == 2 and report["unanswered"] == 1
    assert set(report["ragas"]) == {"answer_relevancy", "faithfulness", "semantic_similarity"}
    # The judge-free metric must score every sample: a run that judged nothing fails here.
    similarity = report["ragas"]["semantic_similarity"]
    assert similarity["judged"] == 2 and 0.0 < similarity["mean"] <= 1.0
    for name, entry in report["ragas"].items():
        assert entry["of"] == 2 and 0 <= entry["judged"] <= 2
        if entry["judged"]:
            assert 0.0 <= entry["mean"] <= 1.0, name
    # The two LLM metrics really asked the judge, at least once per sample each. Whether a 135M judge writes
    # parsable JSON depends on the sample (measured: SmolLM2 and Gemma-3-270M base both loop inside the JSON,
    # with or without guided decoding); a botched reply becomes an unjudged sample, never a crash.
    assert after - before >= 2 * 2
    rows = [json.loads(line) for line in (tmp_path / "rag_metrics_samples.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "c"]
    assert (tmp_path / "rag_metrics_config" / "resolved_config.yaml").is_file()
