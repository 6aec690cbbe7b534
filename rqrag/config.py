"""One config pattern for every non-TRL entry point.

A stage's settings are a `@dataclass` whose fields carry `metadata={"help": ...}`. `make_parser` turns
one or more of them into TRL's `TrlParser` (a `transformers.HfArgumentParser`), the parser `training/sft.py`
uses too: `--config FILE.yaml` sets the defaults (and its `env:` mapping sets environment variables), flags
on the command line override them. `parse` adds what a CLI user needs on top: a missing file or a key the
dataclasses do not know is a `ConfigError` that names the known keys. Every entry point then logs the
resolved config and saves it next to its outputs with `save_resolved_config`.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml


logger = logging.getLogger(__name__)

RESOLVED_CONFIG_NAME = "resolved_config.yaml"


class ConfigError(ValueError):
    """A config file or override that cannot be applied (unknown key, wrong type, missing file)."""


def make_parser(*dataclass_types: type, prog: str | None = None, description: str | None = None):
    """An argument parser over the given dataclasses plus `--config FILE.yaml`.

    Callers may add positional arguments (e.g. the query of `rqrag search`) before calling `parse`.
    """
    from trl import TrlParser  # deferred: importing trl/transformers costs ~1 s

    parser = TrlParser(dataclass_types, prog=prog, description=description)
    parser.add_argument(
        "--config",
        type=str,
        default=None,
        help="YAML file whose keys set the defaults; command-line flags override it.",
    )
    return parser


def _known_fields(dataclass_types: Sequence[type]) -> set[str]:
    return {f.name for dt in dataclass_types for f in dataclasses.fields(dt) if f.init}


def load_yaml_config(path: str | os.PathLike, dataclass_types: Sequence[type]) -> dict[str, Any]:
    """Read a flat YAML mapping and reject keys that none of `dataclass_types` declares (`env:` is TrlParser's)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    with path.open() as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of option names to values, got {type(data).__name__}")
    unknown = sorted(set(data) - _known_fields(dataclass_types) - {"env"})
    if unknown:
        known = ", ".join(sorted(_known_fields(dataclass_types)))
        raise ConfigError(f"{path}: unknown key(s) {unknown}; known keys are: {known}")
    return data


def parse(parser, argv: Sequence[str] | None = None) -> tuple:
    """Parse `argv` into the parser's dataclasses, YAML defaults first, then CLI overrides.

    Returns one instance per dataclass, followed by an `argparse.Namespace` holding any extra
    (non-dataclass) arguments the caller added, such as positionals.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    # TrlParser reads `--config PATH` only; accept the `--config=PATH` spelling argparse users also write.
    argv = [part for arg in argv for part in (arg.split("=", 1) if arg.startswith("--config=") else [arg])]
    config_path = argv[argv.index("--config") + 1] if "--config" in argv[:-1] else None
    if config_path is not None:
        # Checked here for the message: TrlParser reports a bad file as a bare OSError or ValueError.
        load_yaml_config(config_path, parser.dataclass_types)
    *outputs, from_config, from_cli = parser.parse_args_and_config(
        argv, return_remaining_strings=True, separate_remaining_strings=True
    )
    if from_config:  # unreachable after load_yaml_config; kept so a TRL change cannot drop keys silently
        raise ConfigError(f"{config_path}: unknown option(s) {from_config}")
    if from_cli:
        parser.error(f"unrecognized arguments: {' '.join(from_cli)}")  # exits 2 with the usage line
    n = len(parser.dataclass_types)
    configs = tuple(outputs[:n])
    extra = outputs[n] if len(outputs) > n else argparse.Namespace()
    if hasattr(extra, "config"):
        delattr(extra, "config")
    return (*configs, extra)


def git_commit(cwd: str | os.PathLike | None = None) -> str | None:
    """The checkout's commit hash, or None outside a git work tree (e.g. an installed wheel)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd or Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def to_dict(config: Any) -> dict[str, Any]:
    """A dataclass as plain YAML-safe data (paths and enums become strings)."""
    return json.loads(json.dumps(dataclasses.asdict(config), default=str))


def log_config(name: str, *configs: Any) -> None:
    merged = {type(c).__name__: to_dict(c) for c in configs}
    logger.info("%s resolved config:\n%s", name, yaml.safe_dump(merged, sort_keys=False).rstrip())


def save_resolved_config(out_dir: str | os.PathLike, name: str, *configs: Any) -> Path:
    """Write every config of this run, the command line and the git commit to `out_dir/resolved_config.yaml`."""
    from rqrag import __version__

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "entry_point": name,
        "command": [Path(sys.argv[0]).name, *sys.argv[1:]],
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "rqrag_version": __version__,
        "git_commit": git_commit(),
        **{type(c).__name__: to_dict(c) for c in configs},
    }
    path = out_dir / RESOLVED_CONFIG_NAME
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(record, sort_keys=False))
    os.replace(tmp, path)
    return path
