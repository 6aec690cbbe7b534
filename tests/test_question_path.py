"""The path of a question in docs/ARCHITECTURE.md is the path the code takes: `rqrag ask` is run in this process up
to its first model call, where the Python stack is read. The files on that stack, in order, must be the ones the
document lists between its `first-model-call` markers (at most twelve), and the package modules imported by then
may not outgrow the number the document gives. The model call itself is replaced by one that records and refuses
(the decoder reports a failed generation and the command prints "No answer"): what is checked is how the question
gets there, not what the model says."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from stack_files import documented_files


ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
MAX_FILES = 12  # the bound on the main line to the first model call

pytestmark = pytest.mark.slow  # the real model and index are loaded (not run): ~30 s


def documented_path() -> tuple[list[str], int]:
    """The files listed between the markers, in order, and the documented count of modules imported by then."""
    text = ARCHITECTURE.read_text()
    files = documented_files(text, "first-model-call")
    modules = re.search(r"(\d+) modules\s+of\s+the\s+package\s+are\s+imported", text)
    assert modules, "docs/ARCHITECTURE.md no longer says how many modules `rqrag ask` imports"
    return files, int(modules.group(1))


# Run in a fresh interpreter, so that what the test process has imported already does not count.
PROBE = """
import json, sys, traceback
from pathlib import Path
from rqrag.inference.backends import hf

root = Path(sys.argv[1])
sys.path.insert(0, str(root / "tests"))
from stack_files import package_file

seen = []

def record(self, requests, *args, **kwargs):
    if not seen:
        files = []
        for frame in traceback.extract_stack():
            relative = package_file(root, frame.filename)
            if relative and relative not in files:
                files.append(relative)
        files.append(Path(hf.__file__).resolve().relative_to(root).as_posix())  # the callee: the model call itself
        modules = sorted(m for m in sys.modules if m == "rqrag" or m.startswith("rqrag."))
        seen.append({"files": files, "modules": modules})
    raise RuntimeError("stopped at the first model call")

hf.HFGenerator.generate = record
from rqrag.cli import main
main(["ask", "Who wrote the play Hamlet?", "--config", "rqrag_trained"])
print("PROBE " + json.dumps(seen[0] if seen else None))
"""


@pytest.fixture(scope="module")
def first_model_call() -> tuple[list[str], list[str]]:
    """(files on the stack, rqrag modules imported) at the first call to the hf backend of `rqrag ask`."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT)], capture_output=True, text=True, timeout=600, env=env, cwd=ROOT
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("PROBE ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    found = json.loads(line.removeprefix("PROBE "))
    assert found, "rqrag ask never called the model"
    return found["files"], found["modules"]


def test_the_main_line_to_the_first_model_call_is_the_documented_one(first_model_call):
    files, _ = first_model_call
    documented, _ = documented_path()
    assert files == documented
    assert len(files) <= MAX_FILES
    assert files[-1] == "inference/backends/hf.py"


def test_rqrag_ask_imports_no_more_modules_than_documented(first_model_call):
    """A new import on the way to the model (a whole stage pulled in by a helper) shows here; the number in the
    document is lowered when a change makes it smaller."""
    _, modules = first_model_call
    _, documented = documented_path()
    assert len(modules) <= documented, modules
    # what a question answered from the embedded corpus never needs before the model: serving, eval, review
    assert not [m for m in modules if m.split(".")[1:2] in (["serve"], ["eval"], ["review"], ["self_training"])]
