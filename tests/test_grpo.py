"""GRPO (training/grpo.py, training/rollouts.py): rollouts of the real shipped model with real BM25 over the
candidates, the rewards on hand-made completions, and two GRPO steps through `accelerate launch`.

python -m pytest tests/test_grpo.py -q               # the slow test runs 2 GRPO steps (a few minutes on 2 cores)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rqrag.benchmarks.splits import load_split
from rqrag.text.answer_text import answer_f1 as core_f1
from rqrag.training.grpo import answer_f1, make_format_reward, retrieval_recall
from rqrag.training.rollouts import (
    MULTIHOP_SOURCES,
    PathSampler,
    RolloutSettings,
    candidate_retriever,
    completion_text,
    load_questions,
)
from rqrag.trajectory import Action, Step, parse_trajectory
from rqrag.trajectory_render import step_segments


REPO = Path(__file__).resolve().parent.parent
SHIPPED = "rqrag-smollm2-135m"


@pytest.fixture(scope="module")
def shipped():
    from transformers import AutoModelForCausalLM

    from rqrag.models import load_tokenizer, resolve_model

    path = resolve_model(SHIPPED)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    return model, load_tokenizer(path)


# ------------------------------------------------------------------------------------------------ questions


def test_questions_are_training_ids_only_with_gold_titles():
    questions = load_questions([f"{source}:5" for source in MULTIHOP_SOURCES])
    assert len(questions) == 15
    for q in questions:
        split = load_split(q.source)
        source_id = q.uid.split(":", 1)[1]
        assert source_id in split.train and source_id not in split.eval
        assert q.answers and q.supporting_titles
        assert set(q.supporting_titles) <= {p["title"] for p in q.example.pool}
    with pytest.raises(ValueError, match="candidate paragraphs"):
        load_questions(["asqa:2"])


# -------------------------------------------------------------------------------------------------- rewards


def test_the_reward_and_the_eval_score_answers_with_the_one_f1_by_hand():
    from rqrag.eval.metrics import f1 as eval_f1

    assert eval_f1 is core_f1  # one definition (rqrag.text.answer_text), not two copies that could drift
    cases = [
        ("James Cameron", ["James Cameron"], 1.0),
        ("the director James Cameron", ["James Cameron", "Cameron"], 0.8),  # "the" dropped: 2 of 3 words, 2 of 2
        ("yes", ["no"], 0.0),
        ("yes it is", ["yes"], 0.0),  # yes/no only by exact match (HotpotQA's script)
        ("", ["Paris"], 0.0),
        ("Paris, France", ["paris"], 2 / 3),
        ("Lima", ["Peru"], 0.0),
    ]
    for prediction, golds, expected in cases:
        assert core_f1(prediction, golds) == pytest.approx(expected), prediction


def test_answer_f1_reward():
    rewards = answer_f1(
        completions=[None] * 4,
        final_answer=["Paris", "", "the city of Paris", "Lima"],
        answers=[["Paris"], ["Paris"], ["Paris", "Paris, France"], ["Paris"]],
    )
    assert rewards == pytest.approx([1.0, 0.0, 2 * (1 / 3) * 1 / (1 / 3 + 1), 0.0])


def test_retrieval_recall_reward():
    rewards = retrieval_recall(
        completions=[None] * 4,
        titles_found=[["A", "X"], [], ["B", "A", "C"], ["A"]],
        supporting_titles=[["A", "B"], ["A", "B"], ["A", "B"], []],
    )
    assert rewards == [0.5, 0.0, 1.0, 0.0]


def test_format_reward_on_hand_made_completions(smollm2_tokenizer):
    from rqrag.special_tokens import add_special_tokens

    tok = smollm2_tokenizer
    add_special_tokens(tok)
    evidence = "\n[R_Evidences]Title: Titanic\nText: Directed by James Cameron.[/R_Evidences]\n"
    good = "[S_Decomposed_Query] Who directed Titanic?[EOS]" + evidence + "[A_Response] James Cameron[EOS]<|im_end|>"
    texts = [
        good,
        "[A_Response] James Cameron[EOS]<|im_end|>",  # a direct answer is well formed too
        good.replace("Titanic?[EOS]", "Titanic?"),  # query without [EOS]
        "[S_Decomposed_Query] [EOS]" + evidence + "[A_Response] James Cameron[EOS]",  # empty query
        "[S_Decomposed_Query] Who directed Titanic?[EOS]" + evidence,  # no answer
        good.replace("<|im_end|>", " and more words"),  # text after the answer
        "James Cameron",  # no action token at all
    ]
    ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    metrics = {}
    rewards = make_format_reward(tok)(
        completions=[None] * len(ids),
        completion_ids=ids,
        log_metric=metrics.__setitem__,
        searches=[1, 0, 1, 1, 1, 1, 0],
        rollout_status=["answered", "answered", "malformed", "malformed", "out_of_budget", "answered", "malformed"],
    )
    assert rewards == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert metrics["rollout/searches"] == pytest.approx(5 / 7)
    assert metrics["rollout/answered"] == pytest.approx(3 / 7)


# ------------------------------------------------------------------------------------------------- rollouts


@pytest.mark.slow
def test_rollout_of_the_shipped_model_masks_exactly_the_evidence(shipped):
    model, tok = shipped
    questions = load_questions(["hotpotqa:1", "musique:1"])
    settings = RolloutSettings(max_searches=2, temperature=0.8)
    sampler = PathSampler(tok, questions, candidate_retriever(questions), settings)
    torch.manual_seed(0)
    prompts = [[{"role": "user", "content": q.text}] for q in questions for _ in range(3)]
    rollouts = sampler.sample(model, prompts)
    assert [r.question for r in rollouts] == [q for q in questions for _ in range(3)]
    answered = [r for r in rollouts if r.status == "answered"]
    assert len(answered) >= 3, [r.status for r in rollouts]
    assert any(r.queries for r in answered)

    for r in rollouts:
        n = len(r.completion_ids)
        assert len(r.env_mask) == n == len(r.logprobs) and n <= settings.max_completion_length
        assert all(lp == 0.0 for lp, m in zip(r.logprobs, r.env_mask) if m == 0)
        assert all(lp < 0.0 for lp, m in zip(r.logprobs, r.env_mask) if m == 1)

    for r in answered:
        # The completion decodes to a well-formed trajectory whose searches are the ones the rollout ran ...
        parsed = parse_trajectory(completion_text(tok, r.completion_ids))
        assert parsed.well_formed and parsed.trajectory.answer == r.answer, parsed
        assert [text for _, text in parsed.trajectory.queries] == r.queries
        # ... and env_mask is 0 on exactly the evidence blocks of those searches (rendered as training renders
        # them), the [A_Response] the rollout forced once the searches were spent, and the closing <|im_end|>.
        runs, run = [], []
        for token, model_wrote in zip(r.completion_ids, r.env_mask):
            if model_wrote and run:
                runs.append(tok.decode(run))
                run = []
            elif not model_wrote:
                run.append(token)
        runs.append(tok.decode(run))
        expected = [
            "".join(seg.text for seg in step_segments(Step(Action.DECOMPOSE, "x", hits)) if seg.part == "evidence")
            for hits in r.evidence
        ]
        if r.forced_answer:
            assert r.queries, "a forced answer comes after a search"
            expected[-1] += Action.ANSWER.value
        assert runs == [*expected, "<|im_end|>"]
        assert expected[0].startswith("\n[R_Evidences]Title: ") if expected else True
        # What the model wrote holds no evidence: its action tokens, queries, [EOS]s and the answer.
        model_text = tok.decode([t for t, m in zip(r.completion_ids, r.env_mask) if m])
        assert "[R_Evidences]" not in model_text and model_text.count("[EOS]") == len(r.queries) + 1

    # The logprobs are the policy's own: one teacher-forced forward pass scores the sampled tokens the same.
    for r in rollouts[:2]:
        ids = torch.tensor([r.prompt_ids + r.completion_ids])
        with torch.no_grad():
            logits = model(ids).logits[0, len(r.prompt_ids) - 1 : -1].float() / settings.temperature
        forward = torch.log_softmax(logits, -1).gather(-1, ids[0, len(r.prompt_ids) :, None]).squeeze(-1)
        model_wrote = torch.tensor(r.env_mask, dtype=torch.bool)
        assert torch.allclose(torch.tensor(r.logprobs)[model_wrote], forward[model_wrote], atol=2e-3)


# ------------------------------------------------------------------------------------------------ training


@pytest.mark.slow
@pytest.mark.heavy  # a whole training run (minutes on 2 cores): make test-heavy, and CI
def test_two_grpo_steps_log_rewards_and_save_a_loadable_model(tmp_path):
    out = tmp_path / "grpo"
    command = [
        str(Path(sys.executable).parent / "accelerate"), "launch", "--config_file", "configs/accelerate/cpu.yaml",
        "--num_cpu_threads_per_process", "1",  # 2 threads on 2 shared cores ran 10x slower (busy-waiting)
        "training/grpo.py", "--config", "configs/train/grpo_smollm2_135m_cpu.yaml",
        "--sources", "hotpotqa:2", "musique:2", "--max_steps", "2", "--output_dir", str(out), "--save_steps", "100",
        # Groups of 2 paths, 2 questions a step: half the config's rollouts, the same 4 questions in 2 steps.
        "--num_generations", "2", "--per_device_train_batch_size", "2",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-4000:]

    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["steps"] == 2 and summary["questions"] == 4
    logged = [e for e in summary["log_history"] if "reward" in e]
    assert len(logged) == 2
    for entry in logged:
        for name in ("answer_f1", "retrieval_recall", "trajectory_format"):
            assert 0.0 <= entry[f"rewards/{name}/mean"] <= 1.0
        assert entry["rollout/searches"] >= 0
    for name in ("reward.png", "resolved_config.yaml", "adapter_model.safetensors", "tokenizer.json"):
        assert (out / name).is_file(), name
    assert json.loads((out / "adapter_config.json").read_text())["base_model_name_or_path"] == SHIPPED
    print("train_runtime per step (s):", summary["log_history"][-1]["train_runtime"] / 2)

    # The output folder loads as a model (merged over the shipped one), and the update moved it off the start.
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    from rqrag.models import resolve_model

    lora = load_file(str(out / "adapter_model.safetensors"))
    assert any(name.endswith("lora_B.weight") and t.abs().max() > 0 for name, t in lora.items())
    merged = resolve_model(str(out))
    assert merged != str(out) and Path(merged, "config.json").is_file()
    tuned = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32)
    start = AutoModelForCausalLM.from_pretrained(resolve_model(SHIPPED), dtype=torch.float32)
    tuned_weights, start_weights = tuned.state_dict(), start.state_dict()
    assert tuned_weights.keys() == start_weights.keys()
    assert any(not torch.equal(tuned_weights[k], start_weights[k]) for k in start_weights)
