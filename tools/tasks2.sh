#!/usr/bin/env bash
# tasks2.sh - the algorithmic tasks again, each run trained until it has learned the task
# (issue 34): every (task, scheme, seed) trains a small model from scratch on lengths 1..L until
# its held-out exact match at the training lengths reaches 0.9 (posgpt train --until-acc 0.9,
# checked at every validation, every EVAL steps), or the task's step cap; then task eval scores
# exact match and per-token accuracy at test lengths 1..3L (passkey: 1..8L, the key at five
# depths). tools/tasks2_report.sh then writes acc.csv and table.md, whose ranking lists only the
# (task, scheme) pairs learned at 1x in >= 2 of 3 seeds. Learned: the run reached 0.9 exact
# match on its held-out check at lengths 1..L (its steps_to_learn); task eval's exact match at
# 1..L over the whole test set is reported beside it.
# After learning, every run trains AFTER = 1000 steps more (train --after-learn) at the
# schedule's floor lr (3e-4), past its cap if need be, so that every learned run is scored the
# same number of equal steps after it learned, not at the first check over 0.9, where its 1x
# score sits near 0.9 by construction and its beyond-L score moves with it (protocols v5 and
# v6, runs/tasks2/README.md). task eval scores the final model (acc.csv) and the model of the
# learned step (model-learned.bin: acc-learned.csv); the report ranks on the first and repeats
# the ranking on the second, to show whether it holds.
# The tasks run in this order: copy, reverse, sort, passkey, then add, sum, parity (the hard
# ones, up to 10000 steps a run); if the time runs out, the tasks not run are reported as such.
#
#   tools/tasks2.sh            the default grid into runs/tasks2: 7 tasks x 8 schemes x 3 seeds
#                              (the core six sinusoidal learned t5 alibi rope nope, fire and
#                              kerple-power): 168 runs
#   tools/tasks2.sh --full     the same plus randomized positions over sinusoidal, rope and
#                              alibi (11 schemes, 231 runs)
#   tools/tasks2.sh --plan     the grid's run count and worst-case time estimate, nothing run
#                              (--plan --full: the full grid's)
#   tools/tasks2.sh --status   per task: runs done (learned or not by the cap, and the minutes
#                              they took), under way (their step), not started; nothing run
#                              (--status --full: the full grid)
#   tools/tasks2.sh --quick    a smoke test into runs/tasks2-quick (seconds: copy at L = 4, two
#                              schemes, one seed, a 60-step cap)
#   tools/tasks2.sh --figures  only the report, from the CSVs in the folder
#
# Time: if every run learns at its cap and trains AFTER steps more, the default grid takes about
# 25 hours on 2 cores at the assumed rates.
# That is an ESTIMATE, not a measurement of this grid: the six L = 20 tasks at about 9 steps/s
# a run (a rate measured at L = 20 unpacked, one thread a run, two runs at once) plus 15%
# for task eval and the held-out checks, passkey at about 3.6 steps/s eval included (its 2000-
# step runs in runs/tasks, the same settings). --plan replaces a task's assumed rate by the one
# measured on that task's runs already done in OUT (their steps over their training seconds,
# and their mean evaluation seconds) and says which it used: the packed copy, reverse and sort
# runs of runs/tasks2 ran at about 30 steps/s a run. A run that learns stops AFTER steps later,
# so the grid is usually shorter, and the seed rule below skips the third seed of a pair that
# learned in neither of its first two; --plan prints the estimate for the caps and subset in
# force. The grid's own time: table.md's machine time (the runs' records, summed) and
# walltime.txt (a start that ran to its end).
# The seed rule: a pair qualifies for the ranking only if it learns in 2 of 3 seeds, so the
# seeds run in two rounds per task: all but the last seed first, then the last seed only for
# the (task, scheme) pairs that learned (reached 0.9 on the held-out check: a steps_to_learn) in
# at least one of the others. A pair that learned in none cannot qualify whatever its last seed
# does; its row in table.md says "0 of 2". (With one or two seeds in SEEDS, every seed runs.)
#
# Settings: L = 20 for the six short tasks (test lengths 1..60), passkey L = 4 filler sentences
# (test 1..32); formats (task gen --format; docs/tasks.md): add lsb (least significant digit
# first), sum and parity scratch (the running values, '=', the answer; exact match scores the
# final answer), each example starting with the BOS byte; step caps 5000 (copy, reverse, sort;
# CAP_SHORT=N), 10000 (add, sum, parity; CAP_HARD=N) and 3000 (passkey; CAP_PASSKEY=N), fixed
# when a task's data is made (OUT/data/TASK/cap), a batch of 64, validation and the learned
# check every 250 steps (the caps were 1500, 2500 and 1000 until copy's first 18 runs showed
# them too short: runs/tasks2/README.md, "Protocol"); the model and learning rate
# of tools/tasks.sh (3 blocks, width 64, 4 heads, lr 3e-3: runs/tasks/README.md). The cosine
# schedule runs over the cap, whatever step a run stops at.
# Randomized positions (Ruoss et al. 2023, who ran them over relative bases as well as
# sinusoidal; --full only) over a base: randomized-BASE is train --pos BASE --positions random
# --rand-max R (R = 4 x the longest test example), evaluated at random positions too
# (randomized-sinusoidal is what `train --pos randomized` names, with this study's R).
# The binary is pinned: ./posgpt (or POSGPT=FILE) is copied to OUT/bin/posgpt when the study
# starts and every run uses that copy; a later call (a resume) reuses the copy already there,
# so a rebuilt ./posgpt never mixes into a study (delete OUT/bin to change binaries).
# It resumes: a run whose acc.csv exists is done (also in a fresh clone, without checkpoints);
# a training whose summary.json says "done" (learned, or at its cap) is not trained again; an
# interrupted one resumes from its checkpoint. Outputs are written under temporary names.
# Ablations: a scheme written SCHEME@FLAG=VALUE (several @FLAG=VALUE allowed) trains SCHEME with
# `--FLAG VALUE` added, in its own folder under that name, e.g. SCHEMES="sandwich
# sandwich@sandwich-dim=8" OUT=runs/tasks2-sandwich; the report lists such variants after the
# schemes it knows.
# A variant's FLAG must be a train flag that takes a value (of SCHEME itself if it is a scheme's
# hyperparameter), VALUE a number for a numeric flag, else letters, digits and . _ + -; the flags
# the study sets itself (task, data, val, out, overwrite, resume, init-from, pos, positions,
# rand-max, seed, steps, until-acc, eval-every, threads, stop-at) and a flag given twice are refused.
# Environment: TASKS="copy add", SCHEMES="nope rope", SEEDS="1 2" for a subset; JOBS=N runs at
# once (default 2, one thread each); OUT=dir; RANKS=N spreads the runs over N MPI processes
# (tools/sweep.sh; MPIRUN="mpirun --hostfile hosts ..." for several hosts). The grid is checked
# before anything runs (--plan too): a task, scheme or variant that is not known, a seed that is
# not a whole number, a word given twice, or a CAP_* that is not a whole number from 1 to
# 9999999 is an error (exit 2).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
set -f # TASKS, SCHEMES and SEEDS are split into words, never globbed
self=$(realpath "$0")
. "$(dirname "$self")/pin_lib.sh"
cd "$(dirname "$self")/.."

. tools/tasks2_lib.sh
all_tasks=$TASKS2_TASKS # (the order they run in: the header)
default_schemes="sinusoidal learned t5 alibi rope nope fire kerple-power"
full_schemes="$default_schemes randomized-sinusoidal randomized-rope randomized-alibi"

# the training format of each task: the ONE place that sets it, all of its words passed to
# task gen as they are (BOS on: task gen's default)
task_format() { case "$1" in add) echo "--format lsb" ;; sum | parity) echo "--format scratch" ;; *) echo "" ;; esac; }

# ---- one run (called through tools/sweep.sh; the settings come in the environment) ----
if [ "${1:-}" = --one ]; then
  task=$2 scheme=$3 seed=$4
  d=$OUT/$task/$scheme/seed$seed
  data=$OUT/data/$task
  mkdir -p "$d"
  if [ -s "$d/acc.csv" ]; then echo "  $task $scheme seed $seed: done earlier" >&2; exit 0; fi
  pos=${scheme%%@*} extra=() evalx=()
  # a variant, SCHEME@FLAG=VALUE[@FLAG=VALUE...]: the scheme with those train flags (an ablation)
  v=$scheme
  while [ "$v" != "${v#*@}" ]; do v=${v#*@}; kv=${v%%@*}; extra+=("--${kv%%=*}" "${kv#*=}"); done
  case "$pos" in
    randomized-*) pos=${pos#randomized-} extra+=(--positions random --rand-max $((4 * $(cat "$data/longest")))) evalx=(--positions random --seed "$seed") ;;
    learned) extra+=(--max-pos "$(cat "$data/longest")") ;; # a table as long as the longest test example
  esac
  cap=$(cat "$data/cap")
  pack=$PACK
  [ "$task" = passkey ] && pack= # its examples fill 85% of their rows: packing saves nothing (runs/tasks)
  t0=$SECONDS
  if [ -s "$d/summary.json" ] && grep -q '"status": "done"' "$d/summary.json"; then
    : # learned, or at its cap
  elif [ -s "$d/model.bin" ]; then
    "$BIN" train --resume "$d" --threads 1 >> "$d/train.txt" 2>> "$d/train.err"
  else
    "$BIN" train --task "$data" --pos "$pos" --out "$d" --overwrite $MODEL --batch 64 --steps "$cap" --lr "$LR" --seed "$seed" \
      --eval-every "$EVAL" --until-acc "$UNTIL" --after-learn "$AFTER" --threads 1 $pack "${extra[@]}" > "$d/train.txt" 2> "$d/train.err"
  fi
  t1=$SECONDS
  if [ -s "$d/model-learned.bin" ]; then # the model of the learned step (acc.csv, written last, marks the run done)
    "$BIN" task eval --ckpt "$d/model-learned.bin" --task "$data" --threads 1 "${evalx[@]}" --csv "$d/acc-learned.csv.part" 2> "$d/eval-learned.txt"
    mv "$d/acc-learned.csv.part" "$d/acc-learned.csv"
  else rm -f "$d/acc-learned.csv" # (an earlier run's, in a folder trained again)
  fi
  "$BIN" task eval --ckpt "$d/model.bin" --task "$data" --threads 1 "${evalx[@]}" --csv "$d/acc.csv.part" 2> "$d/eval.txt"
  echo "train_s=$((t1 - t0)) eval_s=$((SECONDS - t1))" > "$d/time.txt"
  mv "$d/acc.csv.part" "$d/acc.csv"
  learned=$(sed -n 's/^  "steps_to_learn": \(.*\),$/\1/p' "$d/summary.json")
  echo "  $task $scheme seed $seed: train $((t1 - t0)) s, eval $((SECONDS - t1)) s, steps_to_learn ${learned:-?}" >&2
  exit 0
fi

mode=default failed=0 full=0 plan=0 status=0
for arg in "$@"; do
  case "$arg" in
    --quick) mode=quick ;;
    --figures) mode=figures ;;
    --full) full=1 ;;
    --plan) plan=1 ;;
    --status) status=1 ;;
    *) echo "usage: tools/tasks2.sh [--full] [--plan | --status] | --quick | --figures   (see the comment at the top)" >&2; exit 2 ;;
  esac
done
all_schemes=$([ $full = 1 ] && echo "$full_schemes" || echo "$default_schemes")
if [ $mode = quick ]; then
  export OUT=${OUT:-runs/tasks2-quick} EVAL=20 UNTIL=0.9 AFTER=20
  tasks=${TASKS:-copy} schemes=${SCHEMES:-"nope randomized-alibi"} seeds=${SEEDS:-1}
  export MODEL="--layers 1 --d-model 32 --heads 2"
else
  export OUT=${OUT:-runs/tasks2} EVAL=250 UNTIL=0.9 AFTER=1000
  tasks=${TASKS:-$all_tasks} schemes=${SCHEMES:-$all_schemes} seeds=${SEEDS:-"1 2 3"}
  export MODEL="--layers 3 --d-model 64 --heads 4"
fi
export LR=3e-3 PACK=--pack
task_L() { [ $mode = quick ] && echo 4 && return; [ "$1" = passkey ] && echo 4 || echo 20; }
task_cap() { [ $mode = quick ] && echo 60 && return; case "$1" in copy | reverse | sort) echo "${CAP_SHORT:-5000}" ;; passkey) echo "${CAP_PASSKEY:-3000}" ;; *) echo "${CAP_HARD:-10000}" ;; esac; }
# the worst case (every run to its cap, or learned at its cap and AFTER steps more) in hours on
# JOBS cores into PLAN_H: per task, at the rate measured on that task's runs done in OUT when
# there are some (their steps over their training seconds, log.csv; their mean evaluation
# seconds, time.txt), else the header's assumed rate (9 steps/s at L = 20 plus 15% for
# evaluation, passkey 3.6 steps/s); PLAN_RATES says, per task, which rate it used
plan_hours() {
  local runs=$(( $(echo $schemes | wc -w) * $(echo $seeds | wc -w) )) t core=0 m sc k d pk rate
  PLAN_RATES=
  for t in $tasks; do
    pk=0; [ "$t" = passkey ] && pk=1
    # measured: "STEPS TRAIN_S EVAL_S RUNS" summed over the task's done runs
    m=$(for sc in $schemes; do for k in $seeds; do d=$OUT/$t/$sc/seed$k
        [ -s "$d/acc.csv" ] && [ -s "$d/log.csv" ] && [ -s "$d/time.txt" ] || continue
        awk -F, -v ev="$(eval_secs "$d")" "$(cat tools/lib.awk)"'
          !wall_row() { next } $1 ~ /^[0-9]+$/ { s = $1 } END { if (W_COL && ev != "") print s, WALL, ev }' "$d/log.csv"
      done; done 2> /dev/null | awk '{ s += $1; w += $2; e += $3; n++ } END { if (n && w > 0) print s, w, e, n }')
    # (the running sum of the hours' seconds, then the rate used, in words)
    { read -r core; read -r rate; } < <(awk -v c="$core" -v n=$runs -v cap="$(( $(task_cap "$t") + AFTER ))" -v pk=$pk -v m="$m" 'BEGIN {
      if (split(m, x, " ") == 4) { print c + n * (cap / (x[1] / x[2]) + x[3] / x[4])
        printf "%.1f steps/s and %.0f s of evaluation a run (measured: its %d run%s done)\n", x[1] / x[2], x[3] / x[4], x[4], x[4] == 1 ? "" : "s" }
      else { print c + n * cap / (pk ? 3.6 : 9 / 1.15); printf "%.1f steps/s (assumed)\n", pk ? 3.6 : 9 } }')
    PLAN_RATES+="${PLAN_RATES:+, }$t $rate"
  done
  PLAN_H=$(awk -v c="$core" -v j="$jobs" 'BEGIN { printf "%.1f", c / j / 3600 }')
}
jobs=${JOBS:-$([ -n "${RANKS:-}" ] && echo 1 || echo 2)} # (per MPI process under RANKS)

# ---- the grid, checked before anything runs ----
grid_error() { echo "tasks2.sh: $*" >&2; exit 2; }
# each word of a list once
no_repeats() { # NAME WORDS...
  local name=$1; shift
  local dup; dup=$(printf '%s\n' "$@" | sort | uniq -d | head -1)
  [ -z "$dup" ] || grid_error "$name gives '$dup' twice (each run once: remove the repeat)"
}
# the train flags the study sets itself: a variant cannot change them
study_flags=" task data val out overwrite resume init-from pos positions rand-max seed steps until-acc eval-every threads stop-at "
# check_variant BASE FLAG=VALUE: one @FLAG=VALUE of a scheme, against `train --help` when there is a binary
check_variant() {
  local base=$1 kv=$2 flag=${2%%=*} value=${2#*=} line type tag b=${1#randomized-}
  [ "$base" != randomized ] || b=sinusoidal
  [[ $kv == *=* && $flag =~ ^[a-z][a-z0-9-]*$ && -n $value ]] \
    || grid_error "SCHEMES: '$scheme': each @ of a variant is @FLAG=VALUE (a train flag without its --, e.g. sandwich@sandwich-dim=8), got '@$kv'"
  case $study_flags in
    *" $flag "*) grid_error "SCHEMES: '$scheme': --$flag is set by the study itself; a variant cannot change it" ;;
  esac
  [ -n "$help" ] || return 0
  line=$(grep -E -m1 -- "^  --$flag [NXS] " <<< "$help") \
    || grid_error "SCHEMES: '$scheme': --$flag is not a train flag that takes a value (posgpt train --help)"
  type=$(awk '{ print $2 }' <<< "$line") tag=$(sed -n 's/^ *--[^ ]* [NXS]  *\[\([a-z0-9-]*\)\].*/\1/p' <<< "$line")
  [ -z "$tag" ] || [ "$tag" = "$b" ] || grid_error "SCHEMES: '$scheme': --$flag is a hyperparameter of $tag, not of $base"
  case $type in
    N) [[ $value =~ ^-?[0-9]{1,9}$ ]] ;;
    X) [[ $value =~ ^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]{1,3})?$ ]] ;;
    *) [[ $value =~ ^[A-Za-z0-9._+-]+$ ]] ;;
  esac || grid_error "SCHEMES: '$scheme': --$flag takes $(case $type in N) echo "a whole number" ;; X) echo "a number" ;; *) echo "a word of letters, digits, . _ + -" ;; esac), got '$value'"
}
check_grid() {
  local t s v cap known bin=${POSGPT:-./posgpt}
  [ -x "$OUT/bin/posgpt" ] && bin=$OUT/bin/posgpt
  help=$([ -x "$bin" ] && "$bin" train --help 2>&1 || true)
  known=$(sed -n "s/^  --pos S .*): \([a-z0-9|-]*\), or randomized.*/\1/p" <<< "$help" | tr '|' ' ')
  [ -n "$tasks" ] || grid_error "TASKS is empty (the tasks: $all_tasks)"
  for t in $tasks; do case " $all_tasks " in *" $t "*) ;; *) grid_error "TASKS: unknown task '$t' (the tasks: $all_tasks)" ;; esac; done
  [ -n "$seeds" ] || grid_error "SEEDS is empty (whole numbers, e.g. SEEDS=\"1 2 3\")"
  for s in $seeds; do [[ $s =~ ^(0|[1-9][0-9]{0,8})$ ]] || grid_error "SEEDS: '$s' is not a whole number (e.g. SEEDS=\"1 2 3\")"; done
  for cap in CAP_SHORT CAP_HARD CAP_PASSKEY; do
    [ -z "${!cap:-}" ] || [[ ${!cap} =~ ^[1-9][0-9]{0,6}$ ]] || grid_error "$cap must be a whole number of steps from 1 to 9999999, got '${!cap}'"
  done
  [ -n "$schemes" ] || grid_error "SCHEMES is empty"
  for scheme in $schemes; do
    [[ $scheme =~ ^[a-z0-9-]+(@[^@]*)*$ ]] && [[ $scheme =~ ^[A-Za-z0-9@=._+-]+$ ]] \
      || grid_error "SCHEMES: '$scheme' is not a scheme or SCHEME@FLAG=VALUE (letters, digits and . _ + - only)"
    s=${scheme%%@*}
    [ -z "$known" ] || case " $known randomized $(printf 'randomized-%s ' $known)" in *" $s "*) ;;
      *) grid_error "SCHEMES: '$scheme': unknown scheme '$s' (posgpt's: ${known// /|}, randomized, randomized-BASE)" ;; esac
    v=$scheme flags=()
    while [ "$v" != "${v#*@}" ]; do v=${v#*@}; check_variant "$s" "${v%%@*}"; flags+=("${v%%=*}"); done
    no_repeats "SCHEMES: '$scheme'" ${flags[@]+"${flags[@]}"}
  done
  no_repeats TASKS $tasks
  no_repeats SCHEMES $schemes
  no_repeats SEEDS $seeds
}
if [ $mode != figures ]; then
  check_grid
  tasks=$(echo $tasks) schemes=$(echo $schemes) seeds=$(echo $seeds) # one space between words
fi
if [ $plan = 1 ]; then
  echo "tasks2 grid: $(echo $tasks | wc -w) tasks x $(echo $schemes | wc -w) schemes x $(echo $seeds | wc -w) seeds =" \
    "$(( $(echo $tasks | wc -w) * $(echo $schemes | wc -w) * $(echo $seeds | wc -w) )) runs ($schemes); caps:" \
    "$(for t in $tasks; do printf '%s %s, ' "$t" "$(task_cap "$t")"; done | sed 's/, $//')"
  plan_hours
  echo "worst case (every run learned at its cap and trained AFTER = $AFTER steps more): about $PLAN_H hours on $jobs cores (an estimate: see --help)"
  echo "rates: $PLAN_RATES"
  exit 0
fi
# learned T S K: run K of (T, S) reached 0.9 on its held-out check (steps_to_learn in its summary.json)
learned() { grep -q '^  "steps_to_learn": [0-9]' "$OUT/$1/$2/seed$3/summary.json" 2> /dev/null; }
# --status: where the grid stands, from its run folders alone (starts nothing)
if [ $status = 1 ]; then
  [ -d "$OUT" ] || { echo "tasks2.sh: no folder '$OUT': the grid has not started" >&2; exit 1; }
  echo "tasks2 in $OUT, $(date -u '+%Y-%m-%d %H:%M') UTC"
  for t in $tasks; do
    done_=0 learned_=0 capped=0 part=0 none=0 secs=0
    for sc in $schemes; do for k in $seeds; do
      d=$OUT/$t/$sc/seed$k
      if [ -s "$d/acc.csv" ]; then done_=$((done_ + 1))
        # (training: log.csv's elapsed_s over the run's resumed segments, tools/lib.awk; evaluation: time.txt)
        secs=$((secs + $(awk -F, "$(cat tools/lib.awk)"'!wall_row() { next } END { printf "%.0f", WALL }' "$d/log.csv" 2> /dev/null || echo 0) + $(eval_secs "$d" | grep . || echo 0)))
        if learned "$t" "$sc" "$k"; then learned_=$((learned_ + 1)); else capped=$((capped + 1)); fi
      elif [ -s "$d/log.csv" ]; then part=$((part + 1))
        echo "  $t $sc seed $k: step $(awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { s = $1 } END { print s + 0 }' "$d/log.csv") (cap $(cat "$OUT/data/$t/cap" 2> /dev/null || task_cap "$t"))"
      else none=$((none + 1)); fi
    done; done
    echo "$t: $done_ runs done ($learned_ learned, $capped not learned by the cap), $part under way or interrupted, $none not started$([ $secs -gt 0 ] && echo "; the done runs took $((secs / 60)) min (training and evaluation, their log.csv and time.txt)")"
  done
  echo "(the seed rule may leave a pair's last seed unrun: tools/tasks2.sh --help)"
  exit 0
fi
mkdir -p "$OUT"
# the tree's binary (POSGPT, else ./posgpt, built if missing): what is pinned, and what draws the report
tree_bin() { [ -n "${POSGPT:-}" ] || [ -x ./posgpt ] || make --no-print-directory posgpt; }

if [ $mode != figures ]; then
  # the pinned binary: copied once, reused by every later call
  if [ ! -x "$OUT/bin/posgpt" ]; then
    src=${POSGPT:-./posgpt}
    tree_bin
    mkdir -p "$OUT/bin"
    cp "$src" "$OUT/bin/posgpt.tmp.$$" && mv "$OUT/bin/posgpt.tmp.$$" "$OUT/bin/posgpt"
  fi
  export BIN=$OUT/bin/posgpt
  pin_kernel tasks2.sh "$BIN" "$OUT/bin" 0 # (tools/pin_lib.sh: one kernel for the grid, in OUT/bin/kernel.txt)
  echo "${TASKS:+TASKS=\"$TASKS\" }${SCHEMES:+SCHEMES=\"$SCHEMES\" }${SEEDS:+SEEDS=\"$SEEDS\" }tools/tasks2.sh $*   ($(date -u +%Y-%m-%d), $($BIN --version 2>/dev/null | head -1); $KERNEL)" >> "$OUT/command.txt"
  # the data: one set per task, the same for every scheme and seed
  for t in $tasks; do
    dd=$OUT/data/$t
    [ -s "$dd/test.txt" ] && [ -s "$dd/longest" ] && continue
    L=$(task_L "$t") mult=3 per=100 n=100000
    [ "$t" = passkey ] && mult=8 per=20
    [ $mode = quick ] && per=10 n=2000
    # shellcheck disable=SC2046 # the format's words, as they are
    "$BIN" task gen --task "$t" --max-len "$L" --n $n --test-mult $mult --test-per-len $per --seed 1 $(task_format "$t") \
      --out "$dd" --overwrite > /dev/null
    echo "$L" > "$dd/L"
    task_cap "$t" > "$dd/cap"
    awk -F'\t' '{ n = length($3); if (n > m) m = n } END { print m }' "$dd/test.txt" > "$dd/longest"
  done
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  sweep() { JOBS=$jobs SWEEP_ENV="OUT EVAL UNTIL AFTER LR MODEL BIN PACK" tools/sweep.sh "$list" "$self" --one || failed=1; }
  nseeds=$(echo $seeds | wc -w) last=${seeds##* } first=${seeds% *}
  [ "$nseeds" -ge 3 ] || first=$seeds last=
  echo "tasks2 study: $(( $(echo $tasks | wc -w) * $(echo $schemes | wc -w) * nseeds )) runs at most into $OUT (binary $BIN)" >&2
  t_start=$SECONDS n=0 skipped=0 earlier=0
  # the runs of a list that an earlier start finished (their acc.csv): they take no time here
  done_before() { local a b c k=0; while read -r a b c; do [ -s "$OUT/$a/$b/seed$c/acc.csv" ] && k=$((k + 1)); done < "$list"; echo $k; }
  for t in $tasks; do
    for s in $schemes; do for seed in $first; do echo "$t $s $seed"; done; done > "$list"
    n=$((n + $(wc -l < "$list"))); earlier=$((earlier + $(done_before))); sweep
    [ -n "$last" ] || continue
    : > "$list"
    for s in $schemes; do
      any=0
      for seed in $first; do learned "$t" "$s" "$seed" && any=1; done
      if [ $any = 1 ] || [ -s "$OUT/$t/$s/seed$last/acc.csv" ]; then echo "$t $s $last" >> "$list"
      else echo "  $t $s seed $last: skipped (learned in none of seeds $first: the pair cannot qualify)" >&2; skipped=$((skipped + 1)); fi
    done
    n=$((n + $(wc -l < "$list"))); earlier=$((earlier + $(done_before))); [ -s "$list" ] && sweep
  done
  echo "tasks2 study wall time: $(( (SECONDS - t_start) / 60 )) min for this start: $((n - earlier)) runs trained in it, $earlier done in earlier starts (they take no time here), $skipped skipped by the seed rule" | tee -a "$OUT/walltime.txt" >&2
fi

# the report runs no model: it draws with the tree's binary (or POSGPT), not the pinned one, so
# that the end of a study, --figures in a fresh clone (no OUT/bin there) and tools/tasks2_report.sh
# draw the same figures (the pinned binary's plot can be older)
tree_bin
BIN=${POSGPT:-./posgpt} tools/tasks2_report.sh "$OUT"
exit $failed
