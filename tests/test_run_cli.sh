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

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
