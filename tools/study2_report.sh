#!/usr/bin/env bash
# study2_report.sh - the tables and figures of tools/study2.sh, from the CSVs in its folder
# (run alone to redraw them; nothing is trained or evaluated).
#
#   tools/study2_report.sh DIR T0     e.g. tools/study2_report.sh runs/study2 128
#
# Writes into DIR: table.md (perplexity mean and min-max over seeds per scheme and length, a
# model trained at random positions also tested at random positions, with whether the bands
# of neighbours in the ranking overlap; training lengths; fine-tuning; the
# second corpus), ppl_seeds.png (mean with a min-max band), lengths_SCHEME.png (one curve per
# training length, Press et al. 2022 Fig. 1), finetune.png, and figures.txt (the commands).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
out=$1 T0=$2
bin=${POSGPT:-./posgpt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# drawn by: tools/study2_report.sh $out $T0 (the plot commands below read the nonoverlapping rows of the CSVs, relabelled, which that script copies to a temporary folder, \$TMP)" > "$out/figures.txt"
plot() { echo "./posgpt plot $(printf "%q " "$@" | sed "s|$tmp/|\$TMP/|g")" >> "$out/figures.txt"; "$bin" plot "$@"; }
# nonoverlapping rows of an eval CSV, with a new scheme label when $3 is given
nonover() { awk -F, -v OFS=, -v lab="${3:-}" 'NR == 1 || $4 == "nonoverlapping" { if (NR > 1 && lab != "") $1 = lab; print }' "$1" > "$2"; }

# ---- seeds: every scheme at T0 on the Bible ----
seedfiles=()
for f in "$out"/kjv-T"$T0"/*/seed*/eval.csv; do
  [ -s "$f" ] || continue
  s=$(basename "$(dirname "$(dirname "$f")")") k=$(basename "$(dirname "$f")")
  # and a model trained at random positions, tested at random positions too (Ruoss et al.'s
  # protocol; eval_random.csv): a row of its own in the tables, a dashed line in the figure
  for e in eval eval_random; do
    [ -s "$(dirname "$f")/$e.csv" ] || continue
    nonover "$(dirname "$f")/$e.csv" "$tmp/seeds-$s-$e-$k.csv" "$s"
    seedfiles+=("$tmp/seeds-$s-$e-$k.csv")
    # the csv of all seeds, with the seed
    awk -F, -v OFS=, -v k="${k#seed}" 'NR > 1 { print $0, k }' "$tmp/seeds-$s-$e-$k.csv"
  done
done > "$tmp/all.csv"
{
  echo "scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc,positions,pos_offset,windows,step,scaling,scale,seed"
  sort -t, -k1,1 -k10,10 -k3,3n -k16,16n "$tmp/all.csv"
} > "$out/seeds.csv"
{
  echo "## Seeds: perplexity at 1..32 x T0 = $T0 on the King James Bible (nonoverlapping), mean (min-max) over seeds"
  echo
  mults=$(awk -F, 'NR > 1 { print $3 }' "$out/seeds.csv" | sort -n | uniq | tr '\n' ' ')
  printf "| scheme | seeds |"; for L in $mults; do printf " %sx |" $((L / T0)); done; echo
  printf "|---|---|"; for L in $mults; do printf -- "---|"; done; echo
  awk -F, -v ms="$mults" 'NR > 1 { if ($10 == "random") $1 = $1 " (random positions)"
      k = $1 SUBSEP $3; n[k]++; s[k] += $8; if (!(k in lo) || $8 < lo[k]) lo[k] = $8; if (!(k in hi) || $8 > hi[k]) hi[k] = $8
      if (!($1 in seen)) { seen[$1] = 1; order[++ns] = $1 } seeds[$1 SUBSEP $16] = 1 }
    END { nm = split(ms, m, " ")
      for (i = 1; i <= ns; i++) { c = 0; for (q in seeds) { split(q, p, SUBSEP); if (p[1] == order[i]) c++ }
        printf "| %s | %d |", order[i], c
        for (j = 1; j <= nm; j++) { k = order[i] SUBSEP m[j]
          if (k in n) printf " %.2f (%.2f-%.2f) |", s[k] / n[k], lo[k], hi[k]; else printf " - |" }
        printf "\n" } }' "$out/seeds.csv"
  echo
  # the ranking at 2x, 8x and 16x with the overlap of each neighbour's band
  for mult in 2 8 16; do
    L=$((mult * T0))
    echo "Ranking at ${mult}x ($L bytes), best first: mean perplexity [min-max]; '~' where the band overlaps the next one's, '<' where it lies wholly below it"
    echo
    awk -F, -v L="$L" 'NR > 1 && $3 == L { if ($10 == "random") $1 = $1 " (random positions)"
        n[$1]++; s[$1] += $8; if (!($1 in lo) || $8 < lo[$1]) lo[$1] = $8; if (!($1 in hi) || $8 > hi[$1]) hi[$1] = $8 }
      END { for (k in n) printf "%s\t%.4f\t%.4f\t%.4f\t%d\n", k, s[k] / n[k], lo[k], hi[k], n[k] }' "$out/seeds.csv" | sort -t"$(printf '\t')" -k2,2g > "$tmp/rank"
    awk -F'\t' '{ name[NR] = $1; m[NR] = $2; lo[NR] = $3; hi[NR] = $4 }
      END { line = ""; for (i = 1; i <= NR; i++) { line = line sprintf("%s %.2f [%.2f-%.2f]", name[i], m[i], lo[i], hi[i])
          if (i < NR) line = line (hi[i] >= lo[i + 1] ? " ~ " : " < ") }
        print line }' "$tmp/rank"
    echo
  done
} > "$out/table.md"
if [ ${#seedfiles[@]} -gt 0 ]; then
  plot --kind ppl --seeds --zoom 1.3 --width 2400 --height 1100 --out "$out/ppl_seeds.png" \
    --title "Perplexity vs evaluation length, trained at $T0 bytes (King James Bible): mean of seeds, min-max band" "${seedfiles[@]}"
fi

# ---- training lengths (seed 1): one figure per scheme ----
lfiles=()
for T in $(for d in "$out"/kjv-T*/; do [ -d "$d" ] || continue; d=${d%/}; echo "${d##*-T}"; done | sort -n); do # shortest first
  for f in "$out/kjv-T$T"/*/seed1/eval.csv; do [ -s "$f" ] && lfiles+=("$f"); done
done
lsch=$(for f in "${lfiles[@]}"; do echo "$f"; done | awk -F/ '{ print $(NF - 2) }' | sort | uniq -c | awk '$1 > 1 { print $2 }')
{
  echo "## Training lengths (seed 1): perplexity by evaluation length (nonoverlapping), per training length"
  echo
  for s in $lsch; do
    files=()
    for f in "${lfiles[@]}"; do
      [ "$(basename "$(dirname "$(dirname "$f")")")" = "$s" ] || continue
      T=$(echo "$f" | sed 's|.*/kjv-T\([0-9]*\)/.*|\1|')
      nonover "$f" "$tmp/len-$s-$T.csv" "$s"
      files+=("$tmp/len-$s-$T.csv")
    done
    cat "${files[@]}" | awk -F, 'NR > 1 && $1 != "scheme"' > "$tmp/len-$s"
    evs=$(awk -F, '{ print $3 }' "$tmp/len-$s" | sort -n | uniq | tr '\n' ' ')
    echo "$s"
    echo
    printf "| trained at |"; for L in $evs; do printf " %s |" "$L"; done; echo
    printf "|---|"; for L in $evs; do printf -- "---|"; done; echo
    for T in $(awk -F, '{ print $2 }' "$tmp/len-$s" | sort -n | uniq); do
      printf "| %s |" "$T"
      for L in $evs; do awk -F, -v T="$T" -v L="$L" '$2 == T && $3 == L { v = sprintf("%.2f", $8) } END { printf " %s |", v == "" ? "-" : v }' "$tmp/len-$s"; done
      echo
    done
    echo
    plot --kind ppl --out "$out/lengths_$s.png" --title "$s: perplexity vs evaluation length, one curve per training length" "${files[@]}"
  done
} >> "$out/table.md"

# ---- fine-tuning the rope model at 2x and 4x T0 ----
base=$out/kjv-T$T0/rope/seed1
if ls "$base"/ft-T*/eval.csv > /dev/null 2>&1; then
  nonover "$base/eval.csv" "$tmp/ft-base.csv" "rope"
  ffiles=("$tmp/ft-base.csv")
  for m in pi ntk yarn dynamic-ntk rerope; do
    [ -s "$base/ext_$m.csv" ] && nonover "$base/ext_$m.csv" "$tmp/ft-ext-$m.csv" "rope+$m at evaluation only" && ffiles+=("$tmp/ft-ext-$m.csv")
  done
  for f in $(ls "$base"/ft-T*/eval.csv | awk -F'ft-T' '{ split($NF, a, "-"); print a[1] + 0, $0 }' | sort -k1,1n -k2 | cut -d' ' -f2-); do
    n=$(basename "$(dirname "$f")"); T2=${n#ft-T}; T2=${T2%%-*}; m=${n##*-}
    lab="rope+$m fine-tuned"; [ "$m" = none ] && lab="rope fine-tuned"
    nonover "$f" "$tmp/$n.csv" "$lab"
    ffiles+=("$tmp/$n.csv")
  done
  {
    echo "## Fine-tuning the rope model (seed 1) at 2x and 4x its length: perplexity (nonoverlapping)"
    echo
    evs=$(cat "${ffiles[@]}" | awk -F, '$1 != "scheme" { print $3 }' | sort -n | uniq | tr '\n' ' ')
    printf "| model |"; for L in $evs; do printf " %sx |" $((L / T0)); done; echo
    printf "|---|"; for L in $evs; do printf -- "---|"; done; echo
    for f in "${ffiles[@]}"; do
      printf "| %s |" "$(awk -F, 'NR == 2 { print $1 ($2 != T0 ? " at " $2 : "") }' T0="$T0" "$f")"
      for L in $evs; do awk -F, -v L="$L" 'NR > 1 && $3 == L { v = sprintf("%.2f", $8) } END { printf " %s |", v == "" ? "-" : v }' "$f"; done
      echo
    done
    echo
  } >> "$out/table.md"
  # the figure: the base model and the fine-tunes, with the table's names (--label), on a log y
  # axis: the close race within the fine-tuned lengths and the climb beyond them both show
  fsel=("$tmp/ft-base.csv") flab="rope at $T0 (no fine-tune)"
  for f in "${ffiles[@]}"; do
    case $f in *ft-T*) fsel+=("$f") flab="$flab,$(awk -F, 'NR == 2 { sub(/ fine-tuned$/, "", $1); print $1 " fine-tuned at " $2 }' "$f")" ;; esac
  done
  ftset=$(ls "$base"/ft-T*/settings.txt 2> /dev/null | head -1 || true) ftsteps=
  [ -n "$ftset" ] && ftsteps=$(sed -n 's/^steps \([0-9]*\);.*/\1 steps/p' "$ftset")
  plot --kind ppl --ylog --label "$flab" --out "$out/finetune.png" \
    --title "RoPE trained at $T0, fine-tuned${ftsteps:+ $ftsteps} at 2x and 4x its length, by extension method" "${fsel[@]}"
fi

# ---- the second corpus: the ordering at 16x ----
if ls "$out"/fortunes-T"$T0"/*/seed1/eval.csv > /dev/null 2>&1; then
  L=$((16 * T0))
  for f in "$out"/fortunes-T"$T0"/*/seed1/eval.csv; do
    s=$(basename "$(dirname "$(dirname "$f")")")
    k=$out/kjv-T$T0/$s/seed1/eval.csv
    [ -s "$k" ] || continue
    a=$(awk -F, -v L="$L" '$4 == "nonoverlapping" && $3 == L { print $8 }' "$k")
    b=$(awk -F, -v L="$L" '$4 == "nonoverlapping" && $3 == L { print $8 }' "$f")
    [ -n "$a" ] && [ -n "$b" ] && echo "$s $a $b"
  done > "$tmp/corpus"
  {
    echo "## The second corpus (fortunes) against the Bible, seed 1: perplexity at 16x ($L bytes) and rank (1 = best)"
    echo
    echo "| scheme | Bible | rank | fortunes | rank |"
    echo "|---|---|---|---|---|"
    sort -k2,2g "$tmp/corpus" | awk '{ print $0, NR }' | sort -k3,3g | awk '{ print $0, NR }' | sort -k4,4n |
      awk '{ printf "| %s | %.2f | %d | %.2f | %d |\n", $1, $2, $4, $3, $5 }'
    awk '{ n[NR] = $1; a[NR] = $2; b[NR] = $3 } END { agree = 0; pairs = 0
        for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) { pairs++; if ((a[i] - a[j]) * (b[i] - b[j]) > 0) agree++ }
        printf "\n%d of %d pairs of schemes keep their order from one corpus to the other.\n", agree, pairs }' "$tmp/corpus"
    echo
  } >> "$out/table.md"
fi
cat "$out/table.md"
