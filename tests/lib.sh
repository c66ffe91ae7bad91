# lib.sh - shared set-up for the shell tests, sourced as: . "$(dirname "$0")/lib.sh" NAME
# Moves to the repo root, sets BIN (the posgpt binary, $POSGPT to override), makes a
# temporary directory $tmp removed at exit, and defines ok/bad, which print PASS/FAIL lines
# and count them in $pass/$fail (the script ends with: echo "# $pass passed, $fail failed"),
# phrase_text, a small generated corpus, and refused NAME PATTERN COMMAND...: the command fails
# (not by a signal) with a one- or two-line error matching PATTERN.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=${POSGPT:-./posgpt}
tmp=$(mktemp -d "/tmp/posgpt-$1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
# phrase_text SEED LINES: lines like "behold the word of israel.", drawn from awk's rand
phrase_text() {
  awk -v seed="$1" -v n="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%s the %s of %s.\n", (rand() < .5 ? "behold" : "and"),
    (rand() < .5 ? "word" : "house"), (rand() < .5 ? "the lord" : "israel") }'
}
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
refused() { # name pattern command...
  local name=$1 pat=$2; shift 2
  "$@" > /dev/null 2> "$tmp/e"; local rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(grep -c . "$tmp/e")" -le 2 ] && grep -q -- "$pat" "$tmp/e"; then ok "$name -> $(grep error "$tmp/e")"
  else bad "$name" "rc=$rc: $(head -2 "$tmp/e")"; fi
}
