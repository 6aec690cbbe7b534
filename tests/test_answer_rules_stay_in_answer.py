"""The answer step owns its rules (issue: the house, fifth step). Read with `ast` over every module outside
`answer/`: none answers past the policy (`AnswerPipeline.answer` is called by `AnsweringPolicy.answer` only), none
makes an answer of its own (`PipelineAnswer(...)`, `GroundedAnswer(...)`, an `AnswerKind` set on one), none words
one (`said(...)`, the message table) and none holds an answer's rule (`quotes_only`, `MODEL_LANGUAGES`)."""

from __future__ import annotations

import ast
import datetime as dt
import time
from pathlib import Path

import pytest
from house import PACKAGE_FOLDERS


ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = tuple(folder for folder in PACKAGE_FOLDERS if folder != "answer")
ANSWERS = {"PipelineAnswer", "GroundedAnswer"}
WORDING = {"said", "MESSAGES", "Message"}
RULES = {"quotes_only", "MODEL_LANGUAGES"}


def _name(node: ast.AST) -> str:
    """The last name of an expression: `pipeline` for `self.answers.pipeline`, `f` for `f`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def breaches(tree: ast.AST) -> list[str]:
    """What a module outside `answer/` does that only the answer step may, one line each."""
    found = []
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr == "answer" and "pipeline" in _name(node.value).lower():
            # called, or handed to a thread: `asyncio.to_thread(self.pipeline.answer, ...)`
            found.append(f"{where}: answers through the pipeline, not AnsweringPolicy.answer")
        if isinstance(node, ast.Call) and _name(node.func) in ANSWERS:
            found.append(f"{where}: makes a {_name(node.func)} of its own")
        if isinstance(node, ast.Call) and _name(node.func) == "said":
            found.append(f"{where}: words an answer (said)")
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
            kind_set = _name(node.value.value) == "AnswerKind" and any(_name(t) == "kind" for t in node.targets)
            if kind_set:
                found.append(f"{where}: decides an answer's kind")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rqrag.answer"):
            taken = {alias.name for alias in node.names} & (WORDING | RULES)
            if taken:
                found.append(f"{where}: imports {sorted(taken)}")
        if isinstance(node, (ast.FunctionDef, ast.Assign)) and (
            getattr(node, "name", None) in RULES or any(_name(t) in RULES for t in getattr(node, "targets", []))
        ):
            found.append(f"{where}: defines an answer rule outside answer/")
    return found


def test_no_module_outside_the_answer_step_answers_decides_or_words_an_answer():
    found = {}
    for folder in OUTSIDE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            problems = breaches(ast.parse(path.read_text()))
            if problems:
                found[str(path.relative_to(ROOT))] = problems
    assert found == {}


@pytest.mark.parametrize(
    "source",
    [
        "answers = self.pipeline.answer(questions, source, settings)",
        "answer = await asyncio.to_thread(self.pipeline.answer, [question], source, settings)",
        "answer = PipelineAnswer('id', q, text, kind, 'en')",
        "answer.kind = AnswerKind.REMEMBERED",
        "text = said(Message.NOTED, 'pt')",
        "from rqrag.answer.messages import said",
        "def quotes_only(answerer, language):\n    return True",
        "MODEL_LANGUAGES = frozenset({'en'})",
    ],
)
def test_each_breach_is_seen(source):
    assert breaches(ast.parse(source))


def test_what_surfaces_may_do_is_not_a_breach():
    allowed = "answers = self.policy.answer(q, source, settings)\nshown = answer.text if answer.kind.states_an_answer else ''"
    assert breaches(ast.parse(allowed)) == []


def test_the_server_cuts_a_source_where_every_other_surface_does():
    """The served answer's sources were cut at 1,000 characters and every other surface's at 600: one cut now, the
    answer step's, unless a server is told otherwise (`--max_source_chars`)."""
    from rqrag.answer.pipeline import AnswerPipeline
    from rqrag.answer.source_view import SOURCE_CHARS, SourceView
    from rqrag.serve.serve_config import ServeConfig

    served = AnswerPipeline(None, max_source_chars=ServeConfig().max_source_chars)
    assert served.max_source_chars == AnswerPipeline(None).max_source_chars == SourceView().max_source_chars
    assert served.shown.max_source_chars == SOURCE_CHARS
    assert AnswerPipeline(None, max_source_chars=1000).shown.max_source_chars == 1000


def test_one_language_rule_for_answers_and_replies():
    """The server answered a message too short to tell in Portuguese and the pipeline in English; one rule now: the
    request's language, else the library's, else the message's own, else the conversation's earlier messages'."""
    from rqrag.answer import AnsweringPolicy, answer_language

    assert answer_language("Moro em Lisboa.") == "en"  # nothing to tell by: English, as every surface
    assert answer_language("Moro em Lisboa.", earlier=["Meu cachorro se chama Bolinha e gosta de passear."]) == "pt"
    assert answer_language("Moro em Lisboa.", requested="pt") == "pt"
    assert answer_language("Where is the server?", library="pt") == "pt"
    told = time.time()
    day = dt.date.fromtimestamp(told).isoformat()  # it happened the day it was told: no date said
    noted = {"stored": True, "told_at": told, "happened_first": day, "happened_last": day}
    reply = AnsweringPolicy.acknowledge("Moro em Lisboa.", noted, earlier=["Ontem à noite eu jantei com a Marta."])
    assert reply.text == "Anotado, vou me lembrar disso." and reply.language == "pt"
