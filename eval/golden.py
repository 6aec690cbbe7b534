"""Golden question files over a document (tests/data/golden_pt, second_pt, heldout_pt): read once, for every user.

    questions = load_questions(GOLDEN, key_facts=KEY_FACTS, limit=10)

A golden file is JSONL, one question a line: `id`, `question`, usually `answer`, `category` and `evidence` (the
quotes, with their pages, that answer it). Key facts (the strings a right answer must contain) live in a file of
their own, by id, so the questions can be shared without them; `load_questions` merges them in. A golden set must be
whole: a malformed line or a question without a required field is an error, never a skip, since a benchmark run
over fewer questions than the file holds would report numbers for a set nobody chose.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rqrag.records import read_records


def load_questions(
    path: str | os.PathLike,
    key_facts: str | os.PathLike | None = None,
    limit: int | None = None,
    required: Sequence[str] = ("id", "question"),
) -> list[dict[str, Any]]:
    """The questions of a golden file (the first `limit` when given), each with the fields in `required`, and
    their `key_facts` merged in by id from the `key_facts` file when it exists (a question's own are kept)."""
    questions = list(read_records(path, strict=True))
    for question in questions:
        missing = set(required) - set(question)
        if missing:
            raise ValueError(f"{path}: a golden question lacks {sorted(missing)}: {question}")
    if key_facts is not None and Path(key_facts).is_file():
        facts = {row["id"]: row["key_facts"] for row in read_records(key_facts, strict=True)}
        for question in questions:
            question.setdefault("key_facts", facts.get(question["id"], []))
    return questions[:limit] if limit else questions
