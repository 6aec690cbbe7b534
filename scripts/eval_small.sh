#!/usr/bin/env bash
# The CPU results table of docs/eval.md: the shipped model (trained mode) vs its base (prompted mode), each with
# the tree decoder and the two baselines (no retrieval; standard RAG = one search with the question), on
# held-out ids of HotpotQA (200), 2Wiki (100, all its eval ids), MuSiQue (100), ARC-Challenge and OpenBookQA (50
# each); raise the limits below to use more, the runs resume.
#   bash scripts/eval_small.sh                # ~2.5 h from scratch on 2 CPU cores (hf backend, float32); resumes,
#                                             # and a finished set only rebuilds its summaries (~30 s)
#   python -m rqrag.eval.benchmark_report runs/eval_small/*   # the table again
#   MODELS=trained TASKS="hotpotqa 2wikimultihopqa" bash scripts/eval_small.sh    # a subset
# CPU budget, stated in docs/eval.md: one refinement kind per task family (decompose for multi-hop, rewrite for
# single-hop), depth 2 everywhere (the paper uses 4 for 2Wiki/MuSiQue and all three kinds), greedy queries.
# Each question still gets three trajectories (answer after 0, 1 and 2 searches) to select among.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
OUT=${OUT:-runs/eval_small}
export HF_HUB_OFFLINE=1
MODELS=${MODELS:-trained base}
TASKS=${TASKS:-hotpotqa 2wikimultihopqa musique arc_challenge openbookqa}
runs=()  # every output directory, in table order, for the report at the end
run() {  # task limit actions
    local task=$1 limit=$2 actions=$3
    [[ " $TASKS " == *" $task "* ]] || return 0
    local common=(--config "configs/eval/$task.yaml" --limit "$limit" --actions "$actions" --max_depth 2
                  --query_temperature 0 --batch_size 8 --resume)
    if [[ " $MODELS " == *" trained "* ]]; then
        runs+=("$OUT/${task}_trained")
        "$BIN/rqrag" eval "${common[@]}" --output_dir "$OUT/${task}_trained" --label "RQ-RAG SmolLM2-135M (trained)"
    fi
    if [[ " $MODELS " == *" base "* ]]; then
        runs+=("$OUT/${task}_base")
        "$BIN/rqrag" eval "${common[@]}" --output_dir "$OUT/${task}_base" --label "SmolLM2-135M-Instruct (prompted)" \
            --model smollm2-135m-instruct --prompting prompted
    fi
}
run hotpotqa 200 decompose
run 2wikimultihopqa 100 decompose
run musique 100 decompose
run arc_challenge 50 rewrite
run openbookqa 50 rewrite
"$BIN/python" -m rqrag.eval.benchmark_report "${runs[@]}" --plot "${PLOT:-docs/eval_cpu.png}"   # the table and chart of docs/eval.md
