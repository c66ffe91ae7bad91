#!/usr/bin/env bash
# demo.sh - the train-short / evaluate-long demo (run by `make demo`): trains three position
# schemes briefly on the King James Bible at a 64-byte context, evaluates each at 1x..16x
# the training length, prints the perplexity table and draws it (perplexity vs length).
# A few minutes on 2 cores; each run's progress is shown as it goes.
#
#   tools/demo.sh [OUTDIR]    default build/demo (ignored by git, so the demo never touches
#                             tracked files); tools/demo.sh runs/demo regenerates the copy
#                             the README shows, on purpose
# Outputs in OUTDIR: <scheme>/{config.txt,log.csv,eval.csv,train.txt}, eval.csv, summary.txt,
# ppl_vs_length.png, command.txt, demo.log (everything the runs printed).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
out=${1:-build/demo}
[ -s data/kjv.txt ] || make --no-print-directory data/kjv.txt
mkdir -p "$out"
STEPS=${STEPS:-600}
schemes=${SCHEMES:-"sinusoidal rope alibi"}
echo "posgpt demo: ${schemes// /, } trained at 64 bytes for $STEPS steps, then evaluated at 64..1024 bytes -> $out/" >&2
# the runs' progress (stderr: the live bar on a terminal, periodic lines otherwise) goes to
# the screen and to demo.log; their results (stdout) to demo.log only
: > "$out/demo.log"
SCHEMES=$schemes tools/train_all.sh "$out" data/kjv.txt "1 2 4 8 16" \
  --seq-len 64 --layers 2 --d-model 64 --heads 4 --batch 32 --steps "$STEPS" --lr 2e-3 --eval-every 200 --seed 1 \
  >> "$out/demo.log" 2> >(tee -a "$out/demo.log" >&2) || { echo "demo: a run failed; the end of $out/demo.log:" >&2; tail -5 "$out/demo.log" >&2; exit 1; }
wait # the tee above has written everything
{ echo "tools/demo.sh $out   # STEPS=$STEPS SCHEMES=\"$schemes\", which ran:"; cat "$out/command.txt"; } > "$out/command.tmp"
mv "$out/command.tmp" "$out/command.txt"
./posgpt plot "$out/eval.csv" --out "$out/ppl_vs_length.png" \
  --title "Trained at 64 bytes, evaluated to 16x (King James Bible, $STEPS steps)" 2>> "$out/demo.log"
echo "./posgpt plot $out/eval.csv --out $out/ppl_vs_length.png --title \"Trained at 64 bytes, evaluated to 16x (King James Bible, $STEPS steps)\"" \
  > "$out/figures.txt"
echo
echo "train-short / evaluate-long demo: trained at 64 bytes, perplexity per byte on held-out text"
echo "(65,536 tokens, nonoverlapping windows; lower is better)"
cat "$out/summary.txt"
echo
echo "figure: $out/ppl_vs_length.png"
