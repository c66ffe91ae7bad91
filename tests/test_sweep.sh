#!/usr/bin/env bash
# test_sweep.sh - tools/sweep.sh, which runs the studies' lists of runs: on this machine JOBS at
# a time, and (when OpenMPI is installed) over RANKS MPI processes. Checks that every line runs
# exactly once with its words as arguments, that a failed job neither stops the others nor
# goes unreported (listed, exit 1), that the jobs under MPI do not see the launcher's
# variables (a posgpt they start must run alone), and that SWEEP_ENV reaches them.
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
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
