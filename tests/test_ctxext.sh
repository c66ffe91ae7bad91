#!/usr/bin/env bash
# test_ctxext.sh - tools/ctxext.sh --quick end to end on a generated corpus: the rule picks the
# setting (the cheapest candidate where YaRN at factor 4 leaves >= 2 pairs and interpolates
# >= 2: seq_len 512, head size 32, as the wavelengths 2 pi 10000^(2i/d) say), the base, the
# evaluation-only rows (static and dynamic) and the fine-tunes (none, pi, ntk, yarn; each to the
# cap, in stages) are trained and evaluated on the test bytes with intervals and per-window
# files (columns checked), the report is written with the paired tests across seeds; a second
# start runs nothing again (nor after a v1 run's settings); a fine-tune interrupted inside a
# stage resumes to the same evaluation; a start in a clone of the committed files (no
# checkpoints) trains nothing, or only what is missing; --plan prints the grid and a total and runs no study
# (OUT is not made).
. "$(dirname "$0")/lib.sh" ctxext

phrase_text 1 12000 > "$tmp/c.txt"
run() { local n=$1; shift; env DATA="$tmp/c.txt" POSGPT="$BIN" "$@" tools/ctxext.sh --quick > "$tmp/$n.out" 2> "$tmp/$n.err"; }
run first OUT="$tmp/o" && ok "ctxext --quick runs every step and exits 0" || bad "ctxext --quick" "$(tail -5 "$tmp/first.err")"
o=$tmp/o
# the rule: the chosen row qualifies, every row before it (cheaper, or as cheap with a smaller head) does not
got=$(awk -F, 'NR > 1 && $7 == "chosen" { print $1 "," $2 "," $4 "," $5 }' "$o/pick.csv")
early=$(awk -F, 'NR > 1 { if ($7 == "chosen") exit; if ($4 >= 2 && $5 >= 2) print }' "$o/pick.csv")
sorted=$(awk -F, 'NR > 1 { print $3 "," $2 }' "$o/pick.csv" | sort -t, -c -k1,1n -k2,2n 2>&1 && echo yes)
[ "$got" = "512,32,2,8" ] && [ -z "$early" ] && [ "$sorted" = yes ] && [ "$(grep -c . "$o/pick.csv")" = 7 ] \
  && ok "the rule picks seq_len 512, head 32 (2 left, 8 interpolated), the first of 6 candidates in cost order to qualify" \
  || bad "pick" "chosen '$got', earlier qualifying '$early', sorted $sorted"
grep -q '^  (2 left, 8 interpolated, 6 blended' "$o/pairs.txt" && grep -q 'chosen: seq_len 512, head size 32' "$o/pairs.txt" \
  && ok "pairs.txt holds the candidates' counts and the chosen one's pair table" || bad "pairs.txt" "$(tail -3 "$o/pairs.txt")"
# the evaluations: 1 base + 6 evaluation-only (pi, ntk, yarn static; pi, yarn dynamic; dynamic-ntk)
# + 4 methods x 2 seeds, each at 512..4096 with an interval holding its ppl, and a per-window file
n=0 badf=
for f in "$o"/eval/[bf]*.csv; do
  [ -s "$o/eval/perwin-${f##*/}" ] || badf="$badf ${f##*/}(no per-window file)"
  n=$((n + 1))
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!("ppl_ci_low" in c) || !("ppl_ci_high" in c) || !("eval_len" in c)) exit 1; next }
    { l = l $c["eval_len"] " "; if (!($c["ppl_ci_low"] <= $c["ppl"] && $c["ppl"] <= $c["ppl_ci_high"])) exit 1 }
    END { exit !(l == "512 1024 2048 2560 4096 ") }' "$f" || badf="$badf ${f##*/}"
done
[ $n = 15 ] && [ -z "$badf" ] && [ -s "$o/eval/base+yarn-dyn.csv" ] && [ -s "$o/eval/base+dynamic-ntk.csv" ] && [ -s "$o/eval/ft-none-seed2.csv" ] \
  && ok "15 evaluation CSVs (base, 6 evaluation-only, 8 fine-tunes), each at 512..4096 with ppl_ci_low <= ppl <= ppl_ci_high, and per-window files" \
  || bad "eval CSVs" "$n files; wrong:$badf"
n=$(wc -c < "$tmp/c.txt")
cmp -s "$o/test.txt" <(tail -c $((n / 10 - 2048)) "$tmp/c.txt") && [ "$(awk -F, 'NR == 2 { print $6 }' "$o/eval/base.csv")" = 8192 ] \
  && ok "the evaluations score test.txt: the held-out split less the 2048 bytes the runs validated on" || bad "test bytes" "$(wc -c < "$o/test.txt")"
[ "$(awk -F, 'NR == 2 { print $7 }' "$o/eval/base+pi-dyn.csv")" = "$(awk -F, 'NR == 2 { print $7 }' "$o/eval/base.csv")" ] \
  && [ "$(awk -F, 'NR == 2 { print $7 }' "$o/eval/base+pi.csv")" != "$(awk -F, 'NR == 2 { print $7 }' "$o/eval/base.csv")" ] \
  && ok "dynamic PI at 1x is the base (s = 1); static PI at 1x is not (s = 4)" || bad "dynamic" "$(head -2 "$o/eval/base+pi-dyn.csv")"
grep -q 'yarn' <(awk -F, 'NR == 2' "$o/eval/ft-yarn-seed1.csv") && ok "a fine-tune's evaluation applies its recorded extension" \
  || bad "ft scaling" "$(head -2 "$o/eval/ft-yarn-seed1.csv")"
# every fine-tune runs the cap (v2: no early stop), its slope over the last 40% with an interval
# that holds it, and "plateau" exactly where the interval does not lie wholly below -FT_TOL
rule=$(for f in "$o"/ft/*/stop.csv; do tail -1 "$f"; done | awk -F, '{ if ($4 != 10 || !($8 <= $7 && $7 <= $9) || ($9 < -0.005) != ($10 ~ /still improving/)) print }')
[ "$(ls "$o"/ft/*/stop.csv | wc -l)" = 8 ] && [ -z "$rule" ] && head -1 "$o/ft/pi-seed1/stop.csv" | grep -q ',slope20,slope20_ci_low,slope20_ci_high,plateau$' \
  && ok "8 fine-tunes (none, pi, ntk, yarn x 2 seeds), each to the cap 10, with the slope of its last 40% and its interval" || bad "fine-tunes" "$rule"
run tol OUT="$tmp/o2" METHODS=yarn SEEDS=1 FT_TOL=100
IFS=, read -r _ _ _ st _ _ _ _ _ pl < <(tail -1 "$tmp/o2/ft/yarn-seed1/stop.csv")
[ "$st" = 10 ] && [ "$pl" = yes ] && ok "FT_TOL decides the plateau verdict only: with FT_TOL 100 the run still trains to the cap, a plateau" \
  || bad "FT_TOL" "steps $st, $pl"
rows=$(grep -c '^| \(base\|ft-\)' "$o/table.md")
[ "$rows" = 9 ] && grep -q '^| ft-pi-seed1 | 10 | ' "$o/table.md" && grep -q '^| \*\*yarn\*\* (2 seeds) |' "$o/table.md" && [ -s "$o/ppl.png" ] \
  && ok "table.md has a row per run and per method (the mean over seeds); ppl.png is drawn" || bad "report" "$rows rows; $(ls "$o")"
# the paired tests across seeds: per pair of methods and length, the per-seed mean window
# differences (recomputed here) and their mean
chk=$(awk -F, 'NR > 1 { print $1, $2, $3, $5, $9 }' "$o/paired.csv" | while read -r L a b m list; do
  want=$(for k in 1 2; do awk -F, -v L="$L" 'FNR == 1 { f++; next } $3 != L { next } f == 1 { x[$7] = $9; next } { s += $9 - x[$7]; n++ } END { printf "%.6f\n", s / n }' \
    "$o/eval/perwin-ft-$a-seed$k.csv" "$o/eval/perwin-ft-$b-seed$k.csv"; done | paste -sd';')
  [ "$want" = "$list" ] || echo "$L $a $b: $want against $list"; done)
[ "$(grep -c . "$o/paired.csv")" = 31 ] && [ -z "$chk" ] && ok "paired.csv: 6 pairs of methods x 5 lengths, each seed's mean window difference as recomputed" \
  || bad "paired.csv" "$(grep -c . "$o/paired.csv") lines; $chk"
# the claims of Peng et al.'s Table 1 beside ours: five orderings, each with the paper's two
# numbers and a verdict from paired.csv's row at that length (here 2 seeds: each a paired test)
claims=$(sed -n '/^## Against Peng et al. 2023, Table 1/,$p' "$o/table.md" | grep -c '^| \(the fine-tuned\|1.25x past\)')
v=$(sed -n '/^## Against Peng et al. 2023, Table 1/,$p' "$o/table.md" | awk -F' [|] ' '/^[|] (the fine|1.25x)/ { print $2 ":" $5 }' | sed 's/ |$//')
Lft=$(sed -n 's/^| the fine-tuned length (theirs 8192, ours \([0-9]*\)) | yarn < ntk | .*/\1/p' "$o/table.md")
yn=$(awk -F, -v L="$Lft" '$1 == L && $2 == "ntk" && $3 == "yarn" { print $8 }' "$o/paired.csv")
want=$(case $yn in "yes (yarn lower)") echo holds ;; "yes (ntk lower)") echo "differs (ntk lower)" ;; *) echo inconclusive ;; esac)
[ "$claims" = 5 ] && [ -n "$Lft" ] && grep -q '^| the fine-tuned length (theirs 8192, ours [0-9]*) | yarn < ntk | yarn 3.35 < ntk 3.59 |' "$o/table.md" \
  && [ "$(head -1 <<< "$v")" = "yarn < ntk:$want" ] \
  && ok "table.md: Peng et al.'s five orderings beside ours, the verdict from paired.csv (yarn < ntk at the fine-tuned length: $want)" \
  || bad "claims" "$claims rows; $v; paired at $Lft: $yn"
# a v1 fine-tune (its settings ended in " tol X") keeps its training
sed -i 's/$/ tol 0.005/' "$o/ft/ntk-seed2/settings.txt"; touch "$tmp/marker1"; sleep 1
run v1 OUT="$o" && [ -z "$(find "$o/ft/ntk-seed2" -name '*.bin' -newer "$tmp/marker1")" ] \
  && ok "a fine-tune made by v1 (settings ending in ' tol X') is kept, not trained again" || bad "v1 settings" "$(tail -2 "$tmp/v1.err")"
# a second start runs nothing again
touch "$tmp/marker"; sleep 1
run second OUT="$o" && newer=$(find "$o/base" "$o/ft" "$o/eval" "$o/pick" \( -name '*.bin' -o -name '*.csv' \) -newer "$tmp/marker" | head -3) \
  && [ -z "$newer" ] && ok "a second start trains and evaluates nothing again" || bad "resume" "rewritten: $newer $(tail -2 "$tmp/second.err")"
# a fine-tune interrupted inside its first stage resumes it and goes on by the rule, to the same result
d=$o/ft/pi-seed1
cp "$o/eval/ft-pi-seed1.csv" "$tmp/ft-pi.csv"
rm -f "$d"/model*.bin "$d"/*.csv "$o/eval/ft-pi-seed1.csv"
settings=$(sed 's/ stage .*//' "$d/settings.txt")
# shellcheck disable=SC2086 # the run's own flags, as the script wrote them
"$o/bin/posgpt" train --data "$tmp/c.txt" --out "$d" --overwrite --steps 5 --threads 1 $settings --stop-at 3 > /dev/null 2>&1
"$o/bin/posgpt" info "$d/model.bin" 2> /dev/null | grep -q "step 3 of 5," || bad "stopped fine-tune" "not at step 3 of 5"
run third OUT="$o"
"$o/bin/posgpt" info "$d/model.bin" | grep -q "step 10 of 10," && cmp -s "$tmp/ft-pi.csv" "$o/eval/ft-pi-seed1.csv" \
  && ok "a fine-tune stopped at step 3 of its first stage resumes, runs its second stage and evaluates as the uninterrupted run did" \
  || bad "interrupted fine-tune" "$("$o/bin/posgpt" info "$d/model.bin" | grep training) $(diff "$tmp/ft-pi.csv" "$o/eval/ft-pi-seed1.csv" | head -3)"
# the kernel (tools/pin_lib.sh): recorded at the first start; a start on another is refused (exit 2)
kt=$(cat "$o/bin/kernel.txt" 2> /dev/null); echo "another kernel" > "$o/bin/kernel.txt"
run kernel OUT="$o"; rc=$?; echo "$kt" > "$o/bin/kernel.txt"
[ "$kt" = "$("$BIN" --version | sed -n 2p)" ] && [ $rc = 2 ] && grep -q "^ctxext.sh: error: the matrix products would run on '$kt', but this grid's runs ran on 'another kernel'" "$tmp/kernel.err" \
  && ok "ctxext: kernel.txt holds the first start's kernel; a start on another is refused (exit 2)" || bad "ctxext kernel" "rc $rc '$kt': $(tail -1 "$tmp/kernel.err")"
# the settings are checked before anything runs (--plan too): one error line naming the variable, exit 2, no OUT
for e in FT_CAP=0 FT_CAP=abc FT_CAP=3 FT_TOL=-1 FT_TOL=abc FT_LR=0 JOBS=0 JOBS=two BASE_STEPS=5 FT_STAGE=08 EVAL_TOKENS=0 \
  'SEEDS=1 1' 'SEEDS=1 x' 'METHODS=pi bogus' 'METHODS=pi pi' 'METHODS=*'; do
  for m in --quick --plan; do
    env DATA="$tmp/c.txt" POSGPT="$BIN" OUT="$tmp/bad" "$e" tools/ctxext.sh --quick $m > /dev/null 2> "$tmp/bad.err"; rc=$?
    [ $rc = 2 ] && [ "$(wc -l < "$tmp/bad.err")" = 1 ] && grep -q "^ctxext.sh: error: ${e%%=*}" "$tmp/bad.err" && [ ! -e "$tmp/bad" ] \
      && ok "$e ($m): refused before anything runs -> $(cat "$tmp/bad.err")" || bad "$e ($m)" "rc $rc: $(head -2 "$tmp/bad.err")"
  done
done
env DATA="$tmp/c.txt" POSGPT="$BIN" OUT=/dev/null tools/ctxext.sh --quick > /dev/null 2> "$tmp/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "cannot make or write OUT '/dev/null'" "$tmp/bad.err" && ok "an OUT that cannot be a folder: one error line" || bad "OUT=/dev/null" "rc $rc: $(cat "$tmp/bad.err")"
env POSGPT="$BIN" OUT="$tmp/none" tools/ctxext.sh --report > /dev/null 2> "$tmp/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "no $tmp/none/pick.csv to report on" "$tmp/bad.err" && [ ! -e "$tmp/none" ] \
  && ok "--report on an OUT without a study: one error line, OUT not made" || bad "--report nothing" "rc $rc: $(cat "$tmp/bad.err")"
# the report from the files a commit keeps (a fresh clone: no checkpoints, no test bytes, no
# logs but the base's): pick.csv, pairs.txt, grid.env, base/log.csv, eval/*.csv, ft/*/stop.csv;
# table.md, paired.csv and ppl.png the same bytes
mkdir -p "$tmp/cl/base" "$tmp/cl/eval"
cp "$o/pick.csv" "$o/pairs.txt" "$o/grid.env" "$tmp/cl/" && cp "$o/base/log.csv" "$tmp/cl/base/" && cp "$o"/eval/*.csv "$tmp/cl/eval/"
for d in "$o"/ft/*/; do mkdir -p "$tmp/cl/ft/$(basename "$d")" && cp "$d/stop.csv" "$tmp/cl/ft/$(basename "$d")/"; done
env POSGPT="$BIN" OUT="$tmp/cl" tools/ctxext.sh --report > /dev/null 2> "$tmp/cl.err"
diffs=$(for f in table.md paired.csv ppl.png; do cmp -s "$o/$f" "$tmp/cl/$f" || echo "$f"; done)
[ -z "$diffs" ] && [ -s "$tmp/cl/ppl.png" ] && ok "--report from the committed files alone (a fresh clone): table.md, paired.csv and ppl.png the same bytes" \
  || bad "clone report" "differ: $diffs; $(tail -2 "$tmp/cl.err")"
# a start in such a clone (every checkpoint, the pinned binary and the test bytes gone) trains
# nothing; with one fine-tune's outputs gone too, it trains the base again and that fine-tune
# only, and the base is the same model (deterministic): the same table.md
# (the clone at the study's own path, as a clone's runs/ctxext is: the settings name it)
mv "$o" "$tmp/o.kept" && cp -r "$tmp/o.kept" "$o" && find "$o" -name '*.bin' -delete && rm -rf "$o/bin" "$o/test.txt" "$o/lock"
run clone1 OUT="$o"; rc=$?
n1=$(find "$o" -name '*.bin' -not -path '*/bin/*' | wc -l)
rm -f "$o/ft/pi-seed2/stop.csv" "$o/eval/ft-pi-seed2.csv" "$o/eval/perwin-ft-pi-seed2.csv"
run clone2 OUT="$o"; rc2=$?
made=$(find "$o" -name 'model.bin' -not -path '*/bin/*' | sort | sed "s|$o/||" | tr '\n' ' ')
cmp -s "$tmp/o.kept/table.md" "$o/table.md"; same=$?
# a kept base log that the base trained again does not reproduce: stopped, naming it
rm -f "$o/base/model.bin" "$o/ft/pi-seed2/model.bin" "$o/ft/pi-seed2/stop.csv" "$o/eval/ft-pi-seed2.csv"
awk -F, -v OFS=, 'NR == 3 { $2 = $2 + 0.5 } { print }' "$o/base/log.csv" > "$tmp/log" && mv "$tmp/log" "$o/base/log.csv"
run clone3 OUT="$o"; rc3=$?
rm -rf "$o" && mv "$tmp/o.kept" "$o"
[ $rc3 != 0 ] && grep -q "the base trained again differs from the one whose log was kept" "$tmp/clone3.err" \
  && ok "a clone whose kept base log the retrained base does not reproduce stops, naming it" || bad "clone base differs" "rc $rc3: $(grep ctxext: "$tmp/clone3.err" | tail -2)"
[ $rc = 0 ] && [ "$n1" = 0 ] && grep -q "the base is not trained again" "$tmp/clone1.err" && [ $rc2 = 0 ] \
  && [ "$made" = "base/model.bin ft/pi-seed2/model.bin " ] && [ $same = 0 ] \
  && ok "a start in a clone without checkpoints trains nothing; with one fine-tune gone, the base and it only, and the same table.md" \
  || bad "clone start" "rc $rc $rc2, $n1 checkpoints made at first, then: $made; $(grep -v "^  \|^sweep" "$tmp/clone1.err" | tail -4)"
# one start at a time per OUT: while another holds OUT/lock, a start and --report are refused
exec 8>> "$o/lock"; flock 8
for m in --quick --report; do
  env DATA="$tmp/c.txt" POSGPT="$BIN" OUT="$o" tools/ctxext.sh $m > /dev/null 2> "$tmp/lock.err"; rc=$?
  [ $rc = 2 ] && grep -q "another tools/ctxext.sh is running into $o" "$tmp/lock.err" && ok "a second start into the same OUT ($m) is refused" \
    || bad "lock $m" "rc $rc: $(tail -2 "$tmp/lock.err")"
done
exec 8>&-
# a fine-tune or evaluation-only job refuses a base that has not finished its steps (no fine-tune from half a base)
for job in "ft pi 9" "evalonly pi"; do
  # shellcheck disable=SC2086 # the job's words
  env DATA="$tmp/c.txt" OUT="$o" PIN="$o/bin/posgpt" D=64 LAYERS=1 TOKENS_STEP=1024 FT_TOKENS_STEP=2048 BASE_STEPS=40 BASE_LR=1e-3 FT_STAGE=5 FT_CAP=10 \
    FT_TOL=0.005 FT_LR=2e-4 VAL_TOKENS=2048 EVAL_TOKENS=8192 FACTOR=4 tools/ctxext.sh --one $job > /dev/null 2> "$tmp/half.err"; rc=$?
  [ $rc = 1 ] && grep -q "the base ($o/base) has not finished its 40 steps" "$tmp/half.err" && [ ! -e "$o/ft/pi-seed9" ] \
    && ok "--one $job: refused while the base has not finished" || bad "half base $job" "rc $rc: $(tail -2 "$tmp/half.err")"
done
# Ctrl-C (SIGINT to the whole process group) while the base trains: the script stops there (no
# fine-tune starts from the unfinished base); a restart finishes every step
(export DATA="$tmp/c.txt" POSGPT="$BIN" OUT="$tmp/i" METHODS=pi SEEDS=1 BASE_STEPS=400
 setsid env --default-signal=INT tools/ctxext.sh --quick > /dev/null 2> "$tmp/i1.err" & pid=$!
 for _ in $(seq 600); do [ -s "$tmp/i/base/log.csv" ] && break; sleep 0.1; done
 kill -INT -- -$pid; wait $pid; echo $? > "$tmp/i1.rc")
[ "$(cat "$tmp/i1.rc")" = 130 ] && [ ! -e "$tmp/i/ft" ] && grep -q "stopped: base" "$tmp/i1.err" \
  && ok "Ctrl-C while the base trains: exit 130, the base stopped, no fine-tune started" || bad "Ctrl-C" "rc $(cat "$tmp/i1.rc"), $(ls "$tmp/i/ft" 2>&1): $(tail -3 "$tmp/i1.err")"
# (its runs end after it, saving their step: they hold OUT/lock till then, and a start before that
# is refused, as the lock test above shows; a user waits, so does the test: slow under sanitizers)
timeout 120 flock "$tmp/i/lock" true
run restart OUT="$tmp/i" METHODS=pi SEEDS=1 BASE_STEPS=400 && [ "$(ls "$tmp/i"/eval/[bf]*.csv | wc -l)" = 4 ] && grep -q '| ft-pi-seed1 |' "$tmp/i/table.md" \
  && "$BIN" info "$tmp/i/base/model.bin" | grep -q "step 400 of 400," && ok "a restart after Ctrl-C resumes the base and finishes (4 evaluations, the table)" \
  || bad "restart after Ctrl-C" "$(ls "$tmp/i/eval" 2>&1) $(tail -3 "$tmp/restart.err")"
# --plan: the grid and a total, no study
env DATA="$tmp/c.txt" POSGPT="$BIN" OUT="$tmp/p" tools/ctxext.sh --quick --plan > "$tmp/plan.out" 2> "$tmp/plan.err"; rc=$?
[ $rc = 0 ] && grep -q 'chosen: seq_len 512, head size 32' "$tmp/plan.out" && grep -qE '^total, 2 at a time: [0-9.]+ hours' "$tmp/plan.out" \
  && grep -qE 'measured now at 1 thread: base [0-9.]+ s/step, fine-tune [0-9.]+ s/step' "$tmp/plan.out" && [ ! -e "$tmp/p" ] \
  && ok "--plan prints the chosen setting, measured rates and a total, and makes no OUT" || bad "--plan" "rc $rc: $(tail -3 "$tmp/plan.out") $(tail -2 "$tmp/plan.err")"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
