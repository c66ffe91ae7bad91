#!/usr/bin/env bash
# tasks2_claims.sh - claims.md of the task study: each comparison Kazemnejad et al. 2023 make
# between two schemes on a task we also ran, with their numbers (docs/papers.csv) beside ours
# and a verdict; it reads only DIR/acc.csv and DIR/acc-learned.csv (tools/tasks2_report.sh
# writes them) and docs/papers.csv, and runs nothing.
#   tools/tasks2_claims.sh [DIR]     (default runs/tasks2): writes DIR/claims.md
#
# The claims: for each task of theirs we ran (copy, reverse, addition = our add, parity, sort),
# the schemes of both studies (NoPE, T5, ALiBi, Rotary, APE = our nope, t5, alibi, rope,
# sinusoidal) in the paper's order of accuracy beyond the training lengths, each neighbouring
# pair whose numbers differ by more than their reading error (0.03 each: read from a plot)
# is a claim "A > B". Ours: the exact match at 2x (L+1..2L, the lengths of their beyond-L
# score), per learned seed (v6: the seeds the ranking uses; before, every seed and the mean of
# the buckets 2x and 3x). Verdict, where both schemes qualified (learned in at least 2
# seeds: a steps_to_learn, 0.9 exact match at 1x on the held-out check; tools/tasks2_report.sh):
#   not comparable (format)  a task whose format here is not theirs (v6): add (ours least
#                  significant digit first) and parity and sum (ours with a scratchpad)
#   not comparable both means within 0.06 of chance (parity 0.5, sum 0.1, the others 0; v4):
#                  both fail beyond the training lengths in our setting, which says nothing of
#                  the paper's difference
#   holds          every seed of A is above every seed of B (the seed ranges do not overlap) and
#                  the means are more than 0.06 apart (the gap a claim of theirs needs)
#   differs        every seed of B is above every seed of A and the means more than 0.06 apart
#                  ("B above A"; v4: the same gap as holds), or no seed of A is more than 0.06
#                  above any seed of B ("no gap": the difference they report is not there)
#   inconclusive   none of these (the ranges overlap, or a gap smaller than 0.06)
#   not testable   a scheme did not qualify (a task not learned says nothing about lengths
#                  beyond it) or was not run
# Then the mean-reciprocal-rank claim (their Figure 1, NoPE first), over the tasks of the same
# format where all five qualified (ranks by exact match at 2x), by the rule of the pairs above
# (v7; v6 judged the MRR of the means alone): holds if nope's MRR is at least every other's in
# every combination of one learned seed per (task, scheme), differs if one scheme's is above
# nope's in every combination, else inconclusive (the order changes with the seeds); the MRR of
# the means over the learned seeds and nope's margin over each scheme across the combinations
# are shown; not testable with fewer than 2 such tasks. Last (v8, before any --full run), Ruoss
# et al. 2023's average (their abstract: randomized positions raise test accuracy by 12.0% on
# average; docs/papers.csv holds none of their per-task accuracies): over the (task, base) pairs
# where a base (sinusoidal, rope, alibi) and its randomized version both qualified, the mean
# gain at 2x of randomized over the base (means over the learned seeds); holds if it is above 0
# in every combination of one learned seed per (task, scheme), differs if below 0 in every
# one, else inconclusive; not testable without such a pair (the default grid).
# With DIR/acc-learned.csv (the models of the learned steps, tools/tasks2_report.sh), v9: a last
# column gives each claim's verdict by the same rule on those models, so that a verdict that
# depends on when the models are scored shows.
# A damaged input is one error line and exit 1, with no claims.md written: acc.csv checked as
# tools/tasks2_lib.sh's check_acc says (header, LF line ends, 13 fields, numbers), papers.csv
# (PAPERS=FILE) missing, empty or with a quote left open on a line.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. tools/tasks2_lib.sh
dir=${1:-runs/tasks2}
papers=${PAPERS:-docs/papers.csv}
[ -d "$dir" ] || { echo "tasks2_claims: no folder $dir" >&2; exit 1; }
check_acc tasks2_claims "$dir/acc.csv"
[ -f "$papers" ] && [ -s "$papers" ] || { echo "tasks2_claims: no $papers, or it is empty (PAPERS=FILE: the papers' numbers)" >&2; exit 1; }
trap 'rm -f "$dir/claims.md.part" "$dir/claims-learned.tmp"' EXIT # (a failure leaves no partial claims.md)

# claims_awk MODE FILE: MODE table writes claims.md'"'"'s text from FILE (acc.csv) with the verdicts at
# the learned steps from DIR/claims-learned.tmp where it is there; MODE verdicts prints only
# "ID<tab>verdict" a claim (FILE: acc-learned.csv)
claims_awk() {
awk -v papers="$papers" -v mode="$1" -v lv="$dir/claims-learned.tmp" "$(cat tools/lib.awk)"'
  function ours(s) { return s == "NoPE" ? "nope" : s == "T5 relative bias" ? "t5" : s == "ALiBi" ? "alibi" : s == "Rotary" ? "rope" : s ~ /^APE/ ? "sinusoidal" : "" }
  function task(t) { return t == "addition" ? "add" : t }
  '"$TASKS2_CHANCE_AWK"' # (tools/tasks2_lib.sh: exact match by chance beyond the training lengths)
  function bucket(n, L) { return n <= L ? 1 : n <= 2 * L ? 2 : n <= 3 * L ? 3 : n <= 4 * L ? 4 : 8 }
  BEGIN {
    while ((getline line < papers) > 0) {
      pline++; sub(/\r$/, "", line)
      if ((nf = csv(line)) < 0) { printf "tasks2_claims: %s:%d: a quote is not closed on its line (a damaged CSV)\n", papers, pline > "/dev/stderr"; exit 1 }
      if (nf >= 13 && F[1] == "ruoss23-abs-gain") { rgain = F[11]; rwhere = F[4] "; " F[5]; continue }
      if (nf < 13 || F[1] !~ /^kazemnejad23-/) continue
      s = ours(F[7]); if (s == "") continue
      if (F[1] ~ /-mrr-/) { mrr[s] = F[11]; mrrwhere = F[4]; continue }
      t = task(F[8]); pv[t, s] = F[11] + 0; pid[t, s] = F[1]; where = F[4]
      if (!(t in pt)) { pt[t] = 1; ptasks[++npt] = t } }
    FS = ","
    if (mode == "table") while ((getline line < lv) > 0) { split(line, P, "\t"); LV[P[1]] = P[2]; nlv++ }
  }
  # a claim'"'"'s row: ID, the row'"'"'s cells before the verdict, the verdict (verdicts mode: the ID and
  # the verdict alone); the verdict at the learned steps beside it where there is one
  function row(id, cells, v) {
    if (mode == "verdicts") { printf "%s\t%s\n", id, v; return }
    printf "| %s | %s | %s |%s\n", id, cells, v, nlv ? " " ((id in LV) ? LV[id] : "-") " |" : "" }
  NR == 1 { next }
  { t = $1; s = $2; k = $3; L = $4; b = bucket($5, L)
    ex[t, s, k, b] += $7; ok[t, s, k, b] += $8; stl[t, s, k] = $13
    if (!((t, s, k) in seen)) { seen[t, s, k] = 1; K[t, s] = K[t, s] " " k }
    if (!(t in tseen)) { tseen[t] = 1; atasks[++nat] = t } }
  # the learned seeds of (t, s): AB[1..NQ] their exact match at 2x; returns the seeds run
  function seeds(t, s,    m, i, S) {
    m = split(K[t, s], S, " "); NQ = 0
    for (i = 1; i <= m; i++) if (stl[t, s, S[i]] != "") AB[++NQ] = (t, s, S[i], 2) in ex ? ok[t, s, S[i], 2] / ex[t, s, S[i], 2] : 0
    return m
  }
  function summary(t, s,    m, i, lo, hi, sum) {
    m = seeds(t, s); if (!m) { LO = ""; return "not run" }
    Q = NQ >= 2; LO = ""
    if (!Q) return "not learned: " NQ " of " m " seeds"
    lo = hi = AB[1]; sum = 0
    for (i = 1; i <= NQ; i++) { sum += AB[i]; if (AB[i] < lo) lo = AB[i]; if (AB[i] > hi) hi = AB[i] }
    LO = lo; HI = hi; MEAN = sum / NQ
    return sprintf("%.2f (%.2f-%.2f, %d learned seeds)", MEAN, lo, hi, NQ)
  }
  # a task whose format here is not theirs (their formats: docs/papers.md)
  function otherformat(t) { return t == "add" ? "ours least significant digit first" : t == "parity" || t == "sum" ? "ours with a scratchpad" : "" }
  END {
    if (mode != "verdicts") {
    print "# Claims of the task study against Kazemnejad et al. 2023 and Ruoss et al. 2023\n"
    print "Drawn by `tools/tasks2_claims.sh` from `acc.csv` and `docs/papers.csv` (the verdict rule: its header)."
    print "Theirs: accuracy beyond the training lengths read from the authors'"'"' plot (" where "; about +-0.03; their"
    print "setting differs: a decoder of about 107M parameters, other training and test lengths, steps and batch unverified:"
    print "docs/papers.md). Ours: exact match at 2x (L+1..2L), the mean over the seeds that learned the task and their range"
    print "(the seeds the ranking of table.md uses). The verdicts judge the direction of each difference only: the"
    print "levels are not comparable across the two settings." (nlv ? " The last column is the verdict by the same rule on the models of the learned steps (acc-learned.csv: train --after-learn'"'"'s model-learned.bin, before the steps at the floor lr that the scored models had): a verdict that differs between the two columns depends on when the models are scored." : "") "\n"
    hd = nlv ? " at the learned step |" : ""; hs = nlv ? "---|" : ""
    print "| # | task | claim | theirs | ours | verdict |" hd
    print "|---|---|---|---|---|---|" hs }
    order = "nope t5 alibi rope sinusoidal"; n5 = split(order, O, " ")
    for (j = 1; j <= npt; j++) { t = ptasks[j]
      # the five in the paper'"'"'s order on t (descending)
      m = 0; for (i = 1; i <= n5; i++) if ((t, O[i]) in pv) { R[++m] = O[i] }
      for (a = 2; a <= m; a++) for (b = a; b > 1 && pv[t, R[b]] > pv[t, R[b - 1]]; b--) { x = R[b]; R[b] = R[b - 1]; R[b - 1] = x }
      for (i = 1; i < m; i++) { A = R[i]; B = R[i + 1]
        if (!apart(pv[t, A], pv[t, B])) continue
        sa = summary(t, A); qa = Q; la = LO; ha = HI; ma = MEAN; sb = summary(t, B); qb = Q; lb = LO; hb = HI; mb = MEAN
        fl = chance(t) + 0.06
        if (otherformat(t) != "") v = "not comparable (format: " otherformat(t) ")"
        else if (la == "" || lb == "" || !qa || !qb) v = "not testable here"
        else if (atchance(t, ma) && atchance(t, mb)) v = sprintf("not comparable (both at chance: means at most %.2f, chance %.2f + 0.06)", fl, chance(t))
        else if (la > hb && apart(ma, mb)) v = "holds"
        else if (lb > ha && apart(mb, ma)) v = "differs (" B " above " A ")"
        else if (!apart(ha, lb)) v = sprintf("differs (no gap: %s at most %.2f above %s)", A, ha - lb, B)
        else v = "inconclusive"
        row("K" (++nc), sprintf("%s | %s > %s | %.2f > %.2f (%s, %s) | %s: %s; %s: %s", t, A, B, pv[t, A], pv[t, B], pid[t, A], pid[t, B], A, sa, B, sb), v) } }
    # the mean reciprocal rank over the tasks where all five qualified, from the means over the
    # learned seeds (a shared value, a shared rank); and the same over every combination of one
    # learned seed per (task, scheme), the rule of the pairs above (every seed above every seed):
    # per task and scheme s, the least and the most of rr(nope) - rr(s) over the task'"'"'s
    # combinations (O[1] is nope); the tasks'"'"' combinations are independent, so the sums of these
    # over the tasks are the least and the most of the MRR difference over every combination
    nt = 0
    for (i = 2; i <= n5; i++) DLO[i] = DHI[i] = 0
    for (j = 1; j <= npt; j++) { t = ptasks[j]; all = otherformat(t) == ""
      for (i = 1; i <= n5; i++) { summary(t, O[i]); if (LO == "" || !Q) all = 0; V[O[i]] = MEAN
        NS[i] = NQ; for (q = 1; q <= NQ; q++) SV[i, q] = AB[q] }
      if (!all) continue
      nt++; mtasks = mtasks (mtasks == "" ? "" : ", ") t; for (i = 1; i <= n5; i++) { r = 1; for (a = 1; a <= n5; a++) if (V[O[a]] > V[O[i]]) r++; rr[O[i]] += 1 / r }
      for (i = 1; i <= n5; i++) { IX[i] = 1; CLO[i] = 1e9; CHI[i] = -1e9 }
      do { # (an odometer over the five schemes'"'"' learned seeds)
        for (i = 1; i <= n5; i++) { r = 1; for (a = 1; a <= n5; a++) if (SV[a, IX[a]] > SV[i, IX[i]]) r++; RC[i] = 1 / r }
        for (i = 2; i <= n5; i++) { d = RC[1] - RC[i]; if (d < CLO[i]) CLO[i] = d; if (d > CHI[i]) CHI[i] = d }
        for (i = 1; i <= n5 && ++IX[i] > NS[i]; i++) IX[i] = 1
      } while (i <= n5)
      for (i = 2; i <= n5; i++) { DLO[i] += CLO[i]; DHI[i] += CHI[i] } }
    theirs = sprintf("nope %.2f, t5 %.2f, alibi %.2f, rope %.2f, sinusoidal %.2f (%s)", mrr["nope"], mrr["t5"], mrr["alibi"], mrr["rope"], mrr["sinusoidal"], mrrwhere)
    if (nt < 2) { ourm = "over " nt " task(s) of their format where all five qualified"; v = "not testable here" }
    else { ourm = ""; hold = 1; above = ""
      for (i = 1; i <= n5; i++) ourm = ourm sprintf("%s%s %.2f", i > 1 ? ", " : "", O[i], rr[O[i]] / nt)
      ourm = ourm " over " nt " tasks (" mtasks ": the tasks of their format where all five qualified; the means over the learned seeds; theirs is over all their tasks); nope minus each, over every combination of one learned seed per task and scheme:"
      for (i = 2; i <= n5; i++) { ourm = ourm sprintf(" %s %+.2f to %+.2f%s", O[i], DLO[i] / nt, DHI[i] / nt, i < n5 ? "," : "")
        if (DLO[i] < -1e-9) hold = 0; if (DHI[i] < -1e-9) above = above (above == "" ? "" : ", ") O[i] }
      v = hold ? "holds" : above != "" ? "differs (" above " above nope in every combination)" : "inconclusive (the order changes with the seeds)"
      # (v6'"'"'s rule, the MRR of the means alone, replaced by v7 after copy, reverse and sort had run: its verdict beside)
      top = 1; for (i = 2; i <= n5; i++) if (rr[O[i]] > rr[O[1]] + 1e-9) top = 0
      v = v sprintf("; by v6'"'"'s rule (the MRR of the means alone, replaced after copy, reverse and sort had run): %s", top ? "holds" : "differs") }
    row("K" (++nc), sprintf("all | nope has the highest mean reciprocal rank | %s | %s", theirs, ourm), v)
    # Ruoss et al.: randomizing the positions raises accuracy beyond the training lengths, on
    # average (their abstract). Ours: over the (task, base) pairs where the base and its
    # randomized version both qualified, randomized-B minus B at 2x (the means over the learned
    # seeds), averaged over the pairs; and the least and the most of that average over every
    # combination of one learned seed per (task, scheme): the pairs share no (task, scheme), so
    # they are the averages of each pair'"'"'s lowest randomized seed minus its highest base seed
    # and the reverse. holds if the least is above 0, differs if the most is below 0 (v8)
    if (mode != "verdicts") {
    print ""
    print "Ruoss et al. 2023 (randomized positions over a base encoding): their per-task accuracies are not in docs/papers.csv (docs/papers.md); the claim compared is their abstract'"'"'s average. Theirs is over 15 tasks with tests to 12.5x the training length (training to 40, testing to 500: unverified), ours at 2x; the direction only is judged, on the pairs where both schemes learned the task.\n"
    print "| # | task | claim | theirs | ours | verdict |" hd
    print "|---|---|---|---|---|---|" hs }
    nb = split("sinusoidal rope alibi", BS, " "); rn = gm = glo = ghi = 0; rlist = ""
    for (j = 1; j <= nat; j++) { t = atasks[j]
      for (i = 1; i <= nb; i++) { b = BS[i]; r = "randomized-" b
        if (!((t, r) in K) || !((t, b) in K)) continue
        summary(t, b); if (LO == "" || !Q) continue; lb = LO; hb = HI; mb = MEAN
        summary(t, r); if (LO == "" || !Q) continue
        rn++; gm += MEAN - mb; glo += LO - hb; ghi += HI - lb
        rlist = rlist sprintf("%s%s %s %+.2f", rlist == "" ? "" : ", ", t, b, MEAN - mb) } }
    if (!rn) { ourm = "no (task, base) pair where the base and its randomized version both learned (the randomized runs are in --full)"; v = "not testable here" }
    else { ourm = sprintf("%+.2f, the mean over %d pairs (%s); over every combination of one learned seed per task and scheme %+.2f to %+.2f", gm / rn, rn, rlist, glo / rn, ghi / rn)
      v = glo / rn > 1e-9 ? "holds" : ghi / rn < -1e-9 ? "differs (randomized lower in every combination)" : "inconclusive (the sign changes with the seeds)" }
    row("R1", sprintf("all | randomized positions raise exact match beyond the training lengths, on average | +%s (ruoss23-abs-gain: %s) | %s", rgain == "" ? "?" : rgain, rwhere, ourm), v)
  }' "$2"
}
rm -f "$dir/claims-learned.tmp"
# (v9) the verdicts again on the models of the learned steps, where tasks2_report.sh gathered them
if [ -s "$dir/acc-learned.csv" ]; then
  check_acc tasks2_claims "$dir/acc-learned.csv"
  claims_awk verdicts "$dir/acc-learned.csv" > "$dir/claims-learned.tmp"
fi
claims_awk table "$dir/acc.csv" > "$dir/claims.md.part"
rm -f "$dir/claims-learned.tmp"
mv "$dir/claims.md.part" "$dir/claims.md"
echo "wrote $dir/claims.md" >&2
