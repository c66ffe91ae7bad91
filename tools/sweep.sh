#!/usr/bin/env bash
# sweep.sh - run a list of independent jobs (the study scripts' runs: one training and its
# evaluations each) with one command, on this machine JOBS at a time, or spread over the
# processes of an MPI launch, which may span hosts.
#
#   tools/sweep.sh LIST CMD [ARGS...]    runs `CMD ARGS WORDS` for each line of LIST (its words)
#
# The list is read the way a shell reads words, but nothing is expanded or run: words are
# separated by blanks; 'a b' and "a b" are one word (in "...", \" and \\ stand for " and \);
# a backslash outside quotes keeps the next character as it is; a word that starts with #
# begins a comment to the end of the line; blank lines and comment lines are skipped; CRLF
# line ends, a UTF-8 byte-order mark and a last line without a newline are read like the
# others; $, *, ?, ~ and backquotes are plain characters (no variables, no globbing). A quote
# left open on its line (a line does not continue on the next) is an error naming the line,
# before any job starts.
#
# Environment:
#   JOBS=N       jobs at once on this machine (1 to 1024; default 1; anything else is refused)
#   RANKS=N      spread the lines over N processes of `mpirun -np N` instead (1 to 65536):
#                process r runs jobs r, r+N, r+2N, ... (JOBS is then per process)
#   MPIRUN="..." the launcher and its options (default: mpirun --bind-to none, plus
#                --oversubscribe, and --allow-run-as-root as root); e.g. for several hosts
#                MPIRUN="mpirun --hostfile hosts --bind-to none"
#   SWEEP_ENV="A B"  variables the jobs need, passed to every process (mpirun -x): processes on
#                other hosts do not inherit this shell's environment
# The jobs themselves are ordinary single-process commands: each MPI process unsets the
# launcher's variables before it runs them. A job must skip what it finished before (so the
# sweep resumes where it stopped), and write where every host sees it (a shared filesystem).
# A failed job does not stop the others; the sweep lists the failures at the end and exits 1.
# SIGINT, SIGTERM or SIGHUP to the sweep sends SIGTERM to every running job (its process
# group), waits for them to end, lists the jobs it stopped and those that did not run, and
# ends by that signal (status 128 + the signal), so that a script that runs the sweep and got the
# same Ctrl-C stops as well. Under RANKS, mpirun passes the signal on to each process, which does
# the same for its jobs; OpenMPI sends it after odls_base_sigkill_timeout seconds (default 1)
# and kills the processes as long after that (OMPI_MCA_odls_base_sigkill_timeout=N for more).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
if [ $# -lt 2 ]; then # (--help is answered above)
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
fi
list=$1; shift
[ -r "$list" ] && [ ! -d "$list" ] || { echo "sweep.sh: cannot read the list '$list'" >&2; exit 2; }
self=$(realpath "$0")
cmd=("$@")
rank=""
US=$'\037' # separates the fields of a parsed job

# count NAME MAX: the variable NAME, unless unset or empty, is a whole number from 1 to MAX
count() {
  local v=${!1-}
  [ -z "$v" ] && return 0
  [[ $v =~ ^[1-9][0-9]{0,5}$ ]] && [ "$v" -le "$2" ] \
    || { echo "sweep.sh: $1 must be a positive number from 1 to $2, got '$v'" >&2; exit 2; }
}
count JOBS 1024
count RANKS 65536

# parse LIST: its jobs, one a line: LINE-NUMBER US TEXT US WORD US WORD ... US .
# (the closing "." keeps an empty last word); an unbalanced quote is an error (exit 2)
parse() {
  LC_ALL=C awk -v list="$1" -v US="$US" '
    function fail(why) { printf "sweep.sh: %s:%d: %s\n", list, NR, why > "/dev/stderr"; bad = 1 }
    {
      sub(/\r$/, ""); if (NR == 1) sub(/^\357\273\277/, ""); line = $0; n = 0; w = ""; inword = 0; q = ""; len = length(line)
      if (index(line, US)) { fail("a control character (\\037) in the line"); next }
      for (i = 1; i <= len; i++) {
        c = substr(line, i, 1)
        if (q == "\047") { if (c == q) q = ""; else w = w c; continue }
        if (q == "\"") {
          if (c == q) q = ""
          else if (c == "\\" && i < len && index("\"\\", substr(line, i + 1, 1))) w = w substr(line, ++i, 1)
          else w = w c
          continue
        }
        if (c == " " || c == "\t") { if (inword) words[++n] = w; w = ""; inword = 0; continue }
        if (c == "#" && !inword) break
        inword = 1
        if (c == "\047" || c == "\"") { q = c; at = i }
        else if (c == "\\") { if (i == len) { fail("a backslash ends the line (a line does not continue on the next)"); next } w = w substr(line, ++i, 1) }
        else w = w c
      }
      if (q != "") { fail("the " q " quote opened at column " at " is not closed on its line"); next }
      if (inword) words[++n] = w
      if (!n) next
      text = line; sub(/^[ \t]+/, "", text); sub(/[ \t]+$/, "", text)
      out = NR US text
      for (k = 1; k <= n; k++) out = out US words[k]
      print out US "."
    }
    END { exit bad ? 2 : 0 }' "$1"
}

# wait_below N: wait until fewer than N jobs are left, counting those that run or are stopped
# (SIGSTOP, SIGTSTP): the jobs the shell still holds, not the times wait returned. bash's wait
# returns early when this shell is itself stopped and continued (the whole sweep paused with
# SIGSTOP, then SIGCONT): counting returns started one job too many each time. It waits with job
# control off (run_jobs turns it on only to start a job in its own process group): with it on,
# bash notices a job stopped by SIGTSTP and leaves every loop it is in (the sweep ended at once,
# or started more than JOBS), and wait -n returns as if a stopped job had ended
wait_below() {
  local n
  while n=$(jobs -p | wc -l) && [ "$n" -ge "$1" ]; do
    wait -n 2> /dev/null || true
    [ "$(jobs -p | wc -l)" -lt "$n" ] || sleep 1 # (nothing ended: look again in a second)
  done
}

# run_jobs FAILED JOB...: the parsed jobs, JOBS at a time, each in its own process group; a
# failed job's text is appended to FAILED; a signal stops them (on_signal)
run_jobs() {
  local failed=$1 i f
  shift
  recs=("$@") pids=() started=0
  trap 'on_signal INT 2' INT
  trap 'on_signal TERM 15' TERM
  trap 'on_signal HUP 1' HUP
  for i in "${!recs[@]}"; do
    IFS=$US read -r -a f <<< "${recs[i]}"
    set -m # each job (a subshell) leads its own process group: a signal stops all of its processes
    ( "${cmd[@]}" "${f[@]:2:${#f[@]}-3}" < /dev/null \
        || { echo "sweep.sh: job failed${rank:+ (process $rank)}: ${f[1]}" >&2; echo "${f[1]}" >> "$failed"; }
      echo "$i" >> "$done_file" ) &
    pids[i]=$! started=$((i + 1))
    set +m
    wait_below "${JOBS:-1}"
  done
  wait_below 1
  trap - INT TERM HUP
}

# on_signal NAME NUMBER: stop the running jobs, say what was stopped and what did not run, exit
on_signal() {
  trap '' INT TERM HUP
  local i stopped=() left=()
  exec 3>&2 2> /dev/null # (bash would report each stopped job as "Terminated")
  for i in "${!pids[@]}"; do
    grep -qx "$i" "$done_file" 2> /dev/null && continue
    kill -TERM -- "-${pids[i]}" 2> /dev/null || true
    stopped+=("$(cut -d "$US" -f2 <<< "${recs[i]}")")
  done
  wait || true # (a posgpt train saves its step on SIGTERM)
  jobs > /dev/null # (their notices, here rather than later)
  exec 2>&3 3>&-
  for ((i = started; i < ${#recs[@]}; i++)); do left+=("$(cut -d "$US" -f2 <<< "${recs[i]}")"); done
  {
    echo "sweep: received SIG$1${rank:+ (process $rank)}: stopped ${#stopped[@]} running job(s), ${#left[@]} did not run"
    [ ${#stopped[@]} = 0 ] || printf '  stopped: %s\n' "${stopped[@]}"
    [ ${#left[@]} = 0 ] || printf '  not run: %s\n' "${left[@]}"
  } >&2
  die_by "$1" "$2"
}

# die_by NAME NUMBER: end by the signal itself (status 128 + NUMBER), so that a calling script that
# got the same Ctrl-C stops too instead of going on to its next step (bash does so only when its
# child died of SIGINT, not when it exited 130)
die_by() {
  trap - "$1"
  kill -s "$1" $$
  exit $((128 + $2))
}

# on_mpi_signal NAME NUMBER: the launch's processes stop their jobs (mpirun passes SIGTERM on)
on_mpi_signal() {
  trap '' INT TERM HUP
  kill -TERM "$mpi" 2> /dev/null || true
  wait "$mpi" || true
  rm -f "$list".failed.*
  echo "sweep: received SIG$1: the MPI processes were stopped (above: what each stopped and did not run)" >&2
  die_by "$1" "$2"
}

parsed=$(mktemp) failed=$(mktemp) done_file=$(mktemp)
trap 'rm -f "$parsed" "$failed" "$done_file"' EXIT
parse "$list" > "$parsed" || exit 2
mapfile -t all < "$parsed"
n=${#all[@]}

# one process of an MPI launch: its share of the jobs; its failures into LIST.failed.RANK
if [ -n "${SWEEP_RANK_OF:-}" ]; then
  rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-}}}}
  [ -n "$rank" ] || { echo "sweep.sh: RANKS=$SWEEP_RANK_OF, but no MPI rank in the environment" >&2; exit 2; }
  for v in $(compgen -e | grep -E '^(OMPI_|PMIX_|PMI_|OPAL_|ORTE_)' || true); do unset "$v"; done # the jobs run alone
  mine=()
  for ((i = rank; i < n; i += SWEEP_RANK_OF)); do mine+=("${all[i]}"); done
  : > "$list.failed.$rank"
  run_jobs "$list.failed.$rank" ${mine[@]+"${mine[@]}"}
  exit 0 # a failure is in the file: a non-zero status would make mpirun stop the other processes
fi

if [ -n "${RANKS:-}" ]; then
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
  # in the background, so that a signal reaches the trap at once; mpirun passes it on to the
  # processes, which stop their jobs and say what did not run
  SWEEP_RANK_OF=$RANKS "${launcher[@]}" -np "$RANKS" "${pass[@]}" "$self" "$list" "$@" & mpi=$!
  trap 'on_mpi_signal INT 2' INT
  trap 'on_mpi_signal TERM 15' TERM
  trap 'on_mpi_signal HUP 1' HUP
  while kill -0 "$mpi" 2> /dev/null; do wait "$mpi" || true; done # (wait returns early if this shell is paused and continued)
  cat "$list".failed.* > "$failed" 2> /dev/null || true
  rm -f "$list".failed.*
else
  echo "sweep: $n jobs, ${JOBS:-1} at a time" >&2
  run_jobs "$failed" ${all[@]+"${all[@]}"}
fi
if [ -s "$failed" ]; then
  echo "sweep: $(wc -l < "$failed") of $n jobs failed:" >&2
  sed 's/^/  /' "$failed" >&2
  exit 1
fi
