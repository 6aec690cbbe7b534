"""`--help` says what a flag does; what it was measured to cost or gain, and on which machine, is in docs/*.md next
to the command that measured it (figures in help text go stale on every other machine)."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]

# A figure of this machine: a core count, "this CPU", a speed-up, a time, a share of answers found right.
MEASURED = re.compile(
    r"\d+-core|on this CPU|\d+(?:\.\d+)?\s*[x×]\s+(?:faster|slower|cheaper)|"
    r"\b\d+(?:\.\d+)?\s*(?:ms|s|min)\b(?! per)|right about \d+",
    re.IGNORECASE,
)


def _field_helps():
    """(file:line, text) of every `metadata={"help": ...}` string in the package's config dataclasses."""
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in files.stdout.split():
        if name.startswith(("tests/", "scripts/")):
            continue
        tree = ast.parse((ROOT / name).read_text(), filename=name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if isinstance(key, ast.Constant) and key.value == "help":
                        parts = [c.value for c in ast.walk(value) if isinstance(c, ast.Constant)]
                        yield f"{name}:{value.lineno}", "".join(p for p in parts if isinstance(p, str))


def test_no_help_text_carries_a_measurement_of_this_machine():
    measured = [(where, text) for where, text in _field_helps() if MEASURED.search(text)]
    assert not measured, measured


def test_the_pattern_catches_what_it_is_for():
    for text in (
        "On this 2-core CPU bfloat16 was not faster",
        "60 words make training ~1.4x cheaper",
        "0.4: right about 45 %",
    ):
        assert MEASURED.search(text), text
    for text in (
        "seconds per judge call",
        "chat backend: seconds per request before a retry",
        "max_length 1536 tokens",
    ):
        assert not MEASURED.search(text), text
