#!/usr/bin/env bash
# test_sweep.sh - tools/sweep.sh, which runs the studies' lists of runs: on this machine JOBS at
# a time, and (when OpenMPI is installed) over RANKS MPI processes. Checks that every line runs
# exactly once with its words as arguments, that a failed job neither stops the others nor
# goes unreported (listed, exit 1), that the jobs under MPI do not see the launcher's
# variables (a posgpt they start must run alone), and that SWEEP_ENV reaches them.
# The list is read as a user writes it: quoted words ('a b', "a b", "x\"y", ''), comments
# (to the end of a line, whole lines), blank lines, CRLF ends and a last line without a newline;
# nothing is expanded (*, ?, $HOME, backquotes, ~), also over MPI; an unbalanced quote is an
# error naming the line before any job runs. SIGTERM or SIGINT to the sweep stops its running
# jobs (their whole process groups), lists them and the jobs that did not run, and exits
# 128 + the signal. JOBS and RANKS outside 1..1024 and 1..65536 are refused naming the variable.
. "$(dirname "$0")/lib.sh" sweep
cat > "$tmp/job.sh" << 'JOB'
#!/usr/bin/env bash
echo "$2 $3 ${OMPI_COMM_WORLD_SIZE:-alone} ${SWEEP_TEST_VAR:-unset}" >> "$1/ran.$$"
[ "$2" != bad ]
JOB
chmod +x "$tmp/job.sh"
printf 'a 1\nb 2\n\nbad 3\nc 4\nd 5\n' > "$tmp/list"
ran() { cat "$tmp"/out/ran.* 2> /dev/null | sort; }
want=$'a 1\nb 2\nbad 3\nc 4\nd 5'
for mode in local mpi; do
  if [ $mode = mpi ] && ! command -v mpirun > /dev/null; then
    [ "${POSGPT_REQUIRE_MPI:-0}" = 1 ] && bad "sweep over MPI" "mpirun is missing" || echo "# skipped the MPI part: no mpirun"
    continue
  fi
  rm -rf "$tmp/out"; mkdir "$tmp/out"
  if [ $mode = local ]; then
    JOBS=2 tools/sweep.sh "$tmp/list" "$tmp/job.sh" "$tmp/out" > "$tmp/o" 2> "$tmp/e"; rc=$?
  else
    SWEEP_TEST_VAR=yes RANKS=2 SWEEP_ENV="SWEEP_TEST_VAR" tools/sweep.sh "$tmp/list" "$tmp/job.sh" "$tmp/out" > "$tmp/o" 2> "$tmp/e"; rc=$?
  fi
  got=$(ran | cut -d' ' -f1,2)
  [ "$got" = "$want" ] && ok "$mode: every line ran once, its words as arguments" || bad "$mode: lines run" "$(echo $got)"
  [ $rc = 1 ] && grep -q "sweep: 1 of 5 jobs failed" "$tmp/e" && grep -q "^  bad 3$" "$tmp/e" \
    && ok "$mode: the failed job is listed and the sweep exits 1; the others ran" || bad "$mode: failure" "rc $rc; $(tail -2 "$tmp/e")"
  if [ $mode = mpi ]; then
    [ "$(ran | cut -d' ' -f3 | sort -u)" = alone ] && ok "mpi: the jobs do not see the launcher's variables" \
      || bad "mpi: environment" "$(ran | cut -d' ' -f3 | sort -u | tr '\n' ' ')"
    [ "$(ran | cut -d' ' -f4 | sort -u)" = yes ] && ok "mpi: SWEEP_ENV reaches the jobs" || bad "mpi: SWEEP_ENV" "$(ran | head -2)"
    [ ! -e "$tmp/list.failed.0" ] && ok "mpi: no per-process failure files are left" || bad "mpi: leftovers" "$(ls "$tmp")"
  fi
done
tools/sweep.sh "$tmp/nonexistent" true 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "cannot read the list" "$tmp/e" && ok "a missing list: exit 2 and a message" || bad "missing list" "rc $rc"
RANKS=two tools/sweep.sh "$tmp/list" true 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "RANKS must be a positive number" "$tmp/e" && ok "RANKS=two: exit 2 and a message" || bad "RANKS=two" "rc $rc"
for v in JOBS=0 JOBS=two JOBS=-1 JOBS=1025 JOBS=08 RANKS=0 RANKS=-2 RANKS=99999999999; do
  env "$v" tools/sweep.sh "$tmp/list" true > /dev/null 2> "$tmp/e"; rc=$?
  [ $rc = 2 ] && grep -q "sweep.sh: ${v%%=*} must be a positive number from 1 to [0-9]*, got '${v#*=}'" "$tmp/e" \
    && ok "$v: exit 2 and a message naming it" || bad "$v" "rc $rc; $(head -1 "$tmp/e")"
done
tools/sweep.sh --help | grep -q "'a b' and \"a b\" are one word" && ok "--help describes the list's syntax" || bad "--help" "no syntax"

# ---- the list, read as a user writes it ----
cat > "$tmp/args.sh" << 'JOB'
#!/usr/bin/env bash
out=$1; shift; line=$(printf '[%s]' "$@"); echo "$line" >> "$out" # (one write: two ranks append at once)
JOB
chmod +x "$tmp/args.sh"
{ printf '\357\273\277'; printf '%s\n' "sq 'b c'  'd'" 'dq "b c" "x\"y" "a\\b"' "cm 1 # not 2" "# a comment line" "   # an indented one" "" "   " \
  "gl * ? [a]*" 'nx $HOME `id` ~ $(id)' "em '' x" "bs a\\ b" "hash a#b"; } > "$tmp/words"
printf 'cr 1\r\n# crlf comment\r\n\r\nlast 1' >> "$tmp/words"
mkdir -p "$tmp/cwd"; touch "$tmp/cwd/a1" "$tmp/cwd/b"
(cd "$tmp/cwd" && "$OLDPWD/tools/sweep.sh" "$tmp/words" "$tmp/args.sh" "$tmp/words.out") > /dev/null 2> "$tmp/e"; rc=$?
line() { grep -q -x -F -- "$1" "$tmp/words.out" && ok "$2" || bad "$2" "want $1; got: $(tr '\r\n' '^|' < "$tmp/words.out")"; }
line "[sq][b c][d]" "single quotes keep 'b c' one word (on a first line after a UTF-8 byte-order mark)"
line '[dq][b c][x"y][a\b]' "double quotes keep \"b c\" one word; \\\" and \\\\ inside them"
line "[cm][1]" "a comment to the end of a line is dropped"
line "[gl][*][?][[a]*]" "no globbing: * ? [a]* stay as written (in a directory where they would match)"
line '[nx][$HOME][`id`][~][$(id)]' "no expansion: \$HOME, backquotes, ~, \$(...) stay as written"
line "[em][][x]" "'' is an empty word"
line "[bs][a b]" "a backslash outside quotes keeps the blank after it"
line "[hash][a#b]" "a # inside a word is not a comment"
line "[cr][1]" "CRLF line ends: no carriage return in the words"
line "[last][1]" "a last line without a newline runs"
[ $rc = 0 ] && [ "$(wc -l < "$tmp/words.out")" = 10 ] && grep -q "sweep: 10 jobs" "$tmp/e" \
  && ok "comment lines, blank and blank-looking lines run nothing (10 jobs)" || bad "jobs counted" "rc $rc; $(wc -l < "$tmp/words.out") ran; $(head -1 "$tmp/e")"
for q in "'" '"'; do
  printf 'ok 1\nok 2 %sopen\nok 3\n' "$q" > "$tmp/unbal"; rm -f "$tmp/unbal.out"
  tools/sweep.sh "$tmp/unbal" "$tmp/args.sh" "$tmp/unbal.out" > /dev/null 2> "$tmp/e"; rc=$?
  [ $rc = 2 ] && grep -q "sweep.sh: $tmp/unbal:2: the $q quote opened at column 6 is not closed on its line" "$tmp/e" && [ ! -e "$tmp/unbal.out" ] \
    && ok "an unbalanced $q: exit 2, the line named, no job ran" || bad "unbalanced $q" "rc $rc; $(head -1 "$tmp/e"); $(cat "$tmp/unbal.out" 2> /dev/null)"
done
if command -v mpirun > /dev/null; then
  rm -f "$tmp/mpi.out"; printf "m1 'b c' *\nm2 \"d e\" # x\r\n" > "$tmp/mlist"
  RANKS=2 tools/sweep.sh "$tmp/mlist" "$tmp/args.sh" "$tmp/mpi.out" > /dev/null 2>&1
  [ "$(sort "$tmp/mpi.out" | tr '\n' '|')" = "[m1][b c][*]|[m2][d e]|" ] && ok "mpi: quoted words and comments likewise" \
    || bad "mpi: words" "$(cat "$tmp/mpi.out")"
fi

# ---- a signal stops the running jobs and lists what did not run ----
cat > "$tmp/slow.sh" << 'JOB'
#!/usr/bin/env bash
sleep 60 & echo "$!" >> "$1/pids"; echo "$$" >> "$1/pids"; wait
JOB
chmod +x "$tmp/slow.sh"
printf 'j1\nj2\nj3\nj4\n' > "$tmp/slow"
modes="TERM INT"; command -v mpirun > /dev/null && modes+=" mpi"
for sig in $modes; do
  rm -rf "$tmp/s"; mkdir "$tmp/s"
  # (a background job of a script starts with SIGINT ignored, and a shell cannot trap a signal
  # ignored at its start: env --default-signal gives the sweep SIGINT as a terminal's Ctrl-C
  # would find it, whether or not this shell has job control or a terminal)
  if [ $sig = mpi ]; then OMPI_MCA_odls_base_sigkill_timeout=3 RANKS=2 env --default-signal=INT tools/sweep.sh "$tmp/slow" "$tmp/slow.sh" "$tmp/s" 2> "$tmp/e" & pid=$!
  else JOBS=2 env --default-signal=INT tools/sweep.sh "$tmp/slow" "$tmp/slow.sh" "$tmp/s" 2> "$tmp/e" & pid=$!; fi
  for _ in $(seq 100); do [ "$(cat "$tmp/s/pids" 2> /dev/null | wc -l)" = 4 ] && break; sleep 0.1; done
  t0=$(date +%s); kill -${sig/mpi/TERM} $pid; timeout 20 tail --pid=$pid -f /dev/null; wait $pid; rc=$?
  alive=$(for p in $(cat "$tmp/s/pids"); do s=$(ps -o stat= -p "$p") && [ "${s#Z}" = "$s" ] && echo "$p"; done) # (not a zombie)
  want=$([ $sig = INT ] && echo 130 || echo 143)
  said="sweep: received SIG$sig: stopped 2 running job(s), 2 did not run" n=1
  [ $sig = mpi ] && said="sweep: received SIGTERM (process [01]): stopped 1 running job(s), 1 did not run" n=2 # each process
  if [ $rc = "$want" ] && [ -z "$alive" ] && [ "$(grep -c "$said" "$tmp/e")" = $n ] \
     && [ "$(grep -c '^  stopped: j[12]$' "$tmp/e")" = 2 ] && [ "$(grep -c '^  not run: j[34]$' "$tmp/e")" = 2 ]; then
    ok "SIG${sig/mpi/TERM over RANKS=2}: the running jobs and their children stopped in $(($(date +%s) - t0)) s, listed with those that did not run, exit $rc"
  else bad "SIG$sig" "rc $rc; alive: $(echo $alive); $(tr '\n' '|' < "$tmp/e")"; fi
  kill $alive 2> /dev/null
done

# paused and continued (SIGSTOP, then SIGCONT, to the running jobs' process groups, as a user
# pauses a study to take a measurement): still JOBS at a time. Each job logs its start and
# end; the most running at once, from the log, must be 2 (bash's wait -n returned when a job
# stopped, and the sweep started a third job)
cat > "$tmp/timed.sh" << 'JOB'
#!/usr/bin/env bash
echo "$(date +%s%N) 1" >> "$1/log"; sleep 3; echo "$(date +%s%N) -1" >> "$1/log"
JOB
chmod +x "$tmp/timed.sh"
printf 'k1\nk2\nk3\nk4\n' > "$tmp/four"
# pause HOW: STOP or TSTP to both jobs' groups; "sweep": the sweep itself stopped and one job
# stopped by SIGTSTP twice (with job control on, bash left its loops on a SIGTSTP: the sweep ended
# at once with status 127 and its stopped jobs died of SIGHUP, or it started a third job)
for how in STOP TSTP sweep; do
  rm -rf "$tmp/p"; mkdir "$tmp/p"
  setsid env JOBS=2 tools/sweep.sh "$tmp/four" "$tmp/timed.sh" "$tmp/p" 2> "$tmp/pe" & pid=$!
  for _ in $(seq 100); do [ "$(wc -l 2> /dev/null < "$tmp/p/log")" = 2 ] && break; sleep 0.05; done
  # (the jobs' groups: a job stopped and continued made bash's wait return as if it had ended)
  groups=$(ps -eo pgid=,args= | awk -v d="$tmp/four" -v m=$pid 'index($0, d) && !/awk/ && $1 != m { print $1 }' | sort -u)
  if [ $how = sweep ]; then
    g=$(head -1 <<< "$groups"); kill -STOP $pid
    for _ in 1 2; do kill -TSTP -- "-$g"; sleep 0.5; kill -CONT -- "-$g"; sleep 0.3; done
    kill -CONT $pid
  else
    for g in $groups; do kill -$how -- "-$g"; done
    sleep 1
    for g in $groups; do kill -CONT -- "-$g"; done
  fi
  timeout 30 tail --pid=$pid -f /dev/null; wait $pid; rc=$?
  most=$(sort -n "$tmp/p/log" | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
  [ $rc = 0 ] && [ "$most" = 2 ] && [ "$(wc -l < "$tmp/p/log")" = 8 ] && [ "$(echo $groups | wc -w)" = 2 ] \
    && ok "paused ($how) and continued: still at most JOBS=2 jobs at once, all 4 run, exit 0" \
    || bad "sweep paused ($how)" "rc $rc, at most $most at once, $(echo $groups | wc -w) groups: $(tr '\n' '|' < "$tmp/p/log")"
done

# Ctrl-C (SIGINT to the process group) to a script that runs two sweeps one after the other: the
# sweep ends by the signal, so the script stops too and the second sweep never starts
cat > "$tmp/two.sh" << 'JOB'
#!/usr/bin/env bash
tools/sweep.sh "$1/list1" "$1/slow.sh" "$1/d" || echo "first sweep: $?" >> "$1/d/after"
echo second >> "$1/d/after"
tools/sweep.sh "$1/list1" "$1/slow.sh" "$1/d"
JOB
chmod +x "$tmp/two.sh"; rm -rf "$tmp/d"; mkdir "$tmp/d"; echo j1 > "$tmp/list1"
setsid env --default-signal=INT "$tmp/two.sh" "$tmp" 2> /dev/null & pid=$!
for _ in $(seq 100); do [ -s "$tmp/d/pids" ] && break; sleep 0.1; done
kill -INT -- -$pid; timeout 20 tail --pid=$pid -f /dev/null; wait $pid; rc=$?
[ $rc = 130 ] && [ ! -e "$tmp/d/after" ] && ok "Ctrl-C to a script running sweeps: the sweep ends by SIGINT, the script stops (exit 130), nothing after it runs" \
  || bad "Ctrl-C to the caller" "rc $rc; after: $(cat "$tmp/d/after" 2> /dev/null | tr '\n' '|')"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
