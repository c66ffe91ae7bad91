#!/usr/bin/env bash
# study3_report.sh - the tables, figure and claims of tools/study3.sh, from the CSVs in its
# folder only (no checkpoint is read: a fresh clone redraws them byte for byte), but for the
# position bias before and after training: tools/study3_bias.sh reads each run's checkpoint
# once and keeps the tables it makes (DIR/bias/), which later reports reuse.
#
#   tools/study3_report.sh DIR       e.g. tools/study3_report.sh runs/study3
#
# Reads DIR/chosen.csv, phaseA.csv, match.csv (if any) and DIR/B/RUN/seedK/{eval-*.csv,
# perwin-final.csv, info.csv, log.csv}. Writes into DIR: eval.csv (every evaluation, one row
# per run, seed, step and length), paired.csv (the neighbour tests), convergence.csv,
# training.csv (the last-20% fall), ratio_vs_step.png, figures.txt, claims.md, bias.csv and
# bias.md (tools/study3_bias.sh: the largest position bias before and after), and the section
# of README.md between its "generated" markers (README.md is made if missing). The rules are
# runs/study3/PROTOCOL.md's.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
out=$1
bin=${POSGPT:-./posgpt}
export LC_ALL=C
[ -s "$out/chosen.csv" ] || { echo "study3_report: error: no $out/chosen.csv (run tools/study3.sh first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- eval.csv: every evaluation with its run's settings ----
{
  echo "scheme,seed,step,train_len,eval_len,loss,ppl,ci_low,ci_high,loss_ci_low,loss_ci_high,tokens,windows,evalset,pos,d_model,lr,pos_lr_mult,params,flops_per_token"
  for d in "$out"/B/*/seed*; do
    [ -s "$d/info.csv" ] || continue
    run=${d%/seed*}; run=${run##*/} seed=${d##*/seed}
    info=$(sed -n 2p "$d/info.csv" | cut -d, -f2,4-8) # pos,d_model,lr,pos_lr_mult,params,flops
    for f in "$d"/eval-*.csv; do
      set=kept; case $f in *eval-final.csv) set=final ;; esac
      awk -F, -v OFS=, -v r="$run" -v k="$seed" -v set="$set" -v info="$info" \
        'NR > 1 { print r, k, $13, $2, $3, $7, $8, $18, $19, $16, $17, $6, $12, set, info }' "$f"
    done
  done | sort -t, -k1,1 -k2,2n -k14,14 -k3,3n -k5,5n
} > "$out/eval.csv"
awk -F, 'NR > 1' "$out/eval.csv" > "$tmp/rows"
[ -s "$tmp/rows" ] || { echo "study3_report: error: no evaluations under $out/B (phase C has not run)" >&2; exit 1; }
T=$(head -1 "$tmp/rows" | cut -d, -f4)
lens=$(awk -F, '$14 == "final" { print $5 }' "$tmp/rows" | sort -n | uniq | tr '\n' ' ')

# ---- the final table: mean ppl over seeds, interval lowest ci_low .. highest ci_high ----
awk -F, '$14 == "final" { k = $1 SUBSEP $5; n[k]++; s[k] += $7; if (!(k in lo) || $8 < lo[k]) lo[k] = $8; if (!(k in hi) || $9 > hi[k]) hi[k] = $9 }
  END { for (k in n) { split(k, p, SUBSEP); printf "%s,%s,%d,%.4f,%.4f,%.4f\n", p[1], p[2], n[k], s[k] / n[k], lo[k], hi[k] } }' "$tmp/rows" \
  | sort -t, -k1,1 -k2,2n > "$tmp/final"
table() {
  printf "| scheme | seeds | lr | pos-lr mult | d_model | params | flops/token |"; for L in $lens; do printf " %sx |" $((L / T)); done; echo
  printf "|---|---|---|---|---|---|---|"; for L in $lens; do printf -- "---|"; done; echo
  for r in $(cut -d, -f1 "$tmp/final" | uniq); do
    awk -F, -v r="$r" '$1 == r && $14 == "final" { printf "| %s | %s | %s | %s | %s | %s |", r, $17, $18, $16, $19, $20; exit }' "$tmp/rows" \
      | sed "s/^| $r |/| $r | $(awk -F, -v r="$r" '$1 == r { print $3; exit }' "$tmp/final") |/"
    for L in $lens; do awk -F, -v r="$r" -v L="$L" '$1 == r && $2 == L { printf " %.3f (%.3f-%.3f) |", $4, $5, $6 }' "$tmp/final"; done
    echo
  done
}

# ---- paired tests of neighbours in each ranking (seed k against seed k, windows pooled) ----
# pool RUN SEEDS OUT: the per-window rows of RUN's seeds, window numbered seed * 10^6 + window
pool() {
  local r=$1 k f
  head -1 "$(ls "$out/B/$r"/seed*/perwin-final.csv | head -1)" > "$3"
  for k in $2; do
    f=$out/B/$r/seed$k/perwin-final.csv
    awk -F, -v OFS=, -v k="$k" 'NR > 1 { $7 = k * 1000000 + $7; print }' "$f"
  done >> "$3"
}
seeds_of() { ls -d "$out/B/$1"/seed* 2> /dev/null | sed 's/.*seed//' | while read -r k; do [ -s "$out/B/$1/seed$k/perwin-final.csv" ] && echo "$k"; done | sort -n; }
echo "eval_len,better,worse,seeds,windows,mean_diff,ci_low,ci_high,significant" > "$out/paired.csv"
for L in $lens; do
  awk -F, -v L="$L" '$2 == L' "$tmp/final" | sort -t, -k4,4g -k1,1 > "$tmp/rank-$L"
  prev=""
  while IFS=, read -r r _ _ _ _ _; do
    if [ -n "$prev" ]; then
      common=$(comm -12 <(seeds_of "$prev") <(seeds_of "$r") | sort -n | tr '\n' ' ')
      if [ -n "$common" ]; then
        pool "$prev" "$common" "$tmp/a.csv"; pool "$r" "$common" "$tmp/b.csv"
        awk -F, -v L="$L" 'NR == 1 || $3 == L' "$tmp/a.csv" > "$tmp/aL.csv"; awk -F, -v L="$L" 'NR == 1 || $3 == L' "$tmp/b.csv" > "$tmp/bL.csv"
        tools/paired.sh "$tmp/aL.csv" "$tmp/bL.csv" | awk -F, -v OFS=, -v L="$L" -v a="$prev" -v b="$r" -v k="${common% }" \
          'NR > 1 { gsub(/ /, "+", k); print L, a, b, k, $5, $6, $7, $8, ($9 == "yes" && $6 > 0) ? "yes" : "no" }'
      else echo "$L,$prev,$r,,,,,,no common seed"; fi
    fi
    prev=$r
  done < "$tmp/rank-$L" >> "$out/paired.csv"
done
rankings() {
  for L in $lens; do
    echo "At $((L / T))x ($L bytes), best first: mean ppl (interval); '<' where the paired test over the same windows excludes 0, '~' where it does not"
    echo
    awk -F, -v L="$L" 'NR == FNR { if ($1 == L) sig[$2] = ($9 == "yes") ? " < " : " ~ "; next }
      { line = line sprintf("%s%s %.3f (%.3f-%.3f)", sep, $1, $4, $5, $6); sep = ($1 in sig) ? sig[$1] : " ? " } END { print line }' \
      "$out/paired.csv" "$tmp/rank-$L"
    echo
  done
}

# ---- convergence: ppl at 16x over ppl at 1x against step (kept checkpoints) ----
L16=$((16 * T))
awk -F, -v T="$T" -v L="$L16" '$14 == "kept" && ($5 == T || $5 == L) { k = $1 SUBSEP $2 SUBSEP $3; if ($5 == T) a[k] = $7; else b[k] = $7 }
  END { for (k in a) if (k in b) { split(k, p, SUBSEP); printf "%s,%s,%s,%.6f,%.6f\n", p[1], p[2], p[3], b[k] / a[k], b[k] } }' "$tmp/rows" \
  | sort -t, -k1,1 -k3,3n -k2,2n > "$tmp/ratio"
awk -F, '{ k = $1 SUBSEP $3; n[k]++; s[k] += $4; p[k] += $5; if (!(k in lo) || $4 < lo[k]) lo[k] = $4; if (!(k in hi) || $4 > hi[k]) hi[k] = $4 }
  END { for (k in n) { split(k, q, SUBSEP); printf "%s,%s,%d,%.4f,%.4f,%.4f,%.4f\n", q[1], q[2], n[k], s[k] / n[k], lo[k], hi[k], p[k] / n[k] } }' "$tmp/ratio" \
  | sort -t, -k2,2n -k1,1 > "$tmp/conv"
# ranks per step (by mean ratio, by mean ppl at 16x)
{
  echo "scheme,step,seeds,ratio_mean,ratio_min,ratio_max,ppl16_mean,rank_ratio,rank_ppl16"
  for st in $(cut -d, -f2 "$tmp/conv" | sort -n | uniq); do
    awk -F, -v st="$st" '$2 == st' "$tmp/conv" | sort -t, -k4,4g -k1,1 | awk -F, -v OFS=, '{ print $0, NR }' | sort -t, -k7,7g -k1,1 \
      | awk -F, -v OFS=, '{ print $0, NR }' | sort -t, -k1,1
  done
} > "$out/convergence.csv"
# stable STEP: the first kept step from which the ranking by column C equals the final one's
stable() {
  awk -F, -v c="$1" 'NR > 1 { r[$2] = r[$2] $1 "=" $c ";"; if (!($2 in seen)) { seen[$2] = 1; st[++n] = $2 } }
    END { if (!n) { print "-"; exit } f = r[st[n]]; s = st[n]; for (i = n - 1; i >= 1; i--) { if (r[st[i]] != f) break; s = st[i] } print s }' "$out/convergence.csv"
}
stable_ratio=$(stable 8) stable_ppl=$(stable 9)
# the figure: one eval-format CSV per run and seed, the step as pos_offset and the ratio as ppl
echo "# drawn by: tools/study3_report.sh $out (the plot command reads the ratios as eval CSVs in a temporary folder, \$TMP: pos_offset holds the training step, ppl the ratio)" > "$out/figures.txt"
figs=()
while IFS=, read -r r k; do
  f=$tmp/fig-$r-seed$k.csv
  { echo "scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc,positions,pos_offset,windows,step,scaling,scale"
    awk -F, -v OFS=, -v r="$r" -v k="$k" -v T="$T" -v L="$L16" '$1 == r && $2 == k { print r, T, L, "nonoverlapping", L, 0, log($4), $4, 0, "contiguous", $3, 1, $3, "none", 1 }' "$tmp/ratio"
  } > "$f"
  figs+=("$f")
done < <(cut -d, -f1,2 "$tmp/ratio" | sort -u -t, -k1,1 -k2,2n)
if [ ${#figs[@]} -gt 0 ]; then
  args=(--kind offset --seeds --metric ppl --ylog --width 1800 --height 1000 --out "$out/ratio_vs_step.png" --xlabel "training step"
    --ylabel "ppl at 16x / ppl at 1x" --caption "kept checkpoints, the first sample of held-out bytes; lines: mean over seeds, bands: lowest to highest; log y axis"
    --title "Extrapolation against training step: perplexity at 16x over perplexity at 1x (trained at $T bytes)")
  echo "./posgpt plot $(printf "%q " "${args[@]}" "${figs[@]}" | sed "s|$tmp/|\$TMP/|g")" >> "$out/figures.txt"
  "$bin" plot "${args[@]}" "${figs[@]}" > /dev/null
fi

# ---- the last 20% of training: the fall of validation loss ----
{
  echo "scheme,seed,steps,step_80,val_loss_80,val_loss_final,fall_last20,plateau"
  for d in "$out"/B/*/seed*; do
    [ -s "$d/log.csv" ] || continue
    run=${d%/seed*}; run=${run##*/}
    awk -F, -v OFS=, -v r="$run" -v k="${d##*/seed}" 'NR > 1 && $3 != "" { n++; s[n] = $1; v[n] = $3 }
      END { if (!n) exit; last = s[n]; j = 0; for (i = 1; i <= n; i++) if (s[i] <= 0.8 * last) j = i; if (!j) exit
        f = v[j] - v[n]; printf "%s,%s,%d,%d,%.4f,%.4f,%.4f,%s\n", r, k, last, s[j], v[j], v[n], f, f < 0.01 ? "yes" : "no" }' "$d/log.csv"
  done | sort -t, -k1,1 -k2,2n
} > "$out/training.csv"

# ---- claims.md: Press et al. 2022, Table 2 (docs/schemes.md, "Reference numbers") ----
# ratio RUN L: mean over seeds of ppl(L)/ppl(T), and the interval of PROTOCOL.md
ratio() {
  awk -F, -v r="$1" -v L="$2" -v T="$T" '$1 == r && $14 == "final" && ($5 == T || $5 == L) { k = $2
      if ($5 == T) { a[k] = $7; al[k] = $8; ah[k] = $9 } else { b[k] = $7; bl[k] = $8; bh[k] = $9 } }
    END { for (k in a) if (k in b) { n++; s += b[k] / a[k]; if (lo == "" || bl[k] / ah[k] < lo) lo = bl[k] / ah[k]; if (hi == "" || bh[k] / al[k] > hi) hi = bh[k] / al[k] }
      if (n) printf "%.3f,%.3f,%.3f,%d\n", s / n, lo, hi, n }' "$tmp/rows"
}
{
  echo "# Claims: our measurements against the papers' numbers"
  echo
  echo "Generated by \`tools/study3_report.sh\` from \`eval.csv\` (the final checkpoints, whole held-out split); the rule is"
  echo "[PROTOCOL.md](PROTOCOL.md)'s. A claim compares the paper's ratio ppl(L) / ppl(train length) with ours; our interval"
  echo "is [lowest ci_low(L) / highest ci_high(1x), highest ci_high(L) / lowest ci_low(1x)] over seeds. **Verdict**: *holds*"
  echo "if our interval lies wholly on the paper's side of 1 (the paper's ratio > 1: degrades; <= 1: holds or improves),"
  echo "*differs* if it lies wholly on the other side, *inconclusive* if it contains 1, *not testable here* where the paper"
  echo "has no number or we ran no such model."
  echo
  echo "Paper: Press et al. 2022, Table 2 (WikiText-103, trained at 512 tokens, nonoverlapping), as quoted in"
  echo "[docs/schemes.md](../../docs/schemes.md#reference-numbers). Their lengths 1012, 2512, 5512, 15512 are 2x, 4.9x,"
  echo "10.8x, 30x; ours (bytes, trained at $T) are the nearest we evaluate: 2x, 4x, 8x, 16x."
  echo
  echo "| # | scheme | paper: ppl(512) -> ppl(L), ratio | ours: ratio at Nx [interval] (seeds) | verdict |"
  echo "|---|---|---|---|---|"
  i=0
  # scheme, ours, ppl at 512, then at 1012 2512 5512 15512 (OOM: none)
  while read -r name ours p0 rest; do
    m=2
    for pv in $rest; do
      i=$((i + 1))
      L=$((m * T))
      our=$(ratio "$ours" "$L")
      if [ "$pv" = OOM ]; then paper="$p0 -> out of memory"; pr=""
      else pr=$(awk -v a="$p0" -v b="$pv" 'BEGIN { printf "%.3f", b / a }'); paper="$p0 -> $pv, $pr"; fi
      if [ -z "$our" ]; then o="not run"; v="not testable here"
      else
        IFS=, read -r om ol oh on <<< "$our"
        o="${m}x: $om [$ol-$oh] ($on)"
        if [ -z "$pr" ]; then v="not testable here"
        else v=$(awk -v p="$pr" -v l="$ol" -v h="$oh" 'BEGIN { up = p > 1; if (l > 1) s = 1; else if (h <= 1) s = 0; else s = -1
            print s < 0 ? "inconclusive" : (s == up ? "holds" : "differs") }'); fi
      fi
      echo "| C$i | $name | $paper | $o | $v |"
      m=$((m * 2))
    done
  done <<'EOF'
sinusoidal sinusoidal 20.05 43.54 132.41 240.44 406.01
rotary rope 20.07 21.37 31.58 43.14 79.25
T5-bias t5 19.65 18.79 20.41 29.54 OOM
ALiBi alibi 19.73 18.73 18.41 18.36 18.31
EOF
  echo
  echo "## Other statements (to be filled from measured rows only: cite the paper, its number, our row of eval.csv)"
  echo
  echo "| # | statement | paper (source, number) | ours (eval.csv row, interval) | verdict |"
  echo "|---|---|---|---|---|"
} > "$out/claims.md"

# ---- the position bias before and after training (bias.csv, bias.md, the tables in bias/) ----
POSGPT=$bin tools/study3_bias.sh "$out" > /dev/null || echo "study3_report: warning: tools/study3_bias.sh $out failed (its rows may be missing)" >&2

# ---- README.md: the generated section ----
begin="<!-- generated by tools/study3_report.sh: do not edit below -->"
end="<!-- end of the generated section -->"
{
  echo "$begin"
  echo
  echo "### Each scheme's learning rate (phase A; the rule of PROTOCOL.md, by \`tools/study3.sh --choose\`)"
  echo
  echo "| scheme | chosen lr | pos-lr mult | its 1x val_loss | every run: lr x mult = val_loss |"
  echo "|---|---|---|---|---|"
  # (a choice at the largest or smallest lr its scheme ran, after the edge rule, is marked: the
  # sweep did not bracket the optimum)
  awk -F, 'NR == FNR { if (FNR > 1) { runs[$1] = runs[$1] sprintf("%s%s x %s = %s", nr[$1]++ ? "; " : "", $2, $3, $5 == "" ? "failed" : $5)
        if ($3 == 1) { if (!($1 in lo) || $2 + 0 < lo[$1]) lo[$1] = $2 + 0; if (!($1 in hi) || $2 + 0 > hi[$1]) hi[$1] = $2 + 0 } }; next }
    FNR > 1 { e = $2 + 0 == hi[$1] ? " (the largest lr run: at the grid'"'"'s edge)" : $2 + 0 == lo[$1] ? " (the smallest lr run: at the grid'"'"'s edge)" : ""
      printf "| %s | %s%s | %s | %.4f | %s |\n", $1, $2, e, $3, $4, runs[$1] }' "$out/phaseA.csv" "$out/chosen.csv"
  echo
  if [ -s "$out/match.csv" ]; then
    echo "### Matched controls (parameters closest to xl's; match.csv)"
    echo
    echo "| control | d_model | params | target | target params | difference |"
    echo "|---|---|---|---|---|---|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %+.1f%% |\n", $1, $2, $3, $4, $5, 100 * $6 }' "$out/match.csv"
    echo
  fi
  echo "### Perplexity at the final step, whole held-out split: mean over seeds (lowest ci_low - highest ci_high)"
  echo
  table
  echo
  echo "### Rankings with paired tests (paired.csv)"
  echo
  rankings
  echo "### Convergence (convergence.csv, ratio_vs_step.png)"
  echo
  echo "![ppl at 16x over ppl at 1x against training step](ratio_vs_step.png)"
  echo
  echo "The ranking by the ratio ppl(16x)/ppl(1x) no longer changes from step **$stable_ratio**; the ranking by ppl at 16x from"
  echo "step **$stable_ppl** (the kept checkpoints on the sample; the last kept step is the final one)."
  echo
  echo "### The last 20% of training (training.csv): fall of validation loss; plateau = under 0.01 nats"
  echo
  echo "| scheme | seed | val_loss at step | val_loss final | fall | plateau |"
  echo "|---|---|---|---|---|---|"
  awk -F, 'NR > 1 { printf "| %s | %s | %.4f (%s) | %.4f | %.4f | %s |\n", $1, $2, $5, $4, $6, $7, $8 }' "$out/training.csv"
  echo
  if grep -q '^| [AB] |' "$out/bias.md"; then cat "$out/bias.md"; echo; fi
  echo "$end"
} > "$tmp/gen"
if [ ! -s "$out/README.md" ]; then
  { echo "# Study 3: converged, tuned, with intervals"; echo
    echo "The procedure, fixed before the runs: [PROTOCOL.md](PROTOCOL.md). Each scheme's learning rate was chosen by its"
    echo "phase A rule (the smallest lr, then position-lr multiplier, within 0.01 nats of the best 1x validation loss),"
    echo "by \`tools/study3.sh --choose\` into \`chosen.csv\`. Everything below the marker is redrawn by"
    echo "\`tools/study3_report.sh\` from the CSVs in this folder."; echo; } > "$out/README.md"
fi
awk -v b="$begin" -v e="$end" -v g="$tmp/gen" '$0 == b { skip = 1; while ((getline l < g) > 0) print l; next } $0 == e { skip = 0; next } !skip' \
  "$out/README.md" > "$tmp/readme"
grep -qxF "$begin" "$out/README.md" || cat "$tmp/gen" >> "$tmp/readme"
cp "$tmp/readme" "$out/README.md"
cat "$tmp/gen"
