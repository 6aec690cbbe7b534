#!/usr/bin/env bash
# The paper's tables (Chan et al. 2024, Tables 1-2 and Fig. 3) for a 7B RQ-RAG model, on a GPU machine.
#   MODEL=runs/train/llama2_7b_paper bash scripts/reproduce_paper.sh
# The model comes from:  accelerate launch --config_file configs/accelerate/deepspeed_zero3.yaml training/sft.py \
#                            --config configs/train/llama2_7b_paper.yaml      (data: configs/data/paper.yaml)
# Settings (App. B.3): depth 2 for single-hop tasks and HotpotQA, 4 for 2Wiki and MuSiQue; 3 documents per
# search (whole passages: --evidence_max_words 0); DuckDuckGo (web) for single-hop tasks, each question's candidate paragraphs for multi-hop ones.
# Every question of the shipped files (--split all): a model trained on configs/data/paper.yaml never saw them.
# Each run resumes where it stopped (--resume); tables: python -m rqrag.eval.report runs/paper/*
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${MODEL:?set MODEL to your trained checkpoint folder}
BIN=${BIN:-.venv/bin}
OUT=${OUT:-runs/paper}
run() {  # task, extra flags...
    local task=$1; shift
    "$BIN/rqrag" eval --config "configs/eval/$task.yaml" --model "$MODEL" --backend vllm --split all \
        --evidence_max_words 0 --output_dir "$OUT/$task" --resume "$@"   # whole passages, as the paper
}
for task in hotpotqa 2wikimultihopqa musique; do run "$task"; done
for task in popqa arc_challenge openbookqa asqa; do run "$task" --retriever web; done
python -m rqrag.eval.report "$OUT"/*
