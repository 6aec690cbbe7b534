"""scripts/gpu_check.sh --dry-run: every step of the GPU check, run on the CPU (fp32, 2 steps, the cpu accelerate
config), so the script a GPU machine runs is known to work before device time is spent on it.

python -m pytest tests/test_gpu_check.py -q      (~1.5 min on 2 cores)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.heavy
def test_gpu_check_dry_run_runs_every_step(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "OUT": str(out), "PYTHON": sys.executable, "TMPDIR": str(tmp_path)}
    env.pop("RQRAG_CACHE_DIR", None)  # the script keeps its caches in its own work folder
    done = subprocess.run(
        ["bash", "scripts/gpu_check.sh", "--dry-run"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    log = (out / "gpu_check.log").read_text()
    assert done.returncode == 0, log[-6000:] + done.stderr[-2000:]
    assert "dry_run=1 device=cpu dtype=float32" in log

    # Each step ran, and passed (ZeRO-3 is skipped: no deepspeed, no CUDA).
    results = dict(re.findall(r"^--- step (\w+): (PASS|FAIL|SKIP)", log, flags=re.M))
    assert results == {
        "a": "PASS", "b": "PASS", "c": "PASS", "d1": "PASS", "d2": "PASS", "d3": "SKIP", "e": "PASS", "f": "PASS",
    }, results  # fmt: skip
    assert "nvidia-smi: not run (dry run)" in log
    assert "torch.cuda.is_available()" in log
    assert "imports ok:" in log
    assert re.search(r"^tiny llama saved: .* \(\d+\.\d M parameters, vocab \d+\)", log, flags=re.M)
    # Both sft runs went through `accelerate launch` with the cpu config, trained 2 steps and reload.
    assert log.count("-m accelerate.commands.launch --config_file configs/accelerate/cpu.yaml") == 2
    for run in ("sft_lora", "sft_full"):
        assert re.search(rf"^sft steps done: 2 \({run};", log, flags=re.M), run
        assert re.search(rf"^output loads: ok \({run}:", log, flags=re.M), run
    # The tree decoder ran on the hf backend on the CPU in float32 and decoded trees: the random model's every
    # depth, and with evidence in its prompts when the question was searched first.
    for name in ("random-greedy", "trained", "random-search-first"):
        assert f"[{name}] model on cpu in torch.float32;" in log, name
        paths = re.search(rf"^\[{name}\] tree decoded: paths=(\d+) searches=\d+ hits=(\d+)", log, flags=re.M)
        assert paths and int(paths.group(1)) > 0, name
    for name in ("random-greedy", "random-search-first"):
        assert f"[{name}] model on cpu in torch.float32; 3 generate calls" in log, name  # depths 0, 1 and 2
    assert int(re.search(r"^\[random-search-first\] tree decoded: .* hits=(\d+)", log, flags=re.M).group(1)) > 0
    assert "tree decoded on cpu" in log
    # tests/test_gpu.py ran on the CPU instead of skipping.
    assert re.search(r"^\d+ passed", log, flags=re.M) and "skipped" not in log.split("=== step f")[1]
    assert "=== summary (dry_run=1, device=cpu)" in log
    assert log.rstrip().endswith("gpu_check: PASS")
