#!/usr/bin/env bash
# study_figures.sh - draw the study's figures from its CSVs (called by tools/study.sh; run it
# alone to redraw them after a change to `posgpt plot`, without retraining or re-evaluating).
#
#   tools/study_figures.sh DIR T STEPS BATCH     e.g. tools/study_figures.sh runs/study 128 1200 32
#
# Writes into DIR: ppl_vs_length.png and .svg (two panels: every point on a log axis, and a
# close-up of the best), ppl_vs_length_new.png (the schemes beyond the first seven, with
# T5, ALiBi and RoPE), loss_by_position.png, rope_extension.png, offset.png, training.png,
# and figures.txt (the commands, as run).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
[ $# -eq 4 ] || { sed -n '2,10p' "$0"; exit 2; }
out=$1 T=$2 STEPS=$3 BATCH=$4
bin=${POSGPT:-./posgpt}
longest=$((32 * T))
: > "$out/figures.txt"
plot() { # the command is logged as run
  echo "./posgpt plot $(printf "%q " "$@")" >> "$out/figures.txt"
  "$bin" plot "$@"
}
title="Perplexity vs evaluation length (trained at $T bytes, King James Bible)"
for ext in png svg; do
  plot --kind ppl --zoom 1.3 --width 2400 --height 1100 --out "$out/ppl_vs_length.$ext" --title "$title" "$out/eval.csv"
done
plot --kind position --out "$out/loss_by_position.png" --title "Loss by position in a $longest-byte window (trained at $T)" "$out/pos.csv"
# the schemes beyond the first seven, with T5, ALiBi and RoPE for reference
sel=$(mktemp)
trap 'rm -f "$sel"' EXIT
awk -F, 'NR == 1 || $1 ~ /^(t5|alibi|rope|kerple-log|kerple-power|sandwich|xpos|fire|cope|shaw|xl)$/' "$out/eval.csv" > "$sel"
cp "$sel" "$out/eval_new.csv"
[ "$(wc -l < "$sel")" -gt 1 ] && plot --kind ppl --zoom 1.3 --width 2400 --height 1100 --out "$out/ppl_vs_length_new.png" \
  --title "Beyond the seven: perplexity vs evaluation length (trained at $T bytes)" "$out/eval_new.csv"
if [ -s "$out/ext.csv" ]; then
  awk -F, 'NR == 1 || $1 == "rope" || $1 == "alibi"' "$out/eval.csv" > "$out/eval_rope_alibi.csv"
  plot --kind ppl --out "$out/rope_extension.png" --title "RoPE context extension at evaluation, no retraining (trained at $T)" \
    "$out/eval_rope_alibi.csv" "$out/ext.csv"
fi
plot --kind offset --metric loss --out "$out/offset.png" --title "Shift test: loss of $T-byte windows starting at position K" \
  "$out/offset.csv"
logs=()
for d in "$out"/*/; do [ -s "$d/log.csv" ] && logs+=("$d/log.csv"); done
plot --kind training --out "$out/training.png" --title "Training curves ($STEPS steps, batch $BATCH x $T)" "${logs[@]}"
