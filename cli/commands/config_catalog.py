"""`rqrag config list` and `rqrag config show NAME`: the YAML configs shipped with rq-rag, by name.

    rqrag config list                   # every shipped config: name, stage, what it is for
    rqrag config show rqrag_trained     # its YAML, header comment (launch command) included
    rqrag ask "Who directed Titanic?" --config rqrag_trained     # any command takes the name for --config

The configs are the checkout's configs/<stage>/<name>.yaml, or the same files inside an installed wheel, so the
names work from any folder. Copy one (`rqrag config show NAME > mine.yaml`), edit it and pass its path.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rqrag.config_loader import ConfigError, resolve_config, shipped_configs


def describe(path: Path) -> str:
    """What a config is for: the first line of its header comment (each config opens with one)."""
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text:
            return text
    return ""


def list_configs() -> str:
    rows = [(name, path.parent.name, describe(path)) for name, paths in shipped_configs().items() for path in paths]
    name_width = max(len(r[0]) for r in rows)
    stage_width = max(len(r[1]) for r in rows)
    return "\n".join(f"{n:<{name_width}}  {s:<{stage_width}}  {d}" for n, s, d in rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rqrag config", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    sub.add_parser("list", help="every shipped config: its name, its stage and what it is for")
    show = sub.add_parser("show", help="print a shipped config's YAML")
    show.add_argument("name", help="a name from `rqrag config list` (or a YAML path)")
    args = parser.parse_args(argv)

    if args.verb == "list":
        print(list_configs())
        return 0
    try:
        path = Path(resolve_config(args.name))
        sys.stdout.write(path.read_text())
    except (ConfigError, OSError) as err:
        parser.error(str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
