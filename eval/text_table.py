"""Fixed-width text tables for benchmark scripts: one row per dict, columns named once with their format.

    print_table(rows, [("store", "store", ""), ("p50 ms", "p50_ms", ".2f"), ("speedup", speedup, "")], title="...")

A column is (header, what, format spec): `what` is a row key or a function of the row, and the spec is what
`format()` takes (".1%", ",", ".2f"). A value of None prints as "n/a", so a measurement a backend cannot give does
not need a spec of its own. Numbers are right-aligned and text left-aligned, and every column is as wide as its
widest cell, so a header never drifts from its values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


Column = tuple[str, str | Callable[[dict], Any], str]


def _cell(row: dict, what: str | Callable[[dict], Any], spec: str) -> tuple[str, bool]:
    """The formatted value and whether it is a number (right-aligned)."""
    value = what(row) if callable(what) else row[what]
    if value is None:
        return "n/a", True
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return format(value, spec), number


def text_table(rows: Sequence[dict], columns: Sequence[Column]) -> str:
    """The rows under a header line, one space between columns."""
    cells = [[_cell(row, what, spec) for _, what, spec in columns] for row in rows]
    widths = [max([len(header)] + [len(line[i][0]) for line in cells]) for i, (header, _, _) in enumerate(columns)]
    right = [any(line[i][1] for line in cells) for i in range(len(columns))]

    def line(texts: Sequence[str]) -> str:
        return " ".join(t.rjust(w) if r else t.ljust(w) for t, w, r in zip(texts, widths, right)).rstrip()

    return "\n".join([line([header for header, _, _ in columns]), *(line([t for t, _ in row]) for row in cells)])


def print_table(rows: Sequence[dict], columns: Sequence[Column], title: str | None = None) -> None:
    """Print `title` (after a blank line) when given, then the table."""
    if title is not None:
        print(f"\n{title}")
    print(text_table(rows, columns))
