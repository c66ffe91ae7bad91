#!/usr/bin/env bash
# bench_mpi.sh - data-parallel training on this machine (part of `make bench` when OpenMPI is
# installed; alone: tools/bench_mpi.sh). Prints:
#   training tokens/s at config S (4 layers, d_model 128, 4 heads, T 128, batch 32) of
#     A: one process x 2 threads (./posgpt, one shard: the plain step),
#     B: one process x 2 threads cutting the batch in 2 gradient shards (the numerics of C),
#     C: 2 processes x 1 thread (mpirun -np 2 ./posgpt-mpi), and the exchange time per step it
#        reports (the wait for the slower process included);
#   each the median of the per-step rates (steps 6..STEPS-1 of a run: no warm-up, no
#   validation), then the median of ROUNDS rounds run A, B, C one after the other, and the
#   ratios C/A and B/A taken within each round;
#   the exchange alone (build/mpi/exchange_bench): median time per buffer size, and the cost
#     model t = latency + bytes / bandwidth, with the latency the time of the smallest buffer
#     (4 KiB) and the bandwidth from the largest (64 MiB, out of every cache: the slowest);
#   a projection for N processes, each on its own core with 1/N of the batch: step time =
#     (C's step time - its exchange) x 2 / N (the compute, linear in the batch) + log2(N) x
#     (latency + gradient bytes / bandwidth) (recursive doubling: log2 N exchanges of the whole
#     gradient), with this machine's fitted latency and bandwidth, and with an assumed 10 Gb/s
#     Ethernet between hosts (50 us, 1.25 GB/s). A projection, not a measurement.
# Environment: STEPS (30), ROUNDS (3).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
command -v mpirun > /dev/null || { echo "bench_mpi: needs OpenMPI (tools/deps.sh mpi)" >&2; exit 1; }
make --no-print-directory posgpt > /dev/null
make --no-print-directory MPI=1 posgpt-mpi build/mpi/exchange_bench > /dev/null
steps=${STEPS:-30} rounds=${ROUNDS:-3}
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
tmp=$(mktemp -d /tmp/posgpt-bench-mpi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ -s data/kjv.txt ]; then text=data/kjv.txt; else
  text=$tmp/text.txt
  awk 'BEGIN { srand(3); for (i = 0; i < 60000; i++) printf "%s the %s of %s.\n", (rand() < .5 ? "behold" : "and"),
    (rand() < .5 ? "word" : "house"), (rand() < .5 ? "the lord" : "israel") }' > "$text"
fi
S=(--data "$text" --pos alibi --layers 4 --d-model 128 --heads 4 --seq-len 128 --batch 32 --steps "$steps" --eval-every 1000000
   --val-tokens 4096 --log-every 1 --ckpt-every 1000000 --pos alibi --overwrite)
. tools/bench_lib.sh # get, list, med
rate() { awk -F, -v last="$steps" 'NR > 6 && $1 < last { print $6 }' "$1/log.csv" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
a=() b=() c=() ca=() ba=() ex=()
echo "data-parallel training, config S, $steps steps a run, $rounds rounds (kernel: $(./posgpt --version | sed -n 2p))"
for r in $(seq "$rounds"); do
  ./posgpt train "${S[@]}" --threads 2 --out "$tmp/a" > /dev/null 2>&1
  ./posgpt train "${S[@]}" --threads 2 --grad-shards 2 --out "$tmp/b" > /dev/null 2>&1
  mpirun "${root[@]}" -np 2 --bind-to core ./posgpt-mpi train "${S[@]}" --threads 1 --out "$tmp/c" > "$tmp/c.out" 2> /dev/null
  ra=$(rate "$tmp/a") rb=$(rate "$tmp/b") rc=$(rate "$tmp/c")
  a+=("$ra") b+=("$rb") c+=("$rc")
  ca+=("$(awk -v x="$rc" -v y="$ra" 'BEGIN { printf "%.3f", x / y }')") ba+=("$(awk -v x="$rb" -v y="$ra" 'BEGIN { printf "%.3f", x / y }')")
  ex+=("$(sed -n 's/.*the gradient exchange took \([0-9.]*\) ms a step.*/\1/p' "$tmp/c.out")")
  echo "  round $r: A $ra, B $rb, C $rc tokens/s; exchange ${ex[-1]} ms a step"
done
printf "%-44s %10s %8s\n" configuration tokens/s "vs A"
printf "%-44s %10.0f %8s\n" "A: 1 process x 2 threads" "$(med "${a[@]}")" 1
printf "%-44s %10.0f %8.3f\n" "B: 1 process x 2 threads, 2 gradient shards" "$(med "${b[@]}")" "$(med "${ba[@]}")"
printf "%-44s %10.0f %8.3f\n" "C: 2 processes x 1 thread (mpirun -np 2)" "$(med "${c[@]}")" "$(med "${ca[@]}")"
params=$(./posgpt info "$tmp/a/model.bin" | sed -n 's/^parameters *\([0-9]*\).*/\1/p')
echo "C's gradient exchange: median $(med "${ex[@]}") ms a step ($params parameters, $((params * 4)) bytes; the wait for the slower process included)"
echo
echo "the exchange alone (build/mpi/exchange_bench, mpirun -np 2):"
mpirun "${root[@]}" -np 2 build/mpi/exchange_bench 21 | tee "$tmp/ex.csv"
read -r lat bw < <(awk -F, '$1 ~ /^[0-9]/ { if (!n++) a = $3; b = $2; t = $3 } END { print a, b / ((t - a) * 1e3) }' "$tmp/ex.csv")
echo "cost model: t = $lat us + bytes / ($bw GB/s)   (latency: the 4 KiB exchange; bandwidth: the 64 MiB one)"
step_c=$(awk -v r="$(med "${c[@]}")" 'BEGIN { print 32 * 128 / r }') # seconds a step, config S, 2 processes
echo
echo "projection (see the top of this script): config S, the batch of 32 split over N processes"
printf "%4s %22s %10s %28s %10s\n" N "step ms (this machine)" speedup "step ms (10 Gb/s Ethernet)" speedup
awk -v sc="$step_c" -v ex="$(med "${ex[@]}")" -v P="$params" -v lat="$lat" -v bw="$bw" 'BEGIN {
  comp2 = sc - ex / 1e3; t1 = 2 * comp2; M = 4 * P
  for (N = 1; N <= 64; N *= 2) {
    l = log(N) / log(2); a = 2 * comp2 / N + l * (lat * 1e-6 + M / (bw * 1e9)); e = 2 * comp2 / N + l * (50e-6 + M / 1.25e9)
    printf "%4d %22.1f %10.2f %28.1f %10.2f\n", N, 1e3 * a, t1 / a, 1e3 * e, t1 / e } }'
