#!/usr/bin/env bash
# test_kernels.sh - `make test-kernels`: the test suite under each of several OpenBLAS kernels,
# forced with OPENBLAS_CORETYPE (and POSGPT_NO_REEXEC=1, so posgpt keeps the one asked for).
# C_TESTS and SHELL_TESTS (tools/run_tests.sh) pick the tests: the Makefile passes the numeric
# ones (KERNEL_C_TESTS, KERNEL_SHELL_TESTS; KERNEL_TESTS=all passes none: the whole suite).
# No test may depend on which kernel runs (docs/architecture.md, "Determinism").
# Under an AVX-512 kernel name (SkylakeX, Cooperlake, SapphireRapids) the large products run
# posgpt's own sgemm (AVX-512; docs/performance.md), under an older one OpenBLAS's.
#   KERNELS="Haswell SkylakeX" (default): an AVX2 kernel and an AVX-512 one. Others OpenBLAS
#   has: Cooperlake (AVX-512 + BF16), Zen (AVX2), Prescott (SSE3, the generic fallback).
# A kernel this CPU cannot run (it would die of an illegal instruction) is skipped, and the
# output says so. Each kernel's suite prints its own tally; the last line adds them up:
# "N passed, N failed". Exit status: 0 only if nothing failed and at least one kernel ran.
set -u
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
has() { for f in "$@"; do case "$flags" in *" $f "*) ;; *) return 1;; esac; done; }
# the instruction sets each kernel needs (OpenBLAS's kernel/x86_64 sources)
needs() {
  case $1 in
    Prescott|Core2|Nehalem) echo sse3;;
    Haswell|Zen) echo avx2 fma;;
    SkylakeX) echo avx512f avx512cd avx512bw avx512dq avx512vl;;
    Cooperlake) echo avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16;;
    SapphireRapids) echo avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16 amx_tile;;
    *) return 1;;
  esac
}
pass=0 fail=0 ran=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for k in ${KERNELS:-Haswell SkylakeX}; do
  if ! needs "$k" > /dev/null; then
    echo "kernel $k: FAIL: not a kernel this script knows (Prescott Haswell Zen SkylakeX Cooperlake SapphireRapids)"
    fail=$((fail + 1)); continue
  fi
  # shellcheck disable=SC2046
  if ! has $(needs "$k"); then
    echo "kernel $k: skipped, this CPU lacks $(for f in $(needs "$k"); do has "$f" || printf '%s ' "$f"; done)"
    continue
  fi
  got=$(OPENBLAS_CORETYPE=$k POSGPT_NO_REEXEC=1 "${POSGPT:-./posgpt}" --version | sed -n 's/.*OpenBLAS \([A-Za-z0-9_]*\) kernels$/\1/p')
  if [ "$got" != "$k" ]; then
    echo "kernel $k: FAIL: asked for $k, OpenBLAS runs '$got'"; fail=$((fail + 1)); continue
  fi
  echo "kernel $k: running the test suite"
  OPENBLAS_CORETYPE=$k POSGPT_NO_REEXEC=1 tools/run_tests.sh 2>&1 | tee "$log"
  out=$(tail -1 "$log")
  p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  if [ -z "$p" ]; then echo "kernel $k: FAIL: the suite printed no tally"; f=1; p=0; fi
  echo "kernel $k: $p passed, $f failed"
  pass=$((pass + p)) fail=$((fail + f)) ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "test-kernels: this CPU can run none of: ${KERNELS:-Haswell SkylakeX}"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
