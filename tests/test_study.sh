#!/usr/bin/env bash
# test_study.sh - tools/study2.sh end to end on a tiny grid (two generated corpora, 2-block
# models, a few steps): every part runs (seeds, a second training length, fine-tunes with each
# extension method, the second corpus); the report's mean lies within its min and max and
# counts the seeds; a second run trains and evaluates nothing again; a job whose fine-tuning
# source has not finished fails with a message instead of training from nothing; a run made
# with other settings is trained again instead of kept.
. "$(dirname "$0")/lib.sh" study

mkdir -p "$tmp/data"
phrase_text 1 12000 > "$tmp/data/kjv.txt"
phrase_text 2 12000 | tr 'a-z' 'b-za' > "$tmp/data/fortunes.txt"
run() {
  DATA=$tmp/data OUT=$tmp/s POSGPT=$BIN STEPS=8 TOKENS=2048 FT_STEPS=4 SEEDS="1 2" SCHEMES="alibi rope" LENGTHS="32 64" \
    LSCHEMES=alibi CSCHEMES="alibi rope" tools/study2.sh --quick > "$tmp/$1.out" 2> "$tmp/$1.err"
}
run first && ok "study2 --quick on a tiny grid exits 0" || bad "study2" "$(tail -5 "$tmp/first.err")"
n=$(ls "$tmp"/s/kjv-T64/*/seed*/eval.csv "$tmp"/s/kjv-T32/*/seed1/eval.csv "$tmp"/s/fortunes-T64/*/seed1/eval.csv 2>/dev/null | wc -l)
[ "$n" = 7 ] && ok "every training of the grid was evaluated (4 seeds runs, 1 other length, 2 on the second corpus)" \
  || bad "study2 runs" "$n evaluations, expected 7"
nft=$(ls "$tmp"/s/kjv-T64/rope/seed1/ft-T*/eval.csv 2>/dev/null | wc -l)
[ "$nft" = 8 ] && ok "8 fine-tunes (2x and 4x, with pi, ntk, yarn and none) evaluated" || bad "study2 fine-tunes" "$nft evaluated"
grep -q "rope_scaling = yarn" "$tmp/s/kjv-T64/rope/seed1/ft-T256-yarn/config.txt" && grep -q "seq_len = 256" "$tmp/s/kjv-T64/rope/seed1/ft-T256-yarn/config.txt" \
  && ok "a fine-tune trains at its length with its method in force" || bad "fine-tune config" "$(head -20 "$tmp/s/kjv-T64/rope/seed1/ft-T256-yarn/config.txt")"
# the seeds table: each cell "mean (lo-hi)" has lo <= mean <= hi, and both schemes count 2 seeds
cells=$(grep -E '^\| (alibi|rope) \| 2 \|' "$tmp/s/table.md" | wc -l)
[ "$cells" = 2 ] && ok "the seeds table counts 2 seeds per scheme" || bad "seeds table" "$(grep -A4 '^## Seeds' "$tmp/s/table.md")"
cellsall=$(grep -E '^\| (alibi|rope) \| 2 \|' "$tmp/s/table.md" | grep -oE '[0-9.]+ \([0-9.]+-[0-9.]+\)')
badcell=$(printf '%s\n' "$cellsall" | awk '{ m = $1; split(substr($2, 2, length($2) - 2), r, "-"); if (!(r[1] <= m && m <= r[2])) print }')
spread=$(printf '%s\n' "$cellsall" | awk '{ split(substr($2, 2, length($2) - 2), r, "-"); if (r[1] < r[2]) n++ } END { print n + 0 }')
# 2 schemes x 6 lengths (1..32x), every cell filled; the two seeds differ somewhere
[ "$cells" = 2 ] && [ "$(printf '%s\n' "$cellsall" | grep -c .)" = 12 ] && [ -z "$badcell" ] && [ "$spread" -gt 0 ] \
  && ok "each of the 12 cells has its mean within its seeds' min-max, and the seeds differ in $spread" \
  || bad "seeds table cell" "cells $(printf '%s\n' "$cellsall" | grep -c .), out of range: $badcell, spread $spread"
# the mean of alibi at 1x recomputed from the two seeds' CSVs
want=$(awk -F, '$4 == "nonoverlapping" && $3 == 64 { s += $8; n++ } END { printf "%.2f", s / n }' "$tmp"/s/kjv-T64/alibi/seed*/eval.csv)
got=$(grep -E '^\| alibi \| 2 \|' "$tmp/s/table.md" | awk -F'|' '{ split($4, a, " "); print a[1] }')
[ -n "$got" ] && [ "$want" = "$got" ] && ok "the table's mean is the mean of the seeds' CSVs ($got)" || bad "seeds mean" "table $got, CSVs $want"
for f in ppl_seeds.png lengths_alibi.png finetune.png; do
  [ "$(head -c 8 "$tmp/s/$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && ok "$f is a PNG" || bad "$f" "missing or not a PNG"
done
grep -qE "^[01] of 1 pairs of schemes keep their order" "$tmp/s/table.md" && ok "the second corpus's ordering is compared" || bad "corpus table" "absent"
grep -qE 'Ranking at 16x .*' "$tmp/s/table.md" && grep -A2 'Ranking at 16x' "$tmp/s/table.md" | grep -qE '(alibi|rope) [0-9.]+ \[[0-9.]+-[0-9.]+\] [~<] (alibi|rope)' \
  && ok "the 16x ranking says whether neighbouring bands overlap" || bad "ranking" "$(grep -A2 'Ranking at 16x' "$tmp/s/table.md")"
# resume: nothing is trained or evaluated again (no checkpoint or run CSV newer than before)
touch "$tmp/marker"
sleep 1
run second && ok "a second run exits 0" || bad "study2 again" "$(tail -5 "$tmp/second.err")"
newer=$(find "$tmp/s" -mindepth 3 \( -name model.bin -o -name '*.csv' \) -newer "$tmp/marker" | head -3)
nrun=$(find "$tmp/s" -mindepth 3 -name model.bin | wc -l)
[ "$nrun" = 15 ] && [ -z "$newer" ] && ok "a second run keeps all 15 trainings and their evaluations" \
  || bad "resume" "$nrun checkpoints; rewritten: $newer"
# a fine-tune whose source stopped part-way fails with a message
mkdir -p "$tmp/u/kjv-T64/rope"
$BIN train --data "$tmp/data/kjv.txt" --pos rope --out "$tmp/u/kjv-T64/rope/seed1" --seq-len 64 --layers 1 --d-model 16 --heads 2 \
  --batch 4 --steps 8 --stop-at 4 --threads 1 > /dev/null 2>&1
"$BIN" info "$tmp/u/kjv-T64/rope/seed1/model.bin" 2>/dev/null | grep -q "step 4 of 8," && ok "a source stopped at step 4 of 8 (for the next check)" \
  || bad "partial source" "$("$BIN" info "$tmp/u/kjv-T64/rope/seed1/model.bin" 2>&1 | head -3)"
DATA=$tmp/data OUT=$tmp/u POSGPT=$BIN T0=64 MODEL="--layers 1 --d-model 16 --heads 2" STEPS=8 TOKENS_STEP=256 LR=1e-3 TOKENS=512 \
  FT_STEPS=4 FT_LR=1e-4 tools/study2.sh --one x ft 128 pi > /dev/null 2> "$tmp/u.err"
rc=$?
[ $rc -ne 0 ] && grep -q "has not finished training" "$tmp/u.err" && [ ! -e "$tmp/u/kjv-T64/rope/seed1/ft-T128-pi/model.bin" ] \
  && ok "a fine-tune from an unfinished source fails with a message and trains nothing" || bad "fine-tune without source" "exit $rc: $(cat "$tmp/u.err")"
# a run made with other settings is trained again, not kept
before=$(stat -c %Y "$tmp/s/kjv-T32/alibi/seed1/model.bin")
sleep 1
DATA=$tmp/data OUT=$tmp/s POSGPT=$BIN STEPS=9 TOKENS=2048 FT_STEPS=4 SEEDS="" SCHEMES="" LENGTHS="32" LSCHEMES=alibi CSCHEMES="" \
  tools/study2.sh --quick > /dev/null 2> "$tmp/changed.err"
grep -q "made with other settings" "$tmp/changed.err" && [ "$(stat -c %Y "$tmp/s/kjv-T32/alibi/seed1/model.bin")" != "$before" ] \
  && "$BIN" info "$tmp/s/kjv-T32/alibi/seed1/model.bin" | grep -q "step 9 of 9," \
  && ok "a run made with other settings (steps 8, now 9) is trained again" || bad "changed settings" "$(tail -5 "$tmp/changed.err")"
# the report alone, on made-up CSVs: a randomized model's evaluation at random positions
# (eval_random.csv) is a row of its own in the seeds table and the rankings, its mean the seeds'
hdr="scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc,positions,pos_offset,windows,step,scaling,scale"
for k in 1 2; do
  for sch in alibi randomized; do
    d=$tmp/r/kjv-T64/$sch/seed$k; mkdir -p "$d"
    { echo "$hdr"; for m in 1 2; do echo "$sch,64,$((64 * m)),nonoverlapping,$((64 * m)),2048,1,$((m + k + ${#sch})),1,contiguous,0,8,8,none,1"; done; } > "$d/eval.csv"
  done
  { echo "$hdr"; for m in 1 2; do echo "randomized,64,$((64 * m)),nonoverlapping,$((64 * m)),2048,1,$((m + 2 * k)),1,random,0,8,8,none,1"; done; } \
    > "$tmp/r/kjv-T64/randomized/seed$k/eval_random.csv"
done
POSGPT=$BIN tools/study2_report.sh "$tmp/r" 64 > /dev/null 2> "$tmp/r.err"
# randomized at random positions, 1x: seeds 1 + 2 = 3 and 1 + 4 = 5, mean 4; at contiguous ones 1 + 1 + 10 = 12 and 13
grep -q '^| randomized (random positions) | 2 | 4.00 (3.00-5.00) |' "$tmp/r/table.md" && grep -q '^| randomized | 2 | 12.50 (12.00-13.00) |' "$tmp/r/table.md" \
  && grep -A2 'Ranking at 2x' "$tmp/r/table.md" | grep -q 'randomized (random positions) 5.00 \[4.00-6.00\] < alibi 8.50 \[8.00-9.00\] < randomized 13.50' \
  && ok "the report gives randomized at random positions a row and a rank of its own, beside its contiguous one" \
  || bad "randomized at random positions" "$(grep -E 'randomized' "$tmp/r/table.md"; tail -2 "$tmp/r.err")"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
