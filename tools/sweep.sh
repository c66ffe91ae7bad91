#!/usr/bin/env bash
# sweep.sh - run a list of independent jobs (the study scripts' runs: one training and its
# evaluations each) with one command, on this machine JOBS at a time, or spread over the
# processes of an MPI launch, which may span hosts.
#
#   tools/sweep.sh LIST CMD [ARGS...]    runs `CMD ARGS WORDS` for each line of LIST (its words)
#
# Environment:
#   JOBS=N       jobs at once on this machine (default 1)
#   RANKS=N      spread the lines over N processes of `mpirun -np N` instead: process r runs
#                lines r, r+N, r+2N, ... one after another (JOBS is then per process)
#   MPIRUN="..." the launcher and its options (default: mpirun --bind-to none, plus
#                --oversubscribe, and --allow-run-as-root as root); e.g. for several hosts
#                MPIRUN="mpirun --hostfile hosts --bind-to none"
#   SWEEP_ENV="A B"  variables the jobs need, passed to every process (mpirun -x): processes on
#                other hosts do not inherit this shell's environment
# The jobs themselves are ordinary single-process commands: each MPI process unsets the
# launcher's variables before it runs them. A job must skip what it finished before (so the
# sweep resumes where it stopped), and write where every host sees it (a shared filesystem).
# A failed job does not stop the others; the sweep lists the failures at the end and exits 1.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
if [ $# -lt 2 ]; then # (--help is answered above)
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
fi
list=$1; shift
[ -r "$list" ] || { echo "sweep.sh: cannot read the list '$list'" >&2; exit 2; }
self=$(realpath "$0")

# run_lines FILE FAILED: the lines of FILE, JOBS at a time; each failed line is appended to FAILED
run_lines() {
  local line running=0
  while read -r line; do
    [ -n "$line" ] || continue
    # shellcheck disable=SC2086 # a line's words are the job's arguments
    ( "${cmd[@]}" $line < /dev/null || { echo "sweep.sh: job failed${rank:+ (process $rank)}: $line" >&2; echo "$line" >> "$2"; } ) &
    running=$((running + 1))
    if [ $running -ge "${JOBS:-1}" ]; then wait -n || true; running=$((running - 1)); fi
  done < "$1"
  wait
}
cmd=("$@")
rank=""

# one process of an MPI launch: its share of the lines; its failures into LIST.failed.RANK
if [ -n "${SWEEP_RANK_OF:-}" ]; then
  rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-}}}}
  [ -n "$rank" ] || { echo "sweep.sh: RANKS=$SWEEP_RANK_OF, but no MPI rank in the environment" >&2; exit 2; }
  for v in $(compgen -e | grep -E '^(OMPI_|PMIX_|PMI_|OPAL_|ORTE_)' || true); do unset "$v"; done # the jobs run alone
  mine=$(mktemp)
  awk -v r="$rank" -v n="$SWEEP_RANK_OF" 'NF && (++i - 1) % n == r' "$list" > "$mine"
  : > "$list.failed.$rank"
  run_lines "$mine" "$list.failed.$rank"
  rm -f "$mine"
  exit 0 # a failure is in the file: a non-zero status would make mpirun stop the other processes
fi

n=$(grep -c . "$list" || true)
failed=$(mktemp)
trap 'rm -f "$failed"' EXIT
if [ -n "${RANKS:-}" ]; then
  [[ $RANKS =~ ^[1-9][0-9]*$ ]] || { echo "sweep.sh: RANKS must be a positive number, got '$RANKS'" >&2; exit 2; }
  if [ -n "${MPIRUN:-}" ]; then read -ra launcher <<< "$MPIRUN"
  else
    command -v mpirun > /dev/null || { echo "sweep.sh: RANKS=$RANKS needs mpirun (tools/deps.sh mpi)" >&2; exit 2; }
    launcher=(mpirun --bind-to none --oversubscribe)
    [ "$(id -u)" = 0 ] && launcher+=(--allow-run-as-root)
  fi
  echo "sweep: $n jobs over $RANKS MPI processes, ${JOBS:-1} at a time in each" >&2
  rm -f "$list".failed.*
  pass=(-x SWEEP_RANK_OF -x JOBS="${JOBS:-1}")
  for v in ${SWEEP_ENV:-}; do [ -z "${!v+set}" ] || pass+=(-x "$v"); done
  SWEEP_RANK_OF=$RANKS "${launcher[@]}" -np "$RANKS" "${pass[@]}" "$self" "$list" "$@"
  cat "$list".failed.* > "$failed" 2> /dev/null || true
  rm -f "$list".failed.*
else
  echo "sweep: $n jobs, ${JOBS:-1} at a time" >&2
  run_lines "$list" "$failed"
fi
if [ -s "$failed" ]; then
  echo "sweep: $(wc -l < "$failed") of $n jobs failed:" >&2
  sed 's/^/  /' "$failed" >&2
  exit 1
fi
