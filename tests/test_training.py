"""Training: the loss mask, packing without cross-talk, `accelerate launch training/sft.py`, reload and resume.

python -m pytest tests/test_training.py -q
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rqrag.retrieval.base import Hit, shorten_hits
from rqrag.training.cpu_precision import cpu_computes_bf16
from rqrag.training.data import IGNORE_INDEX, tokenize_record
from rqrag.trajectory import Action, Step, Trajectory
from rqrag.trajectory_render import render_assistant, render_example


REPO = Path(__file__).resolve().parent.parent

FACTS = [
    ("Who directed Titanic?", "Titanic (1997 film)", "Titanic was directed by James Cameron.", "James Cameron"),
    ("Where is the Eiffel Tower?", "Eiffel Tower", "The Eiffel Tower stands in Paris, France.", "Paris"),
    ("Who wrote Dune?", "Dune (novel)", "Dune is a 1965 novel by Frank Herbert.", "Frank Herbert"),
    ("What is the capital of Peru?", "Lima", "Lima is the capital of Peru.", "Lima"),
]


def _record(i: int, question: str, title: str, text: str, answer: str) -> dict:
    action = [Action.REWRITE, Action.DECOMPOSE, Action.DISAMBIGUATE][i % 3]
    trajectory = Trajectory(
        (
            Step(
                action,
                question.rstrip("?"),
                (Hit(f"d{i}", title, text, 1.0), Hit(f"e{i}", "Other", "Unrelated text.", 0.5)),
            ),
            Step(Action.ANSWER, answer),
        )
    )
    messages = [{"role": "user", "content": question}, {"role": "assistant", "content": render_assistant(trajectory)}]
    return {"id": f"t{i}", "messages": messages, "trajectory": trajectory.to_dict()}


@pytest.fixture()
def tiny_dataset(tmp_path) -> Path:
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps(_record(i, *fact)) + "\n" for i, fact in enumerate(FACTS)))
    return path


def test_labels_mask_exactly_the_prompt_and_the_evidence(smollm2_tokenizer):
    tok = smollm2_tokenizer
    record = _record(1, *FACTS[0])
    features = tokenize_record(record, tok)
    ids, labels = features["input_ids"], features["labels"]
    assert len(ids) == len(labels)
    segments = render_example(tok, record["messages"][:-1], Trajectory.from_dict(record["trajectory"])).segments
    assert tok.decode(ids) == "".join(s.text for s in segments)
    # Token by token, segment by segment: supervised tokens carry their id, the others -100.
    position = 0
    for segment in segments:
        n = len(tok(segment.text, add_special_tokens=False)["input_ids"])
        expected = ids[position : position + n] if segment.supervise else [IGNORE_INDEX] * n
        assert labels[position : position + n] == expected, segment
        assert segment.supervise == (segment.part not in ("prompt", "evidence"))
        position += n
    assert position == len(ids)
    supervised = tok.decode([t for t, lab in zip(ids, labels) if lab != IGNORE_INDEX])
    assert supervised == "[S_Decomposed_Query] Who directed Titanic[EOS][A_Response] James Cameron[EOS]<|im_end|>\n"
    assert "James Cameron." not in supervised  # the evidence text is never a target


def test_evidence_max_words_cuts_only_the_evidence(smollm2_tokenizer):
    """The cut shortens the unsupervised evidence and leaves every supervised token as it was."""
    tok = smollm2_tokenizer
    record = _record(1, *FACTS[0])
    whole = tokenize_record(record, tok)
    cut = tokenize_record(record, tok, evidence_max_words=2)
    assert len(cut["input_ids"]) < len(whole["input_ids"])
    text = tok.decode(cut["input_ids"])
    assert "Text: Titanic was\n" in text and "directed by" not in text
    supervised = [[t for t, lab in zip(f["input_ids"], f["labels"]) if lab != IGNORE_INDEX] for f in (whole, cut)]
    assert supervised[0] == supervised[1]


def test_shorten_hits_keeps_identity_and_scores():
    hits = [Hit("a", "T", "one two three four", 2.0), Hit("b", "U", "five", 1.0)]
    assert shorten_hits(hits, None) == hits and shorten_hits(hits, 0) == hits
    assert shorten_hits(hits, 2) == [Hit("a", "T", "one two", 2.0), Hit("b", "U", "five", 1.0)]
    with pytest.raises(ValueError):
        shorten_hits(hits, -1)
    # A chunk of the user's documents keeps its page span when cut (sources cite it).
    (cut,) = shorten_hits([Hit("c", "manual.pdf", "one two three", 1.0, extra={"page_start": 7})], 2)
    assert isinstance(cut, Hit) and cut.extra == {"page_start": 7} and cut.text == "one two"


def test_a_record_without_a_trajectory_is_parsed_from_its_assistant_message(smollm2_tokenizer):
    record = _record(0, *FACTS[1])
    with_trajectory = tokenize_record(record, smollm2_tokenizer)
    del record["trajectory"]
    assert tokenize_record(record, smollm2_tokenizer) == with_trajectory


@pytest.mark.slow
def test_packed_batch_has_no_attention_across_examples(smollm2_dir):
    """TRL's padding-free collator + transformers' position-id masking == each example run alone."""
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    from rqrag.models import load_model_and_tokenizer

    model, tokenizer = load_model_and_tokenizer(smollm2_dir, add_rqrag_tokens=True)
    features = [tokenize_record(_record(i, *fact), tokenizer) for i, fact in enumerate(FACTS[:3])]
    batch = DataCollatorForLanguageModeling(pad_token_id=tokenizer.pad_token_id, padding_free=True)(features)
    assert batch["input_ids"].shape[0] == 1 and "attention_mask" not in batch
    with torch.no_grad():
        # use_cache=False as SFTTrainer passes it: transformers derives the block-diagonal mask from position_ids
        # only when there is no cache.
        packed = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"], use_cache=False).logits[0]
        start = 0
        for feature in features:
            n = len(feature["input_ids"])
            alone = model(input_ids=torch.tensor([feature["input_ids"]])).logits[0]
            assert torch.allclose(packed[start : start + n], alone, atol=2e-3), (
                "packed examples attended to each other"
            )
            start += n


@pytest.mark.slow
def test_labels_keep_the_mask_through_trl_packing_and_collation(tiny_dataset, tmp_path, smollm2_dir):
    """What the loss sees: a batch from SFTTrainer's own dataloader (bfd packing, padding-free collator) keeps
    -100 on every prompt and evidence token, exactly as `tokenize_record` set it, example by example."""
    from trl import SFTConfig, SFTTrainer

    from rqrag.models import load_model_and_tokenizer
    from rqrag.training.data import load_records, tokenize_dataset

    model, tokenizer = load_model_and_tokenizer(smollm2_dir, add_rqrag_tokens=True)
    records, _ = load_records(str(tiny_dataset))
    dataset = tokenize_dataset(records, tokenizer, max_length=1024)
    expected = {tuple(f["input_ids"]): f["labels"] for f in dataset}
    args = SFTConfig(
        output_dir=str(tmp_path / "out"), packing=True, packing_strategy="bfd", max_length=1024,
        per_device_train_batch_size=len(FACTS), use_cpu=True, report_to="none", dataloader_num_workers=0,
    )  # fmt: skip
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
    batch = next(iter(trainer.get_train_dataloader()))
    ids, labels, positions = (batch[k].view(-1).tolist() for k in ("input_ids", "labels", "position_ids"))
    starts = [i for i, p in enumerate(positions) if p == 0] + [len(ids)]
    seen = 0
    for start, end in zip(starts, starts[1:]):
        example = tuple(ids[start:end])
        assert example in expected, "a packed sequence is not one whole example"
        want = expected[example]
        # The collator may also mask each sequence's first token (a prompt token, masked already).
        assert labels[start + 1 : end] == want[1:]
        assert labels[start] == -100
        seen += 1
    assert seen == len(FACTS)
    supervised = tokenizer.decode([t for t, lab in zip(ids, labels) if lab != IGNORE_INDEX])
    assert "Unrelated text" not in supervised and "<|im_start|>user" not in supervised
    assert supervised.count("[A_Response]") == len(FACTS)


def _sft(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    command = [
        str(Path(sys.executable).parent / "accelerate"), "launch", "--config_file", "configs/accelerate/cpu.yaml",
        "--num_cpu_threads_per_process", "2",
        "training/sft.py", "--config", "configs/train/smollm2_135m_cpu.yaml", *args,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return done


@pytest.mark.slow
def test_accelerate_launch_trains_saves_reloads_and_resumes(tiny_dataset, tmp_path, smollm2_dir):
    out = tmp_path / "run"
    common = ["--dataset_path", str(tiny_dataset), "--output_dir", str(out), "--per_device_train_batch_size", "2"]
    common += ["--gradient_accumulation_steps", "1", "--save_steps", "1", "--logging_steps", "1"]
    _sft(*common, "--max_steps", "2")
    for name in ("adapter_model.safetensors", "token_rows.safetensors", "resolved_config.yaml", "loss.png"):
        assert (out / name).is_file(), name
    assert (out / "adapter_model.safetensors").stat().st_size < 20e6  # LoRA + 7 token rows, not the embeddings
    assert json.loads((out / "adapter_config.json").read_text())["base_model_name_or_path"] == "smollm2-135m-instruct"
    assert (out / "checkpoint-2" / "token_rows.safetensors").is_file()
    resolved = (out / "resolved_config.yaml").read_text()
    assert "git_commit" in resolved and "dataset_path" in resolved

    # The adapter folder loads like any model: merged once into the cache, special tokens intact and trained.
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rqrag.inference.backends.base import GenerationRequest, SamplingParams
    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.models import resolve_model
    from rqrag.trajectory import SPECIAL_TOKENS

    merged = resolve_model(str(out))
    assert merged != str(out) and Path(merged, "config.json").is_file()
    tokenizer = AutoTokenizer.from_pretrained(merged)
    model = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32)
    for token in SPECIAL_TOKENS:
        ids = tokenizer(token, add_special_tokens=False)["input_ids"]
        assert len(ids) == 1 and tokenizer.decode(ids) == token
    rows = load_file(str(out / "token_rows.safetensors"))
    embedding = model.get_input_embeddings().weight.detach()
    assert torch.allclose(embedding[rows["ids"]], rows["input"])
    assert not torch.allclose(rows["input"][0], rows["input"][1])  # trained apart from their common mean start
    # ... at their own learning rate (3e-3 in the config): Adam moves a coordinate ~lr per step, so two steps at
    # the adapter's 2e-4 could not move any coordinate 2e-3 from the mean start.
    mean_start = embedding[: int(rows["ids"].min())].mean(0)
    assert (rows["input"] - mean_start).abs().max() > 2e-3
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Who wrote Dune?"}], tokenize=False, add_generation_prompt=True
    )
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    (completion,) = HFGenerator(model, tokenizer).generate(
        [GenerationRequest(prompt_ids, SamplingParams(max_tokens=8))]
    )
    assert completion.token_ids

    # Resume from the last checkpoint: training continues at step 3, it does not restart.
    _sft(*common, "--max_steps", "3", "--resume_from_checkpoint", "true")
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["steps"] == 3
    assert [e["step"] for e in summary["log_history"] if "loss" in e][-1] == 3


@pytest.mark.slow
def test_loss_decreases_on_a_small_overfit_set(tiny_dataset, tmp_path):
    _sft(
        "--dataset_path", str(tiny_dataset), "--output_dir", str(tmp_path / "overfit"),
        "--max_steps", "12", "--learning_rate", "2e-3", "--per_device_train_batch_size", "4",
        "--gradient_accumulation_steps", "1", "--logging_steps", "1", "--save_strategy", "no", "--warmup_steps", "0",
    )  # fmt: skip
    history = json.loads((tmp_path / "overfit" / "train_summary.json").read_text())["log_history"]
    losses = [e["loss"] for e in history if "loss" in e]
    assert len(losses) == 12
    assert sum(losses[-3:]) / 3 < 0.5 * sum(losses[:3]) / 3, losses
    # The CPU config asks for bf16; it is kept only where this CPU computes in bf16 (700 s vs 62 s elsewhere).
    resolved = (tmp_path / "overfit" / "resolved_config.yaml").read_text()
    assert f"bf16: {str(cpu_computes_bf16()).lower()}" in resolved


def test_bf16_is_turned_off_only_on_a_cpu_that_emulates_it():
    from rqrag.training.cpu_precision import parse_with_cpu_precision
    from rqrag.training.grpo import make_parser as grpo_parser
    from rqrag.training.sft import make_parser as sft_parser

    for parser, config in ((sft_parser, "smollm2_135m_cpu"), (grpo_parser, "grpo_smollm2_135m_cpu")):
        argv = ["--config", f"configs/train/{config}.yaml", "--output_dir", "unused"]
        kept = parse_with_cpu_precision(parser(), argv, cpu_has_bf16=True)[1]
        emulated = parse_with_cpu_precision(parser(), argv, cpu_has_bf16=False)[1]
        assert kept.bf16 is True and emulated.bf16 is False, config
        assert emulated.learning_rate == kept.learning_rate and emulated.max_steps == kept.max_steps
    fp32 = ["--config", "configs/train/smollm2_135m_cpu.yaml", "--bf16", "false", "--output_dir", "unused"]
    assert parse_with_cpu_precision(sft_parser(), fp32, cpu_has_bf16=True)[1].bf16 is False
