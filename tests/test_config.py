"""The config pattern: YAML defaults, CLI overrides, unknown keys rejected, resolved config saved."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import yaml

from rqrag.config_loader import RESOLVED_CONFIG_NAME, ConfigError, make_parser, parse, save_resolved_config


@dataclass
class ToyConfig:
    depth: int = field(default=2, metadata={"help": "tree depth"})
    mode: str = field(default="hybrid", metadata={"help": "retrieval mode"})
    k: int = field(default=3, metadata={"help": "docs per search", "aliases": ["-k"]})


def test_yaml_sets_defaults_and_cli_overrides(tmp_path):
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("depth: 4\nmode: bm25\n")
    parser = make_parser(ToyConfig)
    parser.add_argument("query")
    cfg, extra = parse(parser, ["--config", str(cfg_file), "who?", "--mode", "dense", "-k", "5"])
    assert (cfg.depth, cfg.mode, cfg.k) == (4, "dense", 5)
    assert extra.query == "who?" and not hasattr(extra, "config")


def test_no_config_gives_dataclass_defaults():
    (cfg, _) = parse(make_parser(ToyConfig), [])
    assert cfg == ToyConfig()


def test_unknown_yaml_key_fails_with_the_known_keys(tmp_path):
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("depth: 4\ndepht: 5\n")
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['depht'\].*depth"):
        parse(make_parser(ToyConfig), ["--config", str(cfg_file)])


def test_missing_or_non_mapping_config(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        parse(make_parser(ToyConfig), ["--config", str(tmp_path / "nope.yaml")])
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="mapping"):
        parse(make_parser(ToyConfig), [f"--config={bad}"])


def test_unknown_cli_flag_exits():
    with pytest.raises(SystemExit):
        parse(make_parser(ToyConfig), ["--depht", "3"])


def test_resolved_config_is_saved_with_command_and_commit(tmp_path):
    path = save_resolved_config(tmp_path / "out", "toy", ToyConfig(depth=7))
    assert path.name == RESOLVED_CONFIG_NAME
    saved = yaml.safe_load(path.read_text())
    assert saved["entry_point"] == "toy" and saved["ToyConfig"] == {"depth": 7, "mode": "hybrid", "k": 3}
    assert {"command", "created", "git_commit", "rqrag_version"} <= set(saved)
