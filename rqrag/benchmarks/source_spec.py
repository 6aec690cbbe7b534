"""Which examples of a benchmark a run reads: `name`, `name:limit` or `name:start-end`, one grammar for every
stage that takes a list of sources (`rqrag data build --sources`, `rqrag data self-train --sources`).

    parse_source_spec("hotpotqa")         ->  SourceSpec("hotpotqa", 0, None)   every usable example
    parse_source_spec("hotpotqa:50")      ->  SourceSpec("hotpotqa", 0, 50)     the first 50
    parse_source_spec("hotpotqa:50-120")  ->  SourceSpec("hotpotqa", 50, 120)   the 51st to the 120th

Positions count the examples a stage can use (in its split, not duplicated), in file order, from 1: a later run
given `name:50-120` reads the questions an earlier `name:50` did not.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceSpec:
    name: str
    start: int = 0  # usable examples skipped first
    end: int | None = None  # the position of the last one read; None: to the end of the file

    def before(self, position: int) -> bool:
        """Whether the usable example at 1-based `position` comes before the range."""
        return position <= self.start

    def last(self, position: int) -> bool:
        """Whether the usable example at 1-based `position` is the last the range reads."""
        return self.end is not None and position >= self.end


def parse_source_spec(spec: str) -> SourceSpec:
    """`name` -> all; `name:limit` -> the first `limit`; `name:start-end` -> positions start+1..end."""
    name, _, bounds = spec.partition(":")
    start, dash, end = bounds.partition("-")
    if not dash:
        start, end = "0", bounds
    if not name.strip() or not start.isdigit() or (end and not end.isdigit()) or (dash and not end):
        raise ValueError(f"source spec must be `name`, `name:limit` or `name:start-end`, got {spec!r}")
    parsed = SourceSpec(name.strip(), int(start), int(end) if end else None)
    if parsed.end is not None and parsed.end <= parsed.start:
        raise ValueError(f"{spec}: the range must hold at least one example")
    return parsed
