"""The `original` prompt format: what the decoder feeds a model trained by the original RQ-RAG code equals, token for
token, what that code's own prompt strings give (chanchimin/RQ-RAG `retrieval_lm/utils.py` `preprocess_eval_data`,
`inference.py` `generate_tree_of_thoughts`). The expected strings below were written from reading that code.

The model is a tiny random Llama whose tokenizer got the original's tokens the way `finetune.py` adds them
(`additional_special_tokens` + `<s>`, `</s>`, `<unk>`, `<pad>`), saved and loaded back as any checkpoint is.
"""

from __future__ import annotations

import json

import pytest

from rqrag.inference.backends.base import Completion, SamplingParams
from rqrag.inference.decoding.prompting import TrainedPrompter, make_prompter
from rqrag.inference.decoding.tree import Path, Question
from rqrag.prompt_formats import NATIVE, ORIGINAL, prompt_format
from rqrag.retrieval.base import Hit
from rqrag.trajectory import Action, ParseStatus, Step


ORIGINAL_TOKENS = [
    "[A_Response]",
    "[S_Rewritten_Query]",
    "[S_Decomposed_Query]",
    "[S_Disambiguated_Query]",
    "[R_Evidences]",
    "[/R_Evidences]",
    "[S_Response]",
    "[EOS]",
]
MULTI_HOP_SYSTEM = (
    "Given a question that requires multi-hop reasoning, you need to decompose the question and answer based on "
    "the given context. Please provide a short and concise response."
)
QUESTION = "Who directed the film Titanic?"
# utils.py, preprocess_eval_data, branch hotpotqa/2wikimultihopqa/musique
HOTPOT_PROMPT = f"<s><|system|>\n{MULTI_HOP_SYSTEM}</s>\n<|user|>\n{QUESTION}</s>\n<|assistant|>\n"
HITS = (
    Hit("d1", "Titanic (1997 film)", "Titanic is a 1997 epic film directed by James Cameron.", 1.0),
    Hit("d2", "James Cameron", "James Cameron is a Canadian filmmaker.", 0.5),
)
# inference.py: the prompt + forced token + what the model wrote up to [EOS] + "[R_Evidences]" + format_evidences
# (Title/Text lines, each ending in a newline) + "[/R_Evidences]", then the next forced token.
EVIDENCE = (
    "[R_Evidences]Title: Titanic (1997 film)\nText: Titanic is a 1997 epic film directed by James Cameron.\n"
    "Title: James Cameron\nText: James Cameron is a Canadian filmmaker.\n[/R_Evidences]"
)
QUERY_TURN = "[S_Decomposed_Query]\nWho directed Titanic?\n[EOS]"


def _training_text() -> list[str]:
    return [
        QUESTION,
        MULTI_HOP_SYSTEM,
        "Titanic is a 1997 epic film directed by James Cameron. James Cameron is a Canadian filmmaker.",
        "Please choose from following options: Which gas do plants take in? Carbon dioxide, oxygen.",
    ] * 20


@pytest.fixture(scope="module")
def original_model_dir(tmp_path_factory):
    """A tiny random Llama saved with the original code's tokens: the layout of zorowin123/rq_rag_llama2_7B."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM, LlamaTokenizer

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    bpe.train_from_iterator(_training_text(), trainers.BpeTrainer(vocab_size=300, show_progress=False))
    learned = json.loads(bpe.to_str())["model"]
    # Llama's id layout: <unk> <s> </s>, then the 256 byte-fallback pieces, then the learned ones.
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, **{f"<0x{i:02X}>": 3 + i for i in range(256)}}
    for piece in sorted(learned["vocab"], key=learned["vocab"].get):
        vocab.setdefault(piece, len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in learned["merges"]]
    out = tmp_path_factory.mktemp("original_llama")
    LlamaTokenizer(vocab=vocab, merges=merges).save_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    added = tokenizer.add_special_tokens(
        {
            "additional_special_tokens": ORIGINAL_TOKENS,
            "bos_token": "<s>",
            "eos_token": "</s>",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
        }
    )
    assert added == 9  # as finetune.py asserts (> 5 with special tokens)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=tokenizer.pad_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return str(out)


@pytest.fixture(scope="module")
def tokenizer(original_model_dir):
    from rqrag.models import load_tokenizer

    return load_tokenizer(original_model_dir)


def _ids(tokenizer, text: str) -> list[int]:
    """The original's tokenization of a prompt string: whole, with no special tokens added (`inference.py`)."""
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def _hotpot_question(steps=()) -> Question:
    """A HotpotQA question as `rqrag eval` asks it: the prompter gives it the task's instruction."""
    return Question("q", [{"role": "user", "content": QUESTION}], steps=tuple(steps), task="hotpotqa")


def test_auto_recognises_the_original_tokenizer_and_not_the_shipped_one(tokenizer, smollm2_tokenizer):
    assert prompt_format("auto", tokenizer) is ORIGINAL
    assert prompt_format("auto", smollm2_tokenizer) is NATIVE
    prompter = make_prompter("auto", tokenizer)  # the original tokenizer has every token of ours: trained mode
    assert isinstance(prompter, TrainedPrompter) and prompter.format is ORIGINAL
    with pytest.raises(ValueError, match="unknown prompt format"):
        prompt_format("tulu", tokenizer)


def test_root_prompt_equals_the_originals_token_for_token(tokenizer):
    prompter = TrainedPrompter(tokenizer, ORIGINAL)
    ids = list(prompter.root_ids(_hotpot_question()))
    assert ids == _ids(tokenizer, HOTPOT_PROMPT)
    assert ids[0] == tokenizer.bos_token_id and ids.count(tokenizer.bos_token_id) == 1  # one <s>, not two
    assert tokenizer.decode(ids, skip_special_tokens=False) == HOTPOT_PROMPT


def test_a_searched_path_then_the_answer_equals_the_originals_token_for_token(tokenizer):
    prompter = TrainedPrompter(tokenizer, ORIGINAL)
    root = Path("q", "0", prompt_ids=prompter.root_ids(_hotpot_question()))
    params = SamplingParams(max_tokens=16)
    request = prompter.request(_hotpot_question(), root, Action.DECOMPOSE, params, seed=0)
    assert list(request.prompt_ids) == _ids(tokenizer, HOTPOT_PROMPT + "[S_Decomposed_Query]")
    # generation stops at [EOS] or </s>, as inference.py sets both as end-of-sequence ids
    assert set(request.stop_token_ids) == {tokenizer.convert_tokens_to_ids("[EOS]"), tokenizer.eos_token_id}

    # What a model trained on merge_intermediate.py's data writes after the token: "\n{query}\n[EOS]".
    whole = _ids(tokenizer, HOTPOT_PROMPT + QUERY_TURN)
    emitted = tuple(whole[len(request.prompt_ids) :])
    completion = Completion("", emitted, (-0.1,) * len(emitted), "stop")
    parsed = prompter.parse(Action.DECOMPOSE, completion)
    assert (parsed.text, parsed.status) == ("Who directed Titanic?", ParseStatus.OK)

    child = Path("q", "0.0", prompt_ids=prompter.extend_ids(root, Action.DECOMPOSE, completion, HITS))
    answer = prompter.request(_hotpot_question(), child, Action.ANSWER, params, seed=0)
    expected = HOTPOT_PROMPT + QUERY_TURN + EVIDENCE + "[A_Response]"
    assert list(answer.prompt_ids) == _ids(tokenizer, expected)
    assert tokenizer.decode(answer.prompt_ids, skip_special_tokens=False) == expected


def test_a_query_ended_by_the_tokenizers_eos_is_recorded_with_EOS(tokenizer):
    """Stopped by `</s>` instead of `[EOS]`: the context gets the query and `[EOS]`, never the `</s>`."""
    prompter = TrainedPrompter(tokenizer, ORIGINAL)
    root = Path("q", "0", prompt_ids=prompter.root_ids(_hotpot_question()))
    query = _ids(tokenizer, HOTPOT_PROMPT + QUERY_TURN)[len(root.prompt_ids) + 1 : -1]  # without [EOS]
    emitted = (*query, tokenizer.eos_token_id)
    completion = Completion("", emitted, (-0.1,) * len(emitted), "stop")
    ids = prompter.extend_ids(root, Action.DECOMPOSE, completion, HITS)
    assert list(ids) == _ids(tokenizer, HOTPOT_PROMPT + QUERY_TURN + EVIDENCE)


def test_the_questions_own_search_is_written_as_a_rewritten_query(tokenizer):
    """Standard RAG's first search (`search_first`) stands in the context as the original would have written it."""
    step = Step(Action.REWRITE, QUESTION, HITS[:1])
    ids = TrainedPrompter(tokenizer, ORIGINAL).root_ids(_hotpot_question([step]))
    evidence = (
        "[R_Evidences]Title: Titanic (1997 film)\nText: Titanic is a 1997 epic film directed by James Cameron.\n"
    )
    expected = HOTPOT_PROMPT + f"[S_Rewritten_Query]\n{QUESTION}\n[EOS]" + evidence + "[/R_Evidences]"
    assert list(ids) == _ids(tokenizer, expected)


def test_multiple_choice_and_free_questions_get_the_originals_wording(tokenizer):
    choices = (("1", "Carbon dioxide"), ("2", "Oxygen"), ("3", "Nitrogen"))  # ARC has numbered items too
    arc = ORIGINAL.task_messages(
        "arc_challenge", [{"role": "user", "content": "Which gas do plants take in\nA. Carbon dioxide"}], choices
    )
    prompt, end = ORIGINAL.frame(tokenizer, arc)
    # utils.py: the stem gets a "?", then the option list; "1".."3" are relabelled A..C as its label_dict does.
    user = "Which gas do plants take in?\nPlease choose from following options:\nA: Carbon dioxide\nB: Oxygen\nC: Nitrogen\n"
    system = "Given four answer candidates, A, B, C and D, choose the best answer choice."
    assert prompt == f"<s><|system|>\n{system}</s>\n<|user|>\n{user}</s>\n<|assistant|>\n" and end == "</s>"
    # A question outside the paper's tasks (rqrag ask, the server) gets the system message the training data had.
    free, _ = ORIGINAL.frame(tokenizer, [{"role": "user", "content": "Hi?"}])
    assert free.startswith("<s><|system|>\nYou are a helpful assistant, please provide an answer") and free.endswith(
        "</s>\n<|user|>\nHi?</s>\n<|assistant|>\n"
    )
    assert NATIVE.task_messages("arc_challenge", arc[1:], choices) == arc[1:]  # native leaves questions alone


def test_the_tree_decoder_runs_the_original_model_end_to_end(original_model_dir, tokenizer):
    """The real (tiny, random) model through the HF backend: every request starts with the original's prompt."""
    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage

    retriever = BM25Retriever.from_passages([Passage(h.docid, h.title, h.text) for h in HITS], show_progress=False)
    generator = HFGenerator.from_pretrained(original_model_dir)
    seen = []
    generate = generator.generate
    generator.generate = lambda requests: seen.extend(requests) or generate(requests)
    config = DecodeConfig(
        prompt_format="original", max_depth=1, actions=["decompose"], query_max_tokens=8, answer_max_tokens=4
    )
    decoder = TreeDecoder(config, generator, generator.tokenizer, retriever)
    (result,) = decoder.decode([_hotpot_question()])
    root = _ids(tokenizer, HOTPOT_PROMPT)
    assert seen and all(list(r.prompt_ids[: len(root)]) == root for r in seen)
    assert {r.prompt_ids[len(root)] for r in seen} >= {tokenizer.convert_tokens_to_ids("[A_Response]")}
    assert result.trajectories  # every branch ended as a trajectory (answered, or failed with its reason)
