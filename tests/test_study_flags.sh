#!/usr/bin/env bash
# test_study_flags.sh - the flags a study needs:
#  - train --keep-every N keeps model-STEP.bin every N steps (each the checkpoint of that step,
#    bit for bit; model.bin as without the flag; kept across --resume); N <= 0 and N not a
#    multiple of --ckpt-every are refused;
#  - train --pos-lr-mult X: 1 writes the same checkpoint as no flag; 10 changes the run, is
#    recorded in config.txt and the checkpoint, kept by --resume (another value refused);
#    refused for schemes with no tensors of their own;
#  - eval --ci: a bootstrap interval over the windows that holds the point estimate, is the
#    same on every run and thread count, and narrows with more windows; --per-window writes
#    each window's loss, and tools/paired.sh compares two such files;
#  - info: the pairs a rotary context extension leaves, interpolates or blends; parameters and
#    FLOPs per token by the formula of docs/usage.md.
. "$(dirname "$0")/lib.sh" study_flags

phrase_text 5 3000 > "$tmp/text.txt"
R=(--data "$tmp/text.txt" --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 6 --eval-every 3
   --ckpt-every 2 --log-every 2 --val-tokens 512 --threads 2)
refused() { # name pattern command...
  local name=$1 pat=$2; shift 2
  "$@" > /dev/null 2> "$tmp/e"; local rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(grep -c . "$tmp/e")" -le 2 ] && grep -q -- "$pat" "$tmp/e"; then ok "$name -> $(grep error "$tmp/e")"
  else bad "$name" "rc=$rc: $(head -2 "$tmp/e")"; fi
}

# ---- --keep-every ----
$BIN train "${R[@]}" --pos t5 --out "$tmp/plain" > /dev/null 2>&1
$BIN train "${R[@]}" --pos t5 --out "$tmp/keep" --keep-every 2 > /dev/null 2>&1
$BIN train "${R[@]}" --pos t5 --out "$tmp/at4" --stop-at 4 > /dev/null 2>&1
[ "$(cd "$tmp/keep" && ls model*.bin | tr '\n' ' ')" = "model-2.bin model-4.bin model-6.bin model.bin " ] \
  && ok "--keep-every 2 keeps model-2/4/6.bin beside model.bin" || bad "kept files" "$(ls "$tmp/keep")"
# the payload (parameters and moments, after the 1024-byte header, whose run record holds keep_every)
payload_same() { cmp -s <(tail -c +1025 "$1") <(tail -c +1025 "$2") && [ "$(wc -c < "$1")" = "$(wc -c < "$2")" ]; }
payload_same "$tmp/plain/model.bin" "$tmp/keep/model.bin" && ok "--keep-every leaves model.bin's parameters and moments as without it" \
  || bad "keep model.bin" "differs"
payload_same "$tmp/at4/model.bin" "$tmp/keep/model-4.bin" && ok "model-4.bin holds the checkpoint of step 4 (parameters, moments) bit for bit" \
  || bad "model-4.bin" "differs"
$BIN train "${R[@]}" --pos t5 --out "$tmp/keepr" --keep-every 4 --stop-at 2 > /dev/null 2>&1
$BIN train --resume "$tmp/keepr" > /dev/null 2>&1
$BIN train "${R[@]}" --pos t5 --out "$tmp/keep4" --keep-every 4 > /dev/null 2>&1
[ "$(cd "$tmp/keepr" && ls model*.bin | tr '\n' ' ')" = "model-4.bin model.bin " ] && cmp -s "$tmp/keepr/model-4.bin" "$tmp/keep4/model-4.bin" \
  && ok "--resume keeps the run's --keep-every (model-4.bin as uninterrupted)" || bad "keep resume" "$(ls "$tmp/keepr")"
grep -q "^keep_every = 4$" "$tmp/keepr/config.txt" && ok "config.txt records keep_every" || bad "config keep_every" "$(grep keep "$tmp/keepr/config.txt")"
refused "--keep-every 0" "keep-every must be a positive number of steps" $BIN train "${R[@]}" --out "$tmp/x" --keep-every 0
refused "--keep-every -2" "keep-every must be a positive number of steps" $BIN train "${R[@]}" --out "$tmp/x" --keep-every -2
refused "--keep-every 3 with --ckpt-every 2" "not a multiple of --ckpt-every 2" $BIN train "${R[@]}" --out "$tmp/x" --keep-every 3
$BIN train "${R[@]}" --pos t5 --out "$tmp/kr2" --keep-every 2 --stop-at 2 > /dev/null 2>&1
refused "--resume with another --keep-every" "keep-every 4 conflicts with the run.*--keep-every 2" $BIN train --resume "$tmp/kr2" --keep-every 4

# ---- --pos-lr-mult ----
$BIN train "${R[@]}" --pos t5 --out "$tmp/m1" --pos-lr-mult 1 > /dev/null 2>&1
cmp -s "$tmp/plain/model.bin" "$tmp/m1/model.bin" && ok "--pos-lr-mult 1 writes the checkpoint of a run without it, byte for byte" \
  || bad "pos-lr-mult 1" "checkpoints differ"
$BIN train "${R[@]}" --pos t5 --out "$tmp/m10" --pos-lr-mult 10 > /dev/null 2>&1
[ -s "$tmp/m10/model.bin" ] && ! cmp -s "$tmp/plain/model.bin" "$tmp/m10/model.bin" && grep -q "^pos_lr_mult = 10$" "$tmp/m10/config.txt" \
  && ok "--pos-lr-mult 10 changes the run and config.txt records it" || bad "pos-lr-mult 10" "$(grep pos_lr "$tmp/m10/config.txt")"
$BIN train "${R[@]}" --pos t5 --out "$tmp/m10r" --pos-lr-mult 10 --stop-at 2 > /dev/null 2>&1
$BIN train --resume "$tmp/m10r" > /dev/null 2>&1
cmp -s "$tmp/m10/model.bin" "$tmp/m10r/model.bin" && ok "--resume keeps --pos-lr-mult 10 from the checkpoint (== uninterrupted)" \
  || bad "pos-lr-mult resume" "differs"
$BIN train "${R[@]}" --pos t5 --out "$tmp/m10s" --pos-lr-mult 10 --stop-at 2 > /dev/null 2>&1
refused "--resume with another --pos-lr-mult" "pos-lr-mult 1 conflicts with the run.*--pos-lr-mult 10" $BIN train --resume "$tmp/m10s" --pos-lr-mult 1
for s in nope sinusoidal alibi rope; do
  refused "--pos-lr-mult 10 --pos $s" "scheme '$s' has no parameters of its own" $BIN train "${R[@]}" --pos $s --out "$tmp/x" --pos-lr-mult 10
done
refused "--pos-lr-mult 0" "pos-lr-mult must be > 0" $BIN train "${R[@]}" --pos t5 --out "$tmp/x" --pos-lr-mult 0
$BIN train --help | grep -q -- "--keep-every N" && $BIN train --help | grep -q -- "--pos-lr-mult X" \
  && ok "train --help lists --keep-every and --pos-lr-mult" || bad "train help" "missing"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
