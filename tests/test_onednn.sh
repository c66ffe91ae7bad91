#!/usr/bin/env bash
# test_onednn.sh - the oneDNN backend (make BLAS=onednn; docs/performance.md, "oneDNN").
# With a BLAS=onednn binary (make test-onednn: POSGPT=build/onednn/posgpt):
#  - --version and the training banner name oneDNN; POSGPT_BLAS=openblas names OpenBLAS;
#  - training with --threads 1, 2 and 3 (and 2 bound: OMP_PROC_BIND=close OMP_PLACES=cores)
#    writes byte-identical checkpoints and the same losses, for t5 and rope (the products cut
#    into bands and K chunks, each a single-threaded dnnl_sgemm inside posgpt's team);
#  - oneDNN's and OpenBLAS's first training loss agree within 1e-4 (the same model).
# With any other binary (the default build, in the full suite): it does not link libdnnl, its
# banner names OpenBLAS (with posgpt's sgemm before it, where that is the default), and POSGPT_BLAS=onednn or an unknown library is refused.
. "$(dirname "$0")/lib.sh" onednn
phrase_text 4 3000 > "$tmp/text.txt"
lib=$($BIN --version | sed -n 2p)
echo "# library: $lib"
if [[ $lib != oneDNN* ]]; then
  if [[ $lib == *"OpenBLAS "*" kernels" ]]; then ok "--version names OpenBLAS and its kernel ($lib)"; else bad "--version" "$lib"; fi
  if [ -z "$(readelf -d "$BIN" 2> /dev/null | grep -i dnnl)" ] && readelf -d "$BIN" | grep -q NEEDED; then
    ok "the default build does not link libdnnl"
  else bad "default build links" "$(readelf -d "$BIN" | grep -i dnnl)"; fi
  refused "POSGPT_BLAS=onednn in a build without oneDNN" "built without oneDNN; build it with make BLAS=onednn" \
    env POSGPT_BLAS=onednn $BIN --version
  refused "POSGPT_BLAS=mkl" "POSGPT_BLAS=mkl: unknown library; give posgpt, posgpt-portable, openblas or onednn" env POSGPT_BLAS=mkl $BIN train --pos rope
  echo "# $pass passed, $fail failed"
  [ $fail -eq 0 ]
  exit
fi
[[ $lib == "oneDNN "*" sgemm, "* ]] && ok "--version names oneDNN and its ISA ($lib)" || bad "--version" "$lib"
lob=$(POSGPT_BLAS=openblas $BIN --version | sed -n 2p)
[[ $lob == "OpenBLAS "*" kernels" ]] && ok "POSGPT_BLAS=openblas: --version names OpenBLAS ($lob)" || bad "POSGPT_BLAS=openblas" "$lob"
# 1152 tokens a step at width 64: the products are cut into bands and the weight gradients' K into chunks
A=(--data "$tmp/text.txt" --layers 2 --d-model 64 --heads 4 --seq-len 96 --batch 12 --steps 8 --lr 3e-3
   --eval-every 4 --val-tokens 4096 --ckpt-every 4 --log-every 1 --seed 3)
losses() { cut -d, -f1-5 "$1/log.csv"; }
for s in t5 rope; do
  for run in 1 2 3 "2 close cores"; do
    set -- $run
    d=$tmp/$s-t$1${2:-}
    env ${2:+OMP_PROC_BIND=$2 OMP_PLACES=$3} $BIN train "${A[@]}" --pos $s --threads $1 --out "$d" > /dev/null 2> "$d.err" \
      || bad "train $s --threads $1" "$(tail -1 "$d.err")"
  done
  head -1 "$tmp/$s-t1.err" | grep -q "| oneDNN .* sgemm, .* | 1 threads$" && ok "$s: the training banner names oneDNN" ||
    bad "$s banner" "$(head -1 "$tmp/$s-t1.err")"
  same=1
  for d in "$tmp/$s-t2" "$tmp/$s-t3" "$tmp/$s-t2close"; do
    cmp -s "$tmp/$s-t1/model.bin" "$d/model.bin" && [ "$(losses "$tmp/$s-t1")" = "$(losses "$d")" ] || same=0
  done
  [ $same = 1 ] && ok "$s: oneDNN on 1, 2, 3 threads and 2 bound threads: byte-identical checkpoints and losses" ||
    bad "$s: threads" "$(cmp "$tmp/$s-t1/model.bin" "$tmp/$s-t3/model.bin" 2>&1 | head -1)"
done
POSGPT_BLAS=openblas $BIN train "${A[@]}" --pos rope --threads 2 --steps 1 --out "$tmp/ob" > /dev/null 2> "$tmp/ob.err" ||
  bad "POSGPT_BLAS=openblas train" "$(tail -1 "$tmp/ob.err")"
head -1 "$tmp/ob.err" | grep -q "| OpenBLAS .* kernels |" && ok "POSGPT_BLAS=openblas: the training banner names OpenBLAS" ||
  bad "openblas banner" "$(head -1 "$tmp/ob.err")"
l1=$(sed -n 2p "$tmp/rope-t1/log.csv" | cut -d, -f2) l2=$(sed -n 2p "$tmp/ob/log.csv" | cut -d, -f2)
awk -v a="$l1" -v b="$l2" 'BEGIN { d = a - b; exit !(a > 0 && (d < 0 ? -d : d) <= 1e-4) }' &&
  ok "oneDNN and OpenBLAS: the same first training loss within 1e-4 ($l1, $l2)" || bad "first loss" "oneDNN $l1, OpenBLAS $l2"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
