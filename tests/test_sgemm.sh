#!/usr/bin/env bash
# test_sgemm.sh - posgpt's own packed sgemm (POSGPT_BLAS=posgpt; model/sgemm.c,
# docs/performance.md "The packed product"), through the command line:
#  - --version names the library the products call: posgpt's sgemm and its kernel where it is
#    the default (a CPU with AVX-512F), OpenBLAS otherwise, and OpenBLAS where
#    OPENBLAS_CORETYPE names an older kernel (Haswell);
#  - training with the portable kernel writes byte-identical checkpoints and the same losses on
#    1, 2, 3 threads and 2 bound threads (t5), on 1 and 3 threads (rope); every product of the
#    layers, 576 x 64 x 64 to 576 x 256 x 64, is large enough to be posgpt's;
#  - the AVX-512 kernel writes the portable kernel's checkpoint, byte for byte (where the CPU
#    has AVX-512F): the two run the same operations in the same order;
#  - posgpt's sgemm and OpenBLAS give the same first training loss within 1e-4 (the same model;
#    the floats of the products differ in their last bits).
. "$(dirname "$0")/lib.sh" sgemm
phrase_text 5 3000 > "$tmp/text.txt"
avx512=0
grep -qw avx512f /proc/cpuinfo 2> /dev/null && avx512=1
lib=$(env -u OPENBLAS_CORETYPE -u POSGPT_BLAS $BIN --version | sed -n 2p)
echo "# library: $lib"
if [ $avx512 = 1 ]; then
  [[ $lib == "posgpt sgemm AVX-512 12x32, OpenBLAS "*" kernels" ]] && ok "--version: posgpt's sgemm with its AVX-512 kernel is the default here" ||
    bad "--version (AVX-512 CPU)" "$lib"
  if grep -qw avx2 /proc/cpuinfo; then
    l=$(env -u POSGPT_BLAS OPENBLAS_CORETYPE=Haswell POSGPT_NO_REEXEC=1 $BIN --version | sed -n 2p)
    [ "$l" = "OpenBLAS Haswell kernels" ] && ok "OPENBLAS_CORETYPE=Haswell: the products stay with OpenBLAS ($l)" ||
      bad "OPENBLAS_CORETYPE=Haswell" "$l"
  fi
else
  [[ $lib == "OpenBLAS "*" kernels" ]] && ok "--version: OpenBLAS is the default without AVX-512F ($lib)" || bad "--version" "$lib"
fi
l=$(POSGPT_BLAS=posgpt-portable $BIN --version | sed -n 2p)
[[ $l == "posgpt sgemm portable 12x32, OpenBLAS "*" kernels" ]] && ok "POSGPT_BLAS=posgpt-portable: --version names the portable kernel" ||
  bad "POSGPT_BLAS=posgpt-portable" "$l"
l=$(POSGPT_BLAS=openblas $BIN --version | sed -n 2p)
[[ $l == "OpenBLAS "*" kernels" ]] && ok "POSGPT_BLAS=openblas: --version names OpenBLAS alone" || bad "POSGPT_BLAS=openblas" "$l"

# 4 steps, a checkpoint and a validation every 2, 576 tokens a step: every product of the layers
# is >= 4 MFLOP (576 x 64 x 64 the smallest), so posgpt's. Kept small: the portable kernel under
# make test-sanitize (every access checked, fmaf through libm) takes about 15 s of CPU a run
A=(--data "$tmp/text.txt" --layers 2 --d-model 64 --heads 4 --seq-len 96 --batch 6 --steps 4 --lr 3e-3
   --eval-every 2 --val-tokens 2048 --ckpt-every 2 --log-every 1 --seed 4)
losses() { cut -d, -f1-5 "$1/log.csv"; }
for s in t5 rope; do
  runs=(1 2 3 "2 close cores")
  [ $s = rope ] && runs=(1 3) # the products are the scheme's neighbours' (t5 covers 2 and 2 bound)
  same=1 differs="" others=""
  for run in "${runs[@]}"; do
    set -- $run
    d=$tmp/$s-t$1${2:-}
    env POSGPT_BLAS=posgpt-portable ${2:+OMP_PROC_BIND=$2 OMP_PLACES=$3} $BIN train "${A[@]}" --pos $s --threads $1 --out "$d" \
      > /dev/null 2> "$d.err" || bad "train $s --threads $1" "$(tail -1 "$d.err")"
    [ "$d" = "$tmp/$s-t1" ] && continue # the reference: each other run against it
    others+="${others:+, }$1${2:+ bound}"
    cmp -s "$tmp/$s-t1/model.bin" "$d/model.bin" && [ "$(losses "$tmp/$s-t1")" = "$(losses "$d")" ] ||
      { same=0; differs=${differs:-$d}; }
  done
  head -1 "$tmp/$s-t1.err" | grep -q "| posgpt sgemm portable 12x32, OpenBLAS .* kernels | 1 threads$" &&
    ok "$s: the training banner names posgpt's sgemm" || bad "$s banner" "$(head -1 "$tmp/$s-t1.err")"
  [ $same = 1 ] && ok "$s: posgpt's sgemm on 1 thread and on $others threads: byte-identical checkpoints and losses" ||
    bad "$s: threads" "$differs: $(cmp "$tmp/$s-t1/model.bin" "$differs/model.bin" 2>&1 | head -1)"
  if [ $avx512 = 1 ]; then
    POSGPT_BLAS=posgpt $BIN train "${A[@]}" --pos $s --threads 2 --out "$tmp/$s-avx" > /dev/null 2> "$tmp/$s-avx.err" ||
      bad "train $s AVX-512" "$(tail -1 "$tmp/$s-avx.err")"
    cmp -s "$tmp/$s-t1/model.bin" "$tmp/$s-avx/model.bin" && [ "$(losses "$tmp/$s-t1")" = "$(losses "$tmp/$s-avx")" ] &&
      ok "$s: the AVX-512 kernel writes the portable kernel's checkpoint, byte for byte" ||
      bad "$s: AVX-512 against portable" "$(cmp "$tmp/$s-t1/model.bin" "$tmp/$s-avx/model.bin" 2>&1 | head -1)"
  fi
done
POSGPT_BLAS=openblas $BIN train "${A[@]}" --pos rope --threads 2 --steps 1 --out "$tmp/ob" > /dev/null 2> "$tmp/ob.err" ||
  bad "POSGPT_BLAS=openblas train" "$(tail -1 "$tmp/ob.err")"
l1=$(sed -n 2p "$tmp/rope-t1/log.csv" | cut -d, -f2) l2=$(sed -n 2p "$tmp/ob/log.csv" | cut -d, -f2)
awk -v a="$l1" -v b="$l2" 'BEGIN { d = a - b; exit !(a > 0 && (d < 0 ? -d : d) <= 1e-4) }' &&
  ok "posgpt's sgemm and OpenBLAS: the same first training loss within 1e-4 ($l1, $l2)" || bad "first loss" "posgpt $l1, OpenBLAS $l2"
# POSGPT_SGEMM_SOLO_MFLOPS (a benchmark's knob): a value that is not a number of MFLOP, 0 or more,
# is an error at start-up, whatever the products' sizes
badv=""
for v in abc -1 1e400 nan "8 "; do
  POSGPT_SGEMM_SOLO_MFLOPS="$v" $BIN --version > /dev/null 2> "$tmp/solo.err" && badv="$badv [$v]: exit 0"
  grep -q "^posgpt: error: POSGPT_SGEMM_SOLO_MFLOPS=" "$tmp/solo.err" || badv="$badv [$v]: $(head -1 "$tmp/solo.err")"
done
POSGPT_SGEMM_SOLO_MFLOPS=0 $BIN --version > /dev/null 2>&1 || badv="$badv [0]: refused"
[ -z "$badv" ] && ok "POSGPT_SGEMM_SOLO_MFLOPS: abc, -1, 1e400, nan, '8 ' refused with one error line; 0 taken" || bad "solo env" "$badv"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
