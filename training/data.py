"""Trajectory records -> `input_ids` + `labels`, the pre-tokenized dataset TRL's SFTTrainer takes as is.

The loss mask comes from the trajectory language, not from the chat template: `render_example` splits an
example into segments with a `supervise` flag (prompt and `[R_Evidences]...[/R_Evidences]` content off;
action tokens, queries, answer, `[EOS]` and the end of turn on), and `tokenize_segments` turns them into
ids and labels in one pass, so no prefix is ever re-tokenized. TRL uses a `labels` column unchanged, with
packing or padding.

Records come from `rqrag data build` (`messages` + `trajectory`); a record without `trajectory` is parsed
back from its assistant message, so hand-written chat data in the same format also trains.
"""

from __future__ import annotations

import logging
from typing import Any

from rqrag.trajectory import Trajectory, parse_trajectory
from rqrag.trajectory_render import render_example, tokenize_segments


logger = logging.getLogger(__name__)

IGNORE_INDEX = -100


def record_trajectory(record: dict[str, Any]) -> tuple[list[dict], Trajectory]:
    """(conversation up to the user's last turn, trajectory) of one record."""
    messages = list(record["messages"])
    if not messages or messages[-1]["role"] != "assistant":
        raise ValueError(f"record {record.get('id')!r}: the last message must be the assistant's trajectory")
    if record.get("trajectory"):
        trajectory = Trajectory.from_dict(record["trajectory"])
    else:
        parsed = parse_trajectory(messages[-1]["content"])
        if not parsed.well_formed:
            raise ValueError(f"record {record.get('id')!r}: assistant message is not a well-formed trajectory")
        trajectory = parsed.trajectory
    return messages[:-1], trajectory


def tokenize_record(record: dict[str, Any], tokenizer, evidence_max_words: int = 0) -> dict[str, list[int]]:
    messages, trajectory = record_trajectory(record)
    trajectory = trajectory.with_evidence_cut(evidence_max_words)
    input_ids, labels = tokenize_segments(tokenizer, render_example(tokenizer, messages, trajectory).segments)
    return {"input_ids": input_ids, "labels": labels}


def tokenize_dataset(
    dataset, tokenizer, max_length: int | None, num_proc: int | None = None, evidence_max_words: int = 0
):
    """Map a `datasets.Dataset` of records to input_ids/labels; drop examples longer than `max_length`.

    Dropping rather than truncating: a truncated trajectory would teach the model to stop mid-search.
    `evidence_max_words` cuts each evidence passage (not the trajectory), as the decoder's option of that name.
    """
    tokenized = dataset.map(
        lambda record: tokenize_record(record, tokenizer, evidence_max_words),
        remove_columns=dataset.column_names,
        num_proc=num_proc,
        desc="tokenizing trajectories",
    )
    if max_length is None:
        return tokenized
    kept = tokenized.filter(lambda ex: len(ex["input_ids"]) <= max_length, num_proc=num_proc)
    if len(kept) < len(tokenized):
        logger.warning(
            "dropped %d of %d examples longer than max_length=%d",
            len(tokenized) - len(kept),
            len(tokenized),
            max_length,
        )
    return kept


def load_records(path: str, eval_fraction: float = 0.0, seed: int = 0):
    """(train, eval or None) `datasets.Dataset`s from a JSONL file of records, or several joined by commas
    (gold/silver data and self-training data: `rqrag data self-train`)."""
    import datasets

    paths = [p.strip() for p in path.split(",") if p.strip()]
    if len(paths) > 1:
        # Files from different builds have different `metadata` keys, which datasets' JSON loader cannot
        # concatenate; training reads only these columns, and one in-memory table unifies their nested types.
        from rqrag.records import ReadStats, read_records

        keep = ("id", "messages", "trajectory")
        rows = [{k: r.get(k) for k in keep} for p in paths for r in read_records(p, ReadStats())]
        dataset = datasets.Dataset.from_list(rows)
    else:
        dataset = datasets.load_dataset("json", data_files=path, split="train")
    if not eval_fraction:
        return dataset, None
    split = dataset.train_test_split(test_size=eval_fraction, seed=seed)
    return split["train"], split["test"]
