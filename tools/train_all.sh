#!/usr/bin/env bash
# train_all.sh - train every position scheme with one config and seed, then evaluate each
# checkpoint at the given multiples of the training length, and print a table.
#
#   tools/train_all.sh OUTDIR DATA "MULTIPLES" [train flags...]
#   e.g. tools/train_all.sh runs/kjv-s data/kjv.txt "1 4" --steps 2000
#
# Writes OUTDIR/<scheme>/{config.txt,log.csv,model.bin,eval.csv}, OUTDIR/eval.csv (all rows),
# OUTDIR/summary.txt (the table) and OUTDIR/command.txt (this command line).
# SCHEMES="alibi rope" limits the schemes; randomized models are evaluated with contiguous
# and with random positions.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
[ $# -ge 3 ] || { sed -n '2,11p' "$0"; exit 2; }
out=$1 data=$2 mults=$3; shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${POSGPT:-$here/posgpt} # POSGPT=/path/copy keeps a long sweep on one binary while you rebuild
[ -x "$bin" ] || { echo "error: $bin not built (run make)" >&2; exit 1; }
schemes=${SCHEMES:-"sinusoidal learned t5 alibi rope nope randomized"}
seqlen=128
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --seq-len ] && { j=$((i + 1)); seqlen=${!j}; }; done
mkdir -p "$out"
echo "tools/train_all.sh $out $data \"$mults\" $*" > "$out/command.txt"
lens=""
for m in $mults; do lens="${lens:+$lens,}$((m * seqlen))"; done
n=$(echo $schemes | wc -w) k=0
for s in $schemes; do
  d=$out/$s k=$((k + 1))
  echo "=== [$k/$n] $s: training, then evaluating at ${lens//,/, }" >&2
  mkdir -p "$d"
  how=(--pos "$s")
  [ "$s" = randomized ] && how=(--pos sinusoidal --positions random) # randomized positions over a sinusoidal base
  "$bin" train --data "$data" "${how[@]}" --out "$d" --overwrite "$@" | tee "$d/train.txt" # retrains on purpose
  extra=()
  # a learned table has no rows past its training length: evaluate it with the documented clamp
  [ "$s" = learned ] && extra=(--clamp-pos)
  "$bin" eval --ckpt "$d/model.bin" --data "$data" --lengths "$lens" --protocol nonoverlapping "${extra[@]}" --csv "$d/eval.csv"
  if [ "$s" = randomized ]; then
    "$bin" eval --ckpt "$d/model.bin" --data "$data" --lengths "$lens" --protocol nonoverlapping --positions random \
      --csv "$d/eval_random.csv"
  fi
done
# gather
first=1
for s in $schemes; do
  for f in "$out/$s/eval.csv" "$out/$s/eval_random.csv"; do
    [ -f "$f" ] || continue
    if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
  done
done > "$out/eval.csv"
{
  printf "%-24s %-11s %9s" scheme positions "train_tok/s"
  for m in $mults; do printf " %9s" "ppl@${m}x"; done
  printf "   val_loss@1x\n"
  for s in $schemes; do
    for f in "$out/$s/eval.csv" "$out/$s/eval_random.csv"; do
      [ -f "$f" ] || continue
      tps=$(grep -o '([0-9]* tokens/s' "$out/$s/train.txt" | tr -d '(' | awk '{print $1}' || true)
      awk -F, -v tps="$tps" 'NR>1 { name=$1; p=$10; ppl[NR]=$8; if (!l1) l1=$7; n=NR }
        END { printf "%-24s %-11s %9s", name, p, tps; for (i=2;i<=n;i++) printf " %9.3f", ppl[i]; printf "   %.4f\n", l1 }' "$f"
    done
  done
} | tee "$out/summary.txt"
