"""One answering policy (`rqrag.answer.policy`): the CLI, the server, the Python API and `rqrag eval` answer a
question the same way with the same config, and no surface builds its own answering settings."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from rqrag.answer import AnsweringPolicy, DecodeConfig, EvidenceSource, searches_first
from rqrag.eval.systems import NO_RETRIEVAL, RQRAG, STANDARD_RAG, answer_settings
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage


ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Who wrote the novel Frankenstein?"
# One config for every surface: the shipped decoding, greedy queries (the same tree every run), one level deep.
DECODE = ["--config", "configs/decode/rqrag_trained.yaml", "--query_temperature", "0", "--max_depth", "1"]


def _retriever() -> BM25Retriever:
    return BM25Retriever.from_passages(
        [Passage("d", "Shelley", "Mary Shelley wrote Frankenstein.")], show_progress=False
    )


def test_answering_settings_are_built_only_inside_the_answer_package():
    built = re.compile(r"\bAnswerSettings\(")
    outside = [
        str(path.relative_to(ROOT))
        for folder in ("rqrag", "cli", "serve", "eval", "self_training", "review", "training", "inference", "scripts")
        if (ROOT / folder).is_dir()
        for path in (ROOT / folder).rglob("*.py")
        if built.search(path.read_text())
    ]
    assert outside == []


def test_a_users_library_or_memories_are_searched_first_and_nothing_else_is():
    retriever = _retriever()
    assert searches_first(EvidenceSource(retriever, object(), "documents"))
    assert searches_first(EvidenceSource(retriever, None, "memories"))
    assert searches_first(EvidenceSource(retriever, None, "corpus", personal=True))
    assert not searches_first(EvidenceSource(retriever, None, "corpus"))
    assert not searches_first(EvidenceSource(retriever, None, "candidates"))


def test_the_evaluated_system_answers_with_the_products_settings_and_baselines_differ_only_where_named():
    policy = AnsweringPolicy(DecodeConfig(max_depth=2))
    for source in (EvidenceSource(_retriever(), None, "corpus"), EvidenceSource(_retriever(), object(), "documents")):
        product = policy.settings(source, language="en")
        assert answer_settings(RQRAG, policy, source, "en") == product
        assert product.reader_search  # every reader reads the question's own search, on every surface
        standard = answer_settings(STANDARD_RAG, policy, source, "en")
        assert standard.search_first and standard.decode.max_depth == 0
        assert not answer_settings(NO_RETRIEVAL, policy, source, "en").search_first
    served = policy.settings(EvidenceSource(_retriever(), None, "corpus"), depth=1, strategy="vote")
    assert (served.decode.max_depth, served.decode.strategy) == (1, "vote")
    assert policy.config.max_depth == 2  # a request's choices change that call only


def _cli() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "rqrag.cli", "ask", QUESTION, *DECODE, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    return json.loads(out[out.index("\n{\n") + 1 :] if not out.startswith("{") else out)


def _served(tmp: Path) -> dict:
    from rqrag.serve.server.process import RQRAGServer

    flags = [*DECODE, "--batch_window_ms", "20"]
    with RQRAGServer(tmp, tmp / "chat.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"}) as server:
        reply = httpx.post(f"{server.base}/v1/ask", json={"question": QUESTION, "retriever": "corpus"}, timeout=600)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _evaluated(tmp: Path) -> dict:
    data = tmp / "question.jsonl"
    data.write_text(json.dumps({"id": 1, "question": QUESTION, "answers": ["Mary Shelley"]}) + "\n")
    out = tmp / "eval"
    command = [sys.executable, "-m", "rqrag.cli", "eval", "--config", "configs/eval/popqa.yaml", *DECODE[2:]]
    command += ["--data_file", str(data), "--systems", "rqrag", "--output_dir", str(out)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = (out / "rqrag" / "predictions.jsonl").read_text().splitlines()
    shown = json.loads(line)["grounded"]
    return {"answer": shown["answer"], "answer_kind": shown["kind"], "confidence": shown["confidence"]}


@pytest.mark.slow
@pytest.mark.heavy
def test_the_cli_the_server_and_eval_give_the_same_answer_kind_and_confidence(tmp_path):
    keys = ("answer", "answer_kind", "confidence")
    cli = {k: _cli()[k] for k in keys}
    served = {k: _served(tmp_path)[k] for k in keys}
    evaluated = _evaluated(tmp_path)
    assert cli["answer"] and cli["answer_kind"] in ("generated", "quoted", "unsourced", "no_answer")
    assert served == cli
    assert evaluated == cli
