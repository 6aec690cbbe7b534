#!/usr/bin/env bash
# One round of expert iteration (issue 26): the model's own right trajectories -> retrain -> held-out eval ->
# paired comparison with the model it would replace. Each stage resumes; rerun the same command after a stop.
#   bash scripts/self_train_round.sh                      # round 1 from the shipped model
#   ROUND=2 MODEL=runs/train/selftrain_r1 bash scripts/self_train_round.sh
# Needs the full benchmark files for enough training questions (the shipped slices hold 16 per source):
#   RQRAG_BENCHMARKS_DIR=/path/to/benchmarks  (or `rqrag data fetch hotpotqa 2wikimultihopqa musique`)
# CPU cost measured here (2 cores, loaded): self-training ~25 s a question with --width 1 (456 questions ~3 h);
# continued training ~10 min; the held-out evals as scripts/eval_small.sh (HotpotQA-200 the longest).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
ROUND=${ROUND:-1}
MODEL=${MODEL:-rqrag-smollm2-135m}           # the model in use: generates the data, and is the baseline
DATA=runs/data/self_train                     # round 1 writes where configs/data/self_train.yaml says
[[ "$ROUND" == 1 ]] || DATA=runs/data/self_train_r$ROUND
NEW=runs/train/selftrain_r$ROUND
export HF_HUB_OFFLINE=1

"$BIN/rqrag" data self-train --config configs/data/self_train.yaml --model "$MODEL" --round "$ROUND" \
    --seed "$ROUND" --width "${WIDTH:-1}" --out_dir "$DATA"
"$BIN/accelerate" launch --config_file configs/accelerate/cpu.yaml training/sft.py \
    --config configs/train/smollm2_135m_selftrain_cpu.yaml --model_name_or_path "$MODEL" \
    --dataset_path "$DATA/data.jsonl" --learning_rate 2.0e-4 --token_rows_learning_rate 5.0e-4 --output_dir "$NEW"
# Held-out ids only (rqrag eval reads eval ids), the shipped decode settings of scripts/eval_small.sh, both models.
for spec in "hotpotqa 200" "2wikimultihopqa 100" "musique 100"; do
    set -- $spec
    for pair in "$MODEL:runs/eval/$1_$(basename "$MODEL")" "$NEW:runs/eval/$1_selftrain_r$ROUND"; do
        "$BIN/rqrag" eval --config "configs/eval/$1.yaml" --limit "$2" --actions decompose --max_depth 2 \
            --query_temperature 0 --batch_size 8 --resume --model "${pair%%:*}" --output_dir "${pair#*:}"
    done
    "$BIN/python" scripts/compare_models.py "runs/eval/$1_$(basename "$MODEL")" "runs/eval/$1_selftrain_r$ROUND"
    "$BIN/python" scripts/query_quality.py "runs/eval/$1_selftrain_r$ROUND" --out "runs/eval/$1_selftrain_r$ROUND/query_quality.json"
done
