# tasks2_lib.sh - what tools/tasks2.sh, tasks2_report.sh and tasks2_claims.sh share (sourced by each)
# shellcheck shell=bash
# the tasks, in the order tools/tasks2.sh runs them (its header), which the report's machine-time
# table follows
TASKS2_TASKS="copy reverse sort passkey add sum parity"
# exact match by chance beyond the training lengths, an awk function for both awk programs:
# parity 0.5, sum 0.1 (one digit, the scratchpad's final answer), the others about 0
# and the one margin both programs judge by (claims.md's rule): two means are apart when they differ
# by more than 0.06, a mean is at chance when at most its chance level + 0.06 (1e-9: 0.37 - 0.31 is
# 0.0600...01 in floats)
TASKS2_CHANCE_AWK='function chance(t) { return t == "parity" ? 0.5 : t == "sum" ? 0.1 : 0 }
  function apart(a, b) { return a - b > 0.06 + 1e-9 }
  function atchance(t, v) { return v <= chance(t) + 0.06 + 1e-9 }'
TASKS2_H=task,scheme,seed,train_max_len,eval_len,depth,examples,correct,exact,tokens,tokens_correct,token_accuracy,steps_to_learn
# check_acc WHO FILE: FILE is a study acc.csv both can read, else one error line naming the file,
# the line and what is wrong, and exit 1: the header TASKS2_H, no CR (CRLF line ends), at least
# one row, 13 fields a row, the counts whole numbers (examples and tokens at least 1, correct at
# most examples, tokens_correct at most tokens), the accuracies numbers, steps_to_learn empty or
# a whole number, and every run (task, scheme, seed) with rows at its training lengths (1x)
# and at 2x (L+1..2L, what the ranking reads); and (v6) a task of lowercase letters, a scheme of
# letters, digits and @ = . _ + - (the names tasks2.sh allows), no (task, scheme, seed, length,
# depth) twice, exact = correct / examples and token_accuracy = tokens_correct / tokens (to the
# 6 decimals written), one steps_to_learn per run
check_acc() {
  local who=$1 f=$2
  [ -f "$f" ] && [ -s "$f" ] || { echo "$who: no $f, or it is empty (tools/tasks2.sh and tools/tasks2_report.sh write it)" >&2; exit 1; }
  LC_ALL=C awk -F, -v H="$TASKS2_H" -v who="$who" -v f="$f" "$(cat tools/lib.awk)"'
    function no(why) { printf "%s: %s%s: %s\n", who, f, FNR ? ":" FNR : "", why > "/dev/stderr"; bad = 1; exit 1 }
    function whole(i) { return $i ~ /^[0-9]+$/ }
    function num(i) { return finite($i) }
    /\r/ { no("a carriage return (CRLF line ends): convert the file to LF (sed -i \"s/\\r$//\" FILE)") }
    FNR == 1 { if ($0 != H) no("the header is not " H); next }
    NF != 13 { no(NF " fields, not 13 (" H ")") }
    $1 == "" || $2 == "" { no("an empty task or scheme") }
    $1 !~ /^[a-z]+$/ || $2 !~ /^[A-Za-z0-9@=._+-]+$/ { no("a task of lowercase letters and a scheme of letters, digits and @ = . _ + - only, got \"" $1 "\" and \"" $2 "\"") }
    !whole(3) || !whole(4) || !whole(5) || !whole(6) || !whole(7) || !whole(8) || !whole(10) || !whole(11) {
      no("seed, train_max_len, eval_len, depth, examples, correct, tokens and tokens_correct must be whole numbers") }
    $7 < 1 || $10 < 1 || $8 > $7 || $11 > $10 { no("examples and tokens must be at least 1, correct at most examples, tokens_correct at most tokens") }
    !num(9) || !num(12) || ($13 != "" && !whole(13)) { no("exact and token_accuracy must be numbers, steps_to_learn empty or a whole number") }
    { d = $9 - $8 / $7; e = $12 - $11 / $10
      if (d > 1e-6 || d < -1e-6 || e > 1e-6 || e < -1e-6) no("exact must be correct / examples and token_accuracy tokens_correct / tokens")
      k = $1 "," $2 "," $3; key = k "," $5 "," $6
      if (key in seen) no("the row of task,scheme,seed,eval_len,depth " key " is there twice (line " seen[key] " too)")
      seen[key] = FNR
      if ((k in stl) && stl[k] != $13) no("the run " k " has two steps_to_learn (" stl[k] " and " $13 ")")
      stl[k] = $13
      run[k] = 1; if ($5 <= $4) at1[k] = 1; if ($5 > $4 && $5 <= 2 * $4) at2[k] = 1; rows++ }
    END { if (bad) exit 1
      if (!rows) { FNR = 1; no("no rows under the header") }
      for (r in run) if (!(r in at1)) { FNR = 0; no("the run " r " (task,scheme,seed) has no rows at its training lengths (eval_len <= train_max_len)") }
      for (r in run) if (!(r in at2)) { FNR = 0; no("the run " r " (task,scheme,seed) has no rows at 2x (train_max_len < eval_len <= 2 train_max_len)") } }' "$f"
}

# eval_secs RUNDIR: the seconds of the run's task evaluations (its time.txt, which tasks2.sh
# writes when they end: "train_s=N eval_s=M"); nothing without it
# (at most 9 digits: a damaged number is no record, not an overflow in shell arithmetic)
eval_secs() { sed -n 's/^train_s=[0-9]\{1,9\} eval_s=\([0-9]\{1,9\}\)$/\1/p' "$1/time.txt" 2> /dev/null || true; }

# steps_to_learn RUNDIR: the step the run learned at (its summary.json), nothing if it did not
# (or has no summary)
steps_to_learn() { sed -n 's/^  "steps_to_learn": \([0-9]*\),$/\1/p' "$1/summary.json" 2> /dev/null || true; }
