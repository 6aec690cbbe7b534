#!/usr/bin/env bash
# IRCoT and Iter-RetGen beside the tree and both baselines on HotpotQA-200 (held-out ids), by the same generator and
# retriever (each question's candidate paragraphs, BM25, 3 per search), on a CPU:
#   bash scripts/iterative_baselines.sh                     # the shipped model, then its plain instruct base
#   MODELS=shipped SYSTEMS="ircot iter_retgen" bash scripts/iterative_baselines.sh
# The tree runs with the CPU settings of scripts/heldout_eval.sh (decompose, depth 2, greedy queries); the iterative
# systems ignore those flags. Tables: python -m rqrag.eval.benchmark_report runs/iterative/*  (F1, model calls and tokens per
# question for every system).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
OUT=${OUT:-runs/iterative}
LIMIT=${LIMIT:-200}
MODELS=${MODELS:-shipped base}
SYSTEMS=${SYSTEMS:-rqrag no_retrieval standard_rag ircot iter_retgen}
for which in $MODELS; do
    case $which in
        shipped) flags=(--model rqrag-smollm2-135m) ;;                          # trained; prompted by instruction here
        base) flags=(--model smollm2-135m-instruct --prompting prompted) ;;     # the plain instruct model
        *) echo "unknown model $which (shipped | base)" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086
    "$BIN/rqrag" eval --config configs/eval/hotpotqa.yaml "${flags[@]}" --systems $SYSTEMS --limit "$LIMIT" \
        --actions decompose --query_temperature 0 --output_dir "$OUT/hotpotqa_$which" --resume
done
"$BIN/python" -m rqrag.eval.benchmark_report "$OUT"/*
