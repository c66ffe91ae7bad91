#!/usr/bin/env bash
# valgrind.sh - `make valgrind`: a short train + eval + sample + info under valgrind memcheck.
# Fails on any invalid read/write, use of uninitialised memory, or definite/indirect leak.
# (OpenMP's and OpenBLAS's thread pools stay allocated until exit: "still reachable", not errors.)
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
# valgrind 3.19 cannot run AVX-512 code: a portable build (no -march=native) of our code,
# and OpenBLAS's AVX2 kernels
make --no-print-directory B=build/vg BIN=build/vg/posgpt CFLAGS="-O2 -g" build/vg/posgpt >&2
export OPENBLAS_CORETYPE=Haswell
tmp=$(mktemp -d /tmp/posgpt-vg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { srand(5); for (i = 0; i < 600; i++) printf "%s %s.\n", (rand() < .5 ? "and" : "behold"), (rand() < .5 ? "the word" : "the light") }' > "$tmp/t.txt"
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
export OMP_NUM_THREADS=2
# run WANT_STATUS ARGS...: posgpt must exit with WANT_STATUS and valgrind must find nothing (99)
run() {
  local want=$1; shift
  echo "valgrind: posgpt $*" >&2
  local rc=0
  "${VG[@]}" build/vg/posgpt "$@" > /dev/null 2> "$tmp/err" || rc=$?
  if [ $rc -ne "$want" ]; then cat "$tmp/err" >&2; echo "valgrind.sh: FAILED (status $rc, wanted $want): posgpt $*" >&2; exit 1; fi
}
for s in t5 rope learned kerple-power fire; do # kerple-power, fire: the tabulate caches
  run 0 train --data "$tmp/t.txt" --pos $s --out "$tmp/r-$s" --layers 2 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 6 \
    --eval-every 3 --ckpt-every 3 --val-tokens 256
  clamp=(); [ $s = learned ] && clamp=(--clamp-pos) # (the others have no table to clamp: the flag is refused)
  run 0 eval --ckpt "$tmp/r-$s/model.bin" --data "$tmp/t.txt" --lengths 16,96 --protocol both --max-tokens 256 "${clamp[@]}" \
    --per-position "$tmp/pp.csv" --csv "$tmp/e.csv"
done
# seq-len 80: the training attention in two causal blocks (64 + 16), with CoPE's content term
run 0 train --data "$tmp/t.txt" --pos cope --out "$tmp/r-cope" --layers 1 --d-model 16 --heads 2 --seq-len 80 --batch 2 --steps 2 \
  --eval-every 2 --val-tokens 160
run 1 train --resume "$tmp/r-t5" --data "$tmp/t.txt"   # finished run: a clean error
run 0 sample --ckpt "$tmp/r-rope/model.bin" --prompt "and" --tokens 8
run 0 info "$tmp/r-learned/model.bin"
run 0 plot --kind ppl --out "$tmp/p.png" --width 320 --height 240 "$tmp/e.csv"
run 1 train --data "$tmp/missing.txt" --pos alibi --out "$tmp/x"        # an error path
echo "valgrind: no invalid accesses, no uninitialised reads, no definite or indirect leaks"
