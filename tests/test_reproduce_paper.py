"""scripts/reproduce_paper.sh runs on a GPU machine; here it runs with `rqrag` and `python` standing in (they only
record what they are asked), and every `rqrag eval` command it would run is parsed by the real `rqrag eval` parser:
each flag exists, each value validates, each config file loads. The script's own logic (which models, which tasks,
which prompt format) is what is checked."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from rqrag.config_loader import make_parser, parse
from rqrag.eval.eval_config import EvalConfig
from rqrag.inference.decoding.decode_config import DecodeConfig


ROOT = Path(__file__).resolve().parent.parent
RECORDER = '#!/usr/bin/env bash\nprintf "%s\\n" "$(basename "$0") $(printf "%q " "$@")" >> "$RECORD"\n'


def _commands(tmp_path, **env) -> list[list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("rqrag", "python"):
        (bin_dir / name).write_text(RECORDER)
        (bin_dir / name).chmod(0o755)
    record = tmp_path / "record.txt"
    run_env = {**os.environ, "BIN": str(bin_dir), "RECORD": str(record), "OUT": str(tmp_path / "out"), **env}
    subprocess.run(["bash", "scripts/reproduce_paper.sh"], cwd=ROOT, env=run_env, check=True)
    return [shlex.split(line) for line in record.read_text().splitlines()]


def _parsed(argv: list[str]) -> tuple[DecodeConfig, EvalConfig]:
    decode, config, _ = parse(make_parser(DecodeConfig, EvalConfig, prog="rqrag eval"), argv)
    return decode, config


def test_the_released_checkpoint_runs_every_paper_task_in_the_original_format(tmp_path):
    commands = _commands(tmp_path)
    evals = [c[2:] for c in commands if c[:2] == ["rqrag", "eval"]]
    parsed = [_parsed(argv) for argv in evals]
    released = [(d, c) for d, c in parsed if c.label == "released"]
    tasks = {"hotpotqa", "2wikimultihopqa", "musique", "popqa", "arc_challenge", "openbookqa", "asqa"}
    assert {c.task for _, c in released} == tasks
    for decode, config in released:
        assert decode.model == "zorowin123/rq_rag_llama2_7B" and decode.prompt_format == "original"
        assert decode.backend == "vllm" and config.split == "all" and decode.evidence_max_words == 0
        assert decode.retriever == (
            "web" if config.task in {"popqa", "arc_challenge", "openbookqa", "asqa"} else decode.retriever
        )
    assert {d.max_depth for d, c in released if c.task in {"2wikimultihopqa", "musique"}} == {4}  # App. B.3
    iterative = [(d, c) for d, c in parsed if set(c.systems) == {"standard_rag", "ircot", "iter_retgen"}]
    assert len(iterative) == 1 and iterative[0][0].prompting == "prompted" and iterative[0][0].docs_per_search == 5
    assert commands[-1][:3] == ["python", "-m", "rqrag.eval.benchmark_report"]


def test_a_model_trained_here_runs_the_same_tasks_in_the_native_format(tmp_path):
    parsed = [_parsed(c[2:]) for c in _commands(tmp_path, MODEL="runs/train/llama2_7b_paper") if c[1] == "eval"]
    ours = [(d, c) for d, c in parsed if c.label == "ours"]
    assert len(ours) == 7 and all(d.prompt_format == "native" for d, _ in ours)
    assert all(d.model == "runs/train/llama2_7b_paper" for d, _ in ours)
