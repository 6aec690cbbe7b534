#!/usr/bin/env bash
# Held-out rows of one model for issue 26's comparison: HotpotQA-200 and MuSiQue-100 (the tree), 2Wiki-100 (the
# tree and no retrieval), eval ids only, the shipped decode settings of scripts/eval_small.sh (decompose, depth 2,
# greedy queries, BM25 over each question's candidates, 3 per search). Resumes; one thread per process so it can
# share the cores with a training run.
#   bash scripts/heldout_eval.sh rqrag-smollm2-135m runs/eval/base
#   bash scripts/heldout_eval.sh runs/train/selftrain_r1 runs/eval/selftrain_r1
#   python scripts/compare_models.py runs/eval/base/hotpotqa runs/eval/selftrain_r1/hotpotqa
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:?model: a name or a training output folder}
OUT=${2:?output folder}
BIN=${BIN:-.venv/bin}
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
for spec in "hotpotqa 200 rqrag" "2wikimultihopqa 100 rqrag no_retrieval" "musique 100 rqrag"; do
    set -- $spec
    task=$1 limit=$2
    shift 2
    "$BIN/rqrag" eval --config "configs/eval/$task.yaml" --limit "$limit" --systems "$@" --actions decompose \
        --max_depth 2 --query_temperature 0 --batch_size 8 --resume --model "$MODEL" --output_dir "$OUT/$task"
done
