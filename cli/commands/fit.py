"""`rqrag fit PART [options]`: fit one learned part from its recipe (`rqrag.fit`) and save it.

rqrag fit --help                                   # every learned part: what it writes, from what
rqrag fit verifier runs/verifier/selftrain/train --out models/rqrag-smollm2-135m-selftrain/verifier
rqrag fit reader runs/trees/train --documents golden second --out models/reader
rqrag fit decision runs/tune/hotpotqa_train/rqrag/predictions.jsonl --reader qwen2.5-1.5b --out DIR
rqrag fit memory-floor
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from rqrag.fit import PARTS


def usage() -> str:
    width = max(len(name) for name in PARTS)
    lines = ["usage: rqrag fit PART [options]   (rqrag fit PART --help for its options)", "", "learned parts:"]
    for name, part in PARTS.items():
        lines.append(f"  {name:<{width}}  {part.decides}")
        lines.append(f"  {'':<{width}}    writes {part.writes}")
        lines.append(f"  {'':<{width}}    from {part.learns_from}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(argv or [])
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in PARTS:
        print(f"rqrag fit: no learned part {name!r}\n\n{usage()}")
        return 2
    recipe = importlib.import_module(PARTS[name].module)
    return recipe.main(rest, prog=f"rqrag fit {name}") or 0
