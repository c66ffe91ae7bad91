#!/usr/bin/env bash
# run_tests.sh - run every test binary in build/tests and every tests/*.sh, add up their
# PASS/FAIL lines (each FAIL line printed with the lines its message continues on), and end with
# "N passed, N failed". A test that exits non-zero without printing a FAIL line (a crash) counts
# as one failure. Exit status: 0 only if nothing failed.
# POSGPT=binary and TESTDIR=folder of test binaries test another build (make test-sanitize,
# test-clang); SHELL_TESTS="test_cli.sh ..." runs only those shell tests (none: SHELL_TESTS=" "),
# C_TESTS="test_core ..." only those test binaries; SKIP_TESTS="test_mpi.sh ..." leaves those out
# (make test-sanitize); RUNNER="qemu-aarch64 -L DIR" runs each test binary through that command
# (make test-arm64).
set -u
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
# How OpenMP threads wait between parallel regions (results do not depend on it; the gradient
# checks' many small regions do on the time): on a machine busy with other work (its 1-minute
# load average above its core count by 1 or more: more than the suite's own last minute, a
# build or a 2-thread test, can make) asleep, since a spinning thread burns the slice its
# partner needs (test_model_d 652 s spinning beside three CPU-bound processes on 2 cores, 209 s
# asleep); on a quiet one spinning up to 10M turns before sleeping, since waking a sleeping
# thread for every region costs more than the regions (test_model_d on 2 quiet cores: 248 s
# with OMP_WAIT_POLICY=PASSIVE, 75 s with libgomp's default spin, 42 s with 10M turns; an
# oversubscribed team still spins briefly: libgomp's own rule). Either set: left as it is.
if [ -z "${OMP_WAIT_POLICY:-}${GOMP_SPINCOUNT:-}" ]; then
  if awk -v n="$(nproc)" '{ exit !($1 >= n + 1) }' /proc/loadavg 2> /dev/null; then export OMP_WAIT_POLICY=PASSIVE
  else export GOMP_SPINCOUNT=10000000; fi
fi
pass=0 fail=0
log=$(mktemp)
run() {
  local name=$1; shift
  local t0=$SECONDS
  "$@" > "$log" 2>&1; local rc=$?
  local p f
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  # each FAIL line with the lines its message runs on to (up to 12; CI shows only this output)
  awk '/^FAIL / { print; k = 12; next } /^(PASS |# )/ { k = 0; next } k > 0 { print "    " $0; k-- }' "$log"
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: exited with status $rc without reporting a failure; last lines:"; tail -5 "$log"; f=1
  fi
  pass=$((pass + p)); fail=$((fail + f))
  printf "%-28s %4d passed, %d failed  (%ds)\n" "$name" "$p" "$f" $((SECONDS - t0))
}
skip() { case " ${SKIP_TESTS:-} " in *" $1 "*) return 0;; esac; return 1; }
for t in ${C_TESTS:-"${TESTDIR:-build/tests}"/test_*}; do t=${TESTDIR:-build/tests}/${t##*/}; skip "${t##*/}" || run "${t##*/}" ${RUNNER:-} "$t"; done
for t in ${SHELL_TESTS:-tests/test_*.sh}; do t=tests/${t#tests/}; skip "$(basename "$t")" || run "$(basename "$t")" bash "$t"; done
[ -z "${SKIP_TESTS:-}" ] || echo "(left out: $SKIP_TESTS)"
rm -f "$log"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
