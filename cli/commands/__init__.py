"""Subcommands of the `rqrag` CLI: one module per command, each exposing `main(argv) -> int`.

Commands with verbs (`rqrag index build`, `rqrag data build`) dispatch through `run_verb`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence


def run_verb(
    command: str, verbs: Mapping[str, tuple[str, Callable[[Sequence[str]], int]]], argv: Sequence[str] | None
) -> int:
    """Run `rqrag <command> <verb> ...`: `verbs` maps each verb to (one-line help, function of the rest of argv)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    width = max(len(v) for v in verbs)
    listing = "\n".join(f"  {verb:<{width}}  {help_}" for verb, (help_, _) in verbs.items())
    first = next(iter(verbs))
    usage = f"usage: rqrag {command} <verb> [options]   (rqrag {command} {first} --help for its options)\n\nverbs:\n{listing}"
    if not argv or argv[0] in ("-h", "--help"):
        print(usage)
        return 0
    verb, rest = argv[0], argv[1:]
    if verb not in verbs:
        print(f"rqrag {command}: unknown verb {verb!r}\n\n{usage}", file=sys.stderr)
        return 2
    return verbs[verb][1](rest)
