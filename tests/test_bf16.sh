#!/bin/bash
# test_bf16.sh - train --precision bf16 (docs/performance.md, "bf16"): a bf16 run trains to
# the fp32 run's loss within a stated tolerance, writes byte-identical checkpoints on 1, 2 and
# 3 threads, records its precision (config.txt, the checkpoint: info shows it, --resume keeps
# it, a different --precision on resume is refused), and is refused on a CPU without bf16
# products (POSGPT_CPU_NO_BF16=1 makes any CPU one). The runs set POSGPT_BF16_ANY_CPU=1, so
# that the bf16 numbers are tested on any machine (where the CPU lacks AVX512-BF16 they come
# from OpenBLAS's fp32 sgemm on the rounded inputs, or its sbgemm: the same numbers).
. "$(dirname "$0")/lib.sh" bf16
phrase_text 7 3000 > "$tmp/text.txt"
A=(--data "$tmp/text.txt" --pos rope --layers 2 --d-model 64 --heads 4 --seq-len 64 --batch 8 --steps 50 --lr 3e-3
   --eval-every 25 --val-tokens 4096 --ckpt-every 25 --log-every 5 --seed 3)
last_val() { tail -1 "$1/log.csv" | cut -d, -f3; }

# refused where the CPU has no bf16 products, naming the feature; nothing written
refused "--precision bf16 on a CPU without bf16 products (POSGPT_CPU_NO_BF16=1)" "needs a CPU with AVX512-BF16 or AMX-BF16" \
  env POSGPT_CPU_NO_BF16=1 $BIN train "${A[@]}" --precision bf16 --out "$tmp/refused"
[ ! -e "$tmp/refused" ] && ok "the refused run wrote nothing" || bad "refused run" "$(ls "$tmp/refused")"
refused "--precision fp16 (no such precision)" "must be fp32 or bf16" $BIN train "${A[@]}" --precision fp16 --out "$tmp/fp16"

export POSGPT_BF16_ANY_CPU=1
$BIN train "${A[@]}" --out "$tmp/fp32" > /dev/null 2> "$tmp/fp32.err" || bad "train fp32" "$(tail -1 "$tmp/fp32.err")"
for t in 1 2 3; do
  $BIN train "${A[@]}" --precision bf16 --threads $t --out "$tmp/bf16-t$t" > /dev/null 2> "$tmp/bf16-t$t.err" \
    || bad "train bf16 --threads $t" "$(tail -1 "$tmp/bf16-t$t.err")"
done
grep -q "^precision: .* in bf16" "$tmp/bf16-t1.err" && ok "the banner says the products run in bf16 ($(grep -o 'by .*' "$tmp/bf16-t1.err"))" \
  || bad "bf16 banner" "$(grep -i precision "$tmp/bf16-t1.err")"
if cmp -s "$tmp/bf16-t1/model.bin" "$tmp/bf16-t2/model.bin" && cmp -s "$tmp/bf16-t1/model.bin" "$tmp/bf16-t3/model.bin"; then
  ok "bf16: training on 1, 2 and 3 threads gives byte-identical checkpoints"
else bad "bf16 on 1, 2, 3 threads" "$(cmp "$tmp/bf16-t1/model.bin" "$tmp/bf16-t2/model.bin"; cmp "$tmp/bf16-t1/model.bin" "$tmp/bf16-t3/model.bin")"; fi
# bf16 is in force (other weights than fp32's), and its loss follows fp32's: after 50 steps
# (from 5.5 nats down to about 0.8 here) the validation losses differ by less than 0.05 nats
# (about 5%; the rounding of the products' inputs, 2^-8 relative, moves the trajectory, not where it goes)
cmp -s "$tmp/fp32/model.bin" "$tmp/bf16-t1/model.bin" && bad "bf16 in force" "the bf16 run wrote the fp32 run's weights" \
  || ok "the bf16 run's weights differ from the fp32 run's (bf16 is in force)"
v32=$(last_val "$tmp/fp32") v16=$(last_val "$tmp/bf16-t1")
awk -v a="$v32" -v b="$v16" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && a < 3 && d < 0.05) }' \
  && ok "bf16 validation loss after 50 steps within 0.05 nats of fp32's ($v16 vs $v32)" \
  || bad "bf16 loss against fp32" "bf16 $v16, fp32 $v32 (tolerance 0.05; fp32 must have learned: < 3)"

# the precision is recorded: config.txt, info; fp32 runs say fp32
grep -q "^precision = bf16$" "$tmp/bf16-t1/config.txt" && grep -q "^precision = fp32$" "$tmp/fp32/config.txt" \
  && ok "config.txt records the precision" || bad "config.txt precision" "$(grep precision "$tmp"/*/config.txt)"
$BIN info "$tmp/bf16-t1/model.bin" | grep -q "^precision  *bf16" && $BIN info "$tmp/fp32/model.bin" | grep -q "^precision  *fp32$" \
  && ok "info shows the checkpoint's precision (bf16, fp32)" || bad "info precision" "$($BIN info "$tmp/bf16-t1/model.bin" | grep precision)"

# --resume keeps bf16: stopped at step 25 and resumed (no --precision), the checkpoint of the
# uninterrupted run; a different --precision is refused, and so is resuming where the CPU has none
d="$tmp/bf16-stop"
$BIN train "${A[@]}" --precision bf16 --threads 2 --stop-at 25 --out "$d" > /dev/null 2>&1
refused "--resume of a bf16 run with --precision fp32" "conflicts with the run .* which has --precision bf16" \
  $BIN train --resume "$d" --precision fp32
refused "--resume of a bf16 run on a CPU without bf16 products" "needs a CPU with AVX512-BF16 or AMX-BF16" \
  env POSGPT_CPU_NO_BF16=1 $BIN train --resume "$d"
$BIN train --resume "$d" --threads 3 > /dev/null 2> "$d.err" || bad "resume bf16" "$(tail -1 "$d.err")"
cmp -s "$d/model.bin" "$tmp/bf16-t1/model.bin" && ok "a bf16 run stopped at step 25 and resumed ends with the uninterrupted run's checkpoint" \
  || bad "bf16 resume" "$(cmp "$d/model.bin" "$tmp/bf16-t1/model.bin")"
refused "--resume of an fp32 run with --precision bf16" "conflicts with the run .* which has --precision fp32" \
  $BIN train --resume "$tmp/fp32" --steps 60 --precision bf16

# evaluation stays fp32: training's validation (fp32) of the bf16 run is what eval (fp32 by
# default) gives on the same tokens; eval --precision bf16 gives another loss, close to it
ev() { $BIN eval --ckpt "$tmp/bf16-t1/model.bin" --data "$tmp/text.txt" --max-tokens 4096 --csv "$tmp/ev.csv" "$@" > /dev/null 2> "$tmp/ev.err" \
  && awk -F, 'END { printf "%.6f", $7 }' "$tmp/ev.csv"; }
e32=$(ev) && cp "$tmp/ev.csv" "$tmp/ev32.csv"; e16=$(ev --precision bf16)
[ -n "$e32" ] && [ "$e32" = "$v16" ] && ok "the bf16 run validated in fp32: eval (fp32) reproduces its last val loss ($e32)" \
  || bad "bf16 run's validation in fp32" "eval $e32, trainer $v16"
awk -v a="$e32" -v b="$e16" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d > 0 && d < 0.05) }' \
  && ok "eval --precision bf16: another loss than fp32's, within 0.05 nats ($e16 vs $e32)" || bad "eval --precision bf16" "$e16 vs $e32"
# its rows are labelled so (another series beside fp32's in a plot of both), fp32's as before
l32=$(awk -F, 'END { print $1 }' "$tmp/ev32.csv") l16=$(awk -F, 'END { print $1 }' "$tmp/ev.csv")
[ "$l32" = rope ] && [ "$l16" = rope+bf16 ] && ok "eval's scheme column: rope in fp32, rope+bf16 in bf16" || bad "bf16 label" "fp32 '$l32', bf16 '$l16'"
refused "eval --precision bf16 on a CPU without bf16 products" "needs a CPU with AVX512-BF16 or AMX-BF16" \
  env POSGPT_CPU_NO_BF16=1 $BIN eval --ckpt "$tmp/bf16-t1/model.bin" --data "$tmp/text.txt" --max-tokens 4096 --precision bf16

# --init-from starts a new run: its own precision (fp32 unless asked)
$BIN train --init-from "$tmp/bf16-t1/model.bin" --data "$tmp/text.txt" --steps 2 --out "$tmp/init" > /dev/null 2>&1
$BIN info "$tmp/init/model.bin" | grep -q "^precision  *fp32$" && ok "--init-from a bf16 checkpoint starts an fp32 run unless asked" \
  || bad "init-from precision" "$($BIN info "$tmp/init/model.bin" 2>&1 | grep precision)"
# tools/bf16_curves.sh on a tiny model: final.csv (every run), compare.csv (per scheme: the means'
# difference, the verdict, each seed's bf16 - fp32 as final.csv has them, the count of higher
# ones), the curves, and a second start that trains nothing again
cv() { env POSGPT_BF16_ANY_CPU=1 POSGPT=$BIN SCHEMES=alibi STEPS=20 TOKENS=1024 DATA="$tmp/text.txt" OUT="$tmp/curves" THREADS=1 \
  MODEL="--layers 1 --d-model 32 --heads 2 --seq-len 32 --batch 4" tools/bf16_curves.sh 1 2 > "$tmp/cv.out" 2> "$tmp/cv.err"; }
refused "bf16_curves.sh: a seed given twice (1 and 01)" "seed 1 is given twice" tools/bf16_curves.sh 1 2 01
if cv; then
  want=$(awk -F, '$2 == "fp32" { f[$3] = $4 } $2 == "bf16" { b[$3] = $4 } END { for (k = 1; k <= 2; k++) { d = b[k] - f[k]; o = o (k > 1 ? " " : "") sprintf("%+.4f", d); u += d > 0 }; print o "," u }' "$tmp/curves/final.csv")
  have=$(awk -F, '$1 == "alibi" { print $7 "," $8 "," $9 }' "$tmp/curves/compare.csv")
  [ "$(grep -c '^alibi,' "$tmp/curves/final.csv")" = 4 ] && [ "$have" = "$want,2" ] && [ -s "$tmp/curves/curves-alibi.png" ] \
    && grep -q "^alibi  final val loss: .*paired by seed: ${want%,*}, bf16 higher in ${want#*,} of 2$" "$tmp/cv.out" \
    && ok "bf16_curves.sh: final.csv has the 4 runs, compare.csv pairs them by seed ($have), the curves drawn" \
    || bad "bf16_curves.sh outputs" "final $(grep -c '^alibi,' "$tmp/curves/final.csv"), compare '$have' (want '$want,2'), $(cat "$tmp/cv.out")"
  cv && [ "$(grep -c 'done, kept' "$tmp/cv.err")" = 4 ] && ok "bf16_curves.sh again: the 4 finished runs kept" || bad "bf16_curves.sh again" "$(head -3 "$tmp/cv.err")"
  # a run stopped part way (here at step 10 of 20, by --stop-at, with the script's own settings)
  # resumes, to the bytes of the uninterrupted run
  d=$tmp/curves/alibi-bf16-s2
  cp "$d/model.bin" "$tmp/whole.bin" && rm -r "$d"
  # shellcheck disable=SC2046 # (the settings' words, as the script wrote them; no spaces in $tmp)
  POSGPT_BF16_ANY_CPU=1 $BIN train $(cat "$d.args") --threads 1 --out "$d" --stop-at 10 > /dev/null 2>&1
  cv && grep -qx "resuming $d" "$tmp/cv.err" && [ "$(grep -c 'done, kept' "$tmp/cv.err")" = 3 ] && cmp -s "$d/model.bin" "$tmp/whole.bin" \
    && ok "bf16_curves.sh: a run stopped at step 10 resumes, to the uninterrupted run's checkpoint bytes" \
    || bad "bf16_curves.sh resume" "$(grep -v 'done, kept' "$tmp/cv.err" | head -3); $(cmp "$d/model.bin" "$tmp/whole.bin" 2>&1)"
else bad "bf16_curves.sh" "$(tail -3 "$tmp/cv.err")"; fi
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
