"""Annotation prompts (files under `prompts/`), their JSON output schemas, and strict parsers for the replies.

One template per category, written for this project after the intent of the paper's Tables 4-6: decide on
and rewrite a query in context (multi-turn), rewrite for search (single-hop), decompose (multi-hop),
disambiguate (ASQA); plus the answer-regeneration prompt. Templates use `string.Template` placeholders
(`$question`, `$conversation`, `$evidence`, `$max_queries`, `$answer_format`), so braces in questions or
retrieved text need no escaping.

Replies are requested as JSON under a schema (endpoints with structured output enforce it) and parsed
strictly: anything that is not exactly the requested shape raises `FormatError`, which the pipeline counts
as a drop reason rather than guessing what the annotator meant.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from rqrag.llm.client import NotAJSONObject, load_json_object
from rqrag.trajectory import clean_text


PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"

QUERY_TASKS = ("multi_turn", "single_hop", "decompose", "disambiguate")

SCHEMAS: dict[str, dict[str, Any]] = {
    "multi_turn": {
        "type": "object",
        "properties": {"needs_search": {"type": "boolean"}, "query": {"type": "string"}},
        "required": ["needs_search", "query"],
        "additionalProperties": False,
    },
    "single_hop": {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "additionalProperties": False,
    },
    "decompose": {
        "type": "object",
        "properties": {"queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 6}},
        "required": ["queries"],
        "additionalProperties": False,
    },
    "answer": {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    },
}
SCHEMAS["disambiguate"] = SCHEMAS["decompose"]

# What the regenerated answer should look like, per category (filled into answer.txt's $answer_format).
ANSWER_FORMATS = {
    "single_hop": "The user's message is a multiple-choice question: begin the answer with the letter of the "
    "correct option, a full stop and that option's text, then explain briefly.\n",
    "decompose": "Give the answer as a short phrase (a name, a date, a number or yes/no), not a sentence.\n",
    "disambiguate": "The question can be read in several ways: answer each reading in turn, in one paragraph.\n",
    "multi_turn": "",
}

# A refusal is a reply that declines the task instead of doing it; counted apart from format errors.
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry, (but )?i|i cannot|i can'?t|i am unable|i'm unable|as an ai)", re.IGNORECASE
)


_LIST_MARKER = re.compile(r"^(\d{1,2}[.)]|[-*\u2022])\s+")


class FormatError(ValueError):
    """The annotator's reply is not the requested JSON shape."""


class Refusal(ValueError):
    """The annotator declined the task."""


@dataclass(frozen=True)
class Prompt:
    task: str
    messages: tuple[dict, ...]
    schema: dict[str, Any]


class PromptBook:
    """The templates of one prompts directory (the shipped one by default)."""

    def __init__(self, directory: str | Path | None = None):
        self.directory = Path(directory) if directory else PROMPTS_DIR
        names = ("system", *QUERY_TASKS, "answer")
        missing = [n for n in names if not (self.directory / f"{n}.txt").is_file()]
        if missing:
            raise FileNotFoundError(f"{self.directory}: missing prompt file(s) {[m + '.txt' for m in missing]}")
        self.templates = {
            n: Template((self.directory / f"{n}.txt").read_text(encoding="utf-8").strip()) for n in names
        }

    def _messages(self, name: str, **values: str) -> tuple[dict, ...]:
        system = self.templates["system"].template
        return (
            {"role": "system", "content": system},
            {"role": "user", "content": self.templates[name].substitute(values)},
        )

    def refine(self, task: str, conversation: Sequence[dict], max_queries: int) -> Prompt:
        if task not in QUERY_TASKS:
            raise ValueError(f"unknown annotation task {task!r}; expected one of {QUERY_TASKS}")
        values = {
            "question": conversation[-1]["content"],
            "conversation": format_conversation(conversation),
            "max_queries": str(max_queries),
        }
        schema = SCHEMAS[task]
        if "queries" in schema["properties"]:  # cap the list in the schema too: a constrained decoder then stops
            queries = {**schema["properties"]["queries"], "maxItems": max_queries}
            schema = {**schema, "properties": {**schema["properties"], "queries": queries}}
        return Prompt(task, self._messages(task, **values), schema)

    def answer(self, category: str, conversation: Sequence[dict], evidence: str) -> Prompt:
        values = {
            "conversation": format_conversation(conversation),
            "evidence": evidence or "(no results)",
            "answer_format": ANSWER_FORMATS.get(category, ""),
        }
        return Prompt("answer", self._messages("answer", **values), SCHEMAS["answer"])


def format_conversation(conversation: Sequence[dict]) -> str:
    return "\n\n".join(f"{m['role'].capitalize()}: {m['content'].strip()}" for m in conversation)


def _load_object(reply: str, schema: dict[str, Any]) -> dict[str, Any]:
    if _REFUSAL.match(reply or ""):
        raise Refusal(reply.strip()[:200])
    try:
        data = load_json_object(reply)
    except NotAJSONObject as error:
        raise FormatError(str(error)) from error
    missing = [k for k in schema["required"] if k not in data]
    if missing:
        raise FormatError(f"missing key(s) {missing}")
    for key, spec in schema["properties"].items():
        value = data[key]
        expected = {"string": str, "boolean": bool, "array": list}[spec["type"]]
        if not isinstance(value, expected) or (expected is list and not all(isinstance(v, str) for v in value)):
            raise FormatError(f"{key!r} must be a {spec['type']}")
    return data


def parse_queries(task: str, reply: str, max_queries: int) -> list[str]:
    """The search queries in a refinement reply: [] means no search (multi-turn only). Strict."""
    data = _load_object(reply, SCHEMAS[task])
    if task == "multi_turn":
        query = clean_text(data["query"])
        if not data["needs_search"]:
            return []
        if not query:
            raise FormatError("needs_search is true but the query is empty")
        return [query]
    if task == "single_hop":
        query = clean_text(data["query"])
        if not query:
            raise FormatError("empty query")
        return [query]
    # Small annotators number their list items ("1. ...", "- ..."); the numbering is not part of the query.
    queries = [_LIST_MARKER.sub("", clean_text(q)) for q in data["queries"]]
    queries = list(dict.fromkeys(q for q in queries if q))  # drop empties and exact repeats, keep order
    if not queries:
        raise FormatError("no non-empty queries")
    return queries[:max_queries]


def parse_answer(reply: str) -> str:
    answer = _load_object(reply, SCHEMAS["answer"])["answer"].strip()
    if not answer:
        raise FormatError("empty answer")
    if _REFUSAL.match(answer):
        raise Refusal(answer[:200])
    return answer
