"""A trained RQ-RAG model on llama.cpp: its adapter merged and written as GGUF (`rqrag.inference.backends.gguf_export`), then run by the
llamacpp backend against the hf backend on the same merged weights: the same greedy tokens up to near ties, the RQ-RAG
tokens kept with their ids, and the tree decoder running it in trained mode."""

from __future__ import annotations

import json

import numpy as np
import pytest
from greedy_agreement import identical_up_to_near_ties

from rqrag.inference.backends.gguf_export import GGUFExportError, interleave_rotary, write_gguf


def test_rotary_halves_become_pairs_per_head():
    heads, head_dim = 3, 4
    weight = np.arange(heads * head_dim * 2, dtype=np.float32).reshape(heads * head_dim, 2)
    out = interleave_rotary(weight, heads)
    for h in range(heads):
        rows = weight[h * head_dim : (h + 1) * head_dim]
        first, second = rows[: head_dim // 2], rows[head_dim // 2 :]
        expected = np.stack([first, second], axis=1).reshape(head_dim, 2)  # row 2i from the first half, 2i+1 second
        np.testing.assert_array_equal(out[h * head_dim : (h + 1) * head_dim], expected)


def test_another_architecture_is_refused_with_its_name(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["GPT2LMHeadModel"]}))
    with pytest.raises(GGUFExportError, match="GPT2LMHeadModel"):
        write_gguf(tmp_path, tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


TRAINED = "rqrag-smollm2-135m-selftrain"
QUESTIONS = [
    "What is the capital of the country where the Eiffel Tower stands?",
    "Who wrote the novel that Blade Runner is based on?",
    "Which river flows through Lisbon?",
    "Who directed the film that won Best Picture in 1998?",
    "Are Chico Buarque and Caetano Veloso both Brazilian?",
    "What year did the Berlin Wall fall?",
]
# float16 weights against float32 ones: far closer than the packaged Q4_1 base (0.4 a token, 0.1 the mean)
TOKEN_TOLERANCE, MEAN_TOLERANCE = 0.05, 0.02


@pytest.fixture(scope="module")
def trained():
    pytest.importorskip("xllamacpp")
    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.inference.backends.llamacpp import LlamaCppEngine, LlamaCppGenerator
    from rqrag.inference.build import gguf_file_for
    from rqrag.models import resolve_model

    hf = HFGenerator.from_pretrained(resolve_model(TRAINED), dtype="float32")
    gguf = gguf_file_for(TRAINED)
    return hf, LlamaCppGenerator(LlamaCppEngine(gguf, n_ctx=2048, parallel=2), hf.tokenizer), gguf


@pytest.mark.slow
def test_the_rqrag_tokens_keep_their_ids_in_the_gguf(trained):
    import gguf as gguf_lib

    hf, _, path = trained
    reader = gguf_lib.GGUFReader(path)
    field = reader.fields["tokenizer.ggml.tokens"]
    tokens = [bytes(field.parts[i]).decode() for i in field.data]
    assert len(tokens) == len(hf.tokenizer)
    for token in ["[S_Decomposed_Query]", "[A_Response]", "[R_Evidences]", "[EOS]"]:
        assert tokens[hf.tokenizer.convert_tokens_to_ids(token)] == token


@pytest.mark.slow
def test_greedy_steps_match_the_hf_backend_on_the_merged_weights(trained):
    from rqrag.inference.backends.base import GenerationRequest, SamplingParams
    from rqrag.prompt_formats import EOS

    hf, llama, _ = trained
    stop = (hf.tokenizer.convert_tokens_to_ids(EOS),)  # every step of the trained format ends at [EOS]
    requests = []
    for question in QUESTIONS:
        ids = hf.tokenizer.apply_chat_template([{"role": "user", "content": question}], add_generation_prompt=True)
        ids = ids["input_ids"] if hasattr(ids, "keys") else ids
        requests.append(GenerationRequest(tuple(ids), SamplingParams(max_tokens=32), stop_token_ids=stop))
    expected, got = hf.generate(requests), llama.generate(requests)
    identical = identical_up_to_near_ties(expected, got, TOKEN_TOLERANCE, MEAN_TOLERANCE)
    assert all(w.finish_reason == "stop" for w, h in zip(expected, got) if w.token_ids == h.token_ids)  # at [EOS]
    assert identical >= len(QUESTIONS) - 1  # 6 of 6 seen: float16 against float32 leaves few near ties


@pytest.mark.slow
def test_the_tree_runs_the_trained_model_on_llamacpp():
    pytest.importorskip("xllamacpp")
    from rqrag.inference.build import build_decoder
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.tree import Question
    from rqrag.retrieval.candidate_paragraphs import CandidateRetriever

    records = [
        {
            "id": "q1",
            "question": "What is the capital of the country where the Eiffel Tower stands?",
            "paragraphs": [
                {
                    "title": "Eiffel Tower",
                    "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
                },
                {"title": "Paris", "text": "Paris is the capital and most populous city of France."},
            ],
        }
    ]
    config = DecodeConfig(
        model=TRAINED, backend="llamacpp", max_depth=1, actions=["decompose"], retriever="candidates",
        query_temperature=0.0,
    )  # fmt: skip
    decoder = build_decoder(config, retriever=CandidateRetriever.from_records(records))
    (result,) = decoder.decode([Question("q1", [{"role": "user", "content": records[0]["question"]}])])
    searched = [s for t in result.trajectories for s in t.trajectory.steps if s.evidence]
    assert searched and searched[0].text and searched[0].evidence  # the model wrote its own sub-question
    assert all(t.trajectory.answer for t in result.trajectories)
    assert any("paris" in t.trajectory.answer.lower() for t in result.trajectories)
