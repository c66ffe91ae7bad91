#!/usr/bin/env bash
# bench_cores.sh - the many-core measurement (docs/performance.md, "Many cores"): for a machine
# with more cores than this one, where posgpt's build may not exist. Run it there with the
# binaries and their libraries copied beside it (ldd build/bench; LD_LIBRARY_PATH):
#   BENCH=path/to/build/bench BENCH_DNN=path/to/build/onednn/bench tools/bench_cores.sh > out.txt
# Prints RESULT lines: config S training (rope) at 1, 2, 4, 8, 16 threads, each unbound and bound
# (OMP_PROC_BIND=close OMP_PLACES=cores), 16 threads spread over threads, 8 under taskset; config
# M at 1, 4, 16 threads likewise; the per-op profile of a step at 16 threads (bench profile);
# and, with BENCH_DNN (a BLAS=onednn build), every product of an S and M step by library at 1 and
# 16 threads (bench gemm) and a training step with each library (POSGPT_BLAS).
#   tools/bench_cores.sh --sgemm   instead: posgpt's sgemm (its default, and with the solo mode
# off: POSGPT_SGEMM_SOLO_MFLOPS=0) against OpenBLAS, S and M training at MAXT bound threads
# (close, cores), ROUNDS alternating rounds (default 5), then the products of an M step
# (bench profile) with the solo mode on and off. BENCH may hold a command with arguments (e.g.
# the loader of carried libraries: "lib/ld-linux-x86-64.so.2 --library-path lib build/bench").
set -uo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
B=${BENCH:-build/bench} N=${BENCH_DNN:-} MAX=${MAXT:-16}
for v in "MAXT=$MAX" "ROUNDS=${ROUNDS:-5}"; do
  [[ ${v#*=} =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench_cores.sh: ${v%%=*}='${v#*=}': give a whole number from 1 to 9999" >&2; exit 2; }
done
case "${1:-}" in "" | --sgemm) ;; *) echo "bench_cores.sh: unknown argument '$1' (--sgemm, or none; --help)" >&2; exit 2 ;; esac
lscpu | grep -i "model name"; OMP_NUM_THREADS=$MAX $B sgemm | head -1
bound() { OMP_PROC_BIND=close OMP_PLACES=cores "$@"; }
if [ "${1:-}" = --sgemm ]; then
  lib() { case $1 in posgpt) echo POSGPT_BLAS=posgpt ;; solo0) echo "POSGPT_BLAS=posgpt POSGPT_SGEMM_SOLO_MFLOPS=0" ;; openblas) echo POSGPT_BLAS=openblas ;; esac; }
  for r in $(seq "${ROUNDS:-5}"); do
    for x in posgpt solo0 openblas; do
      echo "== S$MAX round $r $x"; bound env $(lib $x) OMP_NUM_THREADS=$MAX timeout 60 $B train S rope 3 15 | grep RESULT
      echo "== M$MAX round $r $x"; bound env $(lib $x) OMP_NUM_THREADS=$MAX timeout 90 $B train M rope 2 8 | grep RESULT
    done
  done
  for x in posgpt solo0; do
    echo "== profile M$MAX $x"; bound env $(lib $x) OMP_NUM_THREADS=$MAX timeout 60 $B profile M 4 | grep -E "op=gemm|kind=profile"
  done
  exit 0
fi
echo "== S rope unbound / close-cores / spread-threads"
for t in 1 2 4 8 $MAX; do
  OMP_NUM_THREADS=$t timeout 60 $B train S rope 3 15
  bound env OMP_NUM_THREADS=$t timeout 60 $B train S rope 3 15
done
OMP_PROC_BIND=spread OMP_PLACES=threads OMP_NUM_THREADS=$MAX timeout 60 $B train S rope 3 15
taskset -c 0-7 env OMP_NUM_THREADS=8 timeout 60 $B train S rope 3 15
echo "== M rope unbound / close-cores"
for t in 1 4 $MAX; do
  OMP_NUM_THREADS=$t timeout 90 $B train M rope 2 8
  bound env OMP_NUM_THREADS=$t timeout 90 $B train M rope 2 8
done
echo "== profile M and S at $MAX threads"
OMP_NUM_THREADS=$MAX timeout 60 $B profile M 4
OMP_NUM_THREADS=$MAX timeout 60 $B profile S 6
[ -n "$N" ] || exit 0
echo "== oneDNN"
$N gemm S 1 | grep "^LIB" | head -2
for t in 1 $MAX; do
  OMP_NUM_THREADS=$t timeout 90 $N gemm S 5 | grep RESULT
  OMP_NUM_THREADS=$t timeout 120 $N gemm M 3 | grep RESULT
  for cfg in S M; do for lib in openblas onednn; do POSGPT_BLAS=$lib OMP_NUM_THREADS=$t timeout 90 $N train $cfg rope 2 8; done; done
done
