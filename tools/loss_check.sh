#!/usr/bin/env bash
# loss_check.sh - no regression in loss: train the same fixed-seed 200-step run (config S on
# data/kjv.txt, `make data`; DATA=FILE for another corpus) with the posgpt of a base commit and with the working tree, for every
# scheme both know, and compare the training and validation losses step by step.
#
#   tools/loss_check.sh [BASE]     BASE: a commit (default: the one before the speed work)
#
# The base is built in a temporary git worktree (build/loss-base). Prints one line per scheme
# with the largest |difference| over the 200 per-step training losses and the validation
# losses, and exits non-zero if any exceeds 1e-4. Same thread count for both (2 by default;
# THREADS=N to change); the runs go one after the other, never side by side. SCHEMES="a b"
# checks only those.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
base=${1:-124b54b}
threads=${THREADS:-2}
data=${DATA:-data/kjv.txt}
[ -s "$data" ] || { echo "loss_check: no corpus at $data (run make data, or set DATA=FILE)" >&2; exit 1; }
make --no-print-directory posgpt > /dev/null
wt=build/loss-base
tools/base_build.sh "$base" $wt posgpt
tmp=$(mktemp -d /tmp/posgpt-losscheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp posgpt "$tmp/posgpt-new" # a rebuild of the working tree during the check cannot mix binaries
# the schemes of the base build (a scheme added later has nothing to compare against)
schemes=${SCHEMES:-$($wt/posgpt --help | sed -n 's/.*(--pos): //p' | tr '|' ' ')}
schemes="${SCHEMES:-$schemes}"
echo "base $(git rev-parse --short "$base") vs working tree $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- model train || echo '+changes'); config S, 200 steps, seed 1, $threads threads"
printf "%-12s %16s %16s\n" scheme "max|dtrain|" "max|dval|"
worst=0
# the working tree spells a scheme the way it does now: randomized positions are a training
# flag; and both sides share a scheme's tensors by the layers (--pos-sharing shared), as every
# build before --pos-sharing had them, since the schemes' defaults have changed since
flags() { # BIN SCHEME
  local how=(--pos "$2")
  [ "$2" = randomized ] && [ "$1" = "$tmp/posgpt-new" ] && how=(--pos sinusoidal --positions random)
  # (the help is read whole first: `| grep -q` would close the pipe at the first match, and
  # under pipefail the help's write error then reads as "no such flag")
  local help
  help=$("$1" train --help 2>&1 || true)
  [[ $help == *--pos-sharing* ]] && how+=(--pos-sharing shared)
  echo "${how[@]}"
}
for s in $schemes; do
  for side in base new; do
    bin=$tmp/posgpt-new
    [ $side = base ] && bin=$wt/posgpt
    how=$(flags "$bin" "$s")
    # shellcheck disable=SC2086
    $bin train --data "$data" $how --out "$tmp/$side-$s" --layers 4 --d-model 128 --heads 4 --seq-len 128 --batch 32 \
      --steps 200 --lr 1e-3 --seed 1 --eval-every 50 --val-tokens 16384 --log-every 1 --threads "$threads" > /dev/null 2>&1
  done
  r=$(paste -d, <(cut -d, -f1-3 "$tmp/base-$s/log.csv") <(cut -d, -f1-3 "$tmp/new-$s/log.csv") | awk -F, '
    NR > 1 { if ($1 != $4) { print "step mismatch"; exit 1 } n++
             d = $2 - $5; d = d < 0 ? -d : d; if (d > mt) mt = d
             if ($3 != "" || $6 != "") { e = $3 - $6; e = e < 0 ? -e : e; if (e > mv) mv = e } }
    END { printf "%.3g %.3g %d", mt, mv, n }')
  read -r dt dv n <<< "$r"
  printf "%-12s %16s %16s   (%s steps)\n" "$s" "$dt" "$dv" "$n"
  worst=$(awk -v a="$worst" -v b="$dt" -v c="$dv" 'BEGIN { m = a; if (b > m) m = b; if (c > m) m = c; print m }')
done
awk -v w="$worst" 'BEGIN { if (w <= 1e-4) { printf "largest difference %.3g <= 1e-4: no regression\n", w; exit 0 }
  printf "largest difference %.3g > 1e-4: REGRESSION\n", w; exit 1 }'
