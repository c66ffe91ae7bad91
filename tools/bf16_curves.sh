#!/usr/bin/env bash
# bf16_curves.sh - bf16 against fp32 (train --precision bf16, docs/performance.md "bf16"):
# trains rope, alibi and nope at config S for 1200 steps (the study's reference settings:
# tools/study.sh) in fp32 and in bf16, for each seed given, and draws each scheme's training
# curves (log.csv: train and validation loss) with posgpt plot into runs/bf16/. A run that
# finished is not trained again; one interrupted (its last checkpoint, made with the same
# settings: the run's .args file) resumes. It also writes final.csv (scheme, precision, seed,
# last validation loss) and compare.csv, printed too: per scheme, the bf16 - fp32 difference of
# the mean final validation loss beside the spread of fp32 over the seeds (max - min; bf16
# "within seed noise" means the first is no larger than the second), and each seed's bf16 -
# fp32 (the same seed: the same initial weights and batches).
#
#   tools/bf16_curves.sh 1 2 3        three seeds (needs a CPU with AVX512-BF16 or AMX-BF16)
#
# Environment: SCHEMES (default "rope alibi nope"), STEPS (1200), OUT (runs/bf16), DATA
# (data/kjv.txt), POSGPT (the binary), THREADS (--threads; 0 = all cores), MODEL (the model
# and batch flags; default config S: --layers 4 --d-model 128 --heads 4 --seq-len 128 --batch 32),
# TOKENS (validation tokens, 65536). For a quick check of the script itself:
#   STEPS=20 MODEL="--layers 1 --d-model 32 --heads 2 --seq-len 32 --batch 4" TOKENS=2048 OUT=/tmp/bf16c tools/bf16_curves.sh 1 2
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ $# -gt 0 ] || { echo "bf16_curves.sh: give the seeds, e.g. tools/bf16_curves.sh 1 2 3 (see --help)" >&2; exit 2; }
cd "$(dirname "$(realpath "$0")")/.."
seeds=("$@")
for s in "${seeds[@]}"; do [[ $s =~ ^[0-9]+$ ]] || { echo "bf16_curves: a seed is a number, got '$s'" >&2; exit 2; }; done
# (a seed given twice, also as 1 and 01, would count its pair twice in compare.csv)
dup=$(for s in "${seeds[@]}"; do echo $((10#$s)); done | sort -n | uniq -d | head -1)
[ -z "$dup" ] || { echo "bf16_curves: seed $dup is given twice (each seed once: its fp32 and bf16 runs are one pair)" >&2; exit 2; }
bin=${POSGPT:-./posgpt}
[ -x "$bin" ] || make --no-print-directory posgpt
data=${DATA:-data/kjv.txt}
[ -s "$data" ] || [ -n "${DATA:-}" ] || make --no-print-directory data/kjv.txt
out=${OUT:-runs/bf16} steps=${STEPS:-1200} tokens=${TOKENS:-65536}
read -r -a model <<< "${MODEL:---layers 4 --d-model 128 --heads 4 --seq-len 128 --batch 32}"
mkdir -p "$out"
for scheme in ${SCHEMES:-rope alibi nope}; do
  for prec in fp32 bf16; do
    for seed in "${seeds[@]}"; do
      d="$out/$scheme-$prec-s$seed"
      if [ -s "$d/summary.json" ] && grep -q '"status": "done"' "$d/summary.json"; then echo "$d: done, kept" >&2; continue; fi
      # (the study's reference settings: lr 1e-3, no weight decay, 5% warmup, cosine to 10%)
      args=(--data "$data" --pos "$scheme" --precision "$prec" --seed "$seed" --steps "$steps" "${model[@]}" --lr 1e-3
        --wd 0 --eval-every $(( steps / 12 > 0 ? steps / 12 : 1 )) --val-tokens "$tokens" --log-every 10)
      # a run stopped part way (Ctrl-C, a kill: its last checkpoint) with these settings resumes
      # (bit-identical to an uninterrupted run); any other starts again
      if [ -s "$d/model.bin" ] && [ "$(cat "$d.args" 2> /dev/null)" = "${args[*]}" ]; then
        echo "resuming $d" >&2
        "$bin" train --resume "$d" --threads "${THREADS:-0}" >> "$d.log" 2>&1 || { tail -3 "$d.log" >&2; exit 1; }
      else
        echo "training $d" >&2
        echo "${args[*]}" > "$d.args" # (kept beside the run's folder, not in it)
        "$bin" train "${args[@]}" --threads "${THREADS:-0}" --out "$d" --overwrite > "$d.log" 2>&1 || { tail -3 "$d.log" >&2; exit 1; }
      fi
    done
  done
  files=() labels=""
  for prec in fp32 bf16; do for seed in "${seeds[@]}"; do
    files+=("$out/$scheme-$prec-s$seed/log.csv"); labels="${labels:+$labels,}$scheme $prec seed $seed"
  done; done
  "$bin" plot --kind training --out "$out/curves-$scheme.png" --label "$labels" \
    --title "$scheme, config S, $steps steps: fp32 and bf16 (seeds ${seeds[*]})" "${files[@]}" >&2
done
# the last validation loss of every run
{
  echo "scheme,precision,seed,val_loss"
  for scheme in ${SCHEMES:-rope alibi nope}; do for prec in fp32 bf16; do for seed in "${seeds[@]}"; do
    echo "$scheme,$prec,$seed,$(awk -F, 'NR > 1 && $3 != "" { v = $3 } END { print v }' "$out/$scheme-$prec-s$seed/log.csv")"
  done; done; done
} > "$out/final.csv"
# per scheme: bf16 - fp32 of the mean final validation loss against the spread of fp32 over the
# seeds (max - min), and the same seed's runs paired (a seed fixes the initial weights and the
# batches in both precisions): each seed's bf16 - fp32, and in how many seeds bf16 is higher
# (all of n has chance 2^-n under no systematic difference); into compare.csv, and printed
awk -F, 'NR > 1 { k = $1 SUBSEP $2; s[k] += $4; n[k]++; v[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++ns] = $1 }
    if ($2 == "fp32") { if (!($1 in lo) || $4 < lo[$1]) lo[$1] = $4; if (!($1 in hi) || $4 > hi[$1]) hi[$1] = $4; seeds[$1] = seeds[$1] " " $3 } }
  END { print "scheme,fp32_mean,bf16_mean,bf16_minus_fp32,fp32_seed_spread,verdict,paired_diffs,bf16_higher,pairs"
    for (i = 1; i <= ns; i++) { x = order[i]; f = s[x, "fp32"] / n[x, "fp32"]; b = s[x, "bf16"] / n[x, "bf16"]; d = b - f; sp = hi[x] - lo[x]
      verdict = n[x, "fp32"] < 2 ? "one seed: no spread to compare" : (d < 0 ? -d : d) <= sp ? "within seed noise" : "OUTSIDE seed noise"
      m = split(substr(seeds[x], 2), sd, " "); diffs = ""; up = 0; np = 0
      for (j = 1; j <= m; j++) if ((x, "bf16", sd[j]) in v) {
        e = v[x, "bf16", sd[j]] - v[x, "fp32", sd[j]]; diffs = diffs (np ? " " : "") sprintf("%+.4f", e); np++; if (e > 0) up++ }
      printf "%s,%.4f,%.4f,%+.4f,%.4f,%s,%s,%d,%d\n", x, f, b, d, sp, verdict, diffs, up, np } }' "$out/final.csv" > "$out/compare.csv"
awk -F, 'NR > 1 { printf "%-6s final val loss: fp32 mean %s, bf16 mean %s, bf16 - fp32 %s; fp32 seed spread %s (%s); paired by seed: %s, bf16 higher in %d of %d\n",
  $1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$out/compare.csv"
echo "curves: $out/curves-*.png; final losses: $out/final.csv; per scheme: $out/compare.csv" >&2
