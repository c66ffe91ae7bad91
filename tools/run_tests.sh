#!/usr/bin/env bash
# run_tests.sh - run every test binary in build/tests and every tests/*.sh, add up their
# PASS/FAIL lines, and end with "N passed, N failed". A test that exits non-zero without
# printing a FAIL line (a crash) counts as one failure. Exit status: 0 only if nothing failed.
# POSGPT=binary and TESTDIR=folder of test binaries test another build (make test-sanitize,
# test-clang); SHELL_TESTS="test_cli.sh ..." runs only those shell tests (none: SHELL_TESTS=" "),
# C_TESTS="test_core ..." only those test binaries; RUNNER="qemu-aarch64 -L DIR" runs each test
# binary through that command (make test-arm64).
set -u
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
# OpenMP threads that wait asleep, not spinning: on a machine busy with other work a spinning
# thread burns the slice its partner needs, and the many small parallel regions of the
# gradient checks slow down by 30x (test_model_d: 18 s alone, 652 s beside three CPU-bound
# processes on 2 cores; 209 s with passive waiting). Results do not depend on it.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
pass=0 fail=0
log=$(mktemp)
run() {
  local name=$1; shift
  local t0=$SECONDS
  "$@" > "$log" 2>&1; local rc=$?
  local p f
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  grep '^FAIL ' "$log"
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: exited with status $rc without reporting a failure; last lines:"; tail -5 "$log"; f=1
  fi
  pass=$((pass + p)); fail=$((fail + f))
  printf "%-28s %4d passed, %d failed  (%ds)\n" "$name" "$p" "$f" $((SECONDS - t0))
}
for t in ${C_TESTS:-"${TESTDIR:-build/tests}"/test_*}; do t=${TESTDIR:-build/tests}/${t##*/}; run "${t##*/}" ${RUNNER:-} "$t"; done
for t in ${SHELL_TESTS:-tests/test_*.sh}; do t=tests/${t#tests/}; run "$(basename "$t")" bash "$t"; done
rm -f "$log"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
