"""Docstrings that name code name code that exists: a backticked path of ours (`answer/pipeline.py`), a dotted name
of ours (`rqrag.answer.api.Pipeline`) or a module's attribute (`search_first.search_question_first`) must resolve.
Read with `ast`, nothing imported, so the check is quick; a renamed or deleted module, function or class leaves no
docstring pointing at it (as `search_first.not_found_message` and `training/fit_reader.py` once did)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from house import PACKAGE_FOLDERS


ROOT = Path(__file__).resolve().parents[1]
STAGES = PACKAGE_FOLDERS[1:]  # the stage folders, mapped into rqrag (rqrag.answer is answer/)
FOLDERS = ("rqrag", *STAGES, "scripts", "tests")
OTHER_TOP = ("docs", "configs", "data", "models", ".ci")
PATH = re.compile(r"`((?:[A-Za-z_.]+/)+[A-Za-z0-9_]+\.py)")
DOTTED = re.compile(r"`(rqrag(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
ATTRIBUTE = re.compile(r"`([a-z_][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?[`(]")
FILE_SUFFIXES = {"py", "json", "jsonl", "md", "csv", "html", "safetensors", "yaml", "png", "bib", "txt", "pdf"}
# `name.attr` where `name` is a variable that shares a module's name, not the module: said here, with the object
NOT_MODULES = {
    "index.search": "a FAISS index",
    "app.state": "FastAPI's application state",
    "chunking.max_tokens": "the library's chunking settings",
}


def python_files() -> list[Path]:
    this = Path(__file__).resolve()  # its docstring names stale code on purpose
    return [path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py")) if path != this]


@cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


@cache
def top_level(path: Path) -> dict[str, ast.AST]:
    """The names a module defines or imports at its top level (and a class's own members under "Class.member")."""
    names: dict[str, ast.AST] = {}
    for node in parsed(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    for name in _assigned(member) + _defined(member):
                        names[f"{node.name}.{name}"] = member
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update({(alias.asname or alias.name).split(".")[0]: node for alias in node.names})
        else:
            names.update({name: node for name in _assigned(node)})
    return names


def _defined(node: ast.AST) -> list[str]:
    return [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []


def _assigned(node: ast.AST) -> list[str]:
    targets = (
        node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    )
    return [name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)]


def defines(path: Path, attributes: list[str]) -> bool:
    """Whether module `path` has `attributes` (a name, or a class and its member); a module `__getattr__` (lazy
    exports) answers for any name its `__all__` lists."""
    if not attributes:
        return True
    if not path.exists():
        return False
    names = top_level(path)
    if ".".join(attributes[:2]) in names or (len(attributes) == 1 and attributes[0] in names):
        return True
    exported = names.get("__all__")
    return "__getattr__" in names and exported is not None and attributes[0] in ast.literal_eval(exported.value)


def resolves(dotted: str) -> bool:
    """`rqrag.a.b.C.d`: walk folders, then a module, then its attributes. Stages live at the checkout's top."""
    parts = dotted.split(".")[1:]
    if parts and parts[0] == "configs":
        return (ROOT / "configs").joinpath(*parts[1:]).exists() if len(parts) > 1 else True
    folder = ROOT / parts[0] if parts and parts[0] in STAGES else ROOT / "rqrag"
    rest = parts[1:] if parts and parts[0] in STAGES else parts
    for at, name in enumerate(rest):
        if (folder / name).is_dir():
            folder = folder / name
        elif (folder / f"{name}.py").exists():
            return defines(folder / f"{name}.py", rest[at + 1 :])
        else:
            return defines(folder / "__init__.py", rest[at:])
    return True


def docstrings(path: Path) -> str:
    tree = parsed(path)
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return "\n".join(
        filter(None, (ast.get_docstring(node, clean=False) for node in ast.walk(tree) if isinstance(node, kinds)))
    )


def stale_references() -> list[str]:
    modules: dict[str, list[Path]] = {}
    for path in python_files():
        if path.name != "__init__.py":
            modules.setdefault(path.stem, []).append(path)
    stale = []
    for path in python_files():
        text, where = docstrings(path), path.relative_to(ROOT)
        for match in PATH.finditer(text):
            named = match.group(1)
            ours = named.split("/")[0] in FOLDERS + OTHER_TOP or (path.parent / named).exists()
            if ours and not ((ROOT / named).exists() or (path.parent / named).exists()):
                stale.append(f"{where}: {named}")
        stale += [f"{where}: {m.group(1)}" for m in DOTTED.finditer(text) if not resolves(m.group(1))]
        for match in ATTRIBUTE.finditer(text):
            module, *attributes = [part for part in match.groups() if part]
            named = f"{module}.{attributes[0]}"
            if module in modules and attributes[0] not in FILE_SUFFIXES and named not in NOT_MODULES:
                if not any(defines(candidate, attributes) for candidate in modules[module]):
                    stale.append(f"{where}: {match.group(0)[1:-1]}")
    return stale


def test_every_docstring_names_code_that_exists():
    assert stale_references() == []


def test_the_check_finds_a_name_that_does_not_exist(tmp_path):
    assert resolves("rqrag.answer.api.Pipeline") and resolves("rqrag.Pipeline")
    assert not resolves("rqrag.answer.api.NoSuchThing") and not resolves("rqrag.answer.no_such_module.x")
    assert defines(ROOT / "inference/decoding/search_first.py", ["search_question_first"])
    assert not defines(ROOT / "inference/decoding/search_first.py", ["not_found_message"])
