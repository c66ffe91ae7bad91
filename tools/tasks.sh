#!/usr/bin/env bash
# tasks.sh - length generalisation on algorithmic tasks: every (task, scheme, seed) run trains a
# small model from scratch on the task's examples of lengths 1..L (posgpt train --task), then
# decodes the test examples of lengths 1..2L (passkey: 1..8L, the key at five depths) greedily
# and scores exact match (posgpt task eval); then the table (accuracy in and beyond the training
# lengths, mean and min-max over seeds, the ranking) and a figure per task.
#
#   tools/tasks.sh              the default grid into runs/tasks (about 3 hours on 2 cores): every
#                               scheme on copy, reverse and add; Kazemnejad et al.'s five
#                               (nope, t5, alibi, rope, sinusoidal) plus randomized on all seven
#   tools/tasks.sh --full       every scheme on every task (about 5.5 to 6 hours)
#   tools/tasks.sh --quick      a small grid into runs/tasks-quick (a few minutes; for trying it)
#   tools/tasks.sh --figures    only the table and figures, from the CSVs in the folder
#
# It resumes: a run whose accuracy CSV exists is done (also in a fresh clone, where the
# checkpoints are absent); a training that was interrupted resumes from its checkpoint. Every
# output is written under a temporary name and renamed when complete.
# Environment: TASKS="copy reverse", SCHEMES="nope alibi", SEEDS="1 2 3" to run a subset; JOBS=N
# runs at once (default 2, one thread each: small models use one core best); PACK= trains one
# example a row instead of packing them (train --pack; runs/tasks-padded was trained so); OUT=dir;
# POSGPT=binary to pin a copy of the binary; RANKS=N spreads the runs over N MPI processes,
# which may be on several hosts (MPIRUN="mpirun --hostfile hosts ..."; tools/sweep.sh).
# Settings and why: runs/tasks/README.md.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
self=$(realpath "$0")
cd "$(dirname "$self")/.."

all_tasks="copy reverse sort add sum parity passkey"
all_schemes="nope t5 alibi rope sinusoidal randomized kerple-log kerple-power sandwich xpos fire cope shaw xl learned"
kaz_schemes="nope t5 alibi rope sinusoidal randomized" # Kazemnejad et al.'s five, plus Ruoss et al.'s
core_tasks="copy reverse add"                             # the tasks every scheme runs on by default

# ---- one run (called through xargs below; the settings come in the environment) ----
if [ "${1:-}" = --one ]; then
  task=$2 scheme=$3 seed=$4
  d=$OUT/$task/$scheme/seed$seed
  data=$OUT/data/$task
  mkdir -p "$d"
  if [ -s "$d/acc.csv" ]; then echo "  $task $scheme seed $seed: done earlier" >&2; exit 0; fi
  pos=$scheme extra=() evalx=()
  # randomized (Ruoss et al. 2023): sinusoidal at sorted random positions from [0, 4 x the
  # longest test example), in training and in evaluation
  if [ "$scheme" = randomized ]; then
    pos=sinusoidal extra=(--positions random --rand-max $((4 * $(cat "$data/longest")))) evalx=(--positions random --seed "$seed")
  fi
  # learned: a table as long as the longest test example; training reaches only its first rows
  [ "$scheme" = learned ] && extra=(--max-pos "$(cat "$data/longest")")
  # passkey's examples fill 85% of their rows: its packed rows of 4 x 148 bytes cost as much
  # more in attention as the padding saves (PARTS=pack make bench: 0.98x and 1.00x)
  pack=$PACK
  [ "$task" = passkey ] && pack=
  t0=$SECONDS
  if [ -s "$d/model.bin" ] && grep -q "step $STEPS of $STEPS," <("$BIN" info "$d/model.bin" 2>/dev/null); then
    :
  elif [ -s "$d/model.bin" ]; then
    "$BIN" train --resume "$d" --threads 1 >> "$d/train.txt" 2>> "$d/train.err"
  else
    "$BIN" train --task "$data" --pos "$pos" --out "$d" --overwrite $MODEL --batch 64 --steps "$STEPS" --lr "$LR" \
      --seed "$seed" --eval-every $((STEPS / 5)) --threads 1 $pack "${extra[@]}" > "$d/train.txt" 2> "$d/train.err"
  fi
  t1=$SECONDS
  "$BIN" task eval --ckpt "$d/model.bin" --task "$data" --threads 1 "${evalx[@]}" --csv "$d/acc.csv.part" 2> "$d/eval.txt"
  if [ "$scheme" = randomized ]; then # and at contiguous positions, for comparison
    "$BIN" task eval --ckpt "$d/model.bin" --task "$data" --threads 1 --csv "$d/acc_contiguous.csv" 2>> "$d/eval.txt"
  fi
  echo "train_s=$((t1 - t0)) eval_s=$((SECONDS - t1))" > "$d/time.txt"
  mv "$d/acc.csv.part" "$d/acc.csv"
  L=$(cat "$data/L")
  echo "  $task $scheme seed $seed: train $((t1 - t0)) s, eval $((SECONDS - t1)) s; $(awk -F, -v L="$L" 'NR > 1 {
    if ($4 <= L) { a += $7; n += $6 } else { b += $7; m += $6 } } END { printf "accuracy 1..L %.3f, beyond %.3f", a / n, b / m }' "$d/acc.csv")" >&2
  exit 0
fi

mode=default failed=0
case "${1:-}" in
  --full) mode=full ;;
  --quick) mode=quick ;;
  --figures) mode=figures ;;
  "") ;;
  *) echo "usage: tools/tasks.sh [--full | --quick | --figures]   (see the comment at the top)" >&2; exit 2 ;;
esac
[ -x ./posgpt ] || make --no-print-directory posgpt
export BIN=${POSGPT:-./posgpt}
# The model and training, the same for every task and scheme (no tuning per scheme): three
# blocks of width 64, 4 heads, lr 3e-3 (warmup 5%, cosine to 10%), 2000 steps of 64 examples.
# Why these: runs/tasks/README.md.
if [ $mode = quick ]; then
  export OUT=${OUT:-runs/tasks-quick} STEPS=300
  tasks=${TASKS:-"copy passkey"} schemes=${SCHEMES:-"nope alibi rope"} seeds=${SEEDS:-1}
else
  export OUT=${OUT:-runs/tasks} STEPS=2000
  tasks=${TASKS:-$all_tasks} schemes=${SCHEMES:-$all_schemes} seeds=${SEEDS:-"1 2 3"}
fi
export LR=3e-3 MODEL="--layers 3 --d-model 64 --heads 4"
# each step's 64 examples packed into rows of 4 x the longest (train --pack: the gradient of one
# example a row, in about 1.6 times less time on the short tasks; not passkey, see --one above);
# PACK= trains one example a row
export PACK=${PACK---pack}
jobs=${JOBS:-$([ -n "${RANKS:-}" ] && echo 1 || echo 2)} # (per MPI process under RANKS)
# L per task: 10 (test 1..20); passkey 4 filler sentences (test 1..32, i.e. to 8x)
task_L() { [ "$1" = passkey ] && echo 4 || echo 10; }
mkdir -p "$OUT"

if [ $mode != figures ]; then
  echo "$([ -z "$PACK" ] && echo 'PACK= ')${TASKS:+TASKS=\"$TASKS\" }${SCHEMES:+SCHEMES=\"$SCHEMES\" }${SEEDS:+SEEDS=\"$SEEDS\" }tools/tasks.sh $*   ($(date -u +%Y-%m-%d), $($BIN --version 2>/dev/null | head -1))" >> "$OUT/command.txt"
  # the data: one set per task, the same for every scheme and seed
  for t in $tasks; do
    dd=$OUT/data/$t
    [ -s "$dd/test.txt" ] && [ -s "$dd/longest" ] && continue
    L=$(task_L "$t") mult=2 per=100
    [ "$t" = passkey ] && mult=8 per=20
    "$BIN" task gen --task "$t" --max-len "$L" --n 20000 --test-mult $mult --test-per-len $per --seed 1 --out "$dd" --overwrite > /dev/null
    echo "$L" > "$dd/L"
    awk -F'\t' '{ n = length($3); if (n > m) m = n } END { print m }' "$dd/test.txt" > "$dd/longest"
  done
  # the runs
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  for t in $tasks; do
    for s in $schemes; do
      case " $core_tasks " in *" $t "*) ;; *)
        [ $mode = default ] && case " $kaz_schemes " in *" $s "*) ;; *) continue ;; esac ;;
      esac
      for seed in $seeds; do echo "$t $s $seed"; done
    done
  done > "$list"
  n=$(wc -l < "$list")
  echo "tasks study: $n runs into $OUT" >&2
  t_start=$SECONDS
  # on this machine JOBS at a time, or over RANKS MPI processes (tools/sweep.sh); the runs'
  # settings travel in the environment (-x for processes on other hosts)
  JOBS=$jobs SWEEP_ENV="OUT STEPS LR MODEL BIN PACK" tools/sweep.sh "$list" "$self" --one || failed=1
  echo "tasks study wall time: $(( (SECONDS - t_start) / 60 )) min for $n runs (runs done earlier take no time)" | tee -a "$OUT/walltime.txt" >&2
fi

# ---- the table and figures, from every acc.csv in the folder ----
tools/tasks_report.sh "$OUT"
exit $failed
