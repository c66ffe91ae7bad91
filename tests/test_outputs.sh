#!/usr/bin/env bash
# test_outputs.sh - outputs are checked and never half-written; inputs cannot hang posgpt;
# run directories are protected:
#  - eval, sample, info and --help onto /dev/full fail with a one-line error (exit 1);
#  - eval --csv onto a full filesystem (a 256 KiB tmpfs, where the machine lets root mount
#    one) or past a file size limit (ulimit -f) fails, leaves no temporary file, and an
#    earlier CSV of that name is intact; training onto a filesystem that fills up stops with
#    an error, its checkpoint loads, and the run resumes once there is room;
#  - a FIFO or /dev/zero as --data, --ckpt, a plot CSV or --font gets an error at once;
#  - a new run refuses a directory that holds one (unless --overwrite); a second process on a
#    locked run directory gets an error naming the holder's PID;
#  - a log row cut in half by a crash is dropped on resume;
#  - with stdout and stderr closed, no message lands in log.csv or an eval CSV;
#  - sampling at a tiny temperature equals greedy sampling; with the key/value cache it equals
#    sampling without (--no-cache) while the context holds every byte.
. "$(dirname "$0")/lib.sh" outputs
phrase_text 6 3000 > "$tmp/text.txt"
S=(--data "$tmp/text.txt" --pos alibi --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --eval-every 10 --val-tokens 512 --threads 1)
$BIN train "${S[@]}" --steps 10 --out "$tmp/run" > /dev/null 2>&1 || bad "train" "the small run failed"
CK=$tmp/run/model.bin
E=(eval --ckpt "$CK" --data "$tmp/text.txt" --max-tokens 512)

# an error: non-zero exit and one line on stderr matching $2
err_like() { # name pattern rc-file err-file
  local rc; rc=$(cat "$3")
  if [ "$rc" -ne 0 ] && [ "$(wc -l < "$4")" -ge 1 ] && grep -q "$2" "$4"; then ok "$1"; else bad "$1" "rc=$rc: $(tail -1 "$4")"; fi
}
for c in "${E[*]}" "sample --ckpt $CK --tokens 20" "info $CK" "--help"; do
  # shellcheck disable=SC2086
  $BIN $c > /dev/full 2> "$tmp/full.err"; echo $? > "$tmp/full.rc"
  err_like "${c%% *} onto /dev/full: error and exit 1" "cannot write to standard output" "$tmp/full.rc" "$tmp/full.err"
done

# a file size limit: the CSV is refused, the earlier one kept, no temporary file left
$BIN "${E[@]}" --csv "$tmp/keep.csv" 2> /dev/null
cp "$tmp/keep.csv" "$tmp/keep.orig"
L=$(seq -s, 2 31) # 30 lengths: 30 rows, several KiB
$BIN "${E[@]}" --lengths "$L" --csv "$tmp/big.csv" 2> /dev/null
if [ "$(wc -c < "$tmp/keep.csv")" -lt 2048 ] && [ "$(wc -c < "$tmp/big.csv")" -gt 2048 ]; then
  # stderr through a pipe: the limit applies to every file the process writes, a log of its stderr too
  (ulimit -f 2; $BIN "${E[@]}" --lengths "$L" --csv "$tmp/keep.csv" 2>&1 > /dev/null | tail -1 > "$tmp/lim.err"
   echo "${PIPESTATUS[0]}" > "$tmp/lim.rc")
  err_like "eval --csv past a file size limit: error" "cannot write\|File too large" "$tmp/lim.rc" "$tmp/lim.err"
  cmp -s "$tmp/keep.csv" "$tmp/keep.orig" && ok "... and the earlier CSV is intact" || bad "earlier CSV" "changed"
  ls "$tmp" | grep -q 'keep.csv.tmp' && bad "temporary file" "left behind" || ok "... and no temporary file is left"
else echo "# skipped: file size limit test (CSV too small to split)"; fi

# a full filesystem (tmpfs), if this machine lets us mount one
fs=$tmp/fs; mkdir -p "$fs"
if mount -t tmpfs -o size=256k tmpfs "$fs" 2>/dev/null; then
  trap 'umount "$fs" 2>/dev/null; rm -rf "$tmp"' EXIT
  $BIN "${E[@]}" --csv "$fs/e.csv" 2> /dev/null && cp "$fs/e.csv" "$tmp/e.orig"
  dd if=/dev/zero of="$fs/fill" bs=1k count=1024 2>/dev/null # fills the rest
  $BIN "${E[@]}" --lengths 16,8 --csv "$fs/e.csv" > /dev/null 2> "$tmp/fs.err"; echo $? > "$tmp/fs.rc"
  err_like "eval --csv onto a full disk: error" "No space left\|cannot write" "$tmp/fs.rc" "$tmp/fs.err"
  cmp -s "$fs/e.csv" "$tmp/e.orig" && ok "... and the earlier CSV is intact" || bad "earlier CSV on the full disk" "changed"
  ls "$fs" | grep -q '\.tmp\.' && bad "full disk" "a temporary file was left" || ok "... and no temporary file is left"
  # training that fills the disk: the model is ~13 KiB a checkpoint (with moments ~40 KiB)
  rm -f "$fs/fill" "$fs/e.csv"
  dd if=/dev/zero of="$fs/fill" bs=1k count=150 2>/dev/null
  $BIN train "${S[@]}" --steps 400 --ckpt-every 5 --log-every 1 --eval-every 50 --out "$fs/r" > /dev/null 2> "$tmp/tr.err"; echo $? > "$tmp/tr.rc"
  err_like "training onto a disk that fills up: error" "No space left\|cannot write" "$tmp/tr.rc" "$tmp/tr.err"
  step=$($BIN info "$fs/r/model.bin" 2>/dev/null | sed -n 's/^training *step \([0-9]*\) of.*/\1/p')
  [ -n "$step" ] && ok "... the checkpoint on disk loads (step $step)" || bad "checkpoint after a full disk" "does not load"
  rm -f "$fs/fill"
  $BIN train --resume "$fs/r" --data "$tmp/text.txt" --threads 1 > /dev/null 2> "$tmp/tr2.err" \
    && $BIN info "$fs/r/model.bin" | grep -q "step 400 of 400" && ok "... and the run finishes once there is room" \
    || bad "resume after a full disk" "$(tail -1 "$tmp/tr2.err")"
  umount "$fs"
else echo "# skipped: full-disk tests (cannot mount a tmpfs here)"; fi

# inputs that are not regular files: an error at once, never a hang
mkfifo "$tmp/fifo"
for c in "train --data $tmp/fifo --pos alibi --out $tmp/ff --steps 1" "eval --ckpt $tmp/fifo --data $tmp/text.txt" \
         "plot --out $tmp/f.png $tmp/fifo" "plot --font $tmp/fifo --out $tmp/f.png $tmp/keep.csv" \
         "train --data /dev/zero --pos alibi --out $tmp/fz --steps 1" "info $tmp/fifo"; do
  # shellcheck disable=SC2086
  timeout 20 $BIN $c > /dev/null 2> "$tmp/fifo.err"; echo $? > "$tmp/fifo.rc"
  err_like "not a regular file: posgpt ${c:0:40}..." "FIFO\|character device\|regular file" "$tmp/fifo.rc" "$tmp/fifo.err"
done

# run directories: a new run refuses one that holds a run; --overwrite replaces it
$BIN train "${S[@]}" --steps 10 --out "$tmp/run" > /dev/null 2> "$tmp/again.err"; echo $? > "$tmp/again.rc"
err_like "a new run in a directory holding one: refused" "already holds a finished run.*--overwrite" "$tmp/again.rc" "$tmp/again.err"
$BIN train "${S[@]}" --steps 20 --out "$tmp/half" --stop-at 10 > /dev/null 2>&1
$BIN train "${S[@]}" --steps 20 --out "$tmp/half" > /dev/null 2> "$tmp/half.err"; echo $? > "$tmp/half.rc"
err_like "... a resumable one too, naming --resume" "resumable run (step 10 of 20).*--resume" "$tmp/half.rc" "$tmp/half.err"
$BIN train "${S[@]}" --steps 12 --out "$tmp/run" --overwrite > /dev/null 2>&1 && $BIN info "$CK" | grep -q "step 12 of 12" \
  && ok "--overwrite replaces the run" || bad "--overwrite" "did not replace the run"
! grep -q '%%' "$tmp/run/config.txt" && ok "config.txt has no doubled %" || bad "config.txt" "$(grep '%%' "$tmp/run/config.txt")"

# a second process on a locked run directory
$BIN train "${S[@]}" --steps 100000 --eval-every 100000 --out "$tmp/busy" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/busy/.lock" ] && break; sleep 0.05; done
$BIN train --resume "$tmp/busy" --data "$tmp/text.txt" > /dev/null 2> "$tmp/busy.err"; echo $? > "$tmp/busy.rc"
err_like "a second process on a run directory: refused, naming the PID" "in use by another posgpt process (PID $pid)" "$tmp/busy.rc" "$tmp/busy.err"
$BIN train "${S[@]}" --steps 5 --out "$tmp/busy" --overwrite > /dev/null 2> "$tmp/busy2.err"; echo $? > "$tmp/busy.rc"
err_like "... even with --overwrite" "PID $pid" "$tmp/busy.rc" "$tmp/busy2.err"
kill -TERM $pid; wait $pid
at=$($BIN info "$tmp/busy/model.bin" | sed -n 's/.*step \([0-9]*\) of.*/\1/p')
$BIN train --resume "$tmp/busy" --stop-at $((at + 3)) > /dev/null 2> "$tmp/busy3.err" \
  && ok "the lock goes with its process: resume works after it ends" || bad "lock after exit" "$(tail -1 "$tmp/busy3.err")"

# half a log row (a crash mid-write) is dropped on resume
$BIN train "${S[@]}" --steps 20 --log-every 1 --out "$tmp/cut" --stop-at 10 > /dev/null 2>&1
printf '11,4.5' >> "$tmp/cut/log.csv"
$BIN train --resume "$tmp/cut" --data "$tmp/text.txt" > /dev/null 2>&1
if awk -F, 'NR > 1 && NF != 7 { bad = 1 } END { exit bad }' "$tmp/cut/log.csv" && [ "$(tail -1 "$tmp/cut/log.csv" | cut -d, -f1)" = 20 ] \
   && [ "$(cut -d, -f1 "$tmp/cut/log.csv" | sort | uniq -d)" = "" ]; then ok "half a log row is dropped on resume; every row complete, once"
else bad "log after resume" "$(grep -v '^[0-9]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*$' "$tmp/cut/log.csv" | head -2)"; fi
# sampling at a tiny temperature is the greedy choice, never a run of byte 0xFF
$BIN sample --ckpt "$CK" --prompt "and the " --tokens 60 --temperature 0 > "$tmp/greedy.txt" 2>/dev/null
for t in 0.001 1e-20 1e-300; do
  $BIN sample --ckpt "$CK" --prompt "and the " --tokens 60 --temperature $t > "$tmp/cold.txt" 2>/dev/null
  cmp -s "$tmp/cold.txt" "$tmp/greedy.txt" && ! grep -q $'\xff' "$tmp/cold.txt" \
    && ok "sample --temperature $t equals greedy sampling (no underflow to byte 0xFF)" || bad "sample --temperature $t" "$(head -c 80 "$tmp/cold.txt" | od -c | head -2)"
done
# the cache gives the bytes that recomputing every window gives, while no window slides (a
# greedy choice could differ only at a near-tie of two logits, within float rounding)
$BIN sample --ckpt "$CK" --prompt "and the " --tokens 50 --context 64 --temperature 0 > "$tmp/cached.txt" 2>/dev/null
$BIN sample --ckpt "$CK" --prompt "and the " --tokens 50 --context 64 --temperature 0 --no-cache > "$tmp/nocache.txt" 2>/dev/null
[ -s "$tmp/cached.txt" ] && cmp -s "$tmp/cached.txt" "$tmp/nocache.txt" && ok "sample with the key/value cache = --no-cache (greedy, 58 bytes in a context of 64)"   || bad "sample cache" "$(head -c 80 "$tmp/cached.txt") // $(head -c 80 "$tmp/nocache.txt")"
# stdout and stderr closed by the caller (`>&- 2>&-`): posgpt opens them on /dev/null first, so
# its messages cannot land in the files it opens next (log.csv, an eval CSV took their numbers)
$BIN train "${S[@]}" --steps 10 --out "$tmp/closed" >&- 2>&-; rc=$?
$BIN "${E[@]}" --csv "$tmp/closed.csv" >&- 2>&-; rc2=$?
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ "$(grep -cv '^[0-9]' "$tmp/closed/log.csv")" = 1 ] && [ "$(wc -l < "$tmp/closed.csv")" = 2 ] \
   && head -1 "$tmp/closed.csv" | grep -q '^scheme,'; then
  ok "stdout and stderr closed: train's log.csv and eval's CSV hold only their header and rows"
else bad "closed stdout/stderr" "rc $rc/$rc2; log: $(grep -v '^[0-9]' "$tmp/closed/log.csv" | head -2 | tr '\n' '|'); csv: $(head -2 "$tmp/closed.csv" | tr '\n' '|')"; fi

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
