"""`--prompting` (trained | prompted | auto) on every command that decodes: `--mode` there meant the same thing while
`rqrag search --mode` means bm25/dense/hybrid. The old flag, YAML key and keyword still work, with a warning."""

from __future__ import annotations

import dataclasses

import pytest

from rqrag.cli import main as cli_main
from rqrag.config import make_parser, parse
from rqrag.inference.decoding.config import DecodeConfig


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
    assert config.prompting == "trained" and config.mode == "trained"
    with pytest.warns(FutureWarning):  # an experiment's generator preset that still says `mode:`
        assert dataclasses.replace(config, mode="prompted").prompting == "prompted"
    assert dataclasses.replace(config, max_depth=1).prompting == "trained"


def test_search_mode_is_untouched(capsys):
    from rqrag.cli.commands.search import SearchConfig

    search, _ = parse(make_parser(SearchConfig), ["--mode", "bm25"])
    assert search.mode == "bm25" and "deprecated" not in capsys.readouterr().err
