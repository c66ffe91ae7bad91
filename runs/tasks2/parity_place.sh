#!/bin/sh
# parity_place.sh - why parity's exact match at 2x is below its chance of 0.5: task eval scores a
# scratch answer's final bit at its place in the answer (docs/tasks.md), so a scratchpad of the
# wrong length misplaces it. For each run named (TASK-less: SCHEME/seedK of runs/tasks2/parity),
# task eval --outputs writes every answer of the test set, and over lengths 21..40 (2x) this
# prints: the share whose "=" is at its place (a scratchpad of length n), the share of those
# whose final bit is right, and their product, the score (parity-place.csv; run from the
# repository root with the runs' model.bin present; the pinned binary, one thread).
#   runs/tasks2/parity_place.sh sinusoidal/seed1 alibi/seed1 nope/seed2 fire/seed2 rope/seed1
set -eu
case "${1:-}" in -h | --help | "") sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
d=runs/tasks2 tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "run,at_place,right_given_place,score" > "$d/parity-place.csv.part"
for r in "$@"; do
  OPENBLAS_CORETYPE=SkylakeX "$d/bin/posgpt" task eval --ckpt "$d/parity/$r/model.bin" --task "$d/data/parity" \
    --csv "$tmp/acc.csv" --outputs "$tmp/out.txt" --threads 1 > /dev/null
  awk -v OUT="$tmp/out.txt" -v run="$r" 'BEGIN { FS = "\t" }
    { t = $0; if ((getline o < OUT) <= 0) exit 1; n = $1 + 0; if (n < 21 || n > 40) next
      N++; tru = substr(t, index(t, ">") + 1); j = index(o, ">"); ans = j ? substr(o, j + 1) : ""
      if (substr(ans, n + 1, 1) == "=") { pl++; if (substr(ans, n + 2, 2) == substr(tru, n + 2, 2)) ok++ } }
    END { printf "%s,%.3f,%.3f,%.3f\n", run, pl / N, (pl ? ok / pl : 0), ok / N }' "$d/data/parity/test.txt" >> "$d/parity-place.csv.part"
done
mv "$d/parity-place.csv.part" "$d/parity-place.csv"; cat "$d/parity-place.csv"
