# test_add_scheme.sh - docs/adding-a-scheme.md is true: its worked example (ALiBi with learned
# slopes), taken from the page itself (the C block after "<!-- example: model/pos/lalibi.c -->"
# and the commands after "<!-- example: register -->"), added to a copy of the tree (the files
# git tracks, plus build/ when there is one, so that only what the example touches recompiles),
# builds, and the copy's gradient checks and shift test run on the new scheme and pass; no other
# file needs an edit (the copy's test_layout passes too). Each step says its time.
. "$(dirname "$0")/lib.sh" add_scheme

doc=docs/adding-a-scheme.md
# the fenced block after the marker line "<!-- example: NAME -->"
example() { awk -v m="<!-- example: $1 -->" '$0 == m { on = 1; next } on && /^```/ { if (++fence == 2) exit; next } on && fence == 1' $doc; }
code=$(example model/pos/lalibi.c)
register=$(example register)
[ -n "$code" ] && [ -n "$register" ] && ok "$doc holds the example's code and its registration" \
  || bad "doc" "$doc lacks the <!-- example: model/pos/lalibi.c --> or <!-- example: register --> block"

tree=$tmp/tree
mkdir -p "$tree"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$tree"
[ -d build ] && tar -cf - build | tar -xf - -C "$tree"
printf '%s\n' "$code" > "$tree/model/pos/lalibi.c"
(cd "$tree" && bash -c "$register") && grep -q 'X(lalibi)' "$tree/model/pos/core.c" \
  && ok "the registration command adds X(lalibi) to the registry" || bad "register" "no X(lalibi) in model/pos/core.c after: $register"

t0=$SECONDS
if (cd "$tree" && nice make -j2 posgpt build/tests/test_grad_d build/tests/test_model_d build/tests/test_shift) > "$tmp/make.log" 2>&1; then
  ok "the tree with the example builds ($((SECONDS - t0)) s)"
else
  bad "build" "make failed: $(grep -m3 -E 'error|Error' "$tmp/make.log")"
fi
warn=$(grep -E 'lalibi\.c.*warning' "$tmp/make.log")
[ -z "$warn" ] && ok "lalibi.c compiles without warnings" || bad "warnings" "$warn"
"$tree/posgpt" --help | grep -q '(--pos): .*lalibi' && ok "posgpt --help lists the new scheme" || bad "help" "lalibi not among --pos"

# the copy's own gradient checks and shift test: each names lalibi, and nothing fails
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
for t in test_grad_d test_model_d test_shift; do
  t0=$SECONDS
  # the gradient checks of the new scheme only (POSGPT_TEST_SCHEMES, tests/check.h): the other
  # schemes' checks are the suite's own, and all of them take minutes
  out=$(POSGPT_TEST_SCHEMES=lalibi "$tree/build/tests/$t" 2>&1); rc=$?
  n=$(printf '%s\n' "$out" | grep -c '^PASS .*lalibi')
  f=$(printf '%s\n' "$out" | grep '^FAIL ')
  if [ $rc -eq 0 ] && [ -z "$f" ] && [ "$n" -gt 0 ]; then ok "$t passes with the new scheme ($n checks name lalibi; $((SECONDS - t0)) s)"
  else bad "$t" "exit $rc, $n checks name lalibi; ${f:-no FAIL line}"; fi
done
printf '%s\n' "$out" | grep -q '^PASS shift test \[lalibi\]: every position.s loss at offset 1000 == at offset 0' \
  && ok "the shift test treats lalibi as relative (its flag)" || bad "shift" "no relative shift check for lalibi"
# the copy's layout test: the new file needs no line in the file map
lay=$(cd "$tree" && POSGPT=./posgpt bash tests/test_layout.sh 2>&1) # the copy's own binary (not $POSGPT: make test-sanitize points it at the tree's)
[ $? -eq 0 ] && ok "the copy's test_layout passes without a file-map edit" || bad "layout" "$(printf '%s\n' "$lay" | grep '^FAIL')"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
