"""Options by concern: every entry point's `--help` lists the everyday flags first, under "common options", and
every other flag in its concern's named group; every `DecodeConfig` field is still set from the command line and
from a flat YAML file; and `language` is accepted and honoured on every route that answers.

    python -m pytest tests/test_cli_groups.py -q
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
import typing

import pytest
import yaml
from fakes import FakeGenerator
from fastapi.testclient import TestClient

from rqrag.cli import main as cli_main
from rqrag.config_loader import COMMON_TITLE, concerns_of, make_parser, parse
from rqrag.data_construction.data_config import DataBuildConfig
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app
from rqrag.text.text_quality import guess_language


DECODE_GROUPS = [
    "backend",
    "tree",
    "retrieval",
    "answer: grounding and selection",
    "answer: the written answer",
    "baselines",
]
GROUPS = {
    ("ask",): DECODE_GROUPS,
    ("serve",): [*DECODE_GROUPS, "server", "requests", "documents", "memory"],
    ("eval",): [*DECODE_GROUPS, "benchmark"],
    ("data", "self-train"): [*DECODE_GROUPS, "self-training"],
    ("experiment",): [*DECODE_GROUPS, "experiment"],
    ("data", "build"): ["sources", "annotator", "retrieval", "run"],
}
ASK_EVERYDAY = [
    "--config", "--model", "--prompting", "--index", "--retriever", "--docs_per_search", "--max_depth",
    "--answerer", "--language", "--show_tree", "--json_output", "--history", "--depth",
]  # fmt: skip


def help_sections(capsys, command: tuple[str, ...]) -> dict[str, list[str]]:
    """`rqrag COMMAND --help` as {group title: the first option string of each flag in it}, in help order."""
    with pytest.raises(SystemExit) as exited:
        cli_main([*command, "--help"])
    assert exited.value.code == 0
    sections: dict[str, list[str]] = {}
    current = None
    for line in capsys.readouterr().out.splitlines():
        if re.fullmatch(r"\S.*:", line) and (
            current is not None or line in ("positional arguments:", COMMON_TITLE + ":")
        ):
            current = sections.setdefault(line[:-1], [])
        elif current is not None and (flag := re.match(r"  (-{1,2}[\w-]+)", line)):
            current.append(flag.group(1))
        # A group's description is indented like its flags: only the positionals' section lists bare names.
        elif current is sections.get("positional arguments") and (name := re.match(r"  (\w+) ", line)):
            current.append(name.group(1))
    return sections


@pytest.mark.parametrize("command", list(GROUPS), ids=" ".join)
def test_help_lists_the_common_options_then_each_concern_in_its_group(capsys, command):
    sections = help_sections(capsys, command)
    titles = [title for title in sections if title != "positional arguments"]
    assert titles == [COMMON_TITLE, *GROUPS[command]]
    flags = [flag for section in sections.values() for flag in section]
    assert len(flags) == len(set(flags)), "a flag is listed in two groups"


@pytest.mark.parametrize("command", list(GROUPS), ids=" ".join)
def test_every_entry_point_shows_at_most_25_common_flags(capsys, command):
    assert len(help_sections(capsys, command)[COMMON_TITLE]) <= 25


def test_ask_shows_at_most_25_everyday_flags_first(capsys):
    sections = help_sections(capsys, ("ask",))
    common = sections[COMMON_TITLE]
    assert len(common) <= 25, common
    assert set(ASK_EVERYDAY) <= set(common)
    assert common[:2] == ["-h", "--config"]
    assert sections["positional arguments"] == ["question"]


@pytest.mark.parametrize(
    ("config", "command"), [(DecodeConfig, ("ask",)), (ServeConfig, ("serve",)), (DataBuildConfig, ("data", "build"))]
)
def test_every_field_has_a_concern_and_one_flag_in_help(capsys, config, command):
    names = {f.name for f in dataclasses.fields(config)}
    assert set(concerns_of(config)) == names  # a field without a concern would land among the common options
    listed = {flag for section in help_sections(capsys, command).values() for flag in section}
    assert {f"--{name}" for name in names} <= listed


def _other_value(field: dataclasses.Field, hint):
    """A valid value of `field` other than its default."""
    default = field.default_factory() if field.default is dataclasses.MISSING else field.default
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    if typing.get_origin(hint) is typing.Literal:
        return next(choice for choice in typing.get_args(hint) if choice != default)
    if hint is bool:
        return not default
    if hint is int:
        return (default or 0) + 1
    if hint is float:
        return 0.5
    if typing.get_origin(hint) is list:
        return ["rewrite"]  # `actions`, the only list
    assert hint is str, (field.name, hint)
    return f"{field.name}-value"


def _changed_values() -> list[dict]:
    """Every field changed from its default, in two settings: stop_confidence needs answer_at_every_depth."""
    hints = typing.get_type_hints(DecodeConfig)
    changed = {f.name: _other_value(f, hints[f.name]) for f in dataclasses.fields(DecodeConfig)}
    return [{**changed, "answer_at_every_depth": True}, {"answer_at_every_depth": False}]


@pytest.mark.parametrize("values", _changed_values(), ids=["all-but-one", "answer_at_every_depth"])
def test_every_decode_field_is_set_from_the_command_line(values):
    argv = []
    for name, value in values.items():
        argv += [f"--{name}", *(map(str, value) if isinstance(value, list) else [str(value)])]
    decode, _ = parse(make_parser(DecodeConfig), argv)
    assert dataclasses.asdict(decode) == {**dataclasses.asdict(DecodeConfig()), **values}


@pytest.mark.parametrize("values", _changed_values(), ids=["all-but-one", "answer_at_every_depth"])
def test_every_decode_field_is_set_from_a_flat_yaml_file(tmp_path, values):
    path = tmp_path / "decode.yaml"
    path.write_text(yaml.safe_dump(values))
    decode, _ = parse(make_parser(DecodeConfig), ["--config", str(path)])
    assert dataclasses.asdict(decode) == {**dataclasses.asdict(DecodeConfig()), **values}


ENGLISH_QUESTION = "Which zebra sings opera?"  # no word of it is in the one document: the answer says nothing found


@pytest.fixture
def client(smollm2_tokenizer, tmp_path):
    """The real app over a one-document corpus, its model scripted: every answer is one the evidence does not
    support, so what a route answers is the not-found sentence, in the language the request asks for."""
    decode = DecodeConfig(prompting="trained", max_depth=0)
    generator = FakeGenerator(smollm2_tokenizer, lambda prompt, action, request: ("blue whales", 0.9))
    retriever = BM25Retriever.from_passages(
        [Passage("d1", "Paris", "Paris is the capital of France.")], show_progress=False
    )
    decoder = TreeDecoder(decode, generator, smollm2_tokenizer, retriever)
    serve = ServeConfig(retrievers=["corpus"], database_url=f"sqlite:///{tmp_path}/c.db", memories=False)
    with TestClient(create_app(decode, serve, decoder=decoder)) as test_client:
        yield test_client


def _answer(client: TestClient, route: str, options: dict) -> tuple[int, str | None]:
    """POST `ENGLISH_QUESTION` to `route` with the answering `options` where that route takes them: (status, the
    language the answer is written in)."""
    if route == "/v1/chat/completions":
        messages = [{"role": "user", "content": ENGLISH_QUESTION}]
        reply = client.post(route, json={"model": "rqrag", "messages": messages, "rqrag": options})
        text = reply.json()["choices"][0]["message"]["content"] if reply.status_code == 200 else None
    elif route == "/v1/chat":
        reply = client.post(route, json={"question": ENGLISH_QUESTION, **options})
        frames = [dict(line.split(": ", 1) for line in f.splitlines()) for f in reply.text.split("\n\n") if f.strip()]
        deltas = [json.loads(f["data"])["text"] for f in frames if f.get("event") == "delta"]
        text = "".join(deltas) if reply.status_code == 200 else None
    else:
        reply = client.post(route, json={"question": ENGLISH_QUESTION, **options})
        text = reply.json()["answer"] if reply.status_code == 200 else None
    return reply.status_code, text and guess_language(text)


@pytest.mark.parametrize("route", ["/v1/ask", "/v1/chat", "/v1/chat/completions"])
def test_language_is_accepted_and_honoured_on_every_answering_route(client, route):
    assert _answer(client, route, {}) == (200, "en")  # the question's own language
    assert _answer(client, route, {"language": "pt"}) == (200, "pt")
    assert _answer(client, route, {"language": "en", "max_depth": 0, "strategy": "vote"}) == (200, "en")
    assert _answer(client, route, {"language": "klingon"})[0] == 400
    assert _answer(client, route, {"langauge": "pt"})[0] == 400  # a misspelt option is refused on every route
