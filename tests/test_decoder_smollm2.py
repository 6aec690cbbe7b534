"""The tree decoder end to end on the real SmolLM2-135M (CPU) and the embedded corpus."""

from __future__ import annotations

import json

import pytest

from rqrag.inference.backends.hf import HFGenerator
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.prompting import PromptedPrompter, TrainedPrompter
from rqrag.inference.decoding.select import STRATEGIES
from rqrag.inference.decoding.tree import Path, Question
from rqrag.trajectory import Action


QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"


@pytest.fixture(scope="module")
def embedded_retriever():
    from rqrag.retrieval.embedded import load_embedded_index

    return load_embedded_index(("bm25",), show_progress=False).retriever("bm25")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["prompted", "trained"])
def test_decoder_runs_on_smollm2_with_one_call_per_depth(smollm2_dir, embedded_retriever, mode):
    generator = HFGenerator.from_pretrained(smollm2_dir, add_rqrag_tokens=(mode == "trained"))
    config = DecodeConfig(
        prompting=mode,
        max_depth=1,
        actions=["rewrite"],
        query_temperature=0.0,
        query_max_tokens=24,
        answer_max_tokens=16,
    )
    decoder = TreeDecoder(config, generator, generator.tokenizer, embedded_retriever)
    (result,) = decoder.decode([Question("corliss", [{"role": "user", "content": QUESTION}])])
    assert generator.stats.model_calls == 2  # depth 0 and depth 1; selection used no model call
    ids = [t.path_id for t in result.trajectories]
    # 0.1 answers at once; 0.0 is the rewrite, which either fails to parse (a leaf) or leads to answer 0.0.0.
    assert ids in (["0.1", "0.0.0"], ["0.0", "0.1"]), ids
    for t in result.trajectories:
        assert all(lp <= 0 for lp in t.generated_logprobs)
        assert t.parse_statuses  # every generated step was parsed and its status kept
    if mode == "prompted":
        # The instruct model follows the instructions: both trajectories finish, the search hit the corpus.
        assert ids == ["0.1", "0.0.0"]
        assert result.answer and set(result.selected) == set(STRATEGIES)
        rewrite = result.trajectories[1].trajectory.steps[0]
        assert rewrite.action is Action.REWRITE and len(rewrite.evidence) == 3
        assert "Kiss and Tell (1945 film)" in [h.title for h in rewrite.evidence]


def test_conversation_history_reaches_both_prompters(smollm2_tokenizer):
    history = [
        {"role": "user", "content": "Who directed Titanic?"},
        {"role": "assistant", "content": "James Cameron."},
        {"role": "user", "content": "When was he born?"},
    ]
    question = Question("h", history)
    prompted = PromptedPrompter(smollm2_tokenizer).messages(question, Path("h", "0"), Action.REWRITE)
    assert "User: Who directed Titanic?\nAssistant: James Cameron." in prompted[-1]["content"]
    assert "Question: When was he born?" in prompted[-1]["content"]
    ids = TrainedPrompter(smollm2_tokenizer).root_ids(question)
    text = smollm2_tokenizer.decode(ids)
    assert text.index("Who directed Titanic?") < text.index("James Cameron.") < text.index("When was he born?")


@pytest.mark.slow
def test_rqrag_ask_cli_prints_json_and_saves_config(tmp_path, capsys):
    from rqrag.cli.commands.ask import main

    code = main(
        [
            QUESTION,
            "--config",
            "configs/decode/smollm2_prompted.yaml",
            "--depth",
            "1",
            "--actions",
            "decompose",
            "--retrieval_mode",
            "bm25",
            "--json",
            "--output_dir",
            str(tmp_path),
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["answer"] and record["prompting"] == "prompted"
    assert record["generator"]["model_calls"] == 2 and len(record["trajectories"]) == 2
    assert (tmp_path / "resolved_config.yaml").is_file() and (tmp_path / "result.json").is_file()


def test_rqrag_ask_help_exits_zero(capsys):
    from rqrag.cli.commands.ask import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "--strategy" in capsys.readouterr().out
