"""GRPO for an RQ-RAG generator with TRL: each completion is a sampled path of the tree, searched for real.

    accelerate launch --config_file configs/accelerate/cpu.yaml training/grpo.py \
        --config configs/train/grpo_smollm2_135m_cpu.yaml
    accelerate launch --config_file configs/accelerate/deepspeed_zero3.yaml training/grpo.py \
        --config configs/train/grpo_llama2_7b_gpu.yaml
    python training/grpo.py --config configs/train/grpo_smollm2_135m_cpu.yaml --max_steps 2   # no accelerate needed

Arguments are TRL's own `GRPOConfig` (training, sampling, `num_generations`, `max_completion_length`) and
`ModelConfig` (model, LoRA), plus `ScriptArguments` (questions, retrieval, reward weights); `--config YAML` sets
them and command-line flags override it (`TrlParser`).

What this adds to TRL's GRPOTrainer:
- the dataset is TRAIN-id multi-hop questions (HotpotQA, 2Wiki, MuSiQue; `rqrag/benchmarks/splits/`) with their
  answers, supporting titles and candidate paragraphs;
- `rollout_func` samples one path of the tree per completion with the current policy and BM25 over the
  question's candidates (`training/rollouts.py`): evidence and the forced `[A_Response]` are env_mask 0, so the
  loss covers only what the model wrote;
- three rewards, each logged under its name (`rewards/<name>/mean`), weighted by `--*_weight`:
  `answer_f1` (final answer against the gold answers), `retrieval_recall` (share of the gold paragraphs' titles
  the path's searches retrieved) and `trajectory_format` (parses as an `ok` trajectory that ends with an answer);
- the start is a model that already speaks the trajectory language (default: the shipped
  `rqrag-smollm2-135m`, merged by `rqrag.models.resolve_model`), and a FRESH LoRA is trained on top of it. Why
  fresh rather than continuing the shipped adapter: the merged model is exactly the starting policy, so with
  `beta > 0` TRL's reference is that model by disabling the adapter (no second copy), the special-token rows need
  no training here (they are learned already), and the output adapter names its base as given
  (`rqrag-smollm2-135m`), so `rqrag ask --model <output_dir>` merges it over the shipped model like any adapter;
- `resolved_config.yaml`, `train_summary.json` and `reward.png` (mean reward and each reward per step).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path


logger = logging.getLogger("rqrag.training.grpo")


@dataclass
class ScriptArguments:
    sources: list[str] = field(
        default_factory=lambda: ["hotpotqa", "2wikimultihopqa", "musique"],
        metadata={"help": "multi-hop sources, `name` or `name:limit`; only their TRAIN ids are read"},
    )
    docs_per_search: int = field(default=3, metadata={"help": "k: paragraphs a search returns (BM25, candidates)"})
    max_searches: int = field(default=2, metadata={"help": "searches per rollout before the answer is forced"})
    evidence_max_words: int = field(
        default=60, metadata={"help": "cut each evidence passage to N words (as sft and the decoder), 0 = whole"}
    )
    max_step_tokens: int = field(default=48, metadata={"help": "tokens a query or an answer may take, with [EOS]"})
    answer_f1_weight: float = field(default=1.0, metadata={"help": "weight of the answer F1 reward"})
    retrieval_recall_weight: float = field(default=0.5, metadata={"help": "weight of the gold-paragraph recall"})
    format_weight: float = field(default=0.2, metadata={"help": "weight of the well-formed trajectory reward"})


# ------------------------------------------------------------------------------------------------- rewards


def answer_f1(completions, final_answer, answers, **kwargs) -> list[float]:
    """Token F1 of the rollout's final answer against the gold answers; 0 for a rollout with no answer."""
    from rqrag.text.answer_text import answer_f1 as f1

    return [f1(prediction, golds) if prediction else 0.0 for prediction, golds in zip(final_answer, answers)]


def retrieval_recall(completions, titles_found, supporting_titles, **kwargs) -> list[float]:
    """Share of the question's gold paragraphs (by title) that any of the rollout's searches returned."""
    scores = []
    for found, gold in zip(titles_found, supporting_titles):
        gold = set(gold)
        scores.append(len(gold & set(found)) / len(gold) if gold else 0.0)
    return scores


def make_format_reward(tokenizer):
    """1.0 for a completion that parses as an `ok` trajectory ending with a non-empty answer and [EOS], else 0."""
    from rqrag.training.rollouts import completion_text
    from rqrag.trajectory import parse_trajectory

    def trajectory_format(completions, completion_ids, log_metric=None, **kwargs) -> list[float]:
        scores = []
        for ids in completion_ids:
            parsed = parse_trajectory(completion_text(tokenizer, ids))
            scores.append(float(parsed.well_formed and parsed.trajectory.is_complete))
        if log_metric is not None and "searches" in kwargs:
            log_metric("rollout/searches", sum(kwargs["searches"]) / max(len(kwargs["searches"]), 1))
            statuses = kwargs.get("rollout_status", [])
            log_metric("rollout/answered", sum(s == "answered" for s in statuses) / max(len(statuses), 1))
        return scores

    return trajectory_format


# ------------------------------------------------------------------------------------------------- outputs


def plot_rewards(log_history: list[dict], path: Path) -> Path | None:
    """Mean (weighted) reward per logged step and its running mean, with each reward function's mean beside it.

    `scripts/plot_grpo_rewards.py` draws it from a checkpoint's `trainer_state.json`, for a run still going."""
    points = [e for e in log_history if "reward" in e and "step" in e]
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    steps = [e["step"] for e in points]
    rewards = [float(e["reward"]) for e in points]
    ax.plot(steps, rewards, "k-", linewidth=1, alpha=0.5, label="reward (weighted sum)")
    # Two questions a step make each point noisy; the trend is the running mean of the last `window` steps.
    window = min(10, len(rewards))
    running = [
        sum(rewards[max(0, i - window + 1) : i + 1]) / (i + 1 - max(0, i - window + 1)) for i in range(len(rewards))
    ]
    ax.plot(steps, running, "k-", linewidth=2.5, label=f"reward, mean of the last {window} steps")
    names = sorted({k for e in points for k in e if k.startswith("rewards/") and k.endswith("/mean")})
    for name in names:
        ax.plot(steps, [e.get(name, float("nan")) for e in points], "-", alpha=0.7, label=name.split("/")[1])
    ax.set_xlabel("step")
    ax.set_ylabel("mean reward over the step's rollouts")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _reward_weights(script_args, training_args) -> list[float]:
    weights = [script_args.answer_f1_weight, script_args.retrieval_recall_weight, script_args.format_weight]
    if training_args.reward_weights not in (None, weights):
        raise ValueError(
            "set the reward weights with --answer_f1_weight, --retrieval_recall_weight and --format_weight, "
            f"not --reward_weights {training_args.reward_weights}"
        )
    return weights


# ---------------------------------------------------------------------------------------------------- main


def build_trainer(script_args, training_args, model_args):
    """The GRPOTrainer with its questions, rollout and rewards (separate from `main` for tests)."""
    import torch
    from datasets import Dataset
    from trl import GRPOTrainer, get_peft_config
    from trl.models.utils import unwrap_model_for_generation

    from rqrag.training.rollouts import (
        PathSampler,
        RolloutSettings,
        candidate_retriever,
        load_questions,
        rollout_output,
    )
    from rqrag.training.sft import build_model_and_tokenizer

    model, tokenizer, _ = build_model_and_tokenizer(model_args, training_args)
    questions = load_questions(script_args.sources)
    if not questions:
        raise ValueError(f"no training questions in {script_args.sources}")
    dataset = Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": q.text}],
                "uid": q.uid,
                "answers": list(q.answers),
                "supporting_titles": list(q.supporting_titles),
            }
            for q in questions
        ]
    )
    settings = RolloutSettings(
        docs_per_search=script_args.docs_per_search,
        max_searches=script_args.max_searches,
        evidence_max_words=script_args.evidence_max_words,
        max_step_tokens=script_args.max_step_tokens,
        max_completion_length=training_args.max_completion_length,
        temperature=training_args.temperature,
        top_p=training_args.top_p,
        top_k=training_args.top_k,
    )
    sampler = PathSampler(tokenizer, questions, candidate_retriever(questions), settings)

    def rollout(prompts, trainer) -> dict:
        # Prompts arrive already repeated num_generations times (TRL's RepeatSampler): one path each.
        with (
            unwrap_model_for_generation(
                trainer.model_wrapped,
                trainer.accelerator,
                gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
            ) as policy,
            trainer.accelerator.autocast(),  # the precision the loss is computed in (bf16 autocast on CPU)
            torch.no_grad(),
        ):
            was_training = policy.training
            policy.eval()
            started = time.perf_counter()
            paths = sampler.sample(policy, prompts)
            policy.train(was_training)
        logger.info(
            "%d rollouts in %.1f s: %d tokens written by the model, %d by the environment",
            len(paths),
            time.perf_counter() - started,
            sum(sum(p.env_mask) for p in paths),
            sum(len(p.env_mask) - sum(p.env_mask) for p in paths),
        )
        return rollout_output(paths)

    training_args.reward_weights = _reward_weights(script_args, training_args)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[answer_f1, retrieval_recall, make_format_reward(tokenizer)],
        args=training_args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
        rollout_func=rollout,
    )
    logger.info("GRPO over %d training questions from %s", len(questions), script_args.sources)
    return trainer, tokenizer, len(questions)


def main(script_args, training_args, model_args) -> None:
    from rqrag.config_loader import save_resolved_config
    from rqrag.training.sft import _checkpoint_to_resume, point_adapter_at, save_train_summary

    trainer, tokenizer, n_questions = build_trainer(script_args, training_args, model_args)
    trainer.train(resume_from_checkpoint=_checkpoint_to_resume(training_args))

    output_dir = Path(training_args.output_dir)
    if trainer.accelerator.is_main_process:
        # The adapter alone: its base (the merged starting model) already holds the special-token rows.
        unwrapped = trainer.accelerator.unwrap_model(trainer.model)
        if model_args.use_peft:
            unwrapped.save_pretrained(str(output_dir), save_embedding_layers=False)
        else:
            trainer.save_model(str(output_dir))
        tokenizer.save_pretrained(output_dir)
        point_adapter_at(output_dir, model_args.model_name_or_path)
        save_resolved_config(output_dir, "training/grpo.py", script_args, training_args, model_args)
        plot_rewards(trainer.state.log_history, output_dir / "reward.png")
        save_train_summary(output_dir, trainer.state, questions=n_questions)
        logger.info("saved %s", output_dir)


def make_parser():
    from trl import GRPOConfig, ModelConfig, TrlParser

    return TrlParser((ScriptArguments, GRPOConfig, ModelConfig))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is experimental in TRL 1.16: known
    from rqrag.training.cpu_precision import parse_with_cpu_precision

    script_args, training_args, model_args = parse_with_cpu_precision(make_parser())
    main(script_args, training_args, model_args)
