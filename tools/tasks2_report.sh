#!/usr/bin/env bash
# tasks2_report.sh - the table, acc.csv and figures of tools/tasks2.sh's study, from the runs it
# left in DIR/<task>/<scheme>/seed<k>/ (acc.csv from task eval, summary.json from train); it runs
# nothing but `posgpt plot`.
#   tools/tasks2_report.sh [DIR]     (default runs/tasks2)
# Writes
#   DIR/acc.csv   every run's rows: task,scheme,seed,train_max_len,eval_len,depth,examples,
#                 correct,exact,tokens,tokens_correct,token_accuracy,steps_to_learn (exact and
#                 token_accuracy as task eval writes accuracy and token_accuracy; steps_to_learn
#                 from the run's summary.json, empty when the cap came first). Without run folders
#                 the DIR/acc.csv already there is read as it is (a constructed one, in the tests).
#   DIR/table.md  per task and scheme: the seeds that learned the task (reached 0.9 exact match
#                 at 1x on the held-out check that stops a run: a steps_to_learn), those steps, exact and per-token accuracy at 1x and
#                 beyond (the mean of the buckets 2x = L+1..2L, 3x = 2L+1..3L, and for passkey 4x,
#                 8x), means over seeds; then the ranking beyond the training lengths, of the
#                 qualifying pairs only (learned in at least 2 seeds: 2 of 3), and how many
#                 qualified: at 2x, by the mean over the seeds that learned; a scheme is beaten
#                 by another whose every learned seed lies above its every learned seed, the
#                 means more than 0.06 apart (claims.md's rule); its rank is one more than the
#                 number that beat it, every pair compared (v9; v6 compared each with the next);
#                 the widest 95% Wilson interval of a learned seed (evaluation noise); the chance
#                 level of each task, of exact match and (v9) of per-token accuracy; the tasks
#                 whose ranked means at 2x are all at or below chance (at most it + 0.06: v10); and for
#                 each task how many of the six core schemes qualified.
#   DIR/training.csv  per run: cap, last step, steps_to_learn, held-out exact match at 80% of
#                 its steps and at the end, the last-20% gain; table.md lists the runs that
#                 reached the cap unlearned and how many were still improving; and its seconds
#                 (train_s: training, from log.csv's elapsed_s over its resumed segments; eval_s:
#                 its task evals, from time.txt), which table.md sums per task (machine time)
#   DIR/summary.md  one row a task, for the top-level README: its chance level, the pairs
#                 ranked (of the core six), the schemes of the first rank at 2x (the mean over
#                 their learned seeds and the seeds' range) and the best mean past 2x, each
#                 marked "at or below chance" where at most the task's chance level + 0.06 (v10)
#   DIR/claims.md (tools/tasks2_claims.sh) ours beside the papers' numbers, with a verdict
#   DIR/<task>.png, DIR/<task>-token.png  exact and per-token accuracy versus length (plot --kind
#                 accuracy --metric exact|token), and DIR/figures.txt, the commands; drawn from
#                 DIR/acc.csv alone (each run's rows split back into a task eval CSV), so a clone
#                 without the run folders redraws the same bytes.
# acc.csv is checked before anything is drawn from it (tools/tasks2_lib.sh's check_acc: the
# header, LF line ends, 13 fields a row, the counts and accuracies numbers): a damaged one is one
# error line naming the file and line, exit 1, and no table.md is written.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. tools/tasks2_lib.sh
dir=${1:-runs/tasks2}
bin=${BIN:-./posgpt}
[ -d "$dir" ] || { echo "tasks2_report: no folder $dir (run tools/tasks2.sh first)" >&2; exit 1; }
trap 'rm -f "$dir/acc.csv.part" "$dir/acc-learned.csv.part" "$dir/table.md.part" "$dir/table-learned.part" "$dir/summary.md.part" "$dir/figures.txt.part"' EXIT # (a failure leaves no partial file)
order="sinusoidal learned t5 alibi rope nope fire kerple-power randomized-rope randomized-alibi randomized-sinusoidal"
core="sinusoidal learned t5 alibi rope nope"
# then the variants (tools/tasks2.sh's SCHEME@FLAG=VALUE ablations) and any other scheme found
order="$order $(ls "$dir"/*/*/seed*/acc.csv 2> /dev/null | awk -F/ '{ print $(NF - 2) }' | sort -u | grep -vxF -f <(tr ' ' '\n' <<< "$order") | tr '\n' ' ' || true)"
H=$TASKS2_H
runs=$(ls "$dir"/*/*/seed*/acc.csv 2> /dev/null || true)
# every finished run's own files (a run is finished once its acc.csv is written), checked before
# anything is written: acc.csv and acc-learned.csv as task eval writes them, summary.json's
# steps_to_learn (a step or null), log.csv (if there: a clone has none) as train writes it; the
# header, fields per row, numbers where numbers belong, no row twice, LF ends, a final newline,
# some rows. One error line naming the run's file and line, exit 1: a damaged file would
# otherwise drop a run, or shift its columns, without a word
check_runs() {
  local f r files=()
  for f in $runs; do
    r=${f%/acc.csv}
    grep -qE '^  "steps_to_learn": ([0-9]+|null),$' "$r/summary.json" 2> /dev/null \
      || { echo "tasks2_report: error: $r/summary.json: no line \"steps_to_learn\": STEP or null (missing, empty or damaged)" >&2; return 1; }
    files+=("$f"); [ -e "$r/acc-learned.csv" ] && files+=("$r/acc-learned.csv"); [ -e "$r/log.csv" ] && files+=("$r/log.csv")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  for f in "${files[@]}"; do
    [ -s "$f" ] && [ -z "$(tail -c 1 "$f")" ] || { echo "tasks2_report: error: $f is empty or does not end in a newline (cut short?)" >&2; return 1; }
  done
  LC_ALL=C awk -F, "$(cat tools/lib.awk)"'
    function fail(m) { printf "tasks2_report: error: %s:%d: %s\n", FILENAME, FNR, m > "/dev/stderr"; bad = 1; exit 1 }
    function done_file() { if (rows < 1) { bad = 1; printf "tasks2_report: error: %s: holds a header only\n", lastf > "/dev/stderr"; exit 1 } }
    FNR == 1 { if (NR > 1) done_file(); lastf = FILENAME; rows = 0; delete seen; lg = FILENAME ~ /\/log[.]csv$/
      H = lg ? "step,train_loss,val_loss,lr,grad_norm,tokens_per_s,elapsed_s,heldout_exact" \
              : "task,scheme,train_max_len,len,depth,examples,correct,accuracy,tokens,tokens_correct,token_accuracy"
      if (index($0, "\r")) fail("a carriage return (CRLF line ends): the file must have LF line ends")
      if ($0 != H) fail("the header is not " H)
      next }
    { if (index($0, "\r")) fail("a carriage return (CRLF line ends): the file must have LF line ends")
      if (NF != (lg ? 8 : 11)) fail(NF " fields, not " (lg ? 8 : 11) " as its header")
      if (lg) { for (i = 1; i <= 7; i++) if (i != 3 && !finite($i)) fail("field " i " \"" $i "\" is not a finite number")
          if (($3 != "" && !finite($3)) || ($8 != "" && !finite($8))) fail("val_loss and heldout_exact must be empty or finite numbers")
          key = $1 }
      else { for (i = 3; i <= 11; i++) if (!finite($i)) fail("field " i " \"" $i "\" is not a finite number"); key = $4 "," $5 }
      if (key in seen) fail("a second row for " (lg ? "step " : "len,depth ") key " (line " seen[key] ")")
      seen[key] = FNR; rows++ }
    END { if (!bad && NR) done_file() }' "${files[@]}"
}
check_runs || exit 1
# gather NAME: every run's NAME (acc.csv, or acc-learned.csv: task eval of model-learned.bin)
# into DIR/NAME, with the task, scheme, seed and steps_to_learn columns
gather() {
  local name=$1 t s f k stl
  {
    echo "$H"
    for t in copy reverse sort add sum parity passkey; do
      for s in $order; do
        for f in "$dir/$t/$s"/seed*/"$name"; do
          [ -s "$f" ] && [ -s "${f%/*}/acc.csv" ] || continue # (a run is done once its acc.csv is written)
          k=${f%/*}; k=${k##*/seed}
          stl=$(steps_to_learn "${f%/*}")
          awk -F, -v OFS=, -v s="$s" -v k="$k" -v stl="$stl" 'NR == 1 { if ($9 != "tokens") { print FILENAME ": no per-token columns (task eval before token_accuracy)" > "/dev/stderr"; exit 1 }; next }
            { print $1, s, k, $3, $4, $5, $6, $7, $8, $9, $10, $11, stl }' "$f"
        done
      done
    done
  } > "$dir/$name.part"
  mv "$dir/$name.part" "$dir/$name"
}
if [ -n "$runs" ]; then
  gather acc.csv
  if ls "$dir"/*/*/seed*/acc-learned.csv > /dev/null 2>&1; then gather acc-learned.csv; else rm -f "$dir/acc-learned.csv"; fi
fi
# training.csv: per run its cap, the step it stopped at, steps_to_learn, and the held-out exact
# match (log.csv's heldout_exact) at the last validation and at the last one at or before 80% of
# the steps it took: the last-20% gain, which says whether a run stopped at its cap was still
# improving. Gathered from the run folders (kept as it is without them).
if [ -n "$(ls "$dir"/*/*/seed*/log.csv 2> /dev/null)" ]; then # (a clone has the runs' acc.csv, not their logs)
  {
    echo "task,scheme,seed,cap,last_step,steps_to_learn,heldout_exact_80,heldout_exact_last,last20_gain,exact_1x,exact_top,after_learn,train_s,eval_s"
    for f in $runs; do
      r=${f%/acc.csv}; k=${r##*/seed}; s=${r%/seed*}; t=${s%/*}; s=${s##*/}; t=${t##*/}
      [ -s "$r/log.csv" ] || continue # (a run made elsewhere, without its log)
      cap=$(sed -n 's/^steps = \([0-9]*\)$/\1/p' "$r/config.txt" 2> /dev/null | head -1) # (the run's own cap)
      al=$(sed -n 's/^after_learn = \([0-9]*\)$/\1/p' "$r/config.txt" 2> /dev/null | head -1)
      stl=$(steps_to_learn "$r")
      # (and the scored model's exact match on the test set at 1..L and at its top quarter, 3L/4 < n <= L)
      top=$(awk -F, 'NR > 1 && $4 <= $3 { a += $7; n += $6; if ($4 > 0.75 * $3) { b += $7; m += $6 } }
        END { if (n && m) printf "%.4f,%.4f", a / n, b / m; else print "," }' "$f")
      # (and its seconds: training from log.csv's elapsed_s over its resumed segments, tools/lib.awk;
      # evaluation from time.txt, which tasks2.sh writes when the run's task evals end)
      ev=$(eval_secs "$r")
      awk -F, -v OFS=, -v t="$t" -v s="$s" -v k="$k" -v cap="$cap" -v stl="$stl" -v top="$top" -v al="$al" -v ev="$ev" "$(cat tools/lib.awk)"'
        !wall_row() { next }
        $8 != "" { n++; st[n] = $1; h[n] = $8 }
        END { if (!n) exit; i = n; while (i > 1 && st[i] > 0.8 * st[n]) i--
          print t, s, k, cap, st[n], stl, h[i], h[n], sprintf("%.4f", h[n] - h[i]), top, al, (W_COL ? sprintf("%.0f", WALL) : ""), ev }' "$r/log.csv"
    done
  } > "$dir/training.csv.part"
  mv "$dir/training.csv.part" "$dir/training.csv"
fi
check_acc tasks2_report "$dir/acc.csv"
# (and every scheme of acc.csv, a constructed one's too, after those named above)
order="$order $(awk -F, 'NR > 1 { print $2 }' "$dir/acc.csv" | sort -u | grep -vxF -f <(tr ' ' '\n' <<< "$order") | tr '\n' ' ' || true)"

# the tables, from an acc.csv; part=all: table.md's, part=rank: the ranking alone (of
# acc-learned.csv, the models of the learned steps, whose rows are those of the learned seeds)
# (the steps after learning: the runs' own, from training.csv, so that a clone without them
# writes the same text; else AFTER, else tasks2.sh's 1000)
after=$(awk -F, 'NR > 1 && $12 != "" { print $12; exit }' "$dir/training.csv" 2> /dev/null || true)
after=${after:-${AFTER:-1000}}
# a run stopped by its cap was still improving when its held-out exact match rose by more than
# this over its last 20% of steps (training.csv's last20_gain): the -+ of the tables and the
# count and list under them
rise=0.05
tables() { # PART FILE
awk -F, -v order="$order" -v core="$core" -v part="$1" -v after="$after" -v tr="$dir/training.csv" -v rise="$rise" '
  # (the runs stopped by their cap while still improving: training.csv, where there is one)
  BEGIN { while ((getline l < tr) > 0) { split(l, F, ","); if (F[6] == "" && F[9] + 0 > rise + 0) rising[F[1], F[2], F[3]] = 1 } }
  function bucket(n, L) { return n <= L ? 1 : n <= 2 * L ? 2 : n <= 3 * L ? 3 : n <= 4 * L ? 4 : 8 }
  '"$TASKS2_CHANCE_AWK"'
  NR == 1 { next }
  { t = $1; s = $2; k = $3; L = $4; b = bucket($5, L)
    ex[t, s, k, b] += $7; ok[t, s, k, b] += $8; to[t, s, k, b] += $10; tc[t, s, k, b] += $11; stl[t, s, k] = $13
    has[t, b] = 1; Lof[t] = L
    if (!(t in firstrun)) firstrun[t] = s SUBSEP k
    if (firstrun[t] == s SUBSEP k) { CTOK[t, b] += $10; CT[t, b] += $7 + (t == "sort" ? $7 * sortguess($5) : ($10 - $7) / (t == "parity" ? 2 : 10)) }
    if (!((t, s, k) in seen)) { seen[t, s, k] = 1; seeds[t, s] = seeds[t, s] " " k; ran[t, s] = 1 }
    if (!(t in tseen)) { tseen[t] = 1; tasks[++nt] = t } }
  # seed k of (t, s): its exact match (w = "e") or per-token accuracy (w = "t") in bucket b
  # (1 = 1x, 2 = 2x: L+1..2L), or past 2x (b = 3: the mean of the buckets past 2x); -1 if none
  function at(t, s, k, w, b,    a, c, x) {
    if (b < 3) return (t, s, k, b) in ex ? (w == "e" ? ok[t, s, k, b] / ex[t, s, k, b] : tc[t, s, k, b] / to[t, s, k, b]) : -1
    a = c = 0; for (x = 3; x <= 8; x++) if ((t, s, k, x) in ex) { a += w == "e" ? ok[t, s, k, x] / ex[t, s, k, x] : tc[t, s, k, x] / to[t, s, k, x]; c++ }
    return c ? a / c : -1 }
  # the mean over the seeds of (t, s), all of them (only = 0) or the learned ones (only = 1)
  function mean(t, s, w, b, only,    v) { v = meanv(t, s, w, b, only); return MN ? sprintf("%.2f", v) : "-" }
  # (the same mean as a number, for the ranking; MN the seeds it is over: mean() rounds it for the tables)
  function meanv(t, s, w, b, only,    K, m, i, sum, v) { m = split(seeds[t, s], K, " "); MN = sum = 0
    for (i = 1; i <= m; i++) if (!only || stl[t, s, K[i]] != "") { v = at(t, s, K[i], w, b); if (v >= 0) { sum += v; MN++ } }
    return MN ? sum / MN : 0 }
  # the learned seeds of (t, s): their exact match at 2x, lowest LOW and highest HIGH, listed in LIST
  function spread(t, s,    K, m, i, v) { m = split(seeds[t, s], K, " "); LOW = 2; HIGH = -1; LIST = ""
    for (i = 1; i <= m; i++) if (stl[t, s, K[i]] != "") { v = at(t, s, K[i], "e", 2)
      LIST = LIST (LIST == "" ? "" : " ") sprintf("%.2f", v); if (v < LOW) LOW = v; if (v > HIGH) HIGH = v } }
  # a above b (means ma >= mb): every learned seed of a above every learned seed of b, and the
  # means more than 0.06 apart; DT the verdict (">" or "~")
  function versus(t, a, b, ma, mb,    la, hb) { spread(t, a); la = LOW; spread(t, b); hb = HIGH
    DT = la > hb && apart(ma, mb) ? ">" : "~"
    return sprintf("%+.2f (%s)", ma - mb, DT == ">" ? "every seed above" : la > hb ? "gap under 0.06" : "seeds overlap") }
  # BEATEN: the qualifying schemes that beat R[a] of ranked(t)'"'"'s R[1..m] by versus'"'"' rule (every
  # learned seed above, the means more than 0.06 apart), listed in BEATEN; returns how many (v9:
  # its rank is one more; before, each scheme was judged against the next alone, so one overlap
  # gave every scheme below it a shared rank that its own pairs contradicted)
  # (each win carries the chance it has by luck alone, seeds that do not differ in distribution:
  # 2 in C(na + nb, na) that every seed of one lies above every seed of the other, either way,
  # since the direction is the one the means show)
  function beaten(t, a, m,    b, nb, na, nn, c, i) { nb = 0; BEATEN = ""; na = nlearned(t, R[a])
    for (b = 1; b <= m; b++) if (b != a && V[b] >= V[a]) { versus(t, R[b], R[a], V[b], V[a]); if (DT == ">") { nb++
        nn = nlearned(t, R[b]); c = 1; for (i = 1; i <= na; i++) c = c * (nn + i) / i
        BEATEN = BEATEN (BEATEN == "" ? "" : ", ") R[b] sprintf(" (%s)", c == 2 ? "1" : sprintf("1/%g", c / 2)) } }
    return nb }
  function nlearned(t, s,    K, m, i, n) { m = split(seeds[t, s], K, " "); n = 0; for (i = 1; i <= m; i++) n += stl[t, s, K[i]] != ""; return n }
  # the widest 95% Wilson interval of the learned seeds of (t, s) at 2x, as +-, and its examples
  # (evaluation noise: the test set is a sample of each length'"'"'s examples)
  function wilson(t, s,    K, m, i, n, p, c, h, lo, hi, w, W, N) { m = split(seeds[t, s], K, " "); W = -1
    for (i = 1; i <= m; i++) if (stl[t, s, K[i]] != "" && (t, s, K[i], 2) in ex) { n = ex[t, s, K[i], 2]; p = ok[t, s, K[i], 2] / n
      c = p + 1.96 ^ 2 / (2 * n); h = 1.96 * sqrt(p * (1 - p) / n + 1.96 ^ 2 / (4 * n * n)); lo = (c - h) / (1 + 1.96 ^ 2 / n); hi = (c + h) / (1 + 1.96 ^ 2 / n)
      w = hi - p > p - lo ? hi - p : p - lo; if (w > W) { W = w; N = n } }
    return W < 0 ? "-" : sprintf("+-%.2f of %d", W, N) }
  # the per-token accuracy of an input-blind guess at bucket b of task t (the terminator right,
  # each answer symbol the likeliest for its place: 1 in 10 letters or digits, 1 in 2 for
  # parity'"'"'s bit, sort'"'"'s the likeliest letter of its rank), pooled as at() pools: over the
  # rows of the first run of t seen, their tokens; -1 if none
  # atchance(t, v) (tools/tasks2_lib.sh): a mean exact match at most the task'"'"'s chance level + 0.06,
  # claims.md'"'"'s margin for "not comparable (both at chance)", so a ranking among such means orders
  # noise (v10); chancetext says so
  function chancetext(t) { return sprintf("every mean at most %s + 0.06", chance(t) ? chance(t) "" : "0") }
  function tchance(t, b,    e, g) { e = CT[t, b]; g = CTOK[t, b]; return g ? e / g : -1 }
  # sort: the sum over the ranks i of n letters drawn uniformly from 10 of the likeliest letter'"'"'s
  # chance to be the i-th smallest (the order statistics of n draws: P(X(i) <= v) is the chance
  # that at least i of the n are <= v)
  function sortguess(n,    i, v, F, G, best, sum) { sum = 0
    for (i = 1; i <= n; i++) { best = 0; G = 0
      for (v = 0; v < 10; v++) { F = atleast(n, i, (v + 1) / 10); if (F - G > best) best = F - G; G = F }
      sum += best }
    return sum }
  function atleast(n, i, p,    j, f, s) { if (p >= 1) return 1; f = (1 - p) ^ n; s = 0
    for (j = 0; j < i; j++) { s += f; f *= (n - j) / (j + 1) * p / (1 - p) }
    return 1 - s }
  # the qualifying schemes of task t, best first by the mean exact match at 2x over their
  # learned seeds: R[1..m] and those means V[1..m]; returns m (S, ns: the schemes in order)
  function ranked(t,    i, a, b, m, x, y) { m = 0
    for (i = 1; i <= ns; i++) if (q[t, S[i]]) { R[++m] = S[i]; V[m] = meanv(t, S[i], "e", 2, 1) }
    for (a = 2; a <= m; a++) for (b = a; b > 1 && V[b] > V[b - 1]; b--) { x = V[b]; V[b] = V[b - 1]; V[b - 1] = x; y = R[b]; R[b] = R[b - 1]; R[b - 1] = y }
    return m }
  function learned(t, s,    K, m, i, n) {
    m = split(seeds[t, s], K, " "); n = 0; STEPS = ""
    for (i = 1; i <= m; i++) { n += stl[t, s, K[i]] != ""; STEPS = STEPS (i > 1 ? " " : "") (stl[t, s, K[i]] != "" ? stl[t, s, K[i]] : (t, s, K[i]) in rising ? "-+" : "-") }
    NSEEDS = m
    return n
  }
  END {
    ns = split(order, S, " ")
    if (part == "all") print "Exact match and per-token accuracy, the mean over all seeds run. 1x: the training lengths 1..L; 2x: L+1..2L; past 2x: the mean of the buckets past 2x (3x = 2L+1..3L; passkey also 4x and 8x). learned: the seeds whose held-out check reached 0.9 exact match at 1x (train --until-acc 0.9: val.txt, 32 examples of each length 1..L, a class apart from the test set), at the step in steps (- = the cap came first; -+ = the cap came first while its held-out exact match was still rising, by more than " rise " over its last 20% of steps: training.csv, v9). The scores are of the model after the check (train --after-learn: " after " steps more at the floor lr; the cap for a run that did not learn); exact 1x is task eval over the whole test set at 1..L."
    for (j = 1; j <= nt; j++) { t = tasks[j]
      if (part == "all") printf "\n%s (L = %d)\n\n| scheme | learned | steps | exact 1x | exact 2x | exact past 2x | token 1x | token 2x |\n|---|---|---|---|---|---|---|---|\n", t, Lof[t]
      for (i = 1; i <= ns; i++) { s = S[i]; if (!ran[t, s]) continue
        n = learned(t, s); npairs++
        if (n >= 2) { q[t, s] = 1; nq++ }
        if (part == "all") printf "| %s | %d of %d | %s | %s | %s | %s | %s | %s |\n", s, n, NSEEDS, STEPS, mean(t, s, "e", 1, 0), mean(t, s, "e", 2, 0), mean(t, s, "e", 3, 0), mean(t, s, "t", 1, 0), mean(t, s, "t", 2, 0) } }
    if (part == "summary") { # (summary.md: the task table of the top-level README, one row a task)
      print "| task | chance | pairs ranked (core six) | first rank at 2x: exact match, mean (learned seeds) | past 2x: the best mean |"
      print "|---|---|---|---|---|"
      for (j = 1; j <= nt; j++) { t = tasks[j]; m = ranked(t); nr = 0; nc = split(core, C, " ")
        for (i = 1; i <= ns; i++) nr += ran[t, S[i]]
        c = 0; for (i = 1; i <= nc; i++) c += q[t, C[i]]
        g = 0; first = ""; for (a = 1; a <= m; a++) if (!beaten(t, a, m) && ++g <= 3) { spread(t, R[a]); first = first (g > 1 ? ", " : "") sprintf("%s %.2f (%.2f-%.2f)", R[a], V[a], LOW, HIGH) }
        if (g > 3) first = first sprintf(" and %d more sharing it", g - 3)
        else if (g > 1) first = first " (sharing it)"
        if (!m) first = "(no scheme qualified)"
        else if (atchance(t, V[1])) first = first sprintf("; at or below chance (%s)", chancetext(t))
        best = ""; bv = -1; for (a = 1; a <= m; a++) { v = meanv(t, R[a], "e", 3, 1); if (MN && v > bv) { bv = v; best = R[a] } }
        printf "| %s | %s | %d of %d (%d of %d) | %s | %s |\n", t, chance(t) ? chance(t) "" : "about 0", m, nr, c, nc, first,
          best == "" ? "-" : bv < 0.005 ? "0.00 for every ranked scheme" : atchance(t, bv) ? sprintf("%s %.2f; at or below chance", best, bv) : sprintf("%s %.2f", best, bv) }
      exit }
    if (part == "rank") {
      printf "\nThe same ranking, of the models of the learned steps (model-learned.bin: train --after-learn keeps the model of the check that first reached 0.9; acc-learned.csv), to show whether it holds %d steps later: the same qualifying pairs and the same rule.\n\n", after
      print "| task | rank | scheme | learned | exact 2x | per seed | eval 95% | token 2x | beaten by |"
      print "|---|---|---|---|---|---|---|---|---|" }
    else {
    printf "\nRanking at 2x (L+1..2L: the lengths of Kazemnejad et al.'"'"'s beyond-L score), of the qualifying (task, scheme) pairs only: learned (0.9 exact match at 1x on the held-out check) in at least 2 seeds. %d of %d pairs qualified.\n\n", nq, npairs
    print "Exact and per-token at 2x: the means over the seeds that learned, and each of them. A scheme is beaten by another where every learned seed of the other lies above every learned seed of it and the means are more than 0.06 apart (the rule of claims.md), every pair of the task compared (v9); its rank is one more than the number of schemes that beat it, so schemes that share a rank beat no one of them. The rows are in the order of the means, and a rank counts the schemes that beat that row, so a row can carry a larger rank than a row below it. eval 95%: the widest 95% Wilson interval of a learned seed at 2x (the test examples are a sample), as +- and its examples. With 3 seeds no test of significance at 5% is possible: for seeds that do not differ in distribution, the chance that every seed of one lies above every seed of the other, either way, is 1/3 (2 against 2 seeds), 1/5 (2 against 3) or 1/10 (3 against 3), shown beside each win (v9), with no correction for the number of comparisons."
    print ""
    print "| task | rank | scheme | learned | exact 2x | per seed | eval 95% | token 2x | beaten by |"
    print "|---|---|---|---|---|---|---|---|---|" }
    for (j = 1; j <= nt; j++) { t = tasks[j]; m = ranked(t)
      if (!m) printf "| %s | - | (no scheme qualified) | | | | | | |\n", t
      for (a = 1; a <= m; a++) { n = learned(t, R[a]); rk = 1 + beaten(t, a, m); spread(t, R[a])
        printf "| %s | %d | %s | %s | %.2f | %s | %s | %s | %s |\n", t, rk, R[a], part == "rank" ? n "" : n " of " NSEEDS, V[a], LIST, wilson(t, R[a]), mean(t, R[a], "t", 2, 1), BEATEN == "" ? "-" : BEATEN } }
    if (part == "rank") exit
    nz = 0; zl = ""; for (j = 1; j <= nt; j++) { t = tasks[j]; m = ranked(t); if (m && atchance(t, V[1])) { nz++; zl = zl (nz > 1 ? ", " : "") t " (" chancetext(t) ")" } }
    if (nz) printf "\nAt or below chance at 2x (v10): %s. Every ranked mean of %s is at most its chance level + 0.06 (claims.md'"'"'s margin for \"at chance\"), so %s ranks at 2x compare scores at or below chance: no ranked scheme extrapolates over L+1..2L as a whole, though a run can still be far above chance at the first lengths past L (acc.csv, per length).\n", zl, (nz > 1 ? "these tasks" : "this task"), (nz > 1 ? "their" : "its")
    print ""
    print "Chance, exact match: copy, reverse, sort, add about 0 (10 letters or digits a symbol); sum 0.1 (one digit, the final answer of the scratchpad); parity 0.5; passkey about 0 (a 5-digit key). A task a scheme did not learn at 1x says nothing about its extrapolation: such pairs are not ranked."
    printf "\nChance, per-token accuracy (v9): an input-blind guess that writes the terminator right and each answer symbol the likeliest for its place (1 in 10 letters or digits, add'"'"'s digits taken as uniform; 1 in 2 for parity'"'"'s bit; for sort the likeliest letter of its rank among n uniform draws), pooled over each bucket'"'"'s answer bytes as the tables pool:"
    for (j = 1; j <= nt; j++) { t = tasks[j]; printf "%s %s %.2f at 1x, %.2f at 2x", (j > 1 ? ";" : ""), t, tchance(t, 1), tchance(t, 2) }
    print ". A per-token score near these says nothing of the answer'"'"'s content."
    nc = split(core, C, " "); good = 0
    printf "\nThe six core schemes (%s) that qualified, per task:\n\n| task | core schemes qualified |\n|---|---|\n", core
    for (j = 1; j <= nt; j++) { t = tasks[j]; c = 0; for (i = 1; i <= nc; i++) c += q[t, C[i]]; good += c >= 4; printf "| %s | %d of %d |\n", t, c, nc }
    printf "\n%d of %d tasks qualified for at least four of the six core schemes.\n", good, nt
  }' "$2"
}
tables all "$dir/acc.csv" > "$dir/table.md.part"
if [ -s "$dir/training.csv" ]; then
  awk -F, -v rise="$rise" 'NR > 1 && $6 == "" { n++; g += $9 > rise + 0; rows = rows sprintf("| %s | %s | %s | %s | %.2f | %.2f | %+.2f |\n", $1, $2, $3, $5, $7, $8, $9) }
    NR > 1 && $6 != "" { nl++; if ($10 != "" && $10 < 0.9) { b1++; low = low sprintf("%s %s %s seed %s (%.2f)", low == "" ? "" : ",", $1, $2, $3, $10) }; if ($11 != "" && $11 < 0.8) bt++ }
    END { printf "\nRuns that reached their cap without learning: %d, of which %d were still improving (held-out exact match up by more than %s over the last 20%% of their steps; training.csv).\n", n, g, rise
      if (n) printf "\n| task | scheme | seed | steps | held-out exact at 80%% | at the end | gain |\n|---|---|---|---|---|---|---|\n%s", rows
      printf "\nOf the %d runs that learned, the scored model is below 0.9 exact match on the test set at 1..L in %d, and below 0.8 at the top quarter of the training lengths (3L/4 < n <= L) in %d (training.csv: exact_1x, exact_top; the check pools the lengths, so a run can pass it with its misses at the longest ones).%s\n", nl, b1, bt, b1 ? " Below 0.9:" low ". Each counts as learned (the check'"'"'s verdict, v2), though its scored model is below 0.9." : "" }' "$dir/training.csv" >> "$dir/table.md.part"
fi
# the ranking again at the learned steps, and each pair's rank at both points
if [ -s "$dir/acc-learned.csv" ]; then
  check_acc tasks2_report "$dir/acc-learned.csv"
  # its runs are runs of acc.csv that learned, at the same step
  awk -F, -v f="$dir/acc-learned.csv" 'FNR == 1 { next } FILENAME != f { stl[$1 "," $2 "," $3] = $13; next }
    { k = $1 "," $2 "," $3; if (!(k in stl) || stl[k] == "" || stl[k] != $13) {
        printf "tasks2_report: %s:%d: the run %s is not a run of acc.csv that learned at step %s\n", f, FNR, k, $13 > "/dev/stderr"; exit 1 } }' \
    "$dir/acc.csv" "$dir/acc-learned.csv" || exit 1
  tables rank "$dir/acc-learned.csv" > "$dir/table-learned.part"
  ranks=$(awk -F' [|] ' '/^[|] [a-z]+ [|] [0-9]+ [|] / { k = $1 SUBSEP $3; if (FILENAME == ARGV[1]) { a[k] = $2; ord[++n] = k } else b[k] = $2 }
    END { for (i = 1; i <= n; i++) { k = ord[i]; split(k, x, SUBSEP); t = substr(x[1], 3)
        if (!(t in seen)) { seen[t] = 1; T[++nt] = t }
        if (!(k in b)) ch[t] = ch[t] sprintf("%s %s (%s, not ranked there)", ch[t] == "" ? "" : ";", x[2], a[k])
        else if (a[k] != b[k]) ch[t] = ch[t] sprintf("%s %s %s at the learned step, %s later", ch[t] == "" ? "" : ";", x[2], b[k], a[k]) }
      if (!nt) exit
      printf "\nThe ranks at the two points, per task (a rank change between two schemes that share a rank at either point is within the test'"'"'s noise):\n\n| task | ranks |\n|---|---|\n"
      for (i = 1; i <= nt; i++) printf "| %s | %s |\n", T[i], ch[T[i]] == "" ? "the same" : "changed:" ch[T[i]] }' \
    "$dir/table.md.part" "$dir/table-learned.part")
  { cat "$dir/table-learned.part"; [ -z "$ranks" ] || printf '%s\n' "$ranks"; } >> "$dir/table.md.part"
fi
if [ -s "$dir/training.csv" ]; then
  # the machine time: the sum of the runs' own wall times, per task (training.csv's train_s,
  # eval_s; a run without them is counted as such)
  awk -F, -v order="$TASKS2_TASKS" 'BEGIN { nt = split(order, tasks, " "); for (j = 1; j <= nt; j++) known[tasks[j]] = 1 } # (the order they run in; then any other)
    NR == 1 { ok = $13 == "train_s"; next } !ok { exit }
    { if (!($1 in n) && !($1 in known)) tasks[++nt] = $1; n[$1]++; if ($13 == "" || $14 == "") miss[$1]++; tr[$1] += $13; ev[$1] += $14 }
    END { if (!ok || NR < 2) exit
      printf "\nMachine time (training.csv: each run'"'"'s own wall time, training from its log and evaluation from time.txt, summed; runs that ran side by side each count in full):\n\n| task | runs | training (min) | evaluation (min) |\n|---|---|---|---|\n"
      for (j = 1; j <= nt; j++) { t = tasks[j]; if (!(t in n)) continue; T += tr[t]; E += ev[t]; M += miss[t]
        printf "| %s | %d%s | %.0f | %.0f |\n", t, n[t], miss[t] ? sprintf(" (%d without a record)", miss[t]) : "", tr[t] / 60, ev[t] / 60 }
      printf "| all | %d | %.0f | %.0f |\n\nIn all %.1f hours%s.\n", NR - 1, T / 60, E / 60, (T + E) / 3600, M ? sprintf(", %d runs not counted in full", M) : "" }' "$dir/training.csv" >> "$dir/table.md.part"
fi
mv "$dir/table.md.part" "$dir/table.md"
tables summary "$dir/acc.csv" > "$dir/summary.md.part" && mv "$dir/summary.md.part" "$dir/summary.md"
cat "$dir/table.md"
tools/tasks2_claims.sh "$dir" # claims.md: ours beside Kazemnejad et al.'s numbers

# a figure per task and metric, from DIR/acc.csv alone, so that a clone without the run folders
# draws the same bytes: each run's rows are split back into a task eval CSV (TASK/SCHEME/seedK.csv
# in a temporary folder; the scheme column holds the run's folder name, the series' label)
fig=$(mktemp -d)
trap 'rm -f "$dir/acc.csv.part" "$dir/acc-learned.csv.part" "$dir/table.md.part" "$dir/table-learned.part" "$dir/summary.md.part" "$dir/figures.txt.part"; rm -rf "$fig"' EXIT
awk -F, 'NR > 1 { print $1 "/" $2 }' "$dir/acc.csv" | sort -u | while read -r p; do mkdir -p "$fig/$p"; done
# (v9) a task's figures draw what the ranking reads: the learned seeds of the qualifying pairs
# (learned in at least 2 seeds); a task with no qualifying pair, every seed (the caption says which:
# FIG/TASK.none lists the schemes not drawn, in the order they first appear, or holds "all")
awk -F, -v OFS=, -v d="$fig" 'NR > 1 { row[NR] = $0; if (!(($1, $2) in ran)) { ran[$1, $2] = 1; o[$1] = o[$1] SUBSEP $2 }
    if ($13 != "" && !(($1, $2, $3) in c)) { c[$1, $2, $3] = 1; if (++nl[$1, $2] == 2) any[$1] = 1 } }
  END { for (r = 2; r <= NR; r++) { $0 = row[r]; if (any[$1] && ($13 == "" || nl[$1, $2] < 2)) continue; f = d "/" $1 "/" $2 "/seed" $3 ".csv"
    if (!(f in seen)) { seen[f] = 1; print "task,scheme,train_max_len,len,depth,examples,correct,accuracy,tokens,tokens_correct,token_accuracy" > f }
    print $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12 >> f; close(f) }
    for (t in o) { s = ""; if (any[t]) { n = split(substr(o[t], 2), S, SUBSEP); for (i = 1; i <= n; i++) if (nl[t, S[i]] < 2) s = s (s == "" ? "" : ", ") S[i] }
      f = d "/" t ".none"; print any[t] ? s : "all" > f; close(f) } }' "$dir/acc.csv"
: > "$dir/figures.txt.part"
echo "# in DIR; the per-run CSVs below are DIR/acc.csv's rows of each run, split back by tools/tasks2_report.sh (a temporary folder)" >> "$dir/figures.txt.part"
for t in copy reverse sort add sum parity passkey; do
  files=() names=() labels=""
  for s in $order; do for f in "$fig/$t/$s"/seed*.csv; do [ -s "$f" ] && files+=("$f") && names+=("${f#"$fig"/}") && labels+=${labels:+,}$s; done; done
  [ ${#files[@]} -gt 0 ] || continue
  none=$(cat "$fig/$t.none")
  if [ "$none" = all ]; then
    cap="shaded: the training lengths; no scheme learned the task in 2 seeds (0.9 exact match at 1x): every seed, the mean and a band from the lowest to the highest"
  else
    cap="shaded: the training lengths; as the ranking, the seeds that learned the task (0.9 at 1x) of the schemes that learned it in 2: their mean, a band from the lowest to the highest${none:+; not drawn: $none}"
  fi
  xl="length n (input symbols)"; [ "$t" = passkey ] && xl="length n (filler sentences)"
  for m in exact token; do
    png=$dir/$t.png; [ $m = token ] && png=$dir/$t-token.png
    "$bin" plot --kind accuracy --metric $m --label "$labels" --caption "$cap" --xlabel "$xl" --out "$png" "${files[@]}" > /dev/null 2>&1
    echo "posgpt plot --kind accuracy --metric $m --label $labels --caption '$cap' --xlabel '$xl' --out ${png#"$dir"/} ${names[*]}" >> "$dir/figures.txt.part"
  done
done
mv "$dir/figures.txt.part" "$dir/figures.txt"
echo "wrote $dir/table.md, $dir/acc.csv and the figures ($dir/<task>.png, <task>-token.png)" >&2
