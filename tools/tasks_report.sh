#!/usr/bin/env bash
# tasks_report.sh - the tasks study's table and figures, from the accuracy CSVs a run of
# tools/tasks.sh left in DIR/<task>/<scheme>/seed<k>/acc.csv (it redraws them without running
# anything).
#   tools/tasks_report.sh [DIR]      (default runs/tasks)
#   tools/tasks_report.sh --compare DIR OTHER
#                                    the two studies side by side (e.g. packed against one example
#                                    a row), on standard output: per task and scheme run in both,
#                                    the accuracy in and beyond the training lengths, mean and
#                                    min-max over seeds, and whether the two seed ranges overlap;
#                                    it reads DIR/acc.csv and OTHER/acc.csv (written by the above)
# Writes DIR/table.md (accuracy per task and scheme, in and beyond the training lengths: the
# mean over seeds and the min-max; the same at a glance, every task in a row; the ranking by mean
# rank over tasks; the run time per task), DIR/acc.csv (every
# row with its seed), DIR/<task>.png (accuracy versus length, a band across seeds) and
# DIR/figures.txt (the commands that drew them).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
# the length buckets, for the table and for --compare: 1 (1x) = lengths 1..L, 2 (2x) = L+1..2L,
# and for passkey 4 (4x) = 2L+1..4L and 8 (8x) = 4L+1..8L
bucket='function bucket(n, L) { return n <= L ? 1 : n <= 2 * L ? 2 : n <= 4 * L ? 4 : 8 }'
if [ "${1:-}" = --compare ]; then
  [ $# = 3 ] || { echo "usage: tools/tasks_report.sh --compare DIR OTHER" >&2; exit 2; }
  for d in "$2" "$3"; do [ -s "$d/acc.csv" ] || { echo "tasks_report: no $d/acc.csv (run tools/tasks_report.sh $d first)" >&2; exit 1; }; done
  # per run (file, task, scheme, seed): 1x = the accuracy over lengths 1..L; beyond = the mean of the
  # buckets past 1x (2x, and for passkey 4x and 8x), as in table.md
  awk -F, -v A="$2" -v B="$3" "$bucket"'
    FNR == 1 { f = NR == 1 ? 1 : 2; next } # the first file read is DIR
    { t = $1; s = $2; k = $3; L = $4; n = $5
      b = bucket(n, L)
      ex[f, t, s, k, b] += $7; ok[f, t, s, k, b] += $8
      if (!((f, t, s, k) in seen)) { seen[f, t, s, k] = 1; seeds[f, t, s] = seeds[f, t, s] " " k }
      if (!((f, t, s) in ran)) { ran[f, t, s] = 1; if (f == 1) { order[++np] = t SUBSEP s } } }
    # the mean over seeds and the min-max of run f of (t, s), in or beyond (w = 1 or 2) the training lengths
    function stat(f, t, s, w,    m, K, i, b, c, a, acc) {
      m = split(seeds[f, t, s], K, " "); SUM = 0; LO = 2; HI = -1
      for (i = 1; i <= m; i++) {
        if (w == 1) acc = ok[f, t, s, K[i], 1] / ex[f, t, s, K[i], 1]
        else { a = 0; c = 0; for (b = 2; b <= 8; b *= 2) if ((f, t, s, K[i], b) in ex) { a += ok[f, t, s, K[i], b] / ex[f, t, s, K[i], b]; c++ }
               acc = a / c }
        SUM += acc; if (acc < LO) LO = acc; if (acc > HI) HI = acc }
      SUM /= m
      return sprintf("%.2f (%.2f-%.2f)", SUM, LO, HI)
    }
    END {
      printf "Exact match in the training lengths (1x) and beyond them (the mean of the buckets past 1x): %s against %s, the mean over seeds (min-max); overlap: whether the two seed ranges overlap\n\n", A, B
      print "| task | scheme | 1x, " A " | 1x, " B " | overlap | beyond, " A " | beyond, " B " | overlap |"
      print "|---|---|---|---|---|---|---|---|"
      for (i = 1; i <= np; i++) { split(order[i], P, SUBSEP); t = P[1]; s = P[2]
        if (!((2, t, s) in ran)) continue
        line = "| " t " | " s " |"
        for (w = 1; w <= 2; w++) {
          x = stat(1, t, s, w); lo1 = LO; hi1 = HI; y = stat(2, t, s, w)
          o = lo1 <= HI + 1e-9 && LO <= hi1 + 1e-9; cnt[w] += o
          line = line " " x " | " y " | " (o ? "yes" : "no") " |" }
        print line; both++ }
      printf "\nThe seed ranges overlap for %d of %d task and scheme pairs in the training lengths and %d of %d beyond them.\n", cnt[1], both, cnt[2], both
    }' "$2/acc.csv" "$3/acc.csv"
  exit 0
fi
dir=${1:-runs/tasks}
bin=${POSGPT:-./posgpt}
[ -d "$dir" ] || { echo "tasks_report: no folder $dir (run tools/tasks.sh first)" >&2; exit 1; }
order="nope t5 alibi rope sinusoidal randomized kerple-log kerple-power sandwich xpos fire cope shaw xl learned"
tasks=""
for t in copy reverse sort add sum parity passkey; do ls "$dir/$t"/*/seed*/acc.csv > /dev/null 2>&1 && tasks="$tasks $t"; done
[ -n "$tasks" ] || { echo "tasks_report: no accuracy CSVs under $dir" >&2; exit 1; }

# every row with its run's scheme folder and seed: task,scheme,seed,L,len,depth,examples,correct
{
  echo "task,run,seed,train_max_len,len,depth,examples,correct"
  for t in $tasks; do
    for s in $order; do
      for f in "$dir/$t/$s"/seed*/acc.csv; do
        [ -s "$f" ] || continue
        k=${f%/acc.csv}; k=${k##*/seed}
        awk -F, -v s="$s" -v k="$k" 'NR > 1 { print $1 "," s "," k "," $3 "," $4 "," $5 "," $6 "," $7 }' "$f"
      done
    done
  done
} > "$dir/acc.csv.part"
mv "$dir/acc.csv.part" "$dir/acc.csv"

awk -F, -v order="$order" -v tasks="$tasks" "$bucket"'
  NR == 1 { next }
  { t = $1; s = $2; k = $3; L = $4; n = $5
    b = bucket(n, L)
    key = t SUBSEP s SUBSEP k SUBSEP b
    ex[key] += $7; ok[key] += $8
    if (!((t, s, k) in seen)) { seen[t, s, k] = 1; nseed[t, s]++; seedlist[t, s] = seedlist[t, s] " " k }
    has[t, b] = 1; Lof[t] = L }
  function stats(t, s, b,    i, m, ks, acc, sum, lo, hi, c) {
    m = split(seedlist[t, s], ks, " "); sum = 0; lo = 2; hi = -1; c = 0
    for (i = 1; i <= m; i++) {
      if (!((t, s, ks[i], b) in ex)) continue
      acc = ok[t, s, ks[i], b] / ex[t, s, ks[i], b]; sum += acc; c++
      if (acc < lo) lo = acc; if (acc > hi) hi = acc
    }
    if (!c) return ""
    MEAN = sum / c
    return c > 1 ? sprintf("%.2f (%.2f-%.2f)", MEAN, lo, hi) : sprintf("%.2f", MEAN)
  }
  END {
    ns = split(order, S, " "); nt = split(tasks, T, " ") # (T and nt are read by shared() too)
    print "Exact-match accuracy: the mean over seeds (min-max). 1x: the training lengths 1..L; 2x: L+1..2L; passkey also 4x (2L+1..4L) and 8x (4L+1..8L)."
    for (j = 1; j <= nt; j++) {
      t = T[j]
      printf "\n%s (L = %d)\n\n| scheme | seeds | 1x | 2x |%s%s\n", t, Lof[t], has[t, 4] ? " 4x |" : "", has[t, 8] ? " 8x |" : ""
      printf "|---|---|---|---|%s%s\n", has[t, 4] ? "---|" : "", has[t, 8] ? "---|" : ""
      for (i = 1; i <= ns; i++) {
        s = S[i]; if (!((t, s) in nseed)) continue
        line = sprintf("| %s | %d |", s, nseed[t, s])
        for (b = 1; b <= 8; b *= 2) if (has[t, b]) line = line " " stats(t, s, b) " |"
        print line
        # beyond the training lengths, for the ranking: the mean of the buckets past 1x
        tot = 0; c = 0
        for (b = 2; b <= 8; b *= 2) if (has[t, b] && stats(t, s, b) != "") { tot += MEAN; c++ }
        if (c) { beyond[t, s] = tot / c; ran[t, s] = 1; anyran[s] = 1 }
      }
    }
    # at a glance: in and beyond the training lengths, every scheme and task
    printf "\nAt a glance: exact match in the training lengths (1x) / beyond them (the mean of the buckets past 1x), the mean over seeds\n\n"
    line = "| scheme |"; for (j = 1; j <= nt; j++) line = line " " T[j] " |"; print line
    line = "|---|"; for (j = 1; j <= nt; j++) line = line "---|"; print line
    for (i = 1; i <= ns; i++) { s = S[i]; if (!anyran[s]) continue; line = "| " s " |"
      for (j = 1; j <= nt; j++) { t = T[j]
        if (ran[t, s] && stats(t, s, 1) != "") line = line sprintf(" %.2f / %.2f |", MEAN, beyond[t, s]); else line = line " |" }
      print line }
    # the six schemes on every task they share, then every scheme on the tasks where all ran
    six = "nope t5 alibi rope sinusoidal randomized"
    ranking("Kazemnejad et al.'"'"'s five schemes and randomized positions, on the tasks all of them ran on", six, shared(six))
    ranking("Every scheme, on the tasks every scheme ran on", order, shared(order))
    # a task where every scheme is at chance beyond the training lengths ranks noise: the
    # ranking again over the tasks where the best of the set beats chance by 0.05 or more
    # (chance of an exact answer: sum mod 10 one in 10, parity one in 2, the others about 0;
    # 0.05 is three standard errors of an accuracy near 0.5 over 1000 examples)
    chance["sum"] = 0.1; chance["parity"] = 0.5
    ranking("Kazemnejad et al.'"'"'s five schemes and randomized positions, on the tasks where the best of them beats chance beyond the training lengths by 0.05 or more (chance: sum 0.1, parity 0.5, the others about 0)", six, informative(shared(six), six))
  }
  # the tasks of `list` on which the best scheme of `set` beats chance beyond L by 0.05 or more
  function informative(list, set,    R, TT, nr, nq, i, j, best, out) {
    nr = split(set, R, " "); nq = split(list, TT, " "); out = ""
    for (j = 1; j <= nq; j++) { best = 0
      for (i = 1; i <= nr; i++) if (ran[TT[j], R[i]] && beyond[TT[j], R[i]] > best) best = beyond[TT[j], R[i]]
      if (best >= chance[TT[j]] + 0.05) out = out " " TT[j] }
    return out
  }
  # the tasks on which every scheme of `set` that ran anywhere ran
  function shared(set,    R, nr, i, j, all, list) {
    nr = split(set, R, " "); list = ""
    for (j = 1; j <= nt; j++) { all = 1; for (i = 1; i <= nr; i++) if (anyran[R[i]] && !ran[T[j], R[i]]) all = 0; if (all) list = list " " T[j] }
    return list
  }
  # ranks per task by the accuracy beyond the training lengths among the schemes of `set` that
  # ran on it (ties share the mean rank); over the tasks, the mean rank and the mean reciprocal rank
  function ranking(title, set, tasklist,    R, TT, nr, nq, i, j, q, s, t, u, above, same, rank, head, sep, line, sum, rr, c) {
    nr = split(set, R, " "); nq = split(tasklist, TT, " ")
    if (!nq) return
    for (j = 1; j <= nq; j++) { t = TT[j]
      for (i = 1; i <= nr; i++) { s = R[i]; if (!ran[t, s]) continue
        above = 0; same = 0
        for (q = 1; q <= nr; q++) { u = R[q]; if (!ran[t, u]) continue
          if (beyond[t, u] > beyond[t, s] + 1e-9) above++; else if (beyond[t, u] >= beyond[t, s] - 1e-9) same++ }
        rank[t, s] = above + (same + 1) / 2 } }
    printf "\n%s: accuracy beyond the training lengths (the mean of the buckets past 1x) and its rank per task; the mean rank (1 = best) and the mean reciprocal rank (MRR, Kazemnejad et al.'"'"'s summary) over the tasks\n\n", title
    head = "| scheme |"; sep = "|---|"
    for (j = 1; j <= nq; j++) { head = head " " TT[j] " |"; sep = sep "---|" }
    print head " mean rank | MRR |"; print sep "---|---|"
    for (i = 1; i <= nr; i++) { s = R[i]; line = "| " s " |"; sum = 0; rr = 0; c = 0
      for (j = 1; j <= nq; j++) { t = TT[j]
        if (ran[t, s]) { line = line sprintf(" %.2f (%g) |", beyond[t, s], rank[t, s]); sum += rank[t, s]; rr += 1 / rank[t, s]; c++ }
        else line = line " |" }
      if (c) print line sprintf(" %.2f | %.2f |", sum / c, rr / c) }
  }' "$dir/acc.csv" > "$dir/table.md.part"
# the run time per task, from each run's time.txt (train_s=.. eval_s=..)
{
  echo
  echo "Run time per task: the sum of the runs' time.txt (a run resumed after an interruption counts only its time after the resumption), and half of it, the wall time two runs at a time"
  echo
  echo "| task | runs timed | training, min | evaluation, min | two at a time, h |"
  echo "|---|---|---|---|---|"
  # one pass over the files: "TASK train_s=.. eval_s=.." lines; a row per task (0 when untimed), then the total
  for t in $tasks; do for f in "$dir/$t"/*/seed*/time.txt; do if [ -s "$f" ]; then echo "$t $(cat "$f")"; fi; done; done |
    awk -F'[= ]' -v tasks="$tasks" 'function row(t, n, a, b) { printf "| %s | %d | %.1f | %.1f | %.2f |\n", t, n, a / 60, b / 60, (a + b) / 7200 }
      { a[$1] += $3; b[$1] += $5; n[$1]++ }
      END { k = split(tasks, T, " "); for (i = 1; i <= k; i++) { t = T[i]; row(t, n[t], a[t], b[t]); A += a[t]; B += b[t]; N += n[t] }
            row("all", N, A, B) }'
} >> "$dir/table.md.part"
mv "$dir/table.md.part" "$dir/table.md"
cat "$dir/table.md"

# a figure per task: accuracy versus length, every scheme, a band across its seeds
: > "$dir/figures.txt.part"
for t in $tasks; do
  files=()
  for s in $order; do for f in "$dir/$t/$s"/seed*/acc.csv; do [ -s "$f" ] && files+=("$f"); done; done
  cmd=("$bin" plot --kind accuracy --out "$dir/$t.png" "${files[@]}")
  "${cmd[@]}" > /dev/null
  echo "posgpt plot --kind accuracy --out $dir/$t.png $dir/$t/*/seed*/acc.csv" >> "$dir/figures.txt.part"
done
mv "$dir/figures.txt.part" "$dir/figures.txt"
echo "wrote $dir/table.md, $dir/acc.csv and a figure per task ($dir/<task>.png)" >&2
