"""`--config NAME`: a shipped config by its name, for every command (rqrag.config_loader.parse), and `rqrag config`.

python -m pytest tests/test_config_names.py -q
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rqrag.config_loader
from rqrag.cli import main as cli_main
from rqrag.config_loader import ConfigError, make_parser, parse, resolve_config, shipped_configs
from rqrag.inference.decoding.decode_config import DecodeConfig


REPO = Path(__file__).resolve().parent.parent
TRAINED = REPO / "configs" / "decode" / "rqrag_trained.yaml"


def test_a_bare_name_is_the_shipped_config_of_that_name():
    assert resolve_config("rqrag_trained") == str(TRAINED)
    by_name, _ = parse(make_parser(DecodeConfig), ["--config", "rqrag_trained"])
    by_path, _ = parse(make_parser(DecodeConfig), ["--config", str(TRAINED)])
    assert by_name == by_path
    assert by_name.actions == ["decompose"]  # the file's value, not the dataclass default


def test_a_named_config_keeps_its_base_chain():
    from rqrag.eval.eval_config import EvalConfig

    decode, task, _ = parse(make_parser(DecodeConfig, EvalConfig), ["--config=hotpotqa", "--max_depth", "1"])
    assert (task.task, decode.model, decode.max_depth) == ("hotpotqa", "rqrag-smollm2-135m-selftrain", 1)


def test_paths_work_as_before(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    assert resolve_config("configs/decode/rqrag_trained.yaml") == "configs/decode/rqrag_trained.yaml"
    mine = tmp_path / "rqrag_trained"  # a file of that name, here, is what it means
    mine.write_text("max_depth: 3\n")
    monkeypatch.chdir(tmp_path)
    config, _ = parse(make_parser(DecodeConfig), ["--config", "rqrag_trained"])
    assert config.max_depth == 3
    with pytest.raises(ConfigError, match="config file not found"):
        parse(make_parser(DecodeConfig), ["--config", "missing.yaml"])  # a path, never looked up by name


def test_an_unknown_name_lists_the_names():
    with pytest.raises(ConfigError, match=r"no config named 'rqrag_traned'.*rqrag_trained.*rqrag config list"):
        resolve_config("rqrag_traned")


def test_an_ambiguous_name_lists_its_files(tmp_path, monkeypatch):
    for stage in ("decode", "serve"):
        (tmp_path / stage).mkdir()
        (tmp_path / stage / "fast.yaml").write_text(f"# {stage} fast\nmax_depth: 1\n")
    monkeypatch.setattr(rqrag.config_loader, "configs_dir", lambda: tmp_path)
    assert shipped_configs() == {"fast": [tmp_path / "decode" / "fast.yaml", tmp_path / "serve" / "fast.yaml"]}
    with pytest.raises(ConfigError, match=r"'fast' is ambiguous.*decode/fast.yaml.*serve/fast.yaml"):
        parse(make_parser(DecodeConfig), ["--config", "fast"])


def test_config_list_names_each_with_its_stage_and_header(capsys):
    assert cli_main(["config", "list"]) == 0
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in capsys.readouterr().out.splitlines()}
    assert set(rows) == {p.stem for p in (REPO / "configs").glob("*/*.yaml")}
    stage, header = rows["rqrag_trained"]
    assert stage == "decode"
    assert TRAINED.read_text().splitlines()[0] == f"# {header}"


def test_config_show_prints_the_yaml(capsys):
    assert cli_main(["config", "show", "rqrag_trained"]) == 0
    assert capsys.readouterr().out == TRAINED.read_text()
    with pytest.raises(SystemExit) as exit_:
        cli_main(["config", "show", "nothing_of_that_name"])
    assert exit_.value.code == 2 and "rqrag_trained" in capsys.readouterr().err
