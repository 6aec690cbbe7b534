"""FlashRAG beside ours (scripts/compare_flashrag.py): its index as shipped and corrected, and the whole comparison on
five questions. Runs only where the compare extra is installed (`make install-compare`); skipped otherwise.

python -m pytest tests/test_compare_flashrag.py -q -m heavy
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from script_modules import load_script


pytest.importorskip("flashrag", reason="the compare extra: make install-compare")

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "flashrag_wiki" / "corpus.jsonl"


@pytest.mark.slow
@pytest.mark.heavy
def test_flashrags_shipped_index_holds_characters_and_the_stemmed_one_finds_the_paragraph(tmp_path):
    """flashrag-dev 0.1.2 hands bm25s raw strings to index, so its vocabulary is single characters, while its
    retriever looks up stemmed words: the corrected index is built from the same stemmed words."""
    import bm25s
    import Stemmer

    side = load_script("flashrag_side")
    shipped = side.build_index(CORPUS, tmp_path / "shipped", bm25_stemmed=False)
    stemmed = side.build_index(CORPUS, tmp_path / "stemmed", bm25_stemmed=True)
    shipped_vocab = json.loads((shipped / "vocab.index.json").read_text())
    stemmed_vocab = json.loads((stemmed / "vocab.index.json").read_text())
    assert all(len(token) <= 1 for token in shipped_vocab)
    assert "direct" in stemmed_vocab and len(stemmed_vocab) > 10 * len(shipped_vocab)

    # A paragraph's own distinctive words find it first in the corrected index, as FlashRAG's retriever asks.
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    target = rows[17]["contents"]
    query = " ".join(target.split("\n", 1)[1].split()[:12])
    index = bm25s.BM25.load(str(stemmed), mmap=True, load_corpus=True)
    found, _ = index.retrieve(bm25s.tokenize([query], stemmer=Stemmer.Stemmer("english")), k=3)
    assert found[0][0]["contents"] == target


@pytest.mark.slow
@pytest.mark.heavy
def test_a_query_with_no_word_finds_nothing_and_the_rest_of_its_batch_is_searched(tmp_path):
    """RQ-RAG's tree searches every query it generates; bm25s refuses a whole batch whose first query has no token
    left (empty, or stop words only), which stopped FlashRAG's run: that query finds nothing, counted, the rest are
    searched."""
    from flashrag.utils import get_retriever

    from rqrag.models import resolve_model

    side = load_script("flashrag_side")
    index = side.build_index(CORPUS, tmp_path / "stemmed", bm25_stemmed=True)
    values = side.settings(
        model_path=resolve_model("smollm2-135m-instruct"), corpus=CORPUS, index=index, data_dir=tmp_path,
        task="hotpotqa", out=tmp_path / "runs", top_k=2, max_new_tokens=8, max_input_tokens=512,
    )  # fmt: skip
    retriever = side._Counted(get_retriever(side.make_config(values)))
    target = json.loads(CORPUS.read_text().splitlines()[17])["contents"]
    query = " ".join(target.split("\n", 1)[1].split()[:12])
    assert retriever.batch_search(["", "of the"], return_score=True) == ([[], []], [[], []])
    results = retriever.batch_search(["the", query])  # refused by bm25s: its first query has no token
    assert results[0] == [] and results[1][0]["contents"] == target
    results, scores = retriever.batch_search([query, "the"], return_score=True)  # bm25s's own answer, unchanged
    assert results[0][0]["contents"] == target and scores[1][0] == 0
    assert (retriever.searches, retriever.empty_queries) == (6, 3)


@pytest.mark.slow
@pytest.mark.heavy
def test_the_comparison_runs_on_five_questions_and_writes_one_table(tmp_path):
    out = tmp_path / "compare"
    command = [
        sys.executable,
        "scripts/compare_flashrag.py",
        "--tasks",
        "hotpotqa:5",
        "--out",
        str(out),
        "--no_written",
        "--flashrag_chunk",
        "2",
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-4000:]

    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    kinds = {(r["method"], r["toolkit"]) for r in rows}
    assert kinds == {
        ("naive", "FlashRAG"), ("standard_rag", "FlashRAG (as shipped)"), ("ircot", "FlashRAG (as shipped)"),
        ("standard_rag", "FlashRAG (index stemmed)"), ("ircot", "FlashRAG (index stemmed)"),
        ("naive", "rq-rag"), ("standard_rag", "rq-rag"), ("ircot", "rq-rag"), ("rqrag", "rq-rag (today's answer)"),
    }  # fmt: skip
    for r in rows:
        assert r["questions"] == 5
        assert 0 <= r["em"] <= r["f1"] <= 100 and 0 <= r["holds_gold"] <= 100, r  # an exact match is an F1 of 1
        assert r["tokens_per_question"] > 0 and r["seconds_per_question"] > 0, r
        expected_searches = {"naive": 0.0, "standard_rag": 1.0}.get(r["method"])
        if expected_searches is not None:
            assert r["searches_per_question"] == expected_searches, r
    table = (out / "table.md").read_text()
    assert "Ours over theirs" in table and "flashrag-dev 0.1.2" in table
    # Every FlashRAG prediction is kept, one per question, beside the settings and versions of the run.
    saved = json.loads((out / "flashrag" / "hotpotqa" / "ircot_stemmed_5.json").read_text())
    assert len(saved["predictions"]) == 5  # three chunks of at most 2, merged
    assert "flashrag-dev" in (out / "resolved_config.yaml").read_text()


@pytest.mark.slow
@pytest.mark.heavy
def test_a_killed_flashrag_run_goes_on_from_its_last_chunk_without_losing_or_repeating_a_question(tmp_path):
    """A FlashRAG pipeline runs a chunk of questions between saves; the next run leaves out those done."""
    from rqrag.eval.tasks import get_task
    from rqrag.models import resolve_model

    side = load_script("flashrag_side")
    examples, _ = get_task("hotpotqa").load(split="eval", limit=3)
    data_dir = side.write_questions(examples, tmp_path / "data" / "hotpotqa").parent
    values = side.settings(
        model_path=resolve_model("smollm2-135m-instruct"), corpus=CORPUS, index=tmp_path / "unused", data_dir=data_dir,
        task="hotpotqa", out=tmp_path / "runs", top_k=3, max_new_tokens=8, max_input_tokens=512,
    )  # fmt: skip
    config = side.make_config(values)
    first, generator, retriever = side.run_pipeline("naive", config, retriever=object(), chunk=2)  # then "killed"
    assert list(first.predictions) == [e.uid for e in examples[:2]]
    rest, _, _ = side.run_pipeline("naive", config, generator, retriever, done_ids=frozenset(first.predictions))
    assert list(rest.predictions) == [examples[2].uid]  # only what was missing
    run = side.merged(side.merged(None, first), rest)
    assert sorted(run["predictions"]) == sorted(e.uid for e in examples)
    assert run["generated_tokens"] == first.generated_tokens + rest.generated_tokens > 0
    assert run["searches"] == 0

    # A pipeline asked for some of the file's questions (RQ-RAG's rows on the first n) runs those and no other.
    some, _, _ = side.run_pipeline("naive", config, generator, retriever, only_ids=frozenset([examples[1].uid]))
    assert list(some.predictions) == [examples[1].uid]


@pytest.fixture(scope="module")
def raw_generator():
    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.models import resolve_model

    side = load_script("flashrag_rqrag")
    hf = HFGenerator.from_pretrained(resolve_model(side.shipped_model()), dtype="float32")
    return side.RawOutputGenerator(hf, hf.tokenizer, max_new_tokens=24, seed=2024), hf.tokenizer


@pytest.mark.slow
@pytest.mark.heavy  # the module needs the compare extra, which only `make test-heavy` installs
def test_the_rqrag_adapter_answers_flashrags_call_as_vllm_does(raw_generator):
    """FlashRAG's RQ-RAG pipeline reads `outputs[0].text` up to `[EOS]` (kept, as include_stop_str_in_output asks),
    `.token_ids` and `.logprobs[i][token_id].logprob`; greedy queries are the same on every call."""
    import math

    generator, tokenizer = raw_generator
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Which river flows through the capital of Portugal?"}],
        tokenize=False,
        add_generation_prompt=True,
    )
    params = {"temperature": 0, "top_p": 0.9, "stop": ["[EOS]", "</s>"], "max_tokens": 4096, "logprobs": 1}
    (query,) = generator.generate([prompt + "[S_Decomposed_Query]"], return_raw_output=True, **params)
    done = query.outputs[0]
    assert done.text.endswith("[EOS]") and done.token_ids[-1] == tokenizer.convert_tokens_to_ids("[EOS]")
    assert 1 < len(done.token_ids) <= 24  # the row's limit, not FlashRAG's 4,096
    probabilities = [math.exp(lp[t].logprob) for t, lp in zip(done.token_ids, done.logprobs, strict=True)]
    assert all(0 < p <= 1 for p in probabilities)
    (again,) = generator.generate([prompt + "[S_Decomposed_Query]"], return_raw_output=True, **params)
    assert again.outputs[0].token_ids == done.token_ids

    # Answers are sampled at temperature 1 (FlashRAG's setting): seeded, so a rerun draws the same answer.
    sampled = {**params, "temperature": 1}
    answers = [generator.generate([prompt + "[A_Response]"], return_raw_output=True, **sampled)[0] for _ in range(2)]
    assert answers[0].outputs[0].token_ids == answers[1].outputs[0].token_ids
    assert generator.generate([prompt + "[A_Response]"], **sampled)[0] == answers[0].outputs[0].text


@pytest.mark.slow
@pytest.mark.heavy
def test_flashrags_rqrag_pipeline_from_its_source_runs_on_a_question_both_ways(tmp_path):
    """Needs a checkout of FlashRAG's GitHub source (its RQ-RAG pipeline is not in flashrag-dev 0.1.2):
    FLASHRAG_SOURCE=/path/to/FlashRAG. Skipped without one."""
    import os

    source = os.environ.get("FLASHRAG_SOURCE")
    if not source:
        pytest.skip("FLASHRAG_SOURCE: a checkout of github.com/RUC-NLPIR/FlashRAG")
    out = tmp_path / "compare"
    command = [
        sys.executable, "scripts/compare_flashrag.py", "--tasks", "hotpotqa:1", "--out", str(out), "--sides", "flashrag",
        "--flashrag_source", source,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-4000:]
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    rqrag = {r["toolkit"]: r for r in rows if r["method"] == "rqrag"}
    assert set(rqrag) == {"FlashRAG (as shipped)", "FlashRAG (chat template)"}
    for r in rqrag.values():
        # a tree of depth 3: 13 nodes ask for 3 queries each, 40 answers; every query is searched
        assert r["searches_per_question"] == 39 and r["tokens_per_question"] > 0, r
    saved = json.loads((out / "flashrag" / "hotpotqa" / "rqrag_chat_1.json").read_text())
    assert len(saved["predictions"]) == 1
