#!/usr/bin/env bash
# test_plot.sh - `posgpt plot` on CSV files this script writes itself (no corpus, no runs/):
#  - each kind (ppl, position, training) writes a PNG of the requested size that is not blank;
#  - a series that explodes is clipped and marked, and the others keep the y range;
#    --ylog, --ymax and --no-clip do what they say;
#  - run names come from config.txt, else the directory, else --label;
#  - --out is .png or .svg (another name is refused); an accuracy CSV's accuracy is checked, and
#    the title names its tasks (or counts them);
#  - bad input gives exactly one line on stderr containing "error", a non-zero exit, no PNG.
. "$(dirname "$0")/lib.sh" plot

# width and height from the PNG header (IHDR: bytes 16..23, big-endian), or "notpng"
png_size() {
  local sig
  sig=$(od -An -tu1 -N8 "$1" 2>/dev/null | tr -s ' ' | sed 's/^ //')
  [ "$sig" = "137 80 78 71 13 10 26 10" ] || { echo notpng; return; }
  od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d\n", $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }'
}
stat_of() { sed -n "s/^$2 //p" "$1" | head -1; } # a value from --stats output
# a plot that must succeed with the given size and ink: name, width, height, args...
render() {
  local name=$1 w=$2 h=$3; shift 3
  local out=$tmp/$name.png
  if ! $BIN plot --out "$out" --width "$w" --height "$h" --stats "$@" > "$tmp/$name.stats" 2> "$tmp/$name.err"; then
    bad "$name" "exit non-zero: $(tail -1 "$tmp/$name.err")"; return 1
  fi
  local size ink bytes
  size=$(png_size "$out"); ink=$(stat_of "$tmp/$name.stats" ink); bytes=$(wc -c < "$out")
  [ "$size" = "$w $h" ] && ok "$name: PNG of ${w}x${h}" || bad "$name" "PNG header says '$size', wanted '$w $h'"
  # not blank: a figure with axes, text and curves inks several percent of its pixels
  awk -v i="${ink:-0}" -v a=$((w * h)) -v b="$bytes" 'BEGIN { exit !(i > 0.02 * a && b > 10000) }' \
    && ok "$name: not blank ($ink inked pixels, $bytes bytes)" || bad "$name" "looks blank: $ink inked pixels, $bytes bytes"
}

# ---- inputs ----
EH=scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc,positions,pos_offset,windows,step
# three schemes trained at 64: flat, degrading, exploding (hundreds to thousands)
awk -v h=$EH 'BEGIN { print h; n = split("flat grow boom", s, " ")
  for (i = 1; i <= n; i++) for (L = 64; L <= 2048; L *= 2) {
    r = log(L / 64) / log(2); p = s[i] == "flat" ? 7 + 0.01 * r : s[i] == "grow" ? 6 + 2.5 * r : 8 * exp(1.6 * r)
    printf "%s,64,%d,nonoverlapping,%d,4096,%.6f,%.4f,%.5f,contiguous,0,8,600\n", s[i], L, L, log(p), p, log(p) / log(2)
    printf "%s,64,%d,sliding,%d,4096,%.6f,%.4f,%.5f,contiguous,0,8,600\n", s[i], L, L / 4, log(p) - 0.1, p * 0.9, (log(p) - 0.1) / log(2) } }' \
  > "$tmp/eval.csv"
# the same schemes without the explosion
grep -v '^boom' "$tmp/eval.csv" > "$tmp/eval_tame.csv"
# per-position files: loss falls with context, then rises past the training length for one scheme
for s in flat grow; do
  awk -v s=$s 'BEGIN { print "scheme,train_len,eval_len,protocol,stride,position,loss,count"; srand(3)
    for (t = 0; t < 512; t++) { l = 1.5 + 1.5 / (1 + t / 4) + (s == "grow" && t >= 64 ? (t - 64) / 200 : 0) + 0.2 * (rand() - 0.5)
      printf "%s,64,512,nonoverlapping,512,%d,%.6f,8\n", s, t, l } }' > "$tmp/pp_$s.csv"
done
# training logs: one run with config.txt, one without (named by its directory), one diverging
mkdir -p "$tmp/r1" "$tmp/myrun" "$tmp/r3"
log() { awk -v blow="$1" 'BEGIN { print "step,train_loss,val_loss,lr,grad_norm,tokens_per_s,elapsed_s"
  for (s = 10; s <= 600; s += 10) { t = 2 + 3.5 * exp(-s / 60); if (blow && s > 400) t *= exp((s - 400) / 40)
    v = s % 100 == 0 ? sprintf("%.6f", t + 0.1) : ""; printf "%d,%.6f,%s,0.001,1.0,10000,%d\n", s, t, v, s / 10 } }'; }
log 0 > "$tmp/r1/log.csv"; printf '# config\nscheme = alibi\npos = alibi\n' > "$tmp/r1/config.txt"
log 0 > "$tmp/myrun/log.csv"
log 1 > "$tmp/r3/log.csv"; printf 'scheme = rope\n' > "$tmp/r3/config.txt"

# ---- each kind, at the default and other sizes ----
render ppl 1600 1000 --kind ppl "$tmp/eval_tame.csv"
render position 1200 750 --kind position "$tmp/pp_flat.csv" "$tmp/pp_grow.csv"
render training 1000 640 --kind training "$tmp/r1/log.csv" "$tmp/myrun/log.csv"
render small 480 320 "$tmp/eval_tame.csv"
# --kind auto (the default) tells the three files apart by their headers
for f in eval_tame.csv:ppl pp_flat.csv:position r1/log.csv:training; do
  file=${f%%:*} want=${f#*:}
  render "auto_$want" 640 400 "$tmp/$file"
  k=$(stat_of "$tmp/auto_$want.stats" kind)
  [ "$k" = "$want" ] && ok "--kind auto reads $file as $k" || bad "--kind auto" "$file read as '$k'"
done
# the figure names: config.txt's scheme, else the directory
grep -qx 'label alibi' "$tmp/training.stats" && grep -qx 'label myrun' "$tmp/training.stats" \
  && ok "run names from config.txt (alibi) and the directory (myrun)" || bad "run names" "$(grep ^label "$tmp/training.stats" | tr '\n' ' ')"
render labels 800 500 --label A,B "$tmp/r1/log.csv" "$tmp/myrun/log.csv"
grep -qx 'label A' "$tmp/labels.stats" && grep -qx 'label B' "$tmp/labels.stats" && ok "--label names the runs" \
  || bad "--label" "$(grep ^label "$tmp/labels.stats" | tr '\n' ' ')"
# the same scheme trained at two lengths: the training length tells them apart, unless --label
# names them (then the name is the whole label)
grep '^flat' "$tmp/eval.csv" | grep nonoverlapping | sed 's/^flat,64,/flat,128,/' | { echo "$EH"; cat; } > "$tmp/eval_t128.csv"
{ echo "$EH"; grep '^flat' "$tmp/eval.csv" | grep nonoverlapping; } > "$tmp/eval_t64.csv"
render tlens 800 500 --kind ppl "$tmp/eval_t64.csv" "$tmp/eval_t128.csv"
grep -qx 'label flat, trained at 64' "$tmp/tlens.stats" && grep -qx 'label flat, trained at 128' "$tmp/tlens.stats" \
  && ok "training lengths tell one scheme's files apart" || bad "training-length labels" "$(grep ^label "$tmp/tlens.stats" | tr '\n' ' ')"
render tlabels 800 500 --kind ppl --label short,long "$tmp/eval_t64.csv" "$tmp/eval_t128.csv"
[ "$(grep ^label "$tmp/tlabels.stats" | tr '\n' ' ')" = "label short label long " ] \
  && ok "--label is the whole name (no training length added)" || bad "--label with training lengths" "$(grep ^label "$tmp/tlabels.stats" | tr '\n' ' ')"
# ... unless one label covers two training lengths: then they stay two series, each with its length
render tsame 800 500 --kind ppl --label x,x "$tmp/eval_t64.csv" "$tmp/eval_t128.csv"
[ "$(grep ^label "$tmp/tsame.stats" | tr '\n' ' ')" = "label x, trained at 64 label x, trained at 128 " ] \
  && ok "one --label over two training lengths: two series, each with its length" || bad "--label x,x" "$(grep ^label "$tmp/tsame.stats" | tr '\n' ' ')"
# the default protocol is nonoverlapping; --protocol both keeps the two apart
render both 800 500 --protocol both "$tmp/eval_tame.csv"
[ "$(stat_of "$tmp/both.stats" series)" = 4 ] && [ "$(stat_of "$tmp/ppl.stats" series)" = 2 ] \
  && ok "--protocol both: 4 series, default: 2" || bad "--protocol" "series $(stat_of "$tmp/both.stats" series) / $(stat_of "$tmp/ppl.stats" series)"

# ---- the exploding series is clipped; the others keep the axis ----
render explode 1600 1000 "$tmp/eval.csv"
clip=$(stat_of "$tmp/explode.stats" clip); yax=$(stat_of "$tmp/explode.stats" y_axis); marks=$(stat_of "$tmp/explode.stats" clip_marks)
# tame values span 6..18.5 (grow at 32x); boom is 8 at 1x and 39.6 from 2x on
awk -v c="$clip" -v y="$yax" 'BEGIN { split(y, a, " "); exit !(c != "none" && c >= 18.5 && c < 39 && a[2] == c && (18.5 - 6) / (a[2] - a[1]) > 0.5) }' \
  && ok "exploding series clipped at $clip (others span 6..18.5 on a y axis of $yax)" || bad "robust clip" "clip $clip, y axis $yax"
[ "${marks:-0}" -ge 5 ] && ok "clipped points marked ($marks marks)" || bad "clip marks" "$marks marks, wanted 5 (2x..32x)"
render ylog 1600 1000 --ylog "$tmp/eval.csv"
awk -v c="$(stat_of "$tmp/ylog.stats" clip)" -v y="$(stat_of "$tmp/ylog.stats" y_axis)" 'BEGIN { split(y, a, " "); exit !(c == "none" && a[2] > 8 * exp(1.6 * 5)) }' \
  && ok "--ylog shows every point (y axis $(stat_of "$tmp/ylog.stats" y_axis))" || bad "--ylog" "$(stat_of "$tmp/ylog.stats" y_axis), clip $(stat_of "$tmp/ylog.stats" clip)"
render ymax 800 500 --ymax 15 "$tmp/eval.csv"
[ "$(stat_of "$tmp/ymax.stats" clip)" = 15 ] && ok "--ymax 15 clips at 15" || bad "--ymax" "clip $(stat_of "$tmp/ymax.stats" clip)"
render noclip 800 500 --no-clip "$tmp/eval.csv"
[ "$(stat_of "$tmp/noclip.stats" clip)" = none ] && ok "--no-clip" || bad "--no-clip" "clip $(stat_of "$tmp/noclip.stats" clip)"
render tame 800 500 "$tmp/eval_tame.csv"
[ "$(stat_of "$tmp/tame.stats" clip)" = none ] && ok "no clip when nothing explodes" || bad "tame" "clip $(stat_of "$tmp/tame.stats" clip)"
render diverge 1000 640 "$tmp/r1/log.csv" "$tmp/r3/log.csv"
awk -v c="$(stat_of "$tmp/diverge.stats" clip)" 'BEGIN { exit !(c != "none" && c >= 5.5 && c < 12) }' \
  && ok "a diverging training run is clipped at $(stat_of "$tmp/diverge.stats" clip)" || bad "diverging run" "clip $(stat_of "$tmp/diverge.stats" clip)"
# same input, same bytes
$BIN plot --out "$tmp/again.png" "$tmp/eval.csv" 2>/dev/null && cmp -s "$tmp/again.png" "$tmp/explode.png" \
  && ok "deterministic: identical PNG on a second run" || bad "determinism" "PNGs differ"
# identical rows in two files are merged
cp "$tmp/eval_tame.csv" "$tmp/eval_copy.csv"
render merged 800 500 "$tmp/eval_tame.csv" "$tmp/eval_copy.csv"
[ "$(stat_of "$tmp/merged.stats" series)" = 2 ] && ok "identical rows in two files merge" || bad "merge" "$(stat_of "$tmp/merged.stats" series) series"
# a CSV as a spreadsheet saves it (UTF-8 byte-order mark, CRLF, spaces around fields,
# quoted fields), or with old-Mac CR line endings: the same figure, byte for byte
{ printf '\xef\xbb\xbf'; sed 's/,/ , /g; s/^\([a-z-]*\) /"\1" /; s/$/\r/' "$tmp/eval_tame.csv"; } > "$tmp/sheet.csv"
tr '\n' '\r' < "$tmp/eval_tame.csv" > "$tmp/mac.csv"
$BIN plot --out "$tmp/plain.png" "$tmp/eval_tame.csv" 2>/dev/null
for v in sheet mac; do
  $BIN plot --out "$tmp/$v.png" "$tmp/$v.csv" 2> "$tmp/$v.err" && cmp -s "$tmp/$v.png" "$tmp/plain.png" \
    && ok "a $v CSV ($([ $v = sheet ] && echo "BOM, CRLF, spaces, quotes" || echo "CR line endings")) gives the same PNG as the plain one" \
    || bad "$v CSV" "$(cat "$tmp/$v.err")"
done

# styles: no two series of a figure alike. 20 names (more than the palette's 16 colours) and
# one scheme at 6 lengths (more than the 4 dashes): every (colour, marker, dash) distinct
awk 'BEGIN { print "scheme,train_len,eval_len,protocol,ppl"; for (i = 0; i < 20; i++) for (L = 64; L <= 256; L *= 2)
  printf "run%02d,64,%d,nonoverlapping,%.2f\n", i, L, 5 + i / 10 + L / 256 }' > "$tmp/many.csv"
awk 'BEGIN { print "scheme,train_len,eval_len,protocol,stride,position,loss,count"; for (e = 1; e <= 6; e++) for (p = 0; p < 64 * e; p++)
  printf "rope,64,%d,nonoverlapping,%d,%d,%.3f,4\n", 64 * e, 64 * e, p, 2 + p / 100 }' > "$tmp/lens.csv"
for f in many lens; do
  $BIN plot --out "$tmp/$f.png" --stats "$tmp/$f.csv" 2>/dev/null > "$tmp/$f.stats"
  n=$(grep -c '^style ' "$tmp/$f.stats"); u=$(grep '^style ' "$tmp/$f.stats" | cut -d' ' -f2-4 | sort -u | wc -l)
  [ "$n" -ge 6 ] && [ "$n" = "$u" ] && ok "styles: $n series in $f.csv, $u distinct (colour, marker, dash)" || bad "styles $f" "$n series, $u distinct"
done
# randomized-BASE: its base's colour and marker, dashed, the base solid whichever comes first in
# the file; with no base in the figure (randomized-sinusoidal here) still dashed; the older
# files' "randomized" keeps a colour of its own
{ echo "scheme,train_len,eval_len,protocol,ppl"
  for s in randomized-rope rope alibi randomized-alibi randomized-sinusoidal randomized; do for L in 64 128; do
    echo "$s,64,$L,nonoverlapping,$((L / 16))"; done; done; } > "$tmp/rnd.csv"
$BIN plot --out "$tmp/rnd.png" --stats "$tmp/rnd.csv" 2>/dev/null > "$tmp/rnd.stats"
st() { awk -v s="$1" '$1 == "style" && $5 == s { print $2, $3, $4 }' "$tmp/rnd.stats"; }
cm() { st "$1" | cut -d' ' -f1,2; }
[ "$(cm randomized-rope)" = "$(cm rope)" ] && [ "$(cm randomized-alibi)" = "$(cm alibi)" ] && [ "$(st rope | cut -d' ' -f3)" = 0 ] \
  && [ "$(st alibi | cut -d' ' -f3)" = 0 ] && [ "$(st randomized-rope | cut -d' ' -f3)" != 0 ] && [ "$(st randomized-alibi | cut -d' ' -f3)" != 0 ] \
  && [ "$(st randomized-sinusoidal | cut -d' ' -f3)" != 0 ] && [ "$(cm randomized)" != "$(cm alibi)" ] && [ "$(cm randomized)" != "$(cm rope)" ] \
  && [ "$(grep -c '^style ' "$tmp/rnd.stats")" = "$(grep '^style ' "$tmp/rnd.stats" | cut -d' ' -f2-4 | sort -u | wc -l)" ] \
  && ok "styles: randomized-BASE in its base's colour and marker, dashed; the base solid; every style distinct" \
  || bad "styles randomized" "$(grep '^style' "$tmp/rnd.stats")"
# clipped values: each is written beside its mark or listed in the box, never dropped
# (ten series exploding at the same lengths: their values cannot all sit beside their marks)
awk 'BEGIN { print "scheme,train_len,eval_len,protocol,ppl"; for (L = 64; L <= 1024; L *= 2) { printf "flat,64,%d,nonoverlapping,5\n", L
  for (i = 0; i < 10; i++) printf "boom%d,64,%d,nonoverlapping,%.1f\n", i, L, L == 64 ? 5 + i / 10 : 100 * (i + 1) * L / 64 } }' > "$tmp/crowd.csv"
$BIN plot --out "$tmp/crowd.png" --stats "$tmp/crowd.csv" 2>/dev/null > "$tmp/both.stats"
m=$(stat_of "$tmp/both.stats" clip_marks); b=$(stat_of "$tmp/both.stats" clip_beside); l=$(stat_of "$tmp/both.stats" clip_listed)
[ -n "$m" ] && [ "$m" -gt 0 ] && [ "$l" -gt 0 ] && [ $((b + l)) = "$m" ] && ok "clipped values: $m marks, $b labelled beside, $l listed in the box, none dropped" \
  || bad "clipped values" "marks $m, beside $b, listed $l"
# the box of listed values covers no data: a flat series runs along the bottom, where the box
# used to go, and there is room above it
w=$(stat_of "$tmp/both.stats" clip_box)
[ "$w" = "in the plot" ] && ok "the box of listed values sits where it covers no data ($w)" || bad "clip box" "placed: '$w'"

# SVG: the same chart as vectors, text as text; a well-formed document (every group closed,
# clip paths defined before use), a polyline per series, the labels readable as text
$BIN plot --out "$tmp/fig.svg" "$tmp/eval.csv" 2>/dev/null; $BIN plot --out "$tmp/zoom.svg" --zoom 1.5 "$tmp/eval_tame.csv" 2>/dev/null
for f in fig zoom; do
  v="$tmp/$f.svg"
  opens=$(grep -o '<g[ >]' "$v" | wc -l); closes=$(grep -o '</g>' "$v" | wc -l)
  uses=$(grep -o 'url(#c[0-9]*)' "$v" | sort -u | wc -l); defs=$(grep -o 'clipPath id="c[0-9]*"' "$v" | sort -u | wc -l)
  if head -1 "$v" | grep -q '^<?xml' && tail -1 "$v" | grep -q '^</svg>$' && [ "$opens" = "$closes" ] && [ "$uses" = "$defs" ] && [ "$defs" -ge 1 ] \
     && [ "$(grep -c '<polyline' "$v")" -ge 2 ] && grep -q '>evaluation length (tokens = bytes)</text>' "$v" && grep -q '>grow</text>' "$v"; then
    ok "--out $f.svg: well-formed SVG ($opens groups, $defs clip paths), lines as polylines, text as text"
  else bad "svg $f" "groups $opens/$closes, clips $uses/$defs"; fi
done

# --xlabel, --ylabel, --caption replace the kind's axis titles and caption (a figure whose CSV
# columns carry other quantities, e.g. tools/study3_report.sh's ratio against training step)
$BIN plot --out "$tmp/lab.svg" --kind offset --xlabel "training step" --ylabel "ppl at 16x / ppl at 1x" --caption "my caption" \
  "$tmp/eval.csv" 2>/dev/null
if grep -q '>training step</text>' "$tmp/lab.svg" && grep -q '>ppl at 16x / ppl at 1x</text>' "$tmp/lab.svg" && grep -q '>my caption</text>' "$tmp/lab.svg" \
   && ! grep -q 'position offset K' "$tmp/lab.svg"; then ok "--xlabel, --ylabel and --caption replace the axis titles and the caption"
else bad "axis labels" "$(grep -o '>[^<]*</text>' "$tmp/lab.svg" | head -5 | tr '\n' ' ')"; fi
# with --zoom the caption goes under the close-up (it was dropped there)
$BIN plot --out "$tmp/zlab.svg" --zoom 1.5 --caption "my caption" "$tmp/eval_tame.csv" 2>/dev/null
grep -q '>my caption; curves above the top are in the left panel</text>' "$tmp/zlab.svg" && ok "--caption with --zoom: under the close-up" \
  || bad "zoom caption" "$(grep -o '>[^<]*</text>' "$tmp/zlab.svg" | tail -3 | tr '\n' ' ')"

# ---- bad input: one line on stderr with "error", non-zero exit, no PNG ----
expect_error() { # name, text the message must contain, args...
  local name=$1 want=$2; shift 2
  rm -f "$tmp/err.png"
  $BIN plot "$@" > /dev/null 2> "$tmp/err.txt"; local rc=$?
  local lines; lines=$(wc -l < "$tmp/err.txt")
  if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -q error "$tmp/err.txt" && grep -qF -- "$want" "$tmp/err.txt" && [ ! -e "$tmp/err.png" ]; then
    ok "error: $name ($(cat "$tmp/err.txt"))"
  else bad "error: $name" "exit $rc, $lines stderr lines: $(head -c 300 "$tmp/err.txt")"; fi
}
H5=scheme,train_len,eval_len,protocol,ppl
printf '%s\nflat,64,64,nonoverlapping,nan\n' $H5 > "$tmp/nan.csv"
printf '%s\nflat,64,64,nonoverlapping,inf\n' $H5 > "$tmp/inf.csv"
printf '%s\nflat,64,64,nonoverlapping,7\nflat,64,128,nonoverlapping,seven\n' $H5 > "$tmp/word.csv"
printf 'scheme,train_len,eval_len,protocol\nflat,64,64,nonoverlapping\n' > "$tmp/nocol.csv"
printf '%s\nflat,64,64,nonoverlapping\n' $H5 > "$tmp/short.csv"
printf '%s\n' $H5 > "$tmp/header.csv"
: > "$tmp/empty.csv"
printf '%s\nflat,64,64,sliding,7\n' $H5 > "$tmp/sliding.csv"
printf '%s\nflat,64,64,nonoverlapping,8\n' $H5 > "$tmp/conflict.csv"
printf 'step,train_loss,val_loss\n10,,\n' > "$tmp/noloss.csv"
printf 'a,b\n1,2\n' > "$tmp/unknown.csv"
tr ',' ';' < "$tmp/eval_tame.csv" > "$tmp/semi.csv"
{ printf '\xff\xfe'; sed 's/./&\x00/g' "$tmp/eval_tame.csv"; } > "$tmp/u16.csv"
O=(--out "$tmp/err.png")
expect_error "no files" "no input files" "${O[@]}"
expect_error "no --out" "--out" "$tmp/eval.csv"
expect_error "missing file" "nosuch.csv" "${O[@]}" "$tmp/nosuch.csv"
expect_error "a directory" "is a directory" "${O[@]}" "$tmp"
expect_error "empty file" "empty" "${O[@]}" "$tmp/empty.csv"
expect_error "header only" "no rows" "${O[@]}" "$tmp/header.csv"
expect_error "missing column" "no column 'ppl'" "${O[@]}" --kind ppl "$tmp/nocol.csv"
expect_error "wrong kind of file" "no column 'train_loss'" "${O[@]}" --kind training "$tmp/eval.csv"
expect_error "unrecognised header" "cannot tell" "${O[@]}" "$tmp/unknown.csv"
expect_error "NaN" "nan.csv line 2" "${O[@]}" "$tmp/nan.csv"
expect_error "inf" "not a finite number" "${O[@]}" "$tmp/inf.csv"
expect_error "non-numeric" "word.csv line 3: column 'ppl' is 'seven'" "${O[@]}" "$tmp/word.csv"
expect_error "short row" "short.csv line 2" "${O[@]}" "$tmp/short.csv"
expect_error "empty train_loss" "column 'train_loss' is empty" "${O[@]}" "$tmp/noloss.csv"
expect_error "nothing left after filtering" "no rows left" "${O[@]}" --protocol nonoverlapping "$tmp/sliding.csv"
expect_error "semicolon-separated" "separates its fields with ';'" "${O[@]}" "$tmp/semi.csv"
expect_error "UTF-16" "is UTF-16 text; save it as UTF-8" "${O[@]}" "$tmp/u16.csv"
expect_error "conflicting rows" "different values" "${O[@]}" "$tmp/eval_tame.csv" "$tmp/conflict.csv"
expect_error "unknown --kind" "--kind must be" "${O[@]}" --kind pie "$tmp/eval.csv"
expect_error "bad --protocol" "--protocol must be" "${O[@]}" --protocol diagonal "$tmp/eval.csv"
expect_error "--label count" "--label has 1 name" "${O[@]}" --label A "$tmp/r1/log.csv" "$tmp/myrun/log.csv"
expect_error "same run twice" "--label" "${O[@]}" "$tmp/r1/log.csv" "$tmp/r1/log.csv"
expect_error "size out of range" "--width" "${O[@]}" --width 5 "$tmp/eval.csv"
expect_error "not a font" "not a TrueType font" "${O[@]}" --font "$tmp/eval.csv" "$tmp/eval.csv"
expect_error "missing font" "cannot read font" "${O[@]}" --font "$tmp/nosuch.ttf" "$tmp/eval.csv"
expect_error "unwritable output" "cannot write figure" --out "$tmp/no/such/dir/x.png" "$tmp/eval.csv"
# the format comes from --out's name: .png or .svg, nothing else (a .jpg name got PNG bytes)
for o in x.jpg x.PDF x noext.d/x; do
  expect_error "--out $o" "name it FILE.png or FILE.svg" --out "$tmp/$o" "$tmp/eval.csv"
  [ -e "$tmp/$o" ] && bad "--out $o" "written"
done

# ---- accuracy (posgpt task eval CSVs): seeds averaged with a band, the training lengths shaded ----
acc() { # scheme seed: accuracy falling past length 20, with seed-dependent noise; two depths per length
  awk -v s="$1" -v seed="$2" 'BEGIN { srand(seed); print "task,scheme,train_max_len,len,depth,examples,correct,accuracy"
    for (n = 1; n <= 30; n++) for (d = 0; d <= 100; d += 100) { c = int(50 / (1 + exp((n - 22) / 2)) * (0.8 + 0.4 * rand())); if (c > 50) c = 50
      printf "reverse,%s,20,%d,%d,50,%d,%.6f\n", s, n, d, c, c / 50 } }'
}
for sd in 1 2 3; do acc alibi $sd > "$tmp/acc-alibi-$sd.csv"; acc nope $((sd + 10)) > "$tmp/acc-nope-$sd.csv"; done
if render accuracy 1200 800 "$tmp"/acc-alibi-*.csv "$tmp"/acc-nope-*.csv; then
  [ "$(stat_of "$tmp/accuracy.stats" kind)" = accuracy ] && [ "$(stat_of "$tmp/accuracy.stats" series)" = 2 ]     && [ "$(stat_of "$tmp/accuracy.stats" points)" = 60 ] && [ "$(stat_of "$tmp/accuracy.stats" y_axis)" = "0 1" ]     && ok "accuracy: kind from the header, a series per scheme over 3 files, 30 lengths each, y from 0 to 1"     || bad "accuracy stats" "$(head -6 "$tmp/accuracy.stats" | tr '\n' ' ')"
fi
# the point at a length is the mean of the files' accuracies (each pooling its depths), the band their range
$BIN plot --out "$tmp/acc.svg" "$tmp"/acc-alibi-*.csv 2> /dev/null
want=$(for f in "$tmp"/acc-alibi-*.csv; do awk -F, '$4 == 21 { c += $7; e += $6 } END { print c / e }' "$f"; done \
  | awk '{ s += $1; lo = NR == 1 || $1 < lo ? $1 : lo; hi = NR == 1 || $1 > hi ? $1 : hi } END { printf "%.4f %.4f %.4f", s / NR, lo, hi }')
got=$($BIN plot --out "$tmp/acc2.png" --stats "$tmp"/acc-alibi-*.csv 2> /dev/null | awk '$1 == "point" && $3 == 21 { printf "%.4f %.4f %.4f", $4, $5, $6 }')
[ -n "$want" ] && [ "$got" = "$want" ] && ok "accuracy: at length 21 the mean of the 3 files' pooled accuracies and their range ($got)" \
  || bad "accuracy mean" "got '$got', want '$want'"
grep -q 'fill="#eeeeee"' "$tmp/acc.svg" && [ "$(grep -c 'opacity="0.180"' "$tmp/acc.svg")" = 1 ] \
  && ok "accuracy: the training lengths shaded, one band (three seeds of one scheme)" || bad "accuracy svg" "no shade or band"
acc alibi 1 > "$tmp/acc-one.csv"
$BIN plot --out "$tmp/acc1.svg" "$tmp/acc-one.csv" 2> /dev/null && ! grep -q 'opacity="0.180"' "$tmp/acc1.svg" \
  && ok "accuracy: one file per scheme draws no band" || bad "accuracy one file" "a band with one seed"
printf 'task,scheme,train_max_len,len,depth,examples,correct,accuracy\nreverse,alibi,20,3,0,10,11,1.1\n' > "$tmp/acc-bad.csv"
expect_error "accuracy: more correct than examples" "acc-bad.csv line 2" "${O[@]}" "$tmp/acc-bad.csv"
# a training length of 0 (ticks in multiples of it) or a length that is not whole is refused
for tl_len in 0,3 20,2.5 2.5,3; do
  printf 'task,scheme,train_max_len,len,depth,examples,correct,accuracy\nreverse,alibi,%s,0,10,5,0.5\n' $tl_len > "$tmp/acc-tl.csv"
  expect_error "accuracy: train_max_len,len $tl_len" "acc-tl.csv line 2: train_max_len ${tl_len%,*}, len ${tl_len#*,}," "${O[@]}" "$tmp/acc-tl.csv"
done
# --metric token|exact: one file where the two differ (length 3: 1 of 2 examples exact, 7 of 8
# answer bytes; length 4: none exact, 3 of 5 bytes), exact by default
TH=task,scheme,train_max_len,len,depth,examples,correct,accuracy,tokens,tokens_correct,token_accuracy
printf '%s\ncopy,nope,3,3,0,2,1,0.5,8,7,0.875\ncopy,nope,3,4,0,1,0,0,5,3,0.6\n' $TH > "$tmp/acc-tok.csv"
pts() { $BIN plot --out "$tmp/acc-tok.png" --stats "$@" "$tmp/acc-tok.csv" 2> /dev/null | awk '$1 == "point" { printf "%s:%s ", $3, $4 }'; }
[ "$(pts --kind accuracy)" = "3:0.5 4:0 " ] && [ "$(pts --metric exact)" = "3:0.5 4:0 " ] \
  && ok "accuracy --metric exact (the default): correct / examples per length" || bad "accuracy exact" "$(pts --kind accuracy)"
[ "$(pts --kind accuracy --metric token)" = "3:0.875 4:0.6 " ] \
  && ok "accuracy --metric token: tokens_correct / tokens per length" || bad "accuracy token" "$(pts --kind accuracy --metric token)"
$BIN plot --out "$tmp/acc-tok.svg" --metric token "$tmp/acc-tok.csv" 2> /dev/null && grep -q "Per-token accuracy" "$tmp/acc-tok.svg" \
  && ok "accuracy --metric token: the title says per-token" || bad "accuracy token title" "no 'Per-token accuracy' in the SVG"
expect_error "accuracy --metric token on a CSV without per-token counts" "tokens" "${O[@]}" --metric token "$tmp/acc-one.csv"
sed 's/,0.6$/,0.9/' "$tmp/acc-tok.csv" > "$tmp/acc-tokbad.csv"
expect_error "accuracy --metric token: token_accuracy checked" "acc-tokbad.csv line 3: token_accuracy 0.9 disagrees with tokens_correct / tokens = 0.6" \
  "${O[@]}" --metric token "$tmp/acc-tokbad.csv"
expect_error "accuracy --metric ppl" "kind accuracy takes exact or token" "${O[@]}" --metric ppl "$tmp/acc-tok.csv"
expect_error "--metric token on perplexity CSVs" "applies to kind accuracy" "${O[@]}" --metric token "$tmp/eval.csv"
# the accuracy column is checked too: a number in [0, 1] that agrees with correct / examples
for v in nan inf -0.1 1.5 0.9; do
  printf 'task,scheme,train_max_len,len,depth,examples,correct,accuracy\nreverse,alibi,20,3,0,10,5,0.5\nreverse,alibi,20,4,0,10,5,%s\n' $v > "$tmp/acc-v.csv"
  expect_error "accuracy $v" "acc-v.csv line 3: $(case $v in nan|inf) echo "column 'accuracy' is '$v', not a finite number";;
    0.9) echo "accuracy 0.9 disagrees with correct / examples = 0.5";; *) echo "accuracy $v is outside [0, 1]";; esac)" "${O[@]}" "$tmp/acc-v.csv"
done
printf 'task,scheme,train_max_len,len,depth,examples,correct,accuracy\nreverse,alibi,20,3,0,10.5,5,0.476190\n' > "$tmp/acc-v.csv"
expect_error "accuracy: a fraction of an example" "acc-v.csv line 2" "${O[@]}" "$tmp/acc-v.csv"
# the title names every task of the files (it named the first file's alone)
sed 's/^reverse,/copy,/' "$tmp/acc-one.csv" > "$tmp/acc-copy.csv"
$BIN plot --out "$tmp/acc2t.svg" "$tmp/acc-one.csv" "$tmp/acc-copy.csv" 2> /dev/null \
  && grep -q 'Exact-match accuracy vs length (reverse, copy;' "$tmp/acc2t.svg" && ok "accuracy: two tasks, both named in the title" \
  || bad "accuracy title" "$(grep -o 'Exact-match[^<]*' "$tmp/acc2t.svg")"
for t in sort add sum parity; do sed "s/^reverse,/$t,/" "$tmp/acc-one.csv" > "$tmp/acc-$t.csv"; done
$BIN plot --out "$tmp/acc5t.svg" "$tmp/acc-one.csv" "$tmp/acc-copy.csv" "$tmp"/acc-{sort,add,sum}.csv 2> /dev/null \
  && grep -q 'Exact-match accuracy vs length (5 tasks;' "$tmp/acc5t.svg" && ok "accuracy: five tasks, counted in the title" \
  || bad "accuracy title 5" "$(grep -o 'Exact-match[^<]*' "$tmp/acc5t.svg")"

# ---- seeds of a perplexity study (--seeds): their mean, with a band from the lowest to the highest ----
for sd in 1 2 3; do # eval_tame.csv's perplexities, scaled by a seed's factor
  awk -F, -v OFS=, -v f="1.0$sd" 'NR == 1 { print; next } { $8 = sprintf("%.4f", $8 * f); print }' "$tmp/eval_tame.csv" > "$tmp/seed$sd.csv"
done
expect_error "seeds without --seeds" "pass --seeds" "${O[@]}" "$tmp"/seed[123].csv
expect_error "--seeds on a training log" "--seeds applies to kinds ppl and offset" "${O[@]}" --seeds "$tmp/r1/log.csv"
x=$(awk -F, 'NR == 2 { print $3 }' "$tmp/eval_tame.csv"); nm=$(awk -F, 'NR == 2 { print $1 }' "$tmp/eval_tame.csv")
pr=$(awk -F, 'NR == 2 { print $4 }' "$tmp/eval_tame.csv")
want=$(for f in "$tmp"/seed[123].csv; do awk -F, -v n="$nm" -v x="$x" -v p="$pr" '$1 == n && $3 == x && $4 == p { print $8 }' "$f"; done \
  | awk '{ s += $1; lo = NR == 1 || $1 < lo ? $1 : lo; hi = NR == 1 || $1 > hi ? $1 : hi } END { printf "%.4f %.4f %.4f", s / NR, lo, hi }')
$BIN plot --seeds --protocol "$pr" --out "$tmp/seeds.png" --stats "$tmp"/seed[123].csv > "$tmp/seeds.stats" 2> /dev/null
got=$(awk -v x="$x" '$1 == "point" && $3 == x { printf "%.4f %.4f %.4f\n", $4, $5, $6 }' "$tmp/seeds.stats" | head -1)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "--seeds: at length $x the mean of the 3 files' perplexities and their range ($got)" \
  || bad "--seeds mean" "got '$got', want '$want'"
$BIN plot --seeds --protocol "$pr" --out "$tmp/seeds.svg" "$tmp"/seed[123].csv 2> /dev/null
[ "$(grep -c 'opacity="0.180"' "$tmp/seeds.svg")" -ge 1 ] && grep -q "the mean over up to 3 files (seeds)" "$tmp/seeds.svg" \
  && ok "--seeds: the range drawn as a band, and the caption says so" || bad "--seeds band" "no band or caption in the SVG"

# ---- help ----
$BIN plot --help > "$tmp/help.txt" 2>&1 && grep -q -- '--kind' "$tmp/help.txt" && grep -q -- '--ymax' "$tmp/help.txt" \
  && ok "plot --help lists the flags" || bad "plot --help" "$(head -3 "$tmp/help.txt")"
$BIN --help | grep -q '^  plot' && ok "posgpt --help lists plot" || bad "posgpt --help" "no plot command"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
