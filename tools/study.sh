#!/usr/bin/env bash
# study.sh - the train-short / test-long study: train every position scheme with the same
# config and seed on the default corpus at a short length, evaluate each checkpoint at 1x..32x
# the training length with both protocols and by position, run the shift test (positions
# offset by K) on every checkpoint and the RoPE context extensions on the rope checkpoint,
# and render the figures. A scheme whose checkpoint already finished training is not trained
# again (the study resumes after an interruption); evaluation always runs, unless KEEP_EVAL=1:
# then an evaluation whose output is newer than its checkpoint is kept. Every output is
# written under a temporary name and renamed when complete, so a kept output is whole.
#
#   tools/study.sh            the full study into runs/study (roughly 2.5 hours on 2 cores)
#   tools/study.sh --quick    a small version into runs/study-quick (a few minutes)
#
# Settings and why: runs/study/README.md. Environment: SCHEMES="alibi rope" to
# run a subset, OUT=dir to write elsewhere, POSGPT=binary to pin a copy of the binary,
# KEEP_EVAL=1 to keep finished evaluations (above); RANKS=N spreads the schemes over N MPI
# processes, which may be on several hosts (tools/sweep.sh; JOBS=N runs N at once on this
# machine, default 1: each training uses every core).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
self=$(realpath "$0")
cd "$(dirname "$self")/.."
quick=0 one=""
case "${1:-}" in
  --quick) quick=1 ;;
  --one) quick=$2 one=$3 ;; # one scheme's training and evaluations (called through tools/sweep.sh)
  "") ;;
  *) echo "usage: tools/study.sh [--quick]   (see the comment at the top)" >&2; exit 2 ;;
esac
[ -x ./posgpt ] || make --no-print-directory posgpt
[ -s data/kjv.txt ] || make --no-print-directory data/kjv.txt
bin=${POSGPT:-./posgpt}
all_schemes="sinusoidal learned t5 alibi rope nope randomized kerple-log kerple-power sandwich xpos fire cope shaw xl"
schemes=${SCHEMES:-$all_schemes}
if [ $quick = 1 ]; then
  out=${OUT:-runs/study-quick}
  T=64; MODEL=(--layers 2 --d-model 64 --heads 4); STEPS=300; BATCH=16; LR=2e-3; TOKENS=16384
else
  out=${OUT:-runs/study}
  # the reference run's settings (docs/schemes.md, "Reference numbers"): config S, 1200 steps,
  # lr 1e-3, no weight decay, 5% warmup, cosine to 10%, clip 1, 65,536 validation tokens
  T=128; MODEL=(--layers 4 --d-model 128 --heads 4); STEPS=1200; BATCH=32; LR=1e-3; TOKENS=65536
fi
mults="1 2 4 8 16 32"
lens=""; for m in $mults; do lens="${lens:+$lens,}$((m * T))"; done
longest=$((32 * T))
# shift test offsets: up to the learned table's last full window (32 T rows)
offsets=""; for k in 0 4 8 12 16 20 24 28 31; do offsets="${offsets:+$offsets,}$((k * T))"; done
mkdir -p "$out"
keep=${KEEP_EVAL:-0}
# ev OUTPUT ARGS...: `posgpt eval ARGS`, whose result file is OUTPUT (passed by the caller as
# --csv or --per-position as @OUT@, which becomes OUTPUT.part until the run completes); kept
# under KEEP_EVAL=1 when newer than $d/model.bin
ev() {
  local o=$1; shift
  if [ "$keep" = 1 ] && [ -s "$o" ] && [ "$o" -nt "$d/model.bin" ]; then
    echo "    $o is newer than its checkpoint: kept" >&2; return 0
  fi
  local a=() x
  for x in "$@"; do a+=("${x//@OUT@/$o.part}"); done
  "$bin" eval "${a[@]}" 2>> "$d/eval.log"
  mv "$o.part" "$o"
}
if [ -n "$one" ]; then
  s=$one
  d=$out/$s
  mkdir -p "$d"
  echo "=== $s" >&2
  extra=()
  # tables sized for the longest evaluation, as in the reference run: randomized positions are
  # drawn from [0, 32 T); the learned table gets 32 T rows, of which training reaches only the
  # first T (the rest keep their initial values)
  pos=$s
  [ "$s" = randomized ] && pos=sinusoidal extra=(--positions random --rand-max "$longest")
  [ "$s" = learned ] && extra=(--max-pos "$longest")
  if [ -s "$d/model.bin" ] && grep -q "step $STEPS of $STEPS," <("$bin" info "$d/model.bin" 2>/dev/null); then
    echo "    $d/model.bin finished training earlier: kept" >&2
  elif [ -s "$d/model.bin" ] && grep -q "step [0-9]* of $STEPS," <("$bin" info "$d/model.bin" 2>/dev/null); then
    echo "    $d/model.bin was interrupted: resuming it" >&2
    "$bin" train --resume "$d" --data data/kjv.txt --eval-every $((STEPS / 10)) >> "$d/train.txt"
  else
    "$bin" train --data data/kjv.txt --pos "$pos" --out "$d" --overwrite --seq-len $T "${MODEL[@]}" --batch $BATCH --steps $STEPS \
      --lr $LR --wd 0 --seed 1 --eval-every $((STEPS / 10)) "${extra[@]}" > "$d/train.txt"
  fi
  [ "$keep" = 1 ] || : > "$d/eval.log"
  ev "$d/eval.csv" --ckpt "$d/model.bin" --data data/kjv.txt --lengths "$lens" --protocol both --max-tokens $TOKENS \
    --csv @OUT@
  ev "$d/pos.csv" --ckpt "$d/model.bin" --data data/kjv.txt --lengths "$longest" --max-tokens $((4 * TOKENS)) \
    --per-position @OUT@ --csv /dev/null
  # the shift test (Sinha et al. 2022): windows of T starting at position K
  ev "$d/offset.csv" --ckpt "$d/model.bin" --data data/kjv.txt --max-tokens $TOKENS --pos-offset "$offsets" \
    --csv @OUT@
  if [ "$s" = rope ]; then # context extension at evaluation time, no retraining
    # pi, yarn and dynamic-ntk take s = L / T from each length; ntk gets one fixed s = 32 (set
    # for the longest length; with s from the length it would equal dynamic-ntk on whole windows)
    # rerope: window T/2 (distances beyond half the training length count as T/2)
    for m in pi ntk dynamic-ntk yarn rerope; do
      f=(); [ $m = ntk ] && f=(--rope-factor 32); [ $m = rerope ] && f=(--rope-window $((T / 2)))
      ev "$d/ext_$m.csv" --ckpt "$d/model.bin" --data data/kjv.txt --lengths "$lens" --protocol both --max-tokens $TOKENS \
        --rope-scaling $m "${f[@]}" --csv @OUT@
    done
  fi
  if [ "$s" = randomized ]; then # the paper's protocol: random positions at test time too
    ev "$d/eval_random.csv" --ckpt "$d/model.bin" --data data/kjv.txt --lengths "$lens" --protocol both --max-tokens $TOKENS \
      --positions random --csv @OUT@
    ev "$d/pos_random.csv" --ckpt "$d/model.bin" --data data/kjv.txt --lengths "$longest" --max-tokens $((4 * TOKENS)) \
      --positions random --per-position @OUT@ --csv /dev/null
  fi
  exit 0
fi

# command.txt keeps every run that wrote into $out (a partial rerun with SCHEMES=... adds a line)
echo "${SCHEMES:+SCHEMES=\"$SCHEMES\" }tools/study.sh $*   ($(date -u +%Y-%m-%d), $($bin --version 2>/dev/null | head -1))" >> "$out/command.txt"
[ "$keep" = 1 ] && echo "(resumed with KEEP_EVAL=1: evaluations newer than their checkpoint were kept)" >> "$out/command.txt"
t_start=$SECONDS
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for s in $schemes; do echo "$s"; done > "$list"
failed=0
POSGPT=$bin OUT=$out SWEEP_ENV="POSGPT OUT KEEP_EVAL" tools/sweep.sh "$list" "$self" --one $quick || failed=1
echo "study wall time: $(( (SECONDS - t_start) / 60 )) min$([ "$keep" = 1 ] && echo " (a resumed run: work kept from earlier runs not counted)")" | tee "$out/walltime.txt" >&2
# gather all rows into one CSV per kind: every scheme's results in $out, also those a run with
# SCHEMES=subset left from earlier
gather() { # pattern output
  local first=1
  for f in $(for s in $all_schemes; do ls "$out/$s"/$1 2>/dev/null; done); do
    if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
  done > "$out/$2"
}
gather "eval*.csv" eval.csv
gather "pos.csv" pos.csv   # contiguous positions only (pos_random.csv stays per scheme)
gather "offset.csv" offset.csv
gather "ext_*.csv" ext.csv
# the table: perplexity per scheme and length, nonoverlapping and sliding
{
  echo "| scheme | positions | protocol | $(for m in $mults; do printf "%sx | " "$m"; done)"
  echo "|---|---|---|$(for m in $mults; do printf -- "---|"; done)"
  awk -F, 'NR > 1 { k = $1 "|" $10 "|" $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k } v[k] = v[k] sprintf(" %.2f |", $8) }
    END { for (i = 1; i <= n; i++) { split(order[i], p, "|"); printf "| %s | %s | %s |%s\n", p[1], p[2], p[3], v[order[i]] } }' "$out/eval.csv"
  echo
  echo "Shift test: loss (nats/byte) of windows of $T starting at position K"
  echo
  echo "| scheme | $(awk -F, 'NR > 1 && !seen[$11]++ { printf "K=%s | ", $11 }' "$out/offset.csv")"
  echo "|---|$(awk -F, 'NR > 1 && !seen[$11]++ { printf "---|" }' "$out/offset.csv")"
  awk -F, 'NR > 1 { if (!($1 in v)) order[++n] = $1; v[$1] = v[$1] sprintf(" %.4f |", $7) }
    END { for (i = 1; i <= n; i++) printf "| %s |%s\n", order[i], v[order[i]] }' "$out/offset.csv"
  if [ -s "$out/ext.csv" ]; then
    echo
    echo "RoPE context extension at evaluation (rope checkpoint), perplexity"
    echo
    echo "| method | protocol | $(for m in $mults; do printf "%sx | " "$m"; done)"
    echo "|---|---|$(for m in $mults; do printf -- "---|"; done)"
    awk -F, 'NR > 1 { k = $1 "|" $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k } v[k] = v[k] sprintf(" %.2f |", $8) }
      END { for (i = 1; i <= n; i++) { split(order[i], p, "|"); printf "| %s | %s |%s\n", p[1], p[2], v[order[i]] } }' "$out/ext.csv"
  fi
} > "$out/table.md"
cat "$out/table.md"
# the figures, from the CSVs (tools/study_figures.sh redraws them without rerunning anything)
POSGPT=$bin tools/study_figures.sh "$out" "$T" "$STEPS" "$BATCH"
exit $failed
