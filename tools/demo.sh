#!/usr/bin/env bash
# demo.sh - the short train-short / evaluate-long demo (run by `make demo`): trains three
# position schemes briefly on the King James Bible at a 64-byte context, evaluates each at
# 1x..16x the training length, and prints the perplexity table. A few minutes on 2 cores.
# Outputs: runs/demo/ (configs, logs, eval CSVs, summary.txt; checkpoints are not committed).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -s data/kjv.txt ] || make --no-print-directory data/kjv.txt
mkdir -p runs/demo
STEPS=${STEPS:-600}
SCHEMES=${SCHEMES:-"sinusoidal rope alibi"} tools/train_all.sh runs/demo data/kjv.txt "1 2 4 8 16" \
  --seq-len 64 --layers 2 --d-model 64 --heads 4 --batch 32 --steps "$STEPS" --lr 2e-3 --eval-every 200 --seed 1 \
  > runs/demo/demo.log 2>&1 || { tail -20 runs/demo/demo.log; exit 1; }
echo
echo "train-short / evaluate-long demo: trained at 64 bytes, perplexity per byte on held-out text"
echo "(65,536 tokens, nonoverlapping windows; lower is better)"
cat runs/demo/summary.txt
