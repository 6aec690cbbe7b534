#!/usr/bin/env bash
# Build the offline dataset and train the shipped small model on this CPU (~16 min + ~46 min on 2 cores).
#   bash scripts/train_default.sh [OUT_DIR]          # default: runs/train/smollm2_135m_cpu
# then: python scripts/ship_model.py "$OUT"   (copies the adapter into models/rqrag-smollm2-135m; see its README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-runs/train/smollm2_135m_cpu}
BIN=${BIN:-.venv/bin}
"$BIN/rqrag" data build --config configs/data/offline.yaml
"$BIN/accelerate" launch --config_file configs/accelerate/cpu.yaml training/sft.py \
    --config configs/train/smollm2_135m_cpu.yaml --output_dir "$OUT"
echo "trained adapter: $OUT"
