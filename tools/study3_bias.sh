#!/usr/bin/env bash
# study3_bias.sh - the position bias of tools/study3.sh's runs before and after training: for
# every run with a model.bin (DIR/A/SCHEME/lrX-mY, DIR/B/RUN/seedK) whose scheme adds a bias to
# the attention scores (posgpt info --bias; the others are skipped), its table at the end
# (posgpt info --bias) and at initialisation (--bias-init: the same seed's initial model), for
# distances 0..16 T, a query at position 16 T (docs/usage.md, info --bias).
#
#   tools/study3_bias.sh DIR       e.g. tools/study3_bias.sh runs/study3 (tools/study3_report.sh calls it)
#   tools/study3_bias.sh DIR RUNDIR...   only those runs' tables, no summary (tools/study3.sh
#                                  calls it at the end of each run, while its checkpoint is there)
#
# Writes DIR/bias/A/SCHEME/lrX-mY.csv, DIR/bias/B/RUN/seedK.csv and each's -init.csv
# (layer,head,distance,bias) with the run's settings beside them (.run), a table
# newer than its checkpoint kept as it is (a run without a checkpoint keeps its tables: the
# report redraws from them), then from the tables alone DIR/bias.csv (one row per run and
# moment: the largest |bias|, where, and the bias of largest magnitude over the heads at
# distances 1, 10, T and 16 T) and DIR/bias.md (the table "largest position bias before and
# after"). POSGPT: the binary (default ./posgpt).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
out=$1; shift
bin=${POSGPT:-./posgpt}
export LC_ALL=C
[ -d "$out" ] || { echo "study3_bias: error: no folder '$out'" >&2; exit 1; }
mkdir -p "$out/bias"
failed=0 t=""
trap 'rm -rf "$t"' EXIT # (the temporary folder of a table being made)
# table RUNDIR: the tables of one run (skipped when newer than its checkpoint, or for a scheme without
# a bias). Made in a temporary folder and moved into place (.part, then renamed) once complete: the
# runs of one scheme run at once (tools/sweep.sh), so nothing here may remove a folder another one
# is writing into, and a table cut short by a kill must not look finished.
table() {
  local d=$1 f=$out/bias/${1#"$out"/} a
  [ -s "$d/model.bin" ] || return 0
  [ -s "$f.csv" ] && [ -s "$f-init.csv" ] && [ "$f.csv" -nt "$d/model.bin" ] && [ "$f-init.csv" -nt "$d/model.bin" ] && return 0
  t=$(mktemp -d)
  for a in "" -init; do
    if ! "$bin" info "$d/model.bin" --bias "$t/b.csv" ${a:+--bias-init} > "$t/info.txt" 2> "$t/err"; then
      grep -q "adds no bias to the attention scores" "$t/err" || { echo "study3_bias: $d: $(cat "$t/err")" >&2; failed=1; }
      rm -rf "$t"
      return 0
    fi
    # the run's settings for the summary, kept beside the tables (the checkpoint may be gone later)
    awk '$1 == "position" && $2 == "bias" { s = $3 } $1 == "training" { for (i = 1; i < NF; i++) if ($i == "lr") lr = $(i + 1)
        if ($3 + 0 == $3) st = $3; for (i = 1; i < NF; i++) if ($i == "seed") seed = $(i + 1) }
      $1 == "pos" && $2 == "lr" && $3 == "mult" { m = $4 } END { print s "," seed "," lr "," (m == "" ? 1 : m) "," st }' "$t/info.txt" > "$t/b.run"
    mkdir -p "${f%/*}"
    cp "$t/b.run" "$f$a.run.part" && mv "$f$a.run.part" "$f$a.run"
    cp "$t/b.csv" "$f$a.csv.part" && mv "$f$a.csv.part" "$f$a.csv"
  done
  rm -rf "$t"
}
if [ $# -gt 0 ]; then # the given runs' tables only
  for d; do case $d in "$out"/[AB]/*/*) [ -d "$d" ] && table "$d" ;; *) echo "study3_bias: error: '$d' is not a run of $out (A/SCHEME/lrX-mY or B/RUN/seedK)" >&2; exit 2 ;; esac; done
  exit $failed
fi
for d in "$out"/A/*/lr*-m* "$out"/B/*/seed*; do [ -d "$d" ] && table "$d"; done

# ---- bias.csv: one row per table, from the tables alone ----
# summarise TABLE: largest |bias|, its layer, head, distance, and at 1, 10, T, 16 T the bias of largest magnitude over the heads
summarise() {
  awk -F, 'function abs(x) { return x < 0 ? -x : x }
    NR > 1 { a = abs($4); x = $3 + 0; if (NR == 2 || a > m) { m = a; L = $1; h = $2; d = x }
      if (x > D) D = x; if (!(x in v) || a > abs(v[x])) v[x] = $4 }
    END { T = int(D / 16); printf "%.6g,%s,%s,%s,%.6g,%.6g,%.6g,%.6g", m, L, h, d, v[1], v[10], v[T], v[D] }' "$1"
}
{
  echo "phase,run,setting,scheme,seed,lr,pos_lr_mult,step,when,max_abs_bias,layer,head,distance,bias_d1,bias_d10,bias_dT,bias_d16T"
  for f in "$out"/bias/[AB]/*/*.run; do
    [ -e "$f" ] && [ -s "${f%.run}.csv" ] || continue
    id=${f#"$out"/bias/}; id=${id%.run}; when=after; case $id in *-init) when=before; id=${id%-init} ;; esac
    IFS=, read -r s seed lr m st < "$f"
    [ $when = before ] && st=0
    echo "${id//\//,},$s,$seed,$lr,$m,$st,$when,$(summarise "${f%.run}.csv")"
  done | sort -t, -k1,1 -k2,2 -k3,3V -k9,9
} > "$out/bias.csv"

# ---- bias.md: before and after side by side ----
{
  echo "### Largest position bias before and after training (bias.csv; tables in bias/)"
  echo
  echo "The bias each scheme adds to the attention logits (\`posgpt info --bias\`, a query at position 16 T against keys at"
  echo "distances 0..16 T): the largest |bias| over every layer, head and distance, at initialisation (\`--bias-init\`, the"
  echo "run's seed) and after training; then, after training, the bias of largest magnitude over the heads at distances"
  echo "1, 10, T and 16 T. Runs without a checkpoint and schemes without a score bias have no row."
  echo
  echo "| phase | run | setting | lr | pos-lr mult | before: max \\|bias\\| (d) | after: max \\|bias\\| (d) | after at d = 1 | 10 | T | 16 T |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  awk -F, 'NR > 1 { k = $1 FS $2 FS $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k } row[k, $9] = $0 }
    END { for (i = 1; i <= n; i++) { k = order[i]; if (!((k, "after") in row)) continue
        split(row[k, "after"], a, ","); b = ((k, "before") in row) ? row[k, "before"] : ""
        split(b, z, ","); before = b == "" ? "-" : sprintf("%s (%s)", z[10], z[13])
        printf "| %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s |\n", a[1], a[2], a[3], a[6], a[7], before, a[10], a[13], a[14], a[15], a[16], a[17] } }' \
    "$out/bias.csv"
} > "$out/bias.md"
exit $failed
