"""One config pattern for every non-TRL entry point.

A stage's settings are a `@dataclass` whose fields carry `metadata={"help": ...}`. `make_parser` turns
one or more of them into TRL's `TrlParser` (a `transformers.HfArgumentParser`), the parser `training/sft.py`
uses too: `--config FILE.yaml` sets the defaults (and its `env:` mapping sets environment variables), flags
on the command line override them. `parse` adds what a CLI user needs on top: a missing file or a key the
dataclasses do not know is a `ConfigError` that names the known keys, and `--config NAME` (no slash, no .yaml)
is the shipped config of that name (`configs/<stage>/NAME.yaml`, in the checkout or the wheel; `rqrag config
list`), so an installed rq-rag runs its recipes from any folder. Every entry point then logs the
resolved config and saves it next to its outputs with `save_resolved_config`.

A config made of several concerns (`DecodeConfig`: backend, tree, retrieval, ...) declares each as its own
dataclass marked with `@concern(title, description, common=...)` and inherits them all, so `config.field` and
flat YAML keep working. `--help` then shows the everyday flags first, under "common options" (the entry point's
own dataclasses, and each concern's `common` fields), and every other field in its concern's group.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import importlib.metadata
import json
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from rqrag.paths import configs_dir


logger = logging.getLogger(__name__)

RESOLVED_CONFIG_NAME = "resolved_config.yaml"


COMMON_TITLE = "common options"


class ConfigError(ValueError):
    """A config file or override that cannot be applied (unknown key, wrong type, missing file)."""


@dataclasses.dataclass(frozen=True)
class Concern:
    """One part of a config: its fields are one argparse group, titled and described, in every `--help`; its
    `common` fields (the everyday ones) are listed among the common options instead."""

    title: str
    description: str | None = None
    common: frozenset[str] = frozenset()


def concern(title: str, description: str | None = None, common: Sequence[str] = ()):
    """Class decorator marking a config dataclass as the concern `title` (put it above `@dataclass`)."""

    def mark(cls: type) -> type:
        unknown = set(common) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise TypeError(f"{cls.__name__}: common names no field of it: {sorted(unknown)}")
        cls._concern = Concern(title, description, frozenset(common))
        return cls

    return mark


def concerns_of(dataclass_type: type) -> dict[str, Concern]:
    """Field name -> the concern that declares it, for the concerns `dataclass_type` is made of (or is)."""
    found: dict[str, Concern] = {}
    for klass in reversed(dataclass_type.__mro__):  # a base concern claims its fields before a derived one
        mark = klass.__dict__.get("_concern")
        if mark is not None:
            for f in dataclasses.fields(klass):
                found.setdefault(f.name, mark)
    return found


def make_parser(*dataclass_types: type, prog: str | None = None, description: str | None = None):
    """An argument parser over the given dataclasses plus `--config FILE.yaml`.

    Callers may add positional arguments (e.g. the query of `rqrag search`) before calling `parse`; options
    they add join the common ones.
    """
    from trl import TrlParser  # deferred: importing trl/transformers costs ~1 s

    parser = TrlParser(dataclass_types, prog=prog, description=description)
    config = parser.add_argument(
        "--config",
        type=str,
        default=None,
        help="YAML file whose keys set the defaults, or the name of a shipped one (`rqrag config list`); "
        "command-line flags override it.",
    )
    _group_by_concern(parser, dataclass_types)
    common = parser._optionals._group_actions
    common.insert(1, common.pop(common.index(config)))  # right after -h: the first thing a user sets
    return parser


def _group_by_concern(parser: argparse.ArgumentParser, dataclass_types: Sequence[type]) -> None:
    """Move each concern's flags (`--x` and its `--no_x`) from the common options to the concern's group.

    TrlParser makes a group only per dataclass with an `_argument_group_name`, and a config inherits its
    concerns' fields into one dataclass, so the groups are made here, from argparse's group lists.
    """
    parser._optionals.title = COMMON_TITLE
    groups: dict[str, argparse._ArgumentGroup] = {}
    for dataclass_type in dataclass_types:
        declared = concerns_of(dataclass_type)
        for f in dataclasses.fields(dataclass_type):
            mark = declared.get(f.name)
            if mark is None or f.name in mark.common:
                continue
            if mark.title not in groups:
                groups[mark.title] = parser.add_argument_group(mark.title, mark.description)
            for action in [a for a in parser._actions if a.dest == f.name]:
                for group in parser._action_groups:
                    if action in group._group_actions:
                        group._group_actions.remove(action)
                groups[mark.title]._group_actions.append(action)
    parser._concern_titles = list(groups)


def _short_usage(parser: argparse.ArgumentParser) -> str:
    """The usage line with the common options and the positionals only, each concern's group named once:
    listing every flag there would repeat the whole help before it starts."""
    prefix = "usage: "
    shown = [*parser._optionals._group_actions, *(a for a in parser._actions if not a.option_strings)]
    formatter = parser._get_formatter()
    formatter.add_usage(None, shown, [], prefix=prefix)
    line = formatter.format_help().strip().removeprefix(prefix)
    indent = " " * (len(prefix) + len(parser.prog) + 1)
    lines = [indent]
    for name in (f"[{title.split(':')[0]} options]" for title in parser._concern_titles):
        if lines[-1] != indent and len(lines[-1]) + 1 + len(name) > formatter._width:
            lines.append(indent)
        lines[-1] += name if lines[-1] == indent else " " + name
    return "\n".join([line, *lines]).replace("%", "%%")


def _known_fields(dataclass_types: Sequence[type]) -> set[str]:
    return {f.name for dt in dataclass_types for f in dataclasses.fields(dt) if f.init}


class FormerName(argparse._StoreAction):
    """A renamed flag: its old spelling still works, with a warning on stderr. Mark the field with `renamed("old")`;
    a YAML key of the old name is read as the new one too (`load_yaml_config`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None and option_string != self.option_strings[0]:
            print(f"{option_string} is deprecated; use {self.option_strings[0]}", file=sys.stderr)
        super().__call__(parser, namespace, values, option_string)


def renamed(old: str) -> dict[str, Any]:
    """Field metadata for a setting once called `old`: `--old` and the YAML key `old:` keep working, with a warning."""
    return {"aliases": [f"--{old}"], "action": FormerName}


def former_names(dataclass_types: Sequence[type]) -> dict[str, str]:
    """Old name -> field name, for every field marked with `renamed`."""
    return {
        alias.removeprefix("--"): f.name
        for dt in dataclass_types
        for f in dataclasses.fields(dt)
        if f.metadata.get("action") is FormerName
        for alias in f.metadata["aliases"]
    }


BASE_KEY = "base"  # a YAML config may name another, relative to itself, whose keys it starts from


def read_yaml_layers(path: str | os.PathLike, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A YAML config's keys over those of its `base:` chain (each base relative to the file naming it), so that
    configs sharing settings name them once: every `configs/eval/<task>.yaml` starts from `configs/eval/base.yaml`,
    which starts from the shipped decode settings, and the benchmarks cannot drift from the default again."""
    path = Path(path).resolve()
    if path in _seen:
        raise ConfigError(f"{path}: its base chain loops ({' -> '.join(str(p) for p in (*_seen, path))})")
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    with path.open() as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of option names to values, got {type(data).__name__}")
    base = data.pop(BASE_KEY, None)
    if base is None:
        return data
    merged = read_yaml_layers(path.parent / str(base), (*_seen, path))
    env = {**merged.get("env", {}), **data.get("env", {})}
    merged.update(data)
    if env:
        merged["env"] = env
    return merged


def load_yaml_config(path: str | os.PathLike, dataclass_types: Sequence[type]) -> dict[str, Any]:
    """Read a flat YAML mapping (after its `base:` chain) and reject keys that none of `dataclass_types` declares
    (`env:` is TrlParser's)."""
    data = read_yaml_layers(path)
    for old, name in former_names(dataclass_types).items():
        if old in data and old not in _known_fields(dataclass_types):
            print(f"{path}: `{old}:` is deprecated; use `{name}:`", file=sys.stderr)
            value = data.pop(old)
            data.setdefault(name, value)
    unknown = sorted(set(data) - _known_fields(dataclass_types) - {"env"})
    if unknown:
        known = ", ".join(sorted(_known_fields(dataclass_types)))
        raise ConfigError(f"{path}: unknown key(s) {unknown}; known keys are: {known}")
    return data


def shipped_configs() -> dict[str, list[Path]]:
    """Every shipped config by name (its file's stem), each with the file(s) of that name: one, unless two stages
    share a name."""
    found: dict[str, list[Path]] = {}
    for path in sorted(configs_dir().glob("*/*.yaml")):
        found.setdefault(path.stem, []).append(path)
    return found


def is_config_name(value: str) -> bool:
    """A bare name such as `rqrag_trained`, as opposed to a path: no folder, no YAML suffix."""
    return "/" not in value and os.sep not in value and not value.endswith((".yaml", ".yml"))


def resolve_config(value: str) -> str:
    """The file `--config value` means: a path as given; a bare name (that is not a file here) the shipped config
    of that name. An unknown or ambiguous name is a `ConfigError` that lists the names."""
    if not is_config_name(value) or Path(value).is_file():
        return value
    configs = shipped_configs()
    paths = configs.get(value, [])
    if len(paths) == 1:
        return str(paths[0])
    if paths:
        listed = ", ".join(str(p) for p in paths)
        raise ConfigError(f"config name {value!r} is ambiguous: it names {listed}; pass one of these paths instead")
    raise ConfigError(
        f"no config named {value!r} (and no such file); shipped configs are: {', '.join(configs)} "
        "(`rqrag config list` shows what each is for)"
    )


def _flattened_config(path: str, data: dict[str, Any]) -> str:
    """The path TrlParser should read: the file itself, or a merged copy when it names a base or a setting by its
    former name (TrlParser knows nothing of either)."""
    with open(path) as f:
        if (yaml.safe_load(f) or {}) == data:
            return path
    import tempfile

    fd, merged = tempfile.mkstemp(prefix=Path(path).stem + "-", suffix=".yaml")
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump(data, f, sort_keys=False)
    return merged


def parse(parser, argv: Sequence[str] | None = None) -> tuple:
    """Parse `argv` into the parser's dataclasses, YAML defaults first, then CLI overrides.

    Returns one instance per dataclass, followed by an `argparse.Namespace` holding any extra
    (non-dataclass) arguments the caller added, such as positionals.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if parser.usage is None and getattr(parser, "_concern_titles", None):
        parser.usage = _short_usage(parser)  # here, once the caller's positionals are added
    # TrlParser reads `--config PATH` only; accept the `--config=PATH` spelling argparse users also write.
    argv = [part for arg in argv for part in (arg.split("=", 1) if arg.startswith("--config=") else [arg])]
    config_path = argv[argv.index("--config") + 1] if "--config" in argv[:-1] else None
    if config_path is not None:
        config_path = resolve_config(config_path)
    flat = config_path
    if config_path is not None:
        # Checked here for the message: TrlParser reports a bad file as a bare OSError or ValueError.
        data = load_yaml_config(config_path, parser.dataclass_types)
        flat = _flattened_config(config_path, data)
        argv[argv.index("--config") + 1] = flat
    try:
        *outputs, from_config, from_cli = parser.parse_args_and_config(
            argv, return_remaining_strings=True, separate_remaining_strings=True
        )
    finally:
        if flat != config_path:
            os.unlink(flat)
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
    # The installed distribution's version, not `rqrag.__version__`: the root package exposes the Python API
    # (`rqrag.Pipeline`, a stage), and the core must not import a stage, even through it.
    __version__ = importlib.metadata.version("rq-rag")

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
