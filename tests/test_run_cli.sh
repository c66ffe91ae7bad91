#!/usr/bin/env bash
# test_run_cli.sh - the command line around a training run, on a small generated text:
#  - help texts: no "(none)" placeholder, no "(required) (default: ...)", --threads' default said;
#  - train --out defaults to out/<scheme>-<T> (ignored by git), said at start; --pos is
#    required for a new run (the checkpoint says it for --resume and --init-from);
#  - --pos randomized trains sinusoidal at random positions and is recorded as such;
#  - the run directory's .lock is removed at exit (normal end, error, SIGTERM), never while
#    another live process holds it;
#  - summary.json: valid JSON whose numbers are log.csv's last row; tokens/s of the progress
#    lines equal log.csv's;
#  - train --resume DIR --steps N extends a finished run, the cosine re-stretched to N steps;
#  - eval and task eval default to the checkpoint's recorded text (CRC-checked); eval --lengths
#    takes multiples of the training length (2x).
. "$(dirname "$0")/lib.sh" runcli
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") # absolute: some tests run in another directory
phrase_text 3 3000 > "$tmp/text.txt"
S=(--data "$tmp/text.txt" --pos alibi --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --eval-every 10 --val-tokens 512 --threads 1)

# ---- help texts ----
for c in train eval sample info plot export "task gen" "task eval"; do $BIN $c --help; done > "$tmp/help.txt" 2>&1
if grep -q "(none)\|required) (default" "$tmp/help.txt"; then bad "help defaults" "$(grep "(none)\|required) (default" "$tmp/help.txt" | head -2)"
else ok "no help text says (none) or (required) (default ...)"; fi
[ "$(grep -c 'default.*(default:' "$tmp/help.txt")" = 0 ] && ok "no help states a default twice" || bad "help defaults twice" "$(grep 'default.*(default:' "$tmp/help.txt")"
n=$(grep -c -- "--threads N .*(default: 0)" "$tmp/help.txt")
[ "$n" -ge 3 ] && ok "--threads states its default in every help ($n)" || bad "--threads default" "$(grep -- "--threads" "$tmp/help.txt")"

# ---- the lock file: removed at exit, never while another process holds it ----
$BIN train "${S[@]}" --steps 3 --out "$tmp/lk" > /dev/null 2>&1 && [ -s "$tmp/lk/model.bin" ] && [ ! -e "$tmp/lk/.lock" ] \
  && ok "no .lock left after a run ends" || bad ".lock after the end" "$(ls -a "$tmp/lk")"
mkdir -p "$tmp/empty"
! $BIN train --resume "$tmp/empty" > /dev/null 2>&1 && [ ! -e "$tmp/empty/.lock" ] \
  && ok "no .lock left after an error exit" || bad ".lock after an error" "$(ls -a "$tmp/empty")"
$BIN train "${S[@]}" --steps 100000 --eval-every 100000 --out "$tmp/busy" > /dev/null 2>&1 &
busy=$!
for i in $(seq 200); do [ -s "$tmp/busy/log.csv" ] && [ "$(wc -l < "$tmp/busy/log.csv")" -ge 2 ] && break; sleep 0.1; done
$BIN train "${S[@]}" --steps 5 --out "$tmp/busy" --overwrite > /dev/null 2> "$tmp/busy.err"
grep -q "in use by another posgpt process (PID $busy)" "$tmp/busy.err" && [ -e "$tmp/busy/.lock" ] && kill -0 $busy \
  && ok "a refused second process leaves the live one's .lock" || bad "live lock" "$(cat "$tmp/busy.err"; ls -a "$tmp/busy")"
kill -TERM $busy; wait $busy; rc=$?
[ $rc = 143 ] && [ ! -e "$tmp/busy/.lock" ] && [ -s "$tmp/busy/model.bin" ] \
  && ok "SIGTERM: the run saves, exits 143 and leaves no .lock" || bad ".lock after SIGTERM" "exit $rc; $(ls -a "$tmp/busy")"

# ---- train: --out defaults to out/<scheme>-<T> (ignored by git), --pos is required ----
mkdir -p "$tmp/wd"
(cd "$tmp/wd" && $BIN train "${S[@]}" --steps 2 > /dev/null 2> "$tmp/wd.err")
[ -s "$tmp/wd/out/alibi-16/model.bin" ] && [ ! -e "$tmp/wd/runs" ] && grep -q "no --out given: the run goes to out/alibi-16" "$tmp/wd.err" \
  && ok "train without --out writes out/alibi-16 and says so" || bad "default --out" "$(ls "$tmp/wd"; tail -2 "$tmp/wd.err")"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git check-ignore -q out/alibi-16/model.bin && ok "out/ is ignored by git" || bad "out/ in .gitignore" "not ignored"
fi
NP=(); for x in "${S[@]}"; do [ "$x" = --pos ] || [ "$x" = alibi ] || NP+=("$x"); done # S without --pos alibi
$BIN train "${NP[@]}" --steps 2 --out "$tmp/nopos" > /dev/null 2> "$tmp/nopos.err"; rc=$?
[ $rc = 1 ] && grep -q "error: train: --pos SCHEME is required for a new run (one of .*alibi" "$tmp/nopos.err" && [ ! -e "$tmp/nopos" ] \
  && ok "a new run without --pos is refused, naming the schemes" || bad "--pos required" "exit $rc: $(cat "$tmp/nopos.err")"
$BIN train "${NP[@]}" --init-from "$tmp/lk/model.bin" --steps 2 --out "$tmp/nopos-ft" > /dev/null 2> "$tmp/nopos.err" \
  && grep -q "^pos = alibi$" "$tmp/nopos-ft/config.txt" && ok "--init-from without --pos keeps the checkpoint's scheme" \
  || bad "--init-from without --pos" "$(tail -1 "$tmp/nopos.err")"

# ---- --pos randomized: sinusoidal at random positions, recorded as such ----
$BIN train "${NP[@]}" --pos randomized --steps 2 --out "$tmp/rnd" > /dev/null 2> "$tmp/rnd.err"
grep -q "^scheme = randomized-sinusoidal$" "$tmp/rnd/config.txt" && grep -q "^pos = sinusoidal$" "$tmp/rnd/config.txt" \
  && grep -q "^positions = random$" "$tmp/rnd/config.txt" && grep -q '"scheme": "randomized-sinusoidal"' "$tmp/rnd/summary.json" \
  && ok "--pos randomized trains sinusoidal at random positions (config.txt, summary.json)" || bad "--pos randomized" "$(tail -1 "$tmp/rnd.err")"
$BIN train "${NP[@]}" --pos randomized --positions contiguous --steps 2 --out "$tmp/rnd2" > /dev/null 2> "$tmp/rnd2.err"
grep -q "error: --pos randomized trains at random positions; it contradicts --positions contiguous" "$tmp/rnd2.err" \
  && ok "--pos randomized --positions contiguous is refused" || bad "--pos randomized contiguous" "$(cat "$tmp/rnd2.err")"

# ---- summary.json and tokens/s ----
$BIN train "${S[@]}" --steps 12 --log-every 1 --out "$tmp/sum" > /dev/null 2> "$tmp/sum.err"
# the progress lines' tokens/s (plain lines: stderr is no terminal) are log.csv's, step by step
grep '^step [0-9]*/' "$tmp/sum.err" | awk '{ split($2, s, "/"); print s[1] "," $7 }' > "$tmp/sum.prog"
tail -n +2 "$tmp/sum/log.csv" | awk -F, '{ print $1 "," $6 }' > "$tmp/sum.log"
[ "$(wc -l < "$tmp/sum.log")" = 12 ] && cmp -s "$tmp/sum.prog" "$tmp/sum.log" \
  && ok "the progress lines' tokens/s equal log.csv's at each of 12 steps" || bad "tokens/s" "$(paste -d' ' "$tmp/sum.prog" "$tmp/sum.log" | head -4)"
# summary.json: valid JSON (python3's parser, else a coarse check) whose numbers are log.csv's last row
last=$(tail -1 "$tmp/sum/log.csv")
if command -v python3 > /dev/null; then
  got=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print("%d,%.6f,%.6f,%.6g,%.0f,%.2f,%s,%s,%s" % (s["step"], s["train_loss"], s["val_loss"], s["lr"], s["tokens_per_s"], s["elapsed_s"],
      s["status"], s["scheme"], s["config"]["seq_len"]))' "$tmp/sum/summary.json" 2>&1)
  want=$(echo "$last" | awk -F, '{ print $1 "," $2 "," $3 "," $4 "," $6 "," $7 ",done,alibi,16" }')
else
  got=$(tr -d ' \n' < "$tmp/sum/summary.json" | grep -o '"step":[^,]*,\|"train_loss":[^,]*,\|"val_loss":[^,]*,' | cut -d: -f2 | tr -d '\n')
  want=$(echo "$last" | awk -F, '{ print $1 "," $2 "," $3 "," }')
fi
[ -n "$got" ] && [ "$got" = "$want" ] && ok "summary.json parses and holds log.csv's last row ($got)" || bad "summary.json" "got '$got', want '$want'"
# a path with a quote, a backslash and a tab is escaped
q=$tmp/'q"uo\te	d'
mkdir -p "$q" && cp "$tmp/text.txt" "$q/t.txt"
$BIN train "${S[@]}" --data "$q/t.txt" --steps 2 --out "$q/run" > /dev/null 2>&1
if command -v python3 > /dev/null; then
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["config"]["data"] == sys.argv[2]' "$q/run/summary.json" "$q/t.txt" 2>&1 \
    && ok "summary.json escapes a path's quote, backslash and tab" || bad "summary.json escapes" "$(grep data "$q/run/summary.json")"
fi

# ---- train --resume DIR --steps N: a finished run extended, its cosine re-stretched to N steps ----
cp "$tmp/sum/log.csv" "$tmp/sum.log12"
$BIN train --resume "$tmp/sum" --steps 20 --threads 1 > /dev/null 2> "$tmp/ext.err"; rc=$?
[ $rc = 0 ] && $BIN info "$tmp/sum/model.bin" 2>&1 | grep -q "step 20 of 20" && grep -q "extending the run in .* from 12 to 20 steps" "$tmp/ext.err" \
  && ok "a finished 12-step run extended to 20 with --resume --steps 20" || bad "extend" "exit $rc: $(grep -v '^step' "$tmp/ext.err" | tail -2)"
head -13 "$tmp/sum/log.csv" | cmp -s - "$tmp/sum.log12" && ok "the extension keeps log.csv's first 12 rows" || bad "extend log" "rows 1..12 changed"
# lr at the step before row s: warmup 0 (5% of 12), cosine from 1e-3 to 1e-4 over 20 steps
want=$(awk 'BEGIN { for (s = 13; s <= 20; s++) printf "%d,%.6g\n", s, 1e-4 + 0.5 * (1 + cos(3.141592653589793 * (s - 1) / 20)) * 9e-4 }')
got=$(tail -n +14 "$tmp/sum/log.csv" | cut -d, -f1,4)
[ "$got" = "$want" ] && ok "the extension's lr is the cosine re-stretched to 20 steps" || bad "extension lr" "$(paste -d' ' <(echo "$got") <(echo "$want") | head -3)"
grep -q '"status": "done"' "$tmp/sum/summary.json" && grep -q '"step": 20,' "$tmp/sum/summary.json" \
  && grep -q "\"train_loss\": $(tail -1 "$tmp/sum/log.csv" | cut -d, -f2)," "$tmp/sum/summary.json" \
  && ok "summary.json rewritten at the resumed run's end" || bad "summary after resume" "$(head -8 "$tmp/sum/summary.json")"
$BIN train --resume "$tmp/sum" --steps 15 > /dev/null 2> "$tmp/ext.err"
grep -q "error: --steps 15 is fewer than the 20 of the run" "$tmp/ext.err" && ok "--resume --steps fewer than the run's is refused" \
  || bad "--steps fewer" "$(cat "$tmp/ext.err")"
$BIN train --resume "$tmp/sum" > /dev/null 2> "$tmp/ext.err"
grep -q "already finished (20 of 20 steps); extend it with --resume .* --steps N" "$tmp/ext.err" && ok "a finished run's refusal says how to extend it" \
  || bad "finished refusal" "$(cat "$tmp/ext.err")"

# ---- eval --lengths in multiples of the training length ----
CK=$tmp/lk/model.bin # T = 16
$BIN eval --ckpt "$CK" --data "$tmp/text.txt" --max-tokens 256 --lengths 1x,2x,40,4x --csv "$tmp/len.csv" 2> /dev/null
[ "$(tail -n +2 "$tmp/len.csv" | cut -d, -f3 | tr '\n' ' ')" = "16 32 40 64 " ] && ok "--lengths 1x,2x,40,4x at T=16 is 16,32,40,64" \
  || bad "--lengths Kx" "$(cut -d, -f3 "$tmp/len.csv" | tr '\n' ' ')"
for l in 0x -1x 1.5x 2xx x 99999999999x 2000000x; do
  $BIN eval --ckpt "$CK" --data "$tmp/text.txt" --lengths "1x,$l" > /dev/null 2> "$tmp/len.err"; rc=$?
  [ $rc = 1 ] && [ "$(grep -c error "$tmp/len.err")" = 1 ] && grep -q "error: --lengths: '$l' " "$tmp/len.err" \
    && ok "--lengths $l refused: $(grep error "$tmp/len.err" | cut -d: -f3-)" || bad "--lengths $l" "exit $rc: $(cat "$tmp/len.err")"
done

# ---- eval and task eval default to the run's recorded text, CRC-checked ----
$BIN eval --ckpt "$CK" --max-tokens 512 --csv "$tmp/d0.csv" 2> "$tmp/d0.err" \
  && $BIN eval --ckpt "$CK" --data "$tmp/text.txt" --max-tokens 512 --csv "$tmp/d1.csv" 2> /dev/null && cmp -s "$tmp/d0.csv" "$tmp/d1.csv" \
  && grep -q "scoring $tmp/text.txt, its last 10%" "$tmp/d0.err" && ok "eval without --data scores the run's --data (its last 10%)" \
  || bad "eval default --data" "$(tail -1 "$tmp/d0.err")"
phrase_text 4 300 > "$tmp/other.txt"
$BIN train "${S[@]}" --val "$tmp/other.txt" --steps 2 --out "$tmp/wv" > /dev/null 2>&1
$BIN eval --ckpt "$tmp/wv/model.bin" --max-tokens 512 --csv "$tmp/v0.csv" 2> /dev/null \
  && $BIN eval --ckpt "$tmp/wv/model.bin" --val "$tmp/other.txt" --max-tokens 512 --csv "$tmp/v1.csv" 2> /dev/null && cmp -s "$tmp/v0.csv" "$tmp/v1.csv" \
  && ok "eval without --data scores a run's --val when it had one" || bad "eval default --val" "$(cat "$tmp/v0.csv")"
cp "$tmp/text.txt" "$tmp/moving.txt"
$BIN train "${S[@]}" --data "$tmp/moving.txt" --steps 2 --out "$tmp/mv" > /dev/null 2>&1
crc=$(gzip -c "$tmp/moving.txt" | tail -c 8 | head -c 4 | od -An -tx4 | tr -d ' ')
echo more >> "$tmp/moving.txt"
$BIN eval --ckpt "$tmp/mv/model.bin" > /dev/null 2> "$tmp/mv.err"; rc=$?
[ $rc = 1 ] && grep -q "trained on '$tmp/moving.txt' ([0-9]* bytes, CRC-32 $crc); that file is now .*give --data FILE" "$tmp/mv.err" \
  && ok "eval: a recorded text that changed is refused, naming its path and CRC ($crc)" || bad "changed text" "exit $rc: $(cat "$tmp/mv.err")"
rm "$tmp/moving.txt"
$BIN eval --ckpt "$tmp/mv/model.bin" > /dev/null 2> "$tmp/mv.err"; rc=$?
[ $rc = 1 ] && grep -q "trained on '$tmp/moving.txt' ([0-9]* bytes, CRC-32 $crc), which cannot be read now" "$tmp/mv.err" \
  && ok "eval: a recorded text that is gone is refused, naming its path and CRC" || bad "missing text" "exit $rc: $(cat "$tmp/mv.err")"
$BIN task gen --task copy --max-len 6 --n 200 --seed 1 --out "$tmp/copy" > /dev/null 2>&1
$BIN train --task "$tmp/copy" --pos alibi --layers 1 --d-model 16 --heads 2 --batch 4 --steps 2 --threads 1 --out "$tmp/tk" > /dev/null 2>&1
$BIN task eval --ckpt "$tmp/tk/model.bin" --csv "$tmp/t0.csv" 2> "$tmp/t0.err" \
  && $BIN task eval --ckpt "$tmp/tk/model.bin" --task "$tmp/copy" --csv "$tmp/t1.csv" 2> /dev/null && cmp -s "$tmp/t0.csv" "$tmp/t1.csv" \
  && ok "task eval without --task scores the run's task" || bad "task eval default" "$(tail -1 "$tmp/t0.err")"
$BIN task eval --ckpt "$CK" > /dev/null 2> "$tmp/t2.err"
grep -q "trained on text, not on a task's examples; give --task DIR" "$tmp/t2.err" && ok "task eval of a text run without --task: a clear error" \
  || bad "task eval text run" "$(cat "$tmp/t2.err")"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
