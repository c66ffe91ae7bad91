#!/usr/bin/env bash
# test_cli.sh - end-to-end tests of ./posgpt on text this script makes itself:
#  - every position scheme (read from `posgpt --help`, so new schemes are covered) trains
#    to a loss well below ln 256 = 5.55 nats, its checkpoint passes `info`, and `eval` at
#    the training length reproduces the trainer's last validation loss exactly;
#  - eval at 4x the training length works (learned: a clear error, or --clamp-pos);
#  - bad input gets a one-line error and a non-zero exit; damaged checkpoints are refused.
. "$(dirname "$0")/lib.sh" cli

# a small corpus with structure to learn: sentences from a fixed grammar, chosen by an LCG
awk 'BEGIN { srand(7); split("the a one every no", det); split("cat dog king ship bird tree river stone", noun);
  split("sees finds loves keeps hears follows", verb); split("slowly quickly today again", adv);
  for (i = 0; i < 9000; i++) { s = det[int(rand()*5)+1] " " noun[int(rand()*8)+1] " " verb[int(rand()*6)+1] " " \
    det[int(rand()*5)+1] " " noun[int(rand()*8)+1]; if (rand() < 0.5) s = s " " adv[int(rand()*4)+1]; printf "%s.\n", s } }' > "$tmp/text.txt"

schemes=$($BIN --help | sed -n 's/.*(--pos): //p' | tr '|' ' ')
[ -n "$schemes" ] && ok "scheme list read from posgpt --help: $schemes" || bad "scheme list" "posgpt --help lists no schemes"
SMALL=(--layers 2 --d-model 32 --heads 2 --seq-len 32 --batch 16 --steps 300 --lr 3e-3 --eval-every 100 --val-tokens 8192 --threads 2)
for s in $schemes randomized; do # randomized: random training positions over a sinusoidal base
  d=$tmp/run-$s
  how=(--pos "$s")
  [ "$s" = randomized ] && how=(--pos sinusoidal --positions random)
  if ! $BIN train --data "$tmp/text.txt" "${how[@]}" --out "$d" "${SMALL[@]}" > "$d.out" 2> "$d.err"; then
    bad "train $s" "exit non-zero: $(tail -1 "$d.err")"; continue
  fi
  val=$(tail -1 "$d/log.csv" | cut -d, -f3)
  # the loss that shows learning: validation loss; for randomized training, scored with random
  # positions as in training (with contiguous 0..T-1 such models are known to do worse)
  check=$val
  if [ "$s" = randomized ]; then
    check=$($BIN eval --ckpt "$d/model.bin" --data "$tmp/text.txt" --max-tokens 8192 --positions random 2>/dev/null | tail -1 | cut -d, -f7)
  fi
  # 2.5 nats: far below uniform (ln 256 = 5.55) and below the text's unigram entropy (2.89),
  # so the model must be using context
  awk -v v="$check" 'BEGIN { exit !(v < 2.5) }' && ok "train $s: held-out loss $check < 2.5 nats (uniform 5.55, unigram 2.89)" \
    || bad "train $s" "held-out loss $check not below 2.5"
  for f in config.txt log.csv model.bin; do [ -s "$d/$f" ] || bad "run dir $s" "missing $f"; done
  head -1 "$d/log.csv" | grep -q '^step,train_loss,val_loss' && ok "log.csv $s has a header" || bad "log.csv $s" "no header"
  $BIN info "$d/model.bin" > "$d.info" 2>&1 && grep -q "checksum ok" "$d.info" && ok "info $s" || bad "info $s" "$(tail -1 "$d.info")"
  # eval at 1x equals the trainer's last validation loss (same windows, same tokens)
  $BIN eval --ckpt "$d/model.bin" --data "$tmp/text.txt" --max-tokens 8192 --csv "$d.e1.csv" 2> "$d.e1.err"
  e1=$(tail -1 "$d.e1.csv" | cut -d, -f7)
  [ "$e1" = "$val" ] && ok "eval $s at 1x reproduces the trainer's val loss ($e1)" || bad "eval $s at 1x" "eval $e1 vs trainer $val"
  # eval at 4x the training length, both protocols
  if $BIN eval --ckpt "$d/model.bin" --data "$tmp/text.txt" --lengths 128 --protocol both --max-tokens 4096 \
       --csv "$d.e4.csv" 2> "$d.e4.err"; then
    rows=$(tail -n +2 "$d.e4.csv" | wc -l)
    [ "$rows" = 2 ] && ok "eval $s at 4x (nonoverlapping + sliding)" || bad "eval $s at 4x" "$rows rows"
  elif grep -q "clamp-pos" "$d.e4.err" && [ "$(wc -l < "$d.e4.err")" -le 3 ]; then
    ok "eval $s at 4x refused with a clear error: $(grep error "$d.e4.err")"
    $BIN eval --ckpt "$d/model.bin" --data "$tmp/text.txt" --lengths 128 --max-tokens 4096 --clamp-pos --csv "$d.e4.csv" 2>/dev/null \
      && ok "eval $s at 4x with --clamp-pos" || bad "eval $s --clamp-pos" "failed"
  else bad "eval $s at 4x" "$(tail -1 "$d.e4.err")"; fi
done

# header of the eval CSV
head -1 "$tmp/run-alibi.e4.csv" 2>/dev/null | grep -q '^scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc' \
  && ok "eval CSV header has the required columns" || bad "eval CSV header" "$(head -1 "$tmp/run-alibi.e4.csv")"
# sliding windows: stride = length is exactly the nonoverlapping protocol; a smaller stride
# scores the same number of tokens with more windows
$BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --lengths 32 --protocol both --stride 32 \
  --max-tokens 8192 --csv "$tmp/slide1.csv" 2>/dev/null
awk -F, 'NR==2 {a=$7; ta=$6} NR==3 {b=$7; tb=$6} END { exit !(ta == tb && a == b && ta == 8192) }' "$tmp/slide1.csv" \
  && ok "sliding with stride = length equals nonoverlapping" || bad "sliding stride=L" "$(cat "$tmp/slide1.csv")"
$BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --lengths 32 --protocol sliding --stride 8 \
  --max-tokens 8192 --csv "$tmp/slide8.csv" 2>/dev/null
awk -F, 'NR==2 { exit !($6 == 8192 && $12 == 1021 && $5 == 8) }' "$tmp/slide8.csv" \
  && ok "sliding with stride 8: 8192 tokens from 1 + (8192-32)/8 = 1021 windows" || bad "sliding stride 8" "$(cat "$tmp/slide8.csv")"
# per-position loss file
$BIN eval --ckpt "$tmp/run-rope/model.bin" --data "$tmp/text.txt" --lengths 64 --max-tokens 4096 --per-position "$tmp/pp.csv" \
  --csv /dev/null 2>/dev/null && [ "$(tail -n +2 "$tmp/pp.csv" | wc -l)" = 64 ] && ok "per-position loss: one row per index" \
  || bad "per-position" "$(head -3 "$tmp/pp.csv" 2>/dev/null)"
# RoPE context extension at evaluation: the CSV names the method and the scale it used
$BIN eval --ckpt "$tmp/run-rope/model.bin" --data "$tmp/text.txt" --lengths 32,128 --max-tokens 4096 --rope-scaling yarn \
  --csv "$tmp/yarn.csv" 2>/dev/null
awk -F, 'NR==1 { ok = ($14 == "scaling" && $15 == "scale") } NR==2 { ok = ok && $1 == "rope+yarn" && $14 == "yarn" && $15 == 1 }
  NR==3 { ok = ok && $3 == 128 && $15 == 4 } END { exit !(ok && NR == 3) }' "$tmp/yarn.csv" \
  && ok "eval --rope-scaling yarn: rows rope+yarn, scale 1 at 1x and 4 at 4x" || bad "eval --rope-scaling" "$(cat "$tmp/yarn.csv")"
# the shift test from the CLI: a list of offsets gives a row each; ALiBi (relative) is unchanged
$BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --max-tokens 4096 --pos-offset 0,1000 --csv "$tmp/off.csv" 2>/dev/null
awk -F, 'NR==2 { a = $7; o0 = $11 } NR==3 { b = $7; o1 = $11 } END { exit !(NR == 3 && o0 == 0 && o1 == 1000 && a == b) }' "$tmp/off.csv" \
  && ok "eval --pos-offset 0,1000: a row per offset, alibi loss unchanged" || bad "eval --pos-offset list" "$(cat "$tmp/off.csv")"
$BIN eval --ckpt "$tmp/run-sinusoidal/model.bin" --data "$tmp/text.txt" --max-tokens 4096 --pos-offset 0,1000 --csv "$tmp/off2.csv" 2>/dev/null
awk -F, 'NR==2 { a = $7 } NR==3 { b = $7 } END { exit !(NR == 3 && a != b) }' "$tmp/off2.csv" \
  && ok "eval --pos-offset 0,1000: sinusoidal (absolute) loss changes" || bad "eval --pos-offset sinusoidal" "$(cat "$tmp/off2.csv")"
$BIN plot --kind offset --out "$tmp/off.png" "$tmp/off.csv" "$tmp/off2.csv" 2>/dev/null && [ -s "$tmp/off.png" ] \
  && ok "plot --kind offset draws the shift test" || bad "plot --kind offset" "no PNG"
# sample
$BIN sample --ckpt "$tmp/run-alibi/model.bin" --prompt "the cat" --tokens 40 > "$tmp/sample.txt" 2>/dev/null \
  && [ "$(wc -c < "$tmp/sample.txt")" -ge 45 ] && ok "sample generates text" || bad "sample" "$(cat "$tmp/sample.txt")"

# resume: a run stopped at step 10 and resumed gives the same losses and a byte-identical
# final checkpoint as the uninterrupted run (same seed, same thread count)
R=(--data "$tmp/text.txt" --pos t5 --layers 2 --d-model 32 --heads 2 --seq-len 32 --batch 8 --steps 20 --eval-every 5 --ckpt-every 5 --val-tokens 2048 --threads 2)
$BIN train "${R[@]}" --out "$tmp/full" > /dev/null 2>&1
$BIN train "${R[@]}" --out "$tmp/split" --stop-at 10 > /dev/null 2>&1
$BIN train --resume "$tmp/split" --data "$tmp/text.txt" --threads 2 --eval-every 5 --ckpt-every 5 --val-tokens 2048 > /dev/null 2>&1
if cmp -s "$tmp/full/model.bin" "$tmp/split/model.bin" && \
   [ "$(cut -d, -f1-5 "$tmp/full/log.csv")" = "$(cut -d, -f1-5 "$tmp/split/log.csv")" ]; then
  ok "stop at step 10 + resume == uninterrupted run (losses and final checkpoint bit-identical)"
else bad "resume" "$(diff <(cut -d, -f1-5 "$tmp/full/log.csv") <(cut -d, -f1-5 "$tmp/split/log.csv") | head -5)"; fi

# a non-finite gradient stops training with a message naming the step and the tensor, keeps
# the last good checkpoint, exits non-zero; --skip-nonfinite skips the step instead
N=(--data "$tmp/text.txt" --pos alibi --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 12 --ckpt-every 4 --eval-every 4 --val-tokens 512)
POSGPT_INJECT_NAN_STEP=7 $BIN train "${N[@]}" --out "$tmp/nan" > /dev/null 2> "$tmp/nan.err"; rc=$?
if [ $rc -ne 0 ] && grep -q "step 7: non-finite gradient of tensor 'qkv_w'.*step 4" "$tmp/nan.err" && $BIN info "$tmp/nan/model.bin" 2>/dev/null | grep -q "step 4 of 12"; then
  ok "NaN gradient: stops at step 7 naming qkv_w, checkpoint of step 4 intact"
else bad "NaN gradient" "rc=$rc $(tail -1 "$tmp/nan.err")"; fi
POSGPT_INJECT_NAN_STEP=7 $BIN train "${N[@]}" --out "$tmp/nan2" --skip-nonfinite > /dev/null 2> "$tmp/nan2.err" \
  && grep -q "step skipped" "$tmp/nan2.err" && ok "--skip-nonfinite skips the step and finishes" || bad "--skip-nonfinite" "$(tail -1 "$tmp/nan2.err")"

# ---- bad input: one-line error, non-zero exit, never a crash
expect_error() { # name, pattern, command...
  local name=$1 pat=$2; shift 2
  "$@" > "$tmp/o" 2> "$tmp/e"; local rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -qi -- "$pat" "$tmp/e" && [ "$(grep -c . "$tmp/e")" -le 2 ]; then
    ok "bad input: $name -> $(grep -i error "$tmp/e" | head -1)"
  else bad "bad input: $name" "rc=$rc, stderr: $(head -3 "$tmp/e")"; fi
}
: > "$tmp/empty.txt"
head -c 20 "$tmp/text.txt" > "$tmp/short.txt"
T=(train --pos alibi --out "$tmp/x" --steps 1)
expect_error "missing data file" "cannot read" $BIN "${T[@]}" --data "$tmp/nope.txt"
expect_error "empty data file" "empty" $BIN "${T[@]}" --data "$tmp/empty.txt"
expect_error "data shorter than a window" "too short" $BIN "${T[@]}" --data "$tmp/short.txt"
expect_error "unknown scheme" "unknown position scheme" $BIN "${T[@]}" --data "$tmp/text.txt" --pos fancy
expect_error "unknown flag" "unknown flag" $BIN "${T[@]}" --data "$tmp/text.txt" --colour red
expect_error "non-numeric value" "not a valid" $BIN "${T[@]}" --data "$tmp/text.txt" --steps ten
expect_error "zero steps" "must be in" $BIN "${T[@]}" --data "$tmp/text.txt" --steps 0
expect_error "negative lr" "must be in" $BIN "${T[@]}" --data "$tmp/text.txt" --lr -1
expect_error "zero heads" "must be in" $BIN "${T[@]}" --data "$tmp/text.txt" --heads 0
expect_error "negative batch" "must be in" $BIN "${T[@]}" --data "$tmp/text.txt" --batch -3
expect_error "seq-len beyond int range" "out of range\|must be in" $BIN "${T[@]}" --data "$tmp/text.txt" --seq-len 99999999999
expect_error "value with trailing junk" "not a valid" $BIN "${T[@]}" --data "$tmp/text.txt" --lr 1e-3x
expect_error "flag without its value" "needs a value" $BIN "${T[@]}" --data "$tmp/text.txt" --lr
expect_error "an unknown flag as the last word (not \"needs a value\")" "unknown flag --lrr" $BIN "${T[@]}" --data "$tmp/text.txt" --lrr
expect_error "directory as data file" "directory" $BIN "${T[@]}" --data "$tmp"
expect_error "random eval positions beyond rand-max" "exceeds --rand-max" $BIN eval --ckpt "$tmp/run-randomized/model.bin" --data "$tmp/text.txt" --positions random --lengths 4096
expect_error "d-model not divisible by heads" "not divisible" $BIN "${T[@]}" --data "$tmp/text.txt" --d-model 30 --heads 4
expect_error "odd head size for rope" "even head size" $BIN "${T[@]}" --data "$tmp/text.txt" --pos rope --d-model 12 --heads 4
expect_error "hyperparameter of another scheme" "another position scheme" $BIN "${T[@]}" --data "$tmp/text.txt" --pos alibi --rope-base 500
expect_error "unwritable output dir" "not writable\|cannot create" $BIN train --data "$tmp/text.txt" --pos alibi --out /proc/posgpt-nope --steps 1
expect_error "unknown command" "unknown command" $BIN fly
cp "$tmp/run-alibi/model.bin" "$tmp/c.bin"
# flip every bit of byte 5000 (setting it to a fixed value changes nothing when it holds that value already)
printf "\\$(printf %03o $((255 - $(od -An -tu1 -j5000 -N1 "$tmp/c.bin"))))" | dd of="$tmp/c.bin" bs=1 seek=5000 conv=notrunc 2>/dev/null
cmp -s "$tmp/c.bin" "$tmp/run-alibi/model.bin" && bad "corrupting a checkpoint" "byte 5000 unchanged"
expect_error "corrupted checkpoint" "CRC32" $BIN info "$tmp/c.bin"
head -c 3000 "$tmp/run-alibi/model.bin" > "$tmp/t.bin"
expect_error "truncated checkpoint" "truncated" $BIN info "$tmp/t.bin"
expect_error "foreign file as checkpoint" "not a posgpt checkpoint" $BIN info "$tmp/text.txt"
cp "$tmp/run-alibi/model.bin" "$tmp/v.bin"; printf '\x09' | dd of="$tmp/v.bin" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_error "wrong-version checkpoint" "version" $BIN info "$tmp/v.bin"
expect_error "eval length beyond a learned table" "clamp-pos" $BIN eval --ckpt "$tmp/run-learned/model.bin" --data "$tmp/text.txt" --lengths 33
expect_error "bad --lengths" "comma-separated" $BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --lengths 12,x
expect_error "--lengths ending with a comma" "'32,' ends with a comma" $BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --lengths 32,
expect_error "a length given twice (32 = 1x)" "32 is given twice ('1x')" $BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --lengths 32,1x
expect_error "rope-scaling on a non-rotary checkpoint" "applies to rope, xpos checkpoints" $BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --rope-scaling pi
expect_error "unknown rope-scaling method" "must be none, pi" $BIN eval --ckpt "$tmp/run-rope/model.bin" --data "$tmp/text.txt" --rope-scaling magic
expect_error "rope-factor below 1" "rope-factor" $BIN eval --ckpt "$tmp/run-rope/model.bin" --data "$tmp/text.txt" --rope-scaling pi --rope-factor 0.5
expect_error "rope-window without rerope" "needs --rope-scaling rerope" $BIN eval --ckpt "$tmp/run-rope/model.bin" --data "$tmp/text.txt" --rope-window 8
expect_error "rerope on an xpos checkpoint" "rerope applies to rope checkpoints" $BIN eval --ckpt "$tmp/run-xpos/model.bin" --data "$tmp/text.txt" --rope-scaling rerope
expect_error "bad --pos-offset list" "comma-separated" $BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --pos-offset 0,x
expect_error "eval length longer than the text" "needs at least" $BIN eval --ckpt "$tmp/run-alibi/model.bin" --val "$tmp/short.txt" --lengths 64
expect_error "xpos decay that cannot train at this length" "xpos-base >= 3" $BIN "${T[@]}" --data "$tmp/text.txt" --pos xpos --xpos-base 1 --seq-len 256 --d-model 16 --heads 2
expect_error "xpos-base below 1" "xpos-base must be >= 1" $BIN "${T[@]}" --data "$tmp/text.txt" --pos xpos --xpos-base 0.5
# memory: refused with the estimate before anything is allocated or written
expect_error "training that cannot fit in memory" "needs about [0-9.]* GiB of memory, but" $BIN train --data "$tmp/text.txt" --pos alibi --out "$tmp/huge" --seq-len 8192 --batch 32 --steps 1
[ ! -e "$tmp/huge" ] && ok "... and no run directory was made" || bad "memory refusal" "$tmp/huge was created"
POSGPT_MEMORY_LIMIT=10000000 expect_error "evaluation beyond the memory available (limit set to 10 MB)" "evaluation at length 4096 (2 windows per pass) needs about" \
  $BIN eval --ckpt "$tmp/run-alibi/model.bin" --data "$tmp/text.txt" --lengths 4096 --csv "$tmp/mem.csv"
[ ! -e "$tmp/mem.csv" ] && ok "... and no CSV was written" || bad "memory refusal" "$tmp/mem.csv was written"

# xPos at an evaluation length one centre could not span in float (--xpos-base 1: one centre
# would need zeta^(+-2048)): evaluation centres each block of queries, so the loss is finite
$BIN train --data "$tmp/text.txt" --pos xpos --xpos-base 1 --out "$tmp/xb1" --layers 1 --d-model 16 --heads 2 --seq-len 32 \
  --batch 4 --steps 20 --eval-every 20 --val-tokens 2048 > /dev/null 2>&1
if $BIN eval --ckpt "$tmp/xb1/model.bin" --data "$tmp/text.txt" --lengths 4096 --csv "$tmp/xb1.csv" 2> "$tmp/xb1.err"; then
  awk -F, 'NR == 2 { exit !($7 + 0 > 0 && $7 + 0 < 6) }' "$tmp/xb1.csv" && ok "xpos --xpos-base 1 evaluates at 4096 (128x): loss $(tail -1 "$tmp/xb1.csv" | cut -d, -f7)" \
    || bad "xpos long eval" "$(cat "$tmp/xb1.csv")"
else bad "xpos long eval" "$(tail -1 "$tmp/xb1.err")"; fi

# --help on every command lists its flags with defaults
for c in train eval sample info; do
  $BIN $c --help > "$tmp/h" 2>&1 && grep -q "^usage: posgpt $c" "$tmp/h" && { [ $c = info ] || grep -q "default" "$tmp/h"; } \
    && ok "posgpt $c --help" || bad "$c --help" "$(head -2 "$tmp/h")"
done
# export: a safetensors file whose data is exactly the checkpoint's parameters (float32,
# in tensor order), after an 8-byte little-endian header length and a JSON header padded to 8
$BIN export --ckpt "$tmp/run-t5/model.bin" --out "$tmp/t5.safetensors" 2> "$tmp/exp.err"
if [ -s "$tmp/t5.safetensors" ]; then
  hn=$(od -An -tu8 -N8 "$tmp/t5.safetensors" | tr -d ' ')
  np=$($BIN info "$tmp/run-t5/model.bin" | sed -n 's/^parameters *\([0-9]*\).*/\1/p')
  size=$(wc -c < "$tmp/t5.safetensors")
  if [ $((hn % 8)) = 0 ] && [ "$size" = $((8 + hn + 4 * np)) ] && [ "$(dd if="$tmp/t5.safetensors" bs=1 skip=8 count=1 2>/dev/null)" = "{" ] \
     && cmp -s <(tail -c $((4 * np)) "$tmp/t5.safetensors") <(tail -c +1025 "$tmp/run-t5/model.bin" | head -c $((4 * np))) \
     && grep -q '"scheme.table":{"dtype":"F32","shape":\[32,2\]' "$tmp/t5.safetensors" && grep -q '"t5-buckets":"32"' "$tmp/t5.safetensors"; then
    ok "export --format safetensors: header $hn bytes (a multiple of 8), data = the checkpoint's $np parameters, t5 table (32,2), config in the metadata"
  else bad "export" "header $hn, size $size, params $np"; fi
else bad "export" "$(cat "$tmp/exp.err")"; fi
expect_error "export without --out" "--out FILE is required" $BIN export --ckpt "$tmp/run-t5/model.bin"
expect_error "export to another format" "--format must be safetensors" $BIN export --ckpt "$tmp/run-t5/model.bin" --out "$tmp/x.onnx" --format onnx

# fine-tuning with a context extension in force (train --init-from --rope-scaling): the
# checkpoint keeps it (method, factor from the lengths, the length it scales from); eval,
# info and config.txt apply or show it; eval --rope-scaling none removes it; a rotary
# extension on another scheme, an evaluation-time method, or a conflicting flag on resume
# is an error
FT=(--data "$tmp/text.txt" --seq-len 64 --batch 4 --steps 4 --eval-every 4 --val-tokens 512)
for m in pi yarn; do
  $BIN train --init-from "$tmp/run-rope/model.bin" "${FT[@]}" --rope-scaling $m --out "$tmp/ft-$m" > /dev/null 2> "$tmp/ft.err" \
    || bad "fine-tune --rope-scaling $m" "$(tail -1 "$tmp/ft.err")"
done
$BIN eval --ckpt "$tmp/ft-pi/model.bin" --data "$tmp/text.txt" --lengths 64,256 --max-tokens 2048 --csv "$tmp/ft.csv" 2>/dev/null
$BIN eval --ckpt "$tmp/ft-pi/model.bin" --data "$tmp/text.txt" --lengths 64 --max-tokens 2048 --rope-scaling none --csv "$tmp/ftn.csv" 2>/dev/null
if $BIN info "$tmp/ft-pi/model.bin" | grep -q "^extension  *pi, factor 2 from length 32" && grep -q "^rope_factor = 2$" "$tmp/ft-pi/config.txt" \
   && awk -F, 'NR == 2 { ok = $1 == "rope+pi" && $2 == 64 && $14 == "pi" && $15 == 2 } NR == 3 { ok = ok && $3 == 256 && $15 == 2 }
               END { exit !(ok && NR == 3) }' "$tmp/ft.csv" \
   && awk -F, 'NR == 2 { exit !($1 == "rope" && $14 == "none") }' "$tmp/ftn.csv" \
   && [ "$(sed -n 2p "$tmp/ft.csv" | cut -d, -f7)" != "$(sed -n 2p "$tmp/ftn.csv" | cut -d, -f7)" ]; then
  ok "fine-tuned with pi at 2x: the checkpoint keeps pi (factor 2 from 32); eval applies it at every length, --rope-scaling none removes it"
else bad "fine-tune pi" "$($BIN info "$tmp/ft-pi/model.bin" | grep extension); $(cat "$tmp/ft.csv" "$tmp/ftn.csv" | cut -d, -f1-3,7,14,15 | tr '\n' ' ')"; fi
$BIN train --init-from "$tmp/ft-pi/model.bin" "${FT[@]}" --seq-len 128 --out "$tmp/ft-pi2" > /dev/null 2>&1
$BIN info "$tmp/ft-pi2/model.bin" | grep -q "^extension  *pi, factor 2 from length 32" \
  && ok "a model fine-tuned from an extended one keeps the extension unless told otherwise" || bad "ft inherit" "$($BIN info "$tmp/ft-pi2/model.bin" | grep ext)"
expect_error "--rope-scaling on alibi" "has no such context extension" $BIN train --init-from "$tmp/run-alibi/model.bin" "${FT[@]}" --rope-scaling pi --out "$tmp/x"
expect_error "--rope-scaling rerope in training" "evaluation-time methods" $BIN train --init-from "$tmp/run-rope/model.bin" "${FT[@]}" --rope-scaling rerope --out "$tmp/x"
expect_error "--rope-scaling pi at a shorter length" "must be >= 1" $BIN train --init-from "$tmp/run-rope/model.bin" "${FT[@]}" --seq-len 16 --rope-scaling pi --out "$tmp/x"
expect_error "--rope-factor alone" "needs --rope-scaling" $BIN train --init-from "$tmp/run-rope/model.bin" "${FT[@]}" --rope-factor 2 --out "$tmp/x"
$BIN train --init-from "$tmp/run-rope/model.bin" "${FT[@]}" --steps 8 --stop-at 4 --rope-scaling pi --out "$tmp/ft-r" > /dev/null 2>&1
expect_error "--rope-scaling on resume, another method" "conflicts with the run" $BIN train --resume "$tmp/ft-r" --rope-scaling yarn
# more threads than the cores the process may use (taskset; mpirun binds each process to a core): a warning
if command -v taskset > /dev/null && [ "$(nproc)" -ge 2 ]; then
  taskset -c 0 $BIN train --data "$tmp/text.txt" --pos alibi --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 2 --threads 2 \
    --out "$tmp/aff" > /dev/null 2> "$tmp/aff.err"
  $BIN train --data "$tmp/text.txt" --pos alibi --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 2 --threads 2 --out "$tmp/aff2" \
    > /dev/null 2> "$tmp/aff2.err"
  grep -q "warning: 2 threads, but this process may run on 1 core only" "$tmp/aff.err" && ! grep -q warning "$tmp/aff2.err" \
    && ok "--threads 2 pinned to one core (taskset): a warning; unpinned: none" || bad "affinity warning" "$(grep warning "$tmp/aff.err" "$tmp/aff2.err")"
fi

# help text: no flag states its default twice, defaults are printed escaped (sample's
# --prompt default is a newline), internal flags are not listed, integer scheme flags show N
for c in train eval sample info plot export; do
  $BIN $c --help > "$tmp/h" 2>&1
  dup=$(grep -c 'default.*(default:' "$tmp/h"); ctl=$(grep -c $'\r' "$tmp/h")
  [ "$dup" = 0 ] && [ "$ctl" = 0 ] && [ "$(grep -c '^ *--prompt S .*(default: \\n)' "$tmp/h")" = "$([ $c = sample ] && echo 1 || echo 0)" ] \
    && ok "posgpt $c --help: each default once, printable" || bad "$c --help" "$(grep 'default.*(default:' "$tmp/h" | head -2)"
done
$BIN plot --help | grep -q -- '--stats' && bad "plot --help" "lists the internal --stats" || ok "plot --help does not list the internal --stats"
$BIN train --help | grep -q -- '--t5-buckets N ' && $BIN train --help | grep -q -- '--rope-base X ' \
  && ok "train --help: integer hyperparameters show N, real ones X" || bad "hyper metavars" "$($BIN train --help | grep t5-buckets)"
$BIN info --ckpt "$tmp/run-alibi/model.bin" | grep -q "checksum ok" && $BIN info "$tmp/run-alibi/model.bin" | grep -q "format v5" \
  && ok "info takes --ckpt FILE as well as FILE; new checkpoints are format v5" || bad "info --ckpt" "$($BIN info --ckpt "$tmp/run-alibi/model.bin" 2>&1 | head -2)"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
