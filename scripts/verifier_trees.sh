#!/usr/bin/env bash
# The trees the answer verifier learns from and is judged on, for one model: its tree on the *training* ids of
# HotpotQA, 2Wiki and MuSiQue (to fit on: rqrag fit verifier), and on the held-out eval ids (HotpotQA-200,
# 2Wiki-100, MuSiQue-100: to report on), with the shipped decode settings (decompose, depth 2, greedy queries,
# BM25 over each question's candidates, 3 per search). Training ids need the full benchmark files
# (`rqrag data fetch all`, or RQRAG_BENCHMARKS_DIR pointing at a copy). Resumes; every record keeps the whole tree,
# so a new decision rule is replayed on these files without decoding again (scripts/replay_decisions.py).
#   bash scripts/verifier_trees.sh rqrag-smollm2-135m-selftrain runs/verifier/selftrain
#   rqrag fit verifier runs/verifier/selftrain --out models/rqrag-smollm2-135m-selftrain/verifier
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:?model: a name or a training output folder}
OUT=${2:?output folder}
BIN=${BIN:-.venv/bin}
SPLITS=${SPLITS:-train eval}                          # SPLITS=eval: the held-out runs only
TASKS=${TASKS:-hotpotqa 2wikimultihopqa musique}      # TASKS=hotpotqa: one benchmark
export HF_HUB_OFFLINE=1
for split in $SPLITS; do
    for spec in "hotpotqa 250 200" "2wikimultihopqa 64 100" "musique 142 100"; do
        set -- $spec
        task=$1
        case " $TASKS " in *" $task "*) ;; *) continue ;; esac
        if [ "$split" = train ]; then limit=$2; else limit=$3; fi
        "$BIN/rqrag" eval --config "configs/eval/$task.yaml" --split "$split" --limit "$limit" --systems rqrag \
            --actions decompose --max_depth 2 --query_temperature 0 --batch_size 8 --resume --model "$MODEL" \
            --output_dir "$OUT/$split/$task"
    done
done
