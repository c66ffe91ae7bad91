# lib.sh - shared set-up for the shell tests, sourced as: . "$(dirname "$0")/lib.sh" NAME
# Moves to the repo root, sets BIN (the posgpt binary, $POSGPT to override), makes a
# temporary directory $tmp removed at exit, and defines ok/bad, which print PASS/FAIL lines
# and count them in $pass/$fail (the script ends with: echo "# $pass passed, $fail failed").
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=${POSGPT:-./posgpt}
tmp=$(mktemp -d "/tmp/posgpt-$1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
