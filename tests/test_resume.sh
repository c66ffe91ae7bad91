#!/usr/bin/env bash
# test_resume.sh - a resumed run continues the run it names, as it was:
#  - the checkpoint records the data (absolute path, size, CRC-32) and the validation and
#    logging settings, so `train --resume DIR` alone continues a stopped run, and the result
#    equals the uninterrupted run bit for bit (same losses, validation losses, checkpoint);
#  - another text under --data, or the same path with changed contents, is refused naming
#    both texts' sizes;
#  - a flag that names a setting of the run with another value is refused naming the run's
#    value (model, optimizer, scheme hyperparameter, validation, logging); the same value is
#    accepted; --stop-at behind the run, --val on a run without one, --out elsewhere and
#    --overwrite are refused.
. "$(dirname "$0")/lib.sh" resume

phrase_text 5 4000 > "$tmp/text.txt"
phrase_text 6 4000 > "$tmp/other.txt"
R=(--data "$tmp/text.txt" --pos rope --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 24 --eval-every 6
   --ckpt-every 100 --log-every 2 --val-tokens 1024 --threads 2)
$BIN train "${R[@]}" --out "$tmp/full" > /dev/null 2>&1
$BIN train "${R[@]}" --out "$tmp/split" --stop-at 12 > /dev/null 2> "$tmp/stop.err"
grep -q "continue with: posgpt train --resume $tmp/split$" "$tmp/stop.err" \
  && ok "the stop message's hint is 'posgpt train --resume DIR' alone" || bad "stop hint" "$(tail -1 "$tmp/stop.err")"
# from another directory, with none of the original flags
(cd / && "$OLDPWD/$BIN" train --resume "$tmp/split" > /dev/null 2> "$tmp/res.err")
if cmp -s "$tmp/full/model.bin" "$tmp/split/model.bin" && cmp -s <(cut -d, -f1-5 "$tmp/full/log.csv") <(cut -d, -f1-5 "$tmp/split/log.csv"); then
  ok "train --resume DIR alone (from another directory) == the uninterrupted run: log (incl. validation) and checkpoint bit-identical"
else bad "resume alone" "$(tail -1 "$tmp/res.err"; diff <(cut -d, -f1-5 "$tmp/full/log.csv") <(cut -d, -f1-5 "$tmp/split/log.csv") | head -4)"; fi

# a signal that cuts a validation short (POSGPT_TEST_CUT_VALIDATION: SIGTERM as the validation
# of that step starts) is marked in the checkpoint: the resume validates that step first. At
# step 12 the run then goes on as the uninterrupted one; at its last step (24) the resume only
# validates and finishes ("done", the same validation loss), where it used to refuse a run
# whose steps were all done, leaving it "interrupted" for good
for cut in 12 24; do
  POSGPT_TEST_CUT_VALIDATION=$cut $BIN train "${R[@]}" --out "$tmp/cut$cut" > /dev/null 2>&1; rc=$?
  $BIN train --resume "$tmp/cut$cut" > /dev/null 2> "$tmp/cut$cut.err"; rc2=$?
  [ $rc = 143 ] && [ $rc2 = 0 ] && cmp -s "$tmp/full/model.bin" "$tmp/cut$cut/model.bin" && grep -q '"status": "done"' "$tmp/cut$cut/summary.json" \
    && [ "$(grep '"val_loss"' "$tmp/cut$cut/summary.json")" = "$(grep '"val_loss"' "$tmp/full/summary.json")" ] \
    && grep -q "^note: step $cut's validation, cut short by a signal, done now" "$tmp/cut$cut.err" \
    && cmp -s <(cut -d, -f1-5 "$tmp/full/log.csv") <(cut -d, -f1-5 "$tmp/cut$cut/log.csv") \
    && ok "a signal in step $cut's validation: the resume validates it first and ends as the uninterrupted run (done, same checkpoint, val loss and log)" \
    || bad "validation cut at $cut" "rc $rc, $rc2: $(tail -1 "$tmp/cut$cut.err")"
done

# the same validation cut twice (the first resume cut too), then resumed: the log keeps the
# step's row through both cuts and ends as the uninterrupted run's; a cut at an eval step that is
# not a log step (--log-every 4, the validation at 6) leaves the row the resume completes
POSGPT_TEST_CUT_VALIDATION=12 $BIN train "${R[@]}" --out "$tmp/twice" > /dev/null 2>&1; rc=$?
POSGPT_TEST_CUT_VALIDATION=12 $BIN train --resume "$tmp/twice" > /dev/null 2>&1; rc2=$?
row=$(grep -c '^12,' "$tmp/twice/log.csv")
$BIN train --resume "$tmp/twice" > /dev/null 2>&1; rc3=$?
[ $rc = 143 ] && [ $rc2 = 143 ] && [ "$row" = 1 ] && [ $rc3 = 0 ] && cmp -s "$tmp/full/model.bin" "$tmp/twice/model.bin" \
  && cmp -s <(cut -d, -f1-5 "$tmp/full/log.csv") <(cut -d, -f1-5 "$tmp/twice/log.csv") \
  && ok "a validation cut twice (the resume cut too): the step's row kept through both; the next resume ends as the uninterrupted run" \
  || bad "validation cut twice" "rc $rc $rc2 $rc3, rows of step 12 after the second cut: $row; $(diff <(cut -d, -f1-5 "$tmp/full/log.csv") <(cut -d, -f1-5 "$tmp/twice/log.csv") | head -3)"
L4=(); prev=""; for x in "${R[@]}"; do [ "$prev" = --log-every ] && x=4; L4+=("$x"); prev=$x; done
$BIN train "${L4[@]}" --out "$tmp/full4" > /dev/null 2>&1
POSGPT_TEST_CUT_VALIDATION=6 $BIN train "${L4[@]}" --out "$tmp/cut6" > /dev/null 2>&1; rc=$?
$BIN train --resume "$tmp/cut6" > /dev/null 2>&1; rc2=$?
[ $rc = 143 ] && [ $rc2 = 0 ] && ! grep -q "^10," "$tmp/full4/log.csv" && grep -q '^6,' "$tmp/full4/log.csv" \
  && cmp -s <(cut -d, -f1-5 "$tmp/full4/log.csv") <(cut -d, -f1-5 "$tmp/cut6/log.csv") && cmp -s "$tmp/full4/model.bin" "$tmp/cut6/model.bin" \
  && ok "a validation cut at an eval step that is not a log step (6, --log-every 4): the resume writes its row; the log is the uninterrupted run's" \
  || bad "cut off the log steps" "rc $rc $rc2: $(diff <(cut -d, -f1-5 "$tmp/full4/log.csv") <(cut -d, -f1-5 "$tmp/cut6/log.csv") | head -3)"

$BIN train "${R[@]}" --out "$tmp/r" --stop-at 6 > /dev/null 2>&1
cp -r "$tmp/r" "$tmp/r0" # the stopped state, to compare after each refusal
same_as_before() { cmp -s "$tmp/r/model.bin" "$tmp/r0/model.bin" && cmp -s "$tmp/r/log.csv" "$tmp/r0/log.csv"; }
refused "another text under --data" "is not the text the run.*trained on" $BIN train --resume "$tmp/r" --data "$tmp/other.txt"
cp "$tmp/text.txt" "$tmp/text.bak"; printf 'x' >> "$tmp/text.txt"
refused "the run's text changed in place" "text.txt' ($(wc -c < "$tmp/text.txt") bytes.*$(wc -c < "$tmp/text.bak") bytes" $BIN train --resume "$tmp/r"
mv "$tmp/text.bak" "$tmp/text.txt"
mv "$tmp/text.txt" "$tmp/moved.txt"
refused "the run's text is gone" "cannot read\|no such file" $BIN train --resume "$tmp/r"
$BIN train --resume "$tmp/r" --data "$tmp/moved.txt" --stop-at 8 > /dev/null 2>&1 \
  && ok "the same text under another path is accepted (--data moved.txt)" || bad "moved text" "refused"
mv "$tmp/moved.txt" "$tmp/text.txt"
rm -rf "$tmp/r"; cp -r "$tmp/r0" "$tmp/r"
refused "--steps fewer than the run's on resume" "--steps 10 is fewer than the 24" $BIN train --resume "$tmp/r" --steps 10
refused "--lr on resume" "has --lr 0.001" $BIN train --resume "$tmp/r" --lr 2e-3
refused "--d-model on resume" "has --d-model 16" $BIN train --resume "$tmp/r" --d-model 32
refused "--pos on resume" "has --pos rope" $BIN train --resume "$tmp/r" --pos alibi
refused "a scheme hyperparameter on resume" "has --rope-base 10000" $BIN train --resume "$tmp/r" --rope-base 500
refused "another scheme's hyperparameter on resume" "not a hyperparameter of the run's scheme 'rope'" $BIN train --resume "$tmp/r" --t5-buckets 8
refused "--eval-every on resume" "has --eval-every 6" $BIN train --resume "$tmp/r" --eval-every 5
refused "--val-tokens on resume" "has --val-tokens 1024" $BIN train --resume "$tmp/r" --val-tokens 0
refused "--seed on resume" "has --seed 1" $BIN train --resume "$tmp/r" --seed 2
refused "--stop-at behind the run" "not ahead of the run.*step 6 of 24" $BIN train --resume "$tmp/r" --stop-at 4
refused "--stop-at beyond the run" "beyond the run's last step (24)" $BIN train --resume "$tmp/r" --stop-at 99
refused "--val on a run that held out part of --data" "held out the last 10%" $BIN train --resume "$tmp/r" --val "$tmp/other.txt"
refused "--out elsewhere" "writes into its own directory" $BIN train --resume "$tmp/r" --out "$tmp/elsewhere"
refused "--overwrite with --resume" "contradict" $BIN train --resume "$tmp/r" --overwrite
same_as_before && ok "every refusal left the run untouched" || bad "refusals" "the run changed"
$BIN train --resume "$tmp/r" "${R[@]}" --stop-at 12 > /dev/null 2> "$tmp/e" \
  && $BIN info "$tmp/r/model.bin" | grep -q "step 12 of 24" && ok "all the original flags again, same values: accepted" \
  || bad "same flags" "$(tail -1 "$tmp/e")"

# --init-from: a new run from a checkpoint's weights, at a new length, with fresh settings
$BIN train --data "$tmp/text.txt" --pos learned --max-pos 64 --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 12 \
  --out "$tmp/src" --threads 2 > /dev/null 2>&1
$BIN train --data "$tmp/text.txt" --init-from "$tmp/src/model.bin" --seq-len 32 --lr 0 --steps 3 --out "$tmp/ft0" > /dev/null 2> "$tmp/e" || bad "init-from" "$(tail -1 "$tmp/e")"
np=$($BIN info "$tmp/src/model.bin" | sed -n 's/^parameters *\([0-9]*\).*/\1/p')
if [ -n "$np" ] && cmp -s <(tail -c +1025 "$tmp/src/model.bin" | head -c $((4 * np))) <(tail -c +1025 "$tmp/ft0/model.bin" | head -c $((4 * np))) \
   && $BIN info "$tmp/ft0/model.bin" | grep -q "seq_len 32" && grep -q "^init_from = " "$tmp/ft0/config.txt"; then
  ok "--init-from at 2x the length with --lr 0: the $np weights carried over bit for bit, the new run trains at 32, config.txt names its origin"
else bad "init-from weights" "differ, or seq_len/config wrong"; fi
refused "--init-from with another architecture" "checkpoint.*(--init-from), which has --d-model 16" $BIN train --data "$tmp/text.txt" --init-from "$tmp/src/model.bin" --d-model 32 --out "$tmp/ft1"
refused "--init-from past a learned table" "table has 64 rows" $BIN train --data "$tmp/text.txt" --init-from "$tmp/src/model.bin" --seq-len 128 --out "$tmp/ft2"
refused "--keep-optimizer without --init-from" "only with --init-from" $BIN train --data "$tmp/text.txt" --keep-optimizer --out "$tmp/ft3"
refused "--init-from with --resume" "give one of them" $BIN train --resume "$tmp/r" --init-from "$tmp/src/model.bin"
# the run record in `posgpt info`: a run with --val names that file, and only it, as its validation text
$BIN train "${R[@]}" --steps 2 --val "$tmp/other.txt" --out "$tmp/withval" > /dev/null 2>&1
vl=$($BIN info "$tmp/withval/model.bin" | grep -E '^val  ')
[ "$(printf '%s\n' "$vl" | grep -c .)" = 1 ] && printf '%s' "$vl" | grep -q "other.txt" \
  && ok "info: a run with --val names its file as the one validation text" || bad "info val" "$vl"
# config.txt is written anew on a resume where it was emptied (or deleted)
$BIN train "${R[@]}" --out "$tmp/cfg" --stop-at 4 > /dev/null 2>&1
: > "$tmp/cfg/config.txt"
$BIN train --resume "$tmp/cfg" --steps 30 > /dev/null 2> "$tmp/cfg.err"; rc=$?
[ $rc = 0 ] && grep -q "^steps = 30$" "$tmp/cfg/config.txt" && grep -q "^pos = " "$tmp/cfg/config.txt" \
  && ok "resume: an emptied config.txt is written anew (with the extended steps)" || bad "config.txt on resume" "rc $rc; $(head -3 "$tmp/cfg/config.txt" | tr '\n' '|'); $(tail -1 "$tmp/cfg.err")"

# a damaged log.csv on resume: each line that is not a row of this log (odd bytes, a wrong field
# count, a step out of order, a row up to the checkpoint cut short) is dropped and counted in a
# warning, a missing or damaged header is written again, an empty or missing log starts again
# with its header (a warning: its rows are lost); a row past the checkpoint cut short by a kill
# is no damage (no warning). The rows kept are the uninterrupted run's.
$BIN train "${R[@]}" --out "$tmp/lg" --stop-at 12 > /dev/null 2>&1
full=$(cut -d, -f1-5 "$tmp/full/log.csv")
logcase() { # NAME WARNING-REGEX(or -) EXPECTED-LOG: damage $tmp/lg-NAME/log.csv (the damage is done by the caller), resume, check
  $BIN train --resume "$tmp/lg-$1" > /dev/null 2> "$tmp/lg-$1.err"; local rc=$? w
  w=$(grep '^warning: .*log.csv' "$tmp/lg-$1.err")
  if [ $rc = 0 ] && if [ "$2" = - ]; then [ -z "$w" ]; else grep -q -- "$2" <<< "$w"; fi \
     && [ "$(cut -d, -f1-5 "$tmp/lg-$1/log.csv")" = "$3" ]; then ok "resume with log.csv $1: ${w:-no warning}, the rows as expected"
  else bad "log.csv $1" "rc $rc, warning '$w'; $(diff <(echo "$3") <(cut -d, -f1-5 "$tmp/lg-$1/log.csv") | head -3 | tr '\n' '|')"; fi
}
for c in nul noheader empty killed; do rm -rf "$tmp/lg-$c"; cp -r "$tmp/lg" "$tmp/lg-$c"; done
f=$tmp/lg-nul/log.csv; { sed -n '1,3p' "$f"; printf '6\0\0,'; sed -n '4p' "$f" | cut -c5-; sed -n '5,$p' "$f"; } > "$f.x" && mv "$f.x" "$f"
logcase nul "was damaged: 1 line(s) that are not rows of this log dropped.*; 5 row(s) kept$" "$(grep -v '^6,' <<< "$full")"
sed -i 1d "$tmp/lg-noheader/log.csv"
logcase noheader "was damaged: its header was missing or damaged: written again; 6 row(s) kept$" "$full"
: > "$tmp/lg-empty/log.csv"
logcase empty "was empty: its rows up to step 12 are lost; it starts again with its header$" "$(awk -F, 'NR == 1 || $1 > 12' <<< "$full")"
printf '14,2.1' >> "$tmp/lg-killed/log.csv"
logcase killed - "$full"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
