#!/bin/sh
# scratch_place.sh - why parity's and sum's exact match at 2x can fall below chance (0.5 and 0.1):
# task eval scores a scratch answer's final symbol at its place in the answer (docs/tasks.md), so
# a scratchpad of the wrong length misplaces it. For TASK (parity or sum) and each run named
# (SCHEME/seedK of runs/tasks2/TASK), task eval --outputs writes every answer of the test set, and
# over lengths 21..40 (2x) this prints: the share whose "=" is at its place (a scratchpad of
# length n), the share of those whose final symbol is right, and their product, the score
# (TASK-place.csv; run from the repository root with the runs' model.bin present; the pinned
# binary, one thread).
#   runs/tasks2/scratch_place.sh parity sinusoidal/seed1 alibi/seed1 nope/seed2 fire/seed2 rope/seed1
set -eu
case "${1:-}" in -h | --help | "") sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
task=$1; shift
case "$task" in parity | sum) ;; *) echo "scratch_place.sh: error: TASK is parity or sum (a scratch format), not '$task'" >&2; exit 2 ;; esac
[ $# -ge 1 ] || { echo "scratch_place.sh: error: name at least one run (SCHEME/seedK of runs/tasks2/$task)" >&2; exit 2; }
d=runs/tasks2 tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in "$@"; do [ -s "$d/$task/$r/model.bin" ] || { echo "scratch_place.sh: error: no $d/$task/$r/model.bin (its checkpoint is not committed: train it again with tools/tasks2.sh)" >&2; exit 1; }; done
echo "run,at_place,right_given_place,score" > "$tmp/place.csv"
for r in "$@"; do
  OPENBLAS_CORETYPE=SkylakeX "$d/bin/posgpt" task eval --ckpt "$d/$task/$r/model.bin" --task "$d/data/$task" \
    --csv "$tmp/acc.csv" --outputs "$tmp/out.txt" --threads 1 > /dev/null
  awk -v OUT="$tmp/out.txt" -v run="$r" 'BEGIN { FS = "\t" }
    { t = $0; if ((getline o < OUT) <= 0) exit 1; n = $1 + 0; if (n < 21 || n > 40) next
      N++; tru = substr(t, index(t, ">") + 1); j = index(o, ">"); ans = j ? substr(o, j + 1) : ""
      if (substr(ans, n + 1, 1) == "=") { pl++; if (substr(ans, n + 2, 2) == substr(tru, n + 2, 2)) ok++ } }
    END { printf "%s,%.3f,%.3f,%.3f\n", run, pl / N, (pl ? ok / pl : 0), ok / N }' "$d/data/$task/test.txt" >> "$tmp/place.csv"
done
mv "$tmp/place.csv" "$d/$task-place.csv"; cat "$d/$task-place.csv"
