#!/usr/bin/env bash
# One round of expert iteration (issue 26): the model's own right trajectories -> continued training -> held-out
# eval of both models -> paired comparison with the model it would replace. Each stage resumes; rerun the same
# command after a stop.
#   bash scripts/self_train_round.sh                      # round 1 from the shipped model
#   ROUND=2 MODEL=runs/train/selftrain_r1 bash scripts/self_train_round.sh   # the round that made the shipped one
# Needs the full benchmark files for enough training questions (the shipped slices hold 16 per source):
#   RQRAG_BENCHMARKS_DIR=/path/to/benchmarks  (or `rqrag data fetch hotpotqa 2wikimultihopqa musique`)
# CPU cost measured here (2 cores shared with a GRPO run): self-training ~13 s a question (decompose, width 2);
# continued training ~1 min a step; the held-out evals (scripts/heldout_eval.sh) ~25 min a model.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
ROUND=${ROUND:-1}
MODEL=${MODEL:-rqrag-smollm2-135m}           # the model in use: generates the data, and is the baseline
DATA=${DATA:-runs/data/self_train_r$ROUND}
# Round 1 read the first 140 / 40 / 60 training ids, round 2 the rest of HotpotQA and 2Wiki (MuSiQue kept none).
SOURCES=${SOURCES:-$([[ "$ROUND" == 1 ]] && echo "hotpotqa:140 2wikimultihopqa:40 musique:60" || echo "hotpotqa:140-250 2wikimultihopqa:40-64")}
NEW=${NEW:-runs/train/selftrain_r$ROUND}
EPOCHS=${EPOCHS:-3}
export HF_HUB_OFFLINE=1

"$BIN/rqrag" data self-train --config configs/data/self_train.yaml --model "$MODEL" --round "$ROUND" \
    --seed "$ROUND" --sources $SOURCES --out_dir "$DATA"
# Continued training of the model in use on its own searched trajectories and the direct answers it knew.
"$BIN/accelerate" launch --config_file configs/accelerate/cpu.yaml training/sft.py \
    --config configs/train/smollm2_135m_selftrain_cpu.yaml --model_name_or_path "$MODEL" \
    --dataset_path "$DATA/data.jsonl,$DATA/direct.jsonl" --num_train_epochs "$EPOCHS" \
    --learning_rate 2.0e-4 --token_rows_learning_rate 5.0e-4 --output_dir "$NEW"
OLD_RUN=runs/eval/$(basename "$MODEL")
NEW_RUN=runs/eval/selftrain_r$ROUND
bash scripts/heldout_eval.sh "$MODEL" "$OLD_RUN"
bash scripts/heldout_eval.sh "$NEW" "$NEW_RUN"
for task in hotpotqa 2wikimultihopqa musique; do
    "$BIN/python" scripts/compare_models.py "$OLD_RUN/$task" "$NEW_RUN/$task"
    "$BIN/python" scripts/query_quality.py "$NEW_RUN/$task" --out "$NEW_RUN/$task/query_quality.json"
done
# 2Wiki: does the new model's tree beat its own direct answer?
"$BIN/python" scripts/compare_models.py "$NEW_RUN/2wikimultihopqa" "$NEW_RUN/2wikimultihopqa" \
    --old_system no_retrieval
