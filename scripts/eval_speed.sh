#!/usr/bin/env bash
# Held-out accuracy of the demo's decoding configurations, side by side (docs/speed.md): the demo as the speed
# issue measured it (all three refinements, float32, no merging, no guards) against today's default and the
# adaptive-stopping thresholds, on the same 100 held-out HotpotQA questions with the demo's token budgets and greedy
# queries. Then the accuracy-vs-compute table and chart (scripts/speed_curve.py).
# `before` costs ~24 s a question, so it answers the first 48 (BEFORE_LIMIT) and the comparison is made on the
# questions every run answered (--common).
#   bash scripts/eval_speed.sh             # ~45 min on 2 CPU cores (hf backend); resumes; a finished set ~10 s
#   LIMIT=200 BEFORE_LIMIT=200 bash scripts/eval_speed.sh   # more questions (the runs resume)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
OUT=${OUT:-runs/speed}
LIMIT=${LIMIT:-100}
BEFORE_LIMIT=${BEFORE_LIMIT:-48}
export HF_HUB_OFFLINE=1
common=(--config configs/eval/hotpotqa.yaml --limit "$LIMIT" --systems rqrag --max_depth 2 --query_temperature 0
        --answer_max_tokens 48 --query_max_tokens 48 --batch_size 8 --resume)
run() {  # name, then its overrides
    local name=$1
    shift
    "$BIN/rqrag" eval "${common[@]}" --output_dir "$OUT/$name" --label "$name" "$@"
}
run before --limit "$BEFORE_LIMIT" --actions rewrite decompose disambiguate --no_merge_expansions --no_refinement_guards --dtype float32
run decompose_fp32 --actions decompose --dtype float32
run decompose_bf16 --actions decompose --dtype bfloat16
for threshold in 0.5 0.6 0.7 0.8; do
    run "stop_${threshold}_bf16" --actions decompose --dtype bfloat16 --stop_confidence "$threshold"
done
"$BIN/python" scripts/speed_curve.py "$OUT"/before "$OUT"/decompose_fp32 "$OUT"/decompose_bf16 "$OUT"/stop_*_bf16 \
    --baseline before --common --plot "${PLOT:-docs/speed_curve.png}"
