"""rqrag data import --input rq_rag.jsonl --out_dir runs/data/released

    rqrag data import --config configs/data/released.yaml                 # hf:zorowin123/rq_rag:train (online)
    rqrag data import --input rq_rag.jsonl --out_dir runs/data/released --limit 100

Import the training set released by the RQ-RAG authors (Hugging Face `zorowin123/rq_rag`) as this package's
trajectory records, so `training/sft.py` can train on the paper's own data next to (or instead of) what
`rqrag data build` writes. Output folder: data.jsonl, dropped.jsonl, report.json, resolved_config.yaml.

The release (built by `data_curation/merge_intermediate.py` of chanchimin/RQ-RAG) has one object per line
with `id`, `dataset` and chat `messages`. Each assistant turn spells the trajectory with special tokens:

    [S_Rewritten_Query]\\nq\\n[EOS][R_Evidences]\\nEVID\\n[/R_Evidences]  ... [A_Response]\\nanswer\\n[EOS]
    [S_Decomposed_Query]\\nq\\n[EOS]\\n[R_Evidences]\\nEVID\\n[/R_Evidences]\\n  ... [A_Response]\\nspans\\n[EOS]
    [S_Disambiguated_Query]\\nq\\n[EOS]\\n[R_Evidences]\\nEVID\\n[/R_Evidences]\\n[S_Response]\\nshort\\n[EOS]\\n ...

where EVID is `Title: t\\nText: x` per passage. The same tokens mean the same things in `rqrag.trajectory`,
but the spacing differs and our language has no `[S_Response]` (the decoder never asks for an intermediate
answer), so each turn is parsed here into `Step`s and rendered again with `render_assistant`: training then
sees exactly the format the decoder reads and writes. Intermediate answers are kept in
`metadata.intermediate_answers`. Only the last assistant turn can be a supervised trajectory, so earlier
turns of a conversation keep just their answer, as plain chat text. Our language writes each query and answer
on one line, so line breaks become spaces (a multi-hop answer's spans are joined with "; "), counted in the
report as `answers_reformatted`.

The parser is strict: a record whose turns do not follow the grammar (an unknown token, a query without
`[EOS]`, an evidence block that is never closed, an empty answer, ...) is written to dropped.jsonl with its
reason and the record itself, never half-imported. The import is a pure function of its input, so each run
writes the whole output to temporary files and renames them into place: a rerun replaces the files (no
duplicates), a killed run leaves the previous output whole, and report.json describes exactly the input.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from rqrag.data_construction.data_config import DataImportConfig
from rqrag.prompt_formats import INTERMEDIATE_ANSWER  # the release's answer to one clarified question
from rqrag.records import HUB_PREFIX, ReadStats, read_records
from rqrag.retrieval.base import Hit
from rqrag.trajectory import EOS, EVIDENCE_END, EVIDENCE_START, Action, Step, Trajectory, clean_text, parse_evidence
from rqrag.trajectory_render import render_assistant


logger = logging.getLogger(__name__)

DATA_FILE, DROPPED_FILE, REPORT_FILE = "data.jsonl", "dropped.jsonl", "report.json"
ORIGIN = "zorowin123/rq_rag"
ROLES = ("system", "user", "assistant")

_QUERY_ACTIONS = {a.value: a for a in Action if a.is_query}
_KNOWN_TOKENS = {*(a.value for a in Action), EVIDENCE_START, EVIDENCE_END, EOS, INTERMEDIATE_ANSWER}
# Anything shaped like the release's tokens ([X_Name], [/X_Name], [EOS]) is a token, known or not, so a token
# from another version of the format is reported instead of being read as query or answer text.
_TOKEN_RE = re.compile(r"\[/?[A-Z]{1,2}_[A-Za-z_]+\]|\[EOS\]")


class Rejected(Exception):
    """A record that does not follow the released format; `reason` is the key counted in the report."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class ReleasedTurn:
    """One parsed assistant turn: query steps then the answer step, and what is released beside them."""

    steps: tuple[Step, ...]
    intermediate_answers: tuple[str | None, ...]  # aligned with the query steps
    answer: str  # as released (outer newlines removed): the plain text an earlier turn keeps

    @property
    def queries(self) -> tuple[Step, ...]:
        return self.steps[:-1]


def _evidence(body: str) -> tuple[Hit, ...]:
    """The passages of one evidence block; an empty block (a search that found nothing) is allowed."""
    body = body.strip()
    if not body:
        return ()
    if body.endswith("\nText:"):
        # A last passage with empty text lost the space after "Text:" to the release's `.strip()`.
        body += " "
    hits = parse_evidence(body)
    if not body.startswith("Title: ") or len(hits) != len(re.findall(r"(?m)^Title: ", body)):
        raise Rejected("malformed_evidence", f"not a list of 'Title: ...\\nText: ...' passages: {body[:80]!r}")
    # Collapsed as render_assistant collapses them, so the stored trajectory is what the rendered text parses to.
    return tuple(Hit(docid="", title=clean_text(h.title), text=clean_text(h.text), score=0.0) for h in hits)


def parse_turn(content: str) -> ReleasedTurn:
    """Parse one released assistant turn; raises `Rejected` on anything outside the three shapes."""
    tokens = _TOKEN_RE.findall(content)
    pieces = _TOKEN_RE.split(content)  # pieces[k + 1] is the text right after tokens[k]
    unknown = sorted({t for t in tokens if t not in _KNOWN_TOKENS})
    if unknown:
        raise Rejected("unknown_token", ", ".join(unknown))
    if not tokens:
        raise Rejected("no_special_tokens", "assistant turn is plain text, not a trajectory")
    if pieces[0].strip():
        raise Rejected("stray_text", f"text before the first token: {pieces[0].strip()[:60]!r}")

    def expect(k: int, token: str, reason: str) -> None:
        found = tokens[k] if k < len(tokens) else "the end of the turn"
        if found != token:
            raise Rejected(reason, f"expected {token} after {tokens[k - 1]}, found {found}")

    def blank_after(k: int) -> None:  # between an [EOS] or [/R_Evidences] and the next token: only newlines
        if pieces[k + 1].strip():
            raise Rejected("stray_text", f"text after {tokens[k]}: {pieces[k + 1].strip()[:60]!r}")

    steps: list[Step] = []
    intermediate: list[str | None] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == Action.ANSWER.value:
            expect(i + 1, EOS, "answer_without_eos")
            answer = pieces[i + 1].strip()
            if not clean_text(answer):
                raise Rejected("empty_answer", "nothing between [A_Response] and [EOS]")
            if i + 2 < len(tokens) or pieces[i + 2].strip():
                raise Rejected("text_after_answer", "the turn goes on after the answer's [EOS]")
            lines = [line.strip() for line in answer.splitlines() if line.strip()]
            if steps and all(s.action is Action.DECOMPOSE for s in steps):
                # A multi-hop answer is the gold spans, one a line; our one-line text keeps them apart with "; ".
                steps.append(Step(Action.ANSWER, clean_text("; ".join(lines))))
            else:
                steps.append(Step(Action.ANSWER, clean_text(answer)))
            return ReleasedTurn(tuple(steps), tuple(intermediate), answer)
        if token not in _QUERY_ACTIONS:
            raise Rejected("unexpected_token", f"{token} where a query or the answer should start")
        query = clean_text(pieces[i + 1])
        expect(i + 1, EOS, "query_without_eos")
        if not query:
            raise Rejected("empty_query", f"nothing between {token} and [EOS]")
        blank_after(i + 1)
        expect(i + 2, EVIDENCE_START, "query_without_evidence")
        expect(i + 3, EVIDENCE_END, "unclosed_evidence")
        hits = _evidence(pieces[i + 3])
        blank_after(i + 3)
        i += 4
        short: str | None = None
        if i < len(tokens) and tokens[i] == INTERMEDIATE_ANSWER:
            expect(i + 1, EOS, "intermediate_answer_without_eos")
            # The release joins a reading's short answers with newlines; kept verbatim (None when there are none).
            short = pieces[i + 1].strip() or None
            blank_after(i + 1)
            i += 2
        steps.append(Step(_QUERY_ACTIONS[token], query, hits))
        intermediate.append(short)
    raise Rejected("no_response", "the turn ends without [A_Response]")


def _messages(raw: dict[str, Any]) -> list[dict[str, str]]:
    for key in ("id", "dataset", "messages"):
        if key not in raw:
            raise Rejected("missing_field", f"no {key!r} (the release has id, dataset, messages)")
    messages = raw["messages"]
    if not isinstance(messages, list) or not messages:
        raise Rejected("no_messages", "'messages' is not a non-empty list")
    for n, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise Rejected("bad_message", f"message {n} is not {{role: system|user|assistant, content: str}}")
    if messages[-1]["role"] != "assistant":
        raise Rejected("last_not_assistant", f"the last message is the {messages[-1]['role']}'s")
    if len(messages) < 2 or messages[-2]["role"] != "user":
        raise Rejected("no_user_turn", "the last assistant turn does not answer a user message")
    return messages


def _refinement(steps: tuple[Step, ...]) -> str:
    actions = sorted({s.action.short for s in steps})
    return "+".join(actions) if actions else "none"  # the release never mixes actions; a mix would show here


def import_record(raw: dict[str, Any]) -> dict[str, Any]:
    """One released record -> one trajectory record (the shape `rqrag data build` writes), or `Rejected`."""
    messages = _messages(raw)
    conversation: list[dict[str, str]] = []
    earlier_queries = 0
    for n, message in enumerate(messages[:-1]):
        content = message["content"]
        if message["role"] == "assistant":
            try:
                turn = parse_turn(content)
            except Rejected as err:
                raise Rejected(err.reason, f"message {n}: {err.detail}") from None
            content, earlier_queries = turn.answer, earlier_queries + len(turn.queries)
        conversation.append({"role": message["role"], "content": content})
    try:
        final = parse_turn(messages[-1]["content"])
    except Rejected as err:
        raise Rejected(err.reason, f"message {len(messages) - 1}: {err.detail}") from None
    trajectory = Trajectory(final.steps)
    source = str(raw["dataset"])
    return {
        "id": f"{source}:{raw['id']}",  # as `rqrag data build` keys records: ids repeat across source datasets
        "messages": [*conversation, {"role": "assistant", "content": render_assistant(trajectory)}],
        "trajectory": trajectory.to_dict(),
        "metadata": {
            "source": source,
            "source_id": str(raw["id"]),
            "origin": ORIGIN,
            "refinement": _refinement(final.queries),
            "n_queries": len(final.queries),
            "intermediate_answers": list(final.intermediate_answers),
            "answer_source": "released",
            "assistant_turns": sum(m["role"] == "assistant" for m in messages),
            # Searches of earlier turns cannot be supervised (only the last turn is a trajectory): counted, not kept.
            "earlier_turn_queries": earlier_queries,
            # Our language writes text on one line: True when line breaks or runs of spaces in the answer were joined.
            "answer_reformatted": final.steps[-1].text != final.answer,
        },
    }


class _Tally:
    """What the report counts, per record, as the import goes."""

    def __init__(self) -> None:
        self.imported = self.dropped = self.queries = self.intermediate = 0
        self.earlier_turn_queries = self.reformatted = self.multi_turn = 0
        self.reasons: Counter[str] = Counter()
        self.per_source: dict[str, Counter[str]] = defaultdict(Counter)
        self.refinement: Counter[str] = Counter()
        self.queries_per_record: Counter[int] = Counter()

    def keep(self, record: dict[str, Any]) -> None:
        meta = record["metadata"]
        self.imported += 1
        self.per_source[meta["source"]]["imported"] += 1
        self.refinement[meta["refinement"]] += 1
        self.queries += meta["n_queries"]
        self.queries_per_record[meta["n_queries"]] += 1
        self.intermediate += sum(a is not None for a in meta["intermediate_answers"])
        self.earlier_turn_queries += meta["earlier_turn_queries"]
        self.reformatted += meta["answer_reformatted"]
        self.multi_turn += meta["assistant_turns"] > 1

    def drop(self, source: str | None, reason: str) -> None:
        self.dropped += 1
        self.reasons[reason] += 1
        self.per_source[source or "(none)"]["dropped"] += 1

    def report(self, config: DataImportConfig, stats: ReadStats) -> dict[str, Any]:
        return {
            "input": config.input,
            "records_read": stats.read,
            "imported": self.imported,
            "dropped": self.dropped,
            "drop_reasons": dict(self.reasons.most_common()),
            "malformed_lines": stats.skipped,
            "malformed_examples": [f"line {n}: {why}" for n, why in stats.malformed],
            "per_source": {
                s: {"imported": c["imported"], "dropped": c["dropped"]} for s, c in sorted(self.per_source.items())
            },
            "refinement": dict(self.refinement.most_common()),
            "queries_per_record": {str(k): v for k, v in sorted(self.queries_per_record.items())},
            "mean_queries_per_record": round(self.queries / self.imported, 3) if self.imported else None,
            "intermediate_answers_kept": self.intermediate,
            "multi_turn_records": self.multi_turn,
            "earlier_turn_queries_not_kept": self.earlier_turn_queries,
            "answers_reformatted": self.reformatted,
        }


def _drop_entry(raw: dict[str, Any], position: int, err: Rejected) -> dict[str, Any]:
    has_id = "id" in raw and "dataset" in raw
    return {
        "id": f"{raw['dataset']}:{raw['id']}" if has_id else None,
        "position": position,  # 1-based among the records read (malformed lines are not records)
        "source": str(raw["dataset"]) if "dataset" in raw else None,
        "reason": err.reason,
        "detail": err.detail,
        "record": raw,  # the released record itself, so nothing is lost and the drop can be inspected or fixed
    }


def _write_json_atomic(path: Path, payload: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def run_import(config: DataImportConfig) -> dict[str, Any]:
    """Import `config.input` into `config.out_dir`; returns the report (also written to report.json)."""
    if not config.input.startswith(HUB_PREFIX) and not Path(config.input).is_file():
        raise FileNotFoundError(f"input file not found: {config.input}")
    out_dir = Path(config.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = {name: out_dir / name for name in (DATA_FILE, DROPPED_FILE)}
    tmp = {name: path.with_name(path.name + ".tmp") for name, path in final.items()}
    stats, tally, seen = ReadStats(), _Tally(), set()
    try:
        with (
            tmp[DATA_FILE].open("w", encoding="utf-8") as data,
            tmp[DROPPED_FILE].open("w", encoding="utf-8") as dropped,
        ):
            records = itertools.islice(read_records(config.input, stats), config.limit)
            progress = tqdm(records, desc="importing", unit="rec", disable=None)
            for position, raw in enumerate(progress, start=1):
                try:
                    record = import_record(raw)
                    if record["id"] in seen:
                        raise Rejected("duplicate_id", f"{record['id']} was already imported from an earlier record")
                except Rejected as err:
                    dropped.write(json.dumps(_drop_entry(raw, position, err), ensure_ascii=False) + "\n")
                    tally.drop(str(raw["dataset"]) if "dataset" in raw else None, err.reason)
                else:
                    seen.add(record["id"])
                    data.write(json.dumps(record, ensure_ascii=False) + "\n")
                    tally.keep(record)
                if position % 1000 == 0:
                    progress.set_postfix(imported=tally.imported, dropped=tally.dropped)
            progress.close()
    except BaseException:
        for path in tmp.values():  # the previous output, if any, stays as it was
            path.unlink(missing_ok=True)
        raise
    for name in final:
        os.replace(tmp[name], final[name])
    report = tally.report(config, stats)
    _write_json_atomic(out_dir / REPORT_FILE, report)
    if tally.dropped:
        logger.info("dropped %d record(s): %s", tally.dropped, report["drop_reasons"])
    return report


def format_report(report: dict[str, Any], out_dir: str | os.PathLike) -> str:
    """A few lines for the terminal; report.json has everything."""

    def counts(d: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"

    lines = [
        f"rqrag data import: {report['imported']} of {report['records_read']} records imported, "
        f"{report['dropped']} dropped, {report['malformed_lines']} malformed line(s) skipped",
        f"  dropped:       {counts(report['drop_reasons'])}",
        f"  refinement:    {counts(report['refinement'])}",
        "  per source:    "
        + ", ".join(f"{s} {c['imported']}/{c['imported'] + c['dropped']}" for s, c in report["per_source"].items()),
        f"  queries:       mean {report['mean_queries_per_record']} per record; "
        f"intermediate answers kept {report['intermediate_answers_kept']}",
    ]
    lines += [f"  malformed:     {example}" for example in report["malformed_examples"][:3]]
    lines.append(f"  -> {Path(out_dir) / DATA_FILE}")
    return "\n".join(lines)
