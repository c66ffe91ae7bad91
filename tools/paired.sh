#!/usr/bin/env bash
# paired.sh - a paired comparison of two checkpoints evaluated on the same windows.
#
#   tools/paired.sh A.csv B.csv     the files of posgpt eval --per-window, one per checkpoint
#
# Pairs the windows by (eval_len, protocol, stride, pos_offset, window) and prints, per length
# and protocol, the mean of B's loss minus A's over the windows (nats/token; < 0: B is better),
# a 95% t interval of that mean (Student's t, windows - 1 degrees of freedom; each window's
# difference counts once, as if windows were independent), and whether the interval excludes 0:
#   eval_len,protocol,stride,pos_offset,windows,mean_diff,ci_low,ci_high,significant
# Windows present in one file only are an error (not the same text, lengths or --max-tokens), and
# so are a window twice in one file, a row without 9 fields, a loss that is not a finite number,
# and files without a window.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
[ $# -eq 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
for f in "$1" "$2"; do
  [ -r "$f" ] || { echo "paired.sh: error: cannot read '$f'" >&2; exit 1; }
  head -1 "$f" | grep -q '^scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss$' \
    || { echo "paired.sh: error: '$f' is not a posgpt eval --per-window CSV (its header differs)" >&2; exit 1; }
done
awk -F, -v A="$1" -v B="$2" "$(cat "$(dirname "$0")/lib.awk")"' # tq: the t quantile
  function no(why) { printf "paired.sh: error: %s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"; bad = 1; exit }
  FNR == 1 { file++; next } # (by the order read: the same path twice is two files)
  NF != 9 { no(NF " fields, not 9") }
  $9 !~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ { no("the loss \"" $9 "\" is not a finite number") }
  { key = $3 "," $4 "," $5 "," $6 }
  file == 1 { if ((key "," $7) in a) no("window " key "," $7 " twice"); a[key "," $7] = $9; na++; next }
  { w = key "," $7
    if (w in seenb) no("window " w " twice")
    seenb[w] = 1
    if (!(w in a)) { printf "paired.sh: error: window %s of %s is not in %s (evaluate both on the same text and flags)\n", w, B, A > "/dev/stderr"; bad = 1; exit }
    d = $9 - a[w]; delete a[w]; nb++
    if (!(key in n)) order[++ng] = key
    n[key]++; s[key] += d; ss[key] += d * d }
  END {
    if (bad) exit 1
    for (w in a) { printf "paired.sh: error: window %s of %s is not in %s\n", w, A, B > "/dev/stderr"; exit 1 }
    if (!nb) { printf "paired.sh: error: %s and %s hold no window (only their headers)\n", A, B > "/dev/stderr"; exit 1 }
    print "eval_len,protocol,stride,pos_offset,windows,mean_diff,ci_low,ci_high,significant"
    for (g = 1; g <= ng; g++) { k = order[g]; m = s[k] / n[k]
      if (n[k] < 2) { printf "%s,%d,%.6f,,,n/a (one window)\n", k, n[k], m; continue }
      v = (ss[k] - n[k] * m * m) / (n[k] - 1); if (v < 0) v = 0
      h = tq(n[k] - 1) * sqrt(v / n[k]); lo = m - h; hi = m + h
      printf "%s,%d,%.6f,%.6f,%.6f,%s\n", k, n[k], m, lo, hi, (lo > 0 || hi < 0) ? "yes" : "no (not significant)" } }
' "$1" "$2"
