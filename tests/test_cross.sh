#!/usr/bin/env bash
# test_cross.sh - a checkpoint is portable between builds for other machines: a tiny model
# trained for 20 steps by another build (POSGPT_CROSS, a command line: make test-arm64 sets
# "qemu-aarch64 -L / build/aarch64-linux-gnu/posgpt") passes this build's
# `info` checksum, and this build's eval of it agrees with the other build's within 1e-3 nats;
# the same the other way round (this build trains, the other one evaluates). Within one build,
# eval at 1x reproduces the trainer's last validation loss exactly. Without POSGPT_CROSS the
# test is skipped (0 tests).
#
# The tolerance: the two builds run different float kernels (OpenBLAS's NEON and AVX sgemm,
# other summation orders, fused multiply-adds where the compiler chose them), so their losses
# differ by rounding only. A float32 dot product of length K summed in another order differs
# by at most K u |a||b| (u = 2^-24); the longest here is K = 4 x d-model = 128, so about 8e-6
# relative per product, and a loss through 2 blocks of 5 products and the head stays within
# about 1e-4 relative, 5e-4 nats on a loss near 4 (a worst case; the observed difference is
# printed, and is far smaller). A checkpoint read wrongly is not within it: 20 steps move the
# loss from ln 256 = 5.55 by over a nat, and one damaged tensor moves it by far more than 1e-3.
. "$(dirname "$0")/lib.sh" cross

if [ -z "${POSGPT_CROSS:-}" ]; then
  echo "# skipped: POSGPT_CROSS names no other build (make test-arm64 sets it)"
  echo "# $pass passed, $fail failed"
  exit 0
fi
read -r -a OTHER <<< "$POSGPT_CROSS"
phrase_text 5 3000 > "$tmp/text.txt"
TINY=(--layers 2 --d-model 32 --heads 2 --seq-len 32 --batch 8 --steps 20 --lr 3e-3 --eval-every 20 --val-tokens 2048 --threads 2)
TOL=1e-3

# loss RUN_LABEL BUILD...: the eval loss at 1x of $d/model.bin by BUILD, on the trainer's windows
loss() {
  local label=$1; shift
  "$@" eval --ckpt "$d/model.bin" --data "$tmp/text.txt" --max-tokens 2048 --threads 2 --csv "$d.$label.csv" 2> "$d.$label.err" &&
    tail -1 "$d.$label.csv" | cut -d, -f7
}
# cross TRAINER_NAME EVAL_NAME SCHEME TRAINER... -- OTHER...: train with one build, evaluate with both
cross() {
  local tn=$1 en=$2 s=$3; shift 3
  local trainer=() evaluator=()
  while [ "$1" != -- ]; do trainer+=("$1"); shift; done
  shift; evaluator=("$@")
  d=$tmp/${tn// /-}-$s
  if ! "${trainer[@]}" train --data "$tmp/text.txt" --pos "$s" --out "$d" "${TINY[@]}" > "$d.out" 2> "$d.err"; then
    bad "$tn trains $s" "$(tail -1 "$d.err")"; return
  fi
  local val own other
  val=$(tail -1 "$d/log.csv" | cut -d, -f3)
  own=$(loss own "${trainer[@]}")
  [ -n "$own" ] && [ "$own" = "$val" ] && ok "$tn: $s, 20 steps, eval at 1x reproduces its val loss ($own)" \
    || bad "$tn eval $s" "eval '$own' vs trainer $val: $(tail -1 "$d.own.err")"
  awk -v v="$val" 'BEGIN { exit !(v < 5.0) }' && ok "$tn: the $s model learns in 20 steps (val loss $val < 5.0; uniform 5.55)" \
    || bad "$tn learning $s" "val loss $val not below 5.0"
  "${evaluator[@]}" info "$d/model.bin" > "$d.info" 2>&1 && grep -q "checksum ok" "$d.info" \
    && ok "$en: info on $tn's $s checkpoint, checksum ok" || bad "$en info $s" "$(tail -1 "$d.info")"
  other=$(loss other "${evaluator[@]}")
  awk -v a="$own" -v b="$other" -v t=$TOL 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d <= t) }' \
    && ok "$en: eval of $tn's $s checkpoint $other, $tn's $own (|diff| <= $TOL)" \
    || bad "$en eval $s" "'$other' vs $tn's $own: $(tail -1 "$d.other.err")"
}
# the other build trains: an additive bias with a learned table (t5) and a rotary scheme (rope)
for s in t5 rope; do cross "other build" "this build" "$s" "${OTHER[@]}" -- "$BIN"; done
# this build trains, the other evaluates: a learned absolute table (learned)
cross "this build" "other build" learned "$BIN" -- "${OTHER[@]}"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
