#!/usr/bin/env bash
# bench_ab.sh - is the working tree as fast as a base commit? build/bench of both, run in
# alternation (base, new, base, new, ...) so that a slow spell of a shared machine hits both
# sides: training tokens/s at config S and evaluation tokens/s at T = 4096 per scheme, the
# median of the rounds, and the ratio new / base.
#   tools/bench_ab.sh BASE        (SCHEMES="alibi rope", ROUNDS=3, OMP_NUM_THREADS=2 to change)
# The base is built in a worktree (build/bench-base, tools/base_build.sh).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
base=${1:?usage: tools/bench_ab.sh BASE-COMMIT}
schemes=${SCHEMES:-"alibi rope t5 kerple-power fire cope xpos"}
rounds=${ROUNDS:-3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
wt=build/bench-base
tools/base_build.sh "$base" $wt build/bench
make --no-print-directory build/bench > /dev/null
. tools/bench_lib.sh # get, list, med
echo "base $(git rev-parse --short "$base") vs working tree $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- model train tools/bench.c || echo '+changes');" \
  "$($wt/build/bench sgemm | head -1 | get core) kernels, $OMP_NUM_THREADS threads, $rounds rounds, alternating; medians"
printf "%-13s %11s %11s %7s %13s %13s %7s\n" scheme "train base" "train new" ratio "eval4k base" "eval4k new" ratio
for s in $schemes; do
  tb=() tn=() eb=() en=()
  for _ in $(seq "$rounds"); do
    tb+=("$($wt/build/bench train S "$s" 3 | get tokens_per_s)"); tn+=("$(build/bench train S "$s" 3 | get tokens_per_s)")
    eb+=("$($wt/build/bench eval S "$s" 4096 3 | get tokens_per_s)"); en+=("$(build/bench eval S "$s" 4096 3 | get tokens_per_s)")
  done
  a=$(med "${tb[@]}") b=$(med "${tn[@]}") c=$(med "${eb[@]}") d=$(med "${en[@]}")
  printf "%-13s %11.0f %11.0f %7.3f %13.0f %13.0f %7.3f\n" "$s" "$a" "$b" "$(echo "$b $a" | awk '{print $1 / $2}')" \
    "$c" "$d" "$(echo "$d $c" | awk '{print $1 / $2}')"
done
