#!/usr/bin/env bash
# paired.sh - a paired comparison of two checkpoints evaluated on the same windows.
#
#   tools/paired.sh [--block N] A.csv B.csv     the files of posgpt eval --per-window, one per checkpoint
#
# Pairs the windows by (eval_len, protocol, stride, pos_offset, window) and prints, per length
# and protocol, the mean of B's loss minus A's over the windows (nats/token; < 0: B is better),
# a 95% interval of that mean and whether it excludes 0:
#   eval_len,protocol,stride,pos_offset,windows,mean_diff,ci_low,ci_high,significant,block
# Neighbouring windows of a text correlate, so by default the interval is from batch means: the
# differences in B's row order (posgpt eval writes the windows in text order) cut into blocks of
# N consecutive windows, the leftover ones in the last block, and the mean -+ Student's t
# (blocks - 1 degrees of freedom) times the standard error of the block means. N defaults to the
# cube root of the windows' count, rounded (as posgpt eval --ci-block); --block 1 treats every
# window as independent (paired.sh before 2026-12-06). Fewer than 2 blocks: no interval
# ("n/a"). The column block is the N used.
# Windows present in one file only are an error (not the same text, lengths or --max-tokens), and
# so are a window twice in one file, a row without 9 fields, a loss that is not a finite number,
# and files without a window.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
usage() { sed -n '2,10p' "$0" >&2; exit 2; }
block=auto
if [ "${1:-}" = --block ]; then
  [ $# -ge 2 ] || usage
  case "$2" in auto) ;; *[!0-9]* | '' | 0*) echo "paired.sh: error: --block takes a whole number of windows from 1, or auto (got '$2')" >&2; exit 2 ;; esac
  block=$2; shift 2
fi
[ $# -eq 2 ] || usage
for f in "$1" "$2"; do
  [ -r "$f" ] || { echo "paired.sh: error: cannot read '$f'" >&2; exit 1; }
  head -1 "$f" | grep -q '^scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss$' \
    || { echo "paired.sh: error: '$f' is not a posgpt eval --per-window CSV (its header differs)" >&2; exit 1; }
done
awk -F, -v A="$1" -v B="$2" -v BLOCK="$block" "$(cat "$(dirname "$0")/lib.awk")"' # bmh: batch means (tools/lib.awk)
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
    D[key, ++n[key]] = d; s[key] += d }
  END {
    if (bad) exit 1
    for (w in a) { printf "paired.sh: error: window %s of %s is not in %s\n", w, A, B > "/dev/stderr"; exit 1 }
    if (!nb) { printf "paired.sh: error: %s and %s hold no window (only their headers)\n", A, B > "/dev/stderr"; exit 1 }
    print "eval_len,protocol,stride,pos_offset,windows,mean_diff,ci_low,ci_high,significant,block"
    for (g = 1; g <= ng; g++) { k = order[g]; N = n[k]; m = s[k] / N
      b = BLOCK == "auto" ? int(exp(log(N) / 3) + 0.5) : BLOCK + 0; if (b < 1) b = 1
      delete X; for (i = 1; i <= N; i++) X[i] = D[k, i]
      if ((h = bmh(N, b, X)) < 0) { printf "%s,%d,%.6f,,,n/a (%s),%d\n", k, N, m, (N < 2 ? "one window" : "fewer than 2 blocks"), b; continue }
      lo = m - h; hi = m + h
      printf "%s,%d,%.6f,%.6f,%.6f,%s,%d\n", k, N, m, lo, hi, (lo > 0 || hi < 0) ? "yes" : "no (not significant)", b } }
' "$1" "$2"
