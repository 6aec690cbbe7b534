"""`--prompting` (trained | prompted | auto) on every command that decodes: `--mode` there meant the same thing while
`rqrag search --mode` meant bm25/dense/hybrid (now `--retrieval_mode`, tests/test_cli_retrieval.py). The old flag,
YAML key, keyword, attributes (`DecodeConfig.mode`, `TreeDecoder.mode`) and `rqrag ask --json` key still work, with a
warning where code can be warned."""

from __future__ import annotations

import dataclasses
import json
import warnings

import pytest
from fakes import FakeGenerator

from rqrag.answer import AnswerKind, PipelineAnswer
from rqrag.cli import main as cli_main
from rqrag.config_loader import make_parser, parse
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder


DECODING_COMMANDS = [("ask",), ("serve",), ("eval",), ("experiment",), ("data", "self-train")]
DEPRECATED = "--mode is deprecated; use --prompting"


@pytest.mark.parametrize("command", DECODING_COMMANDS, ids=" ".join)
def test_every_decoding_command_offers_prompting(capsys, command):
    with pytest.raises(SystemExit):
        cli_main([*command, "--help"])
    out = capsys.readouterr().out
    assert "--prompting {auto,trained,prompted}" in out and "deprecated former name" in out


def test_prompting_sets_how_the_model_is_asked_without_a_warning(capsys):
    decode, _ = parse(make_parser(DecodeConfig), ["--prompting", "prompted"])
    assert decode.prompting == "prompted" and decode.model_to_load == "smollm2-135m-instruct"
    assert "deprecated" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--mode", "trained"], ["--mode=trained"]])
def test_mode_still_works_and_says_it_is_deprecated(capsys, argv):
    decode, _ = parse(make_parser(DecodeConfig), argv)
    assert decode.prompting == "trained" and decode.model == DecodeConfig().model  # never an abbreviated --model
    assert DEPRECATED in capsys.readouterr().err


def test_a_yaml_config_that_still_says_mode_is_read_with_a_warning(tmp_path, capsys):
    (tmp_path / "base.yaml").write_text("mode: prompted\nmax_depth: 1\n")
    (tmp_path / "child.yaml").write_text("base: base.yaml\ndocs_per_search: 2\n")
    for name in ("base.yaml", "child.yaml"):
        decode, _ = parse(make_parser(DecodeConfig), ["--config", str(tmp_path / name)])
        assert (decode.prompting, decode.max_depth) == ("prompted", 1)
        assert "`mode:` is deprecated; use `prompting:`" in capsys.readouterr().err
    decode, _ = parse(make_parser(DecodeConfig), ["--config", str(tmp_path / "base.yaml"), "--prompting", "trained"])
    assert decode.prompting == "trained"  # the flag overrides the file, whatever name the file used


def test_the_old_keyword_still_builds_a_config_and_a_replaced_one():
    with pytest.warns(FutureWarning, match="mode is deprecated; use prompting"):
        config = DecodeConfig(mode="trained")
    assert config.prompting == "trained"
    with pytest.warns(DeprecationWarning, match="DecodeConfig.mode is deprecated; use DecodeConfig.prompting"):
        assert config.mode == "trained"
    with pytest.warns(FutureWarning):  # an experiment's generator preset that still says `mode:`
        assert dataclasses.replace(config, mode="prompted").prompting == "prompted"
    assert dataclasses.replace(config, max_depth=1).prompting == "trained"


def _decoder(tokenizer, prompting: str = "trained") -> TreeDecoder:
    return TreeDecoder(
        DecodeConfig(prompting=prompting), FakeGenerator(tokenizer, lambda *_: ("x", 0.9)), tokenizer, None
    )


def test_the_decoder_says_prompting_and_mode_is_a_deprecated_alias(smollm2_tokenizer):
    decoder = _decoder(smollm2_tokenizer, "auto")  # the tokenizer has the RQ-RAG tokens: auto resolves to trained
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert decoder.prompting == "trained"
    with pytest.warns(DeprecationWarning, match="TreeDecoder.mode is deprecated; use TreeDecoder.prompting"):
        assert decoder.mode == "trained"


class _OneAnswer:
    """`rqrag ask`'s Pipeline with a scripted decoder: an answer without loading a model."""

    def __init__(self, decoder):
        self.decoder = decoder

    def ask(self, question, history=(), language=None):
        return PipelineAnswer("q0", question, "Paris", AnswerKind.GENERATED, "en")


def test_ask_json_says_prompting_and_keeps_mode_for_a_release(monkeypatch, capsys, smollm2_tokenizer):
    from rqrag.answer import api
    from rqrag.cli.commands import ask

    decoder = _decoder(smollm2_tokenizer)
    monkeypatch.setattr(api, "Pipeline", lambda config: _OneAnswer(decoder))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the command itself reads no deprecated name
        assert ask.main(["Where is the Eiffel Tower?", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["prompting"] == "trained" and record["mode"] == record["prompting"]
