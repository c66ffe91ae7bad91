#!/usr/bin/env bash
# test_kill.sh - nothing is lost on a crash: training is killed with SIGKILL at random moments
# (10 trials; a checkpoint every 3 steps and a log row every step, so kills land during writes
# and between a log row and its checkpoint); each time the
# checkpoint on disk must load, resuming from it must continue the run, and the log must
# hold every step once.
. "$(dirname "$0")/lib.sh" kill
phrase_text 3 4000 > "$tmp/text.txt"
# a run far longer than the test, killed after 0.05-1 s
ARGS=(--data "$tmp/text.txt" --pos rope --layers 2 --d-model 32 --heads 2 --seq-len 32 --batch 8 --steps 100000
      --ckpt-every 3 --log-every 1 --eval-every 100000 --val-tokens 1024 --threads 1)
RANDOM=7
killed=0 loaded=0 resumed=0
for trial in $(seq 1 10); do
  d=$tmp/run$trial
  "$BIN" train "${ARGS[@]}" --out "$d" > /dev/null 2>&1 &
  pid=$!
  # wait for the first checkpoint, then kill at a random moment within the next ~1 s
  for _ in $(seq 1 200); do [ -s "$d/model.bin" ] && break; sleep 0.02; done
  sleep "0.$((RANDOM % 10))$((RANDOM % 10 + 5))"
  if kill -9 $pid 2>/dev/null; then killed=$((killed + 1)); fi
  wait $pid 2>/dev/null
  step=$("$BIN" info "$d/model.bin" 2>"$tmp/err" | sed -n 's/^training *step \([0-9]*\) of.*/\1/p')
  if [ -n "$step" ]; then loaded=$((loaded + 1)); else bad "trial $trial: checkpoint after SIGKILL" "$(cat "$tmp/err")"; continue; fi
  # resume and run 5 more steps (--stop-at is an absolute step)
  if "$BIN" train --resume "$d" --data "$tmp/text.txt" --threads 1 --stop-at $((step + 5)) > /dev/null 2> "$tmp/err"; then
    "$BIN" info "$d/model.bin" 2>/dev/null | grep -q "step $((step + 5)) of" && resumed=$((resumed + 1)) \
      || bad "trial $trial: resume" "did not reach step $((step + 5))"
    # the log has every step once, in order
    tail -n +2 "$d/log.csv" | cut -d, -f1 | awk 'NR > 1 && $1 <= prev { exit 1 } { prev = $1 }' \
      || bad "trial $trial: log after resume" "steps repeat or go backwards"
  else bad "trial $trial: resume from step $step" "$(tail -1 "$tmp/err")"; fi
  echo "# trial $trial: killed at checkpoint step $step"
  ls "$d" | grep -q '\.tmp\.' && echo "# trial $trial: a temporary file was left behind (harmless: never read)"
done
[ $loaded -eq 10 ] && ok "SIGKILL x10 ($killed landed while running): the checkpoint on disk loaded every time" || bad "SIGKILL" "$loaded of 10 loaded"
[ $resumed -eq 10 ] && ok "resume after SIGKILL continued the run in all 10 trials" || bad "resume after SIGKILL" "$resumed of 10"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
