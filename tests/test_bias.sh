#!/usr/bin/env bash
# test_bias.sh - posgpt info --bias: the table of a scheme's score bias per layer, head and
# distance checked against an independent computation from the exported parameters (T5's
# buckets, ALiBi's closed form, FIRE's MLP, KERPLE's kernels); the summary agrees with the table;
# --bias-init gives exactly the bias of the model training began from (a run at lr 0 keeps it);
# schemes without a score bias and bad flags are refused.
. "$(dirname "$0")/lib.sh" bias

phrase_text 1 3000 > "$tmp/c.txt"
# train NAME ARGS...: a tiny model (2 layers, 4 heads, seq_len 16) into $tmp/NAME
train() {
  local n=$1; shift
  nice "$BIN" train --data "$tmp/c.txt" --out "$tmp/$n" --seq-len 16 --layers 2 --heads 4 --d-model 16 --batch 4 --threads 1 \
    --val-tokens 64 "$@" > /dev/null 2> "$tmp/$n.err" || bad "train $n" "$(tail -2 "$tmp/$n.err")"
}
for s in alibi fire kerple-log kerple-power rope nope learned shaw; do train "$s" --pos "$s" --steps 12 --lr 3e-3 --seed 3; done
train t5 --pos t5 --t5-buckets 8 --t5-max-dist 32 --steps 12 --lr 3e-3 --seed 3 # (buckets 4..7 log-spaced within the trained 16)
# floats NAME TENSOR: the values of scheme.TENSOR of $tmp/NAME's checkpoint, one a line (posgpt export, then od)
floats() {
  local st=$tmp/$1.safetensors
  "$BIN" export --ckpt "$tmp/$1/model.bin" --out "$st" 2> /dev/null
  local n; n=$(od -A n -t u8 -N 8 "$st" | tr -d ' ')
  local off; off=$(head -c $((8 + n)) "$st" | tail -c +9 | grep -o "\"scheme\\.$2\":{[^}]*}" | sed 's/.*data_offsets":\[\([0-9]*\),\([0-9]*\)\].*/\1 \2/')
  set -- $off
  od -A n -t f4 -v -j $((8 + n + $1)) -N $(($2 - $1)) "$st" | tr -s ' ' '\n' | grep .
}
# check NAME WHAT AWK-EXPECT: every row of the table within 1e-5 (relative above 1) of the awk
# expression e(layer, head, d) computed from the parameters p[0..] (the floats of the scheme's tensor)
check() {
  local n=$1 what=$2 expr=$3 tensor=$4
  if [ "$tensor" = - ]; then echo 0 > "$tmp/$n.p"; else floats "$n" "$tensor" > "$tmp/$n.p"; fi # (- : no tensor)
  "$BIN" info --ckpt "$tmp/$n/model.bin" --bias "$tmp/$n.csv" > "$tmp/$n.out" 2>&1 || { bad "$what" "$(tail -1 "$tmp/$n.out")"; return; }
  local got
  got=$(awk -F, -v H=4 -v D=256 "NR == FNR { p[FNR - 1] = \$1; next }
    function e(layer, h, d) { $expr }
    FNR == 1 { if (\$0 != \"layer,head,distance,bias\") { print \"header \" \$0; wrong = 1; exit } next }
    { x = e(\$1, \$2, \$3); diff = \$4 - x; if (diff < 0) diff = -diff; s = x < 0 ? -x : x
      if (diff > 1e-5 * (s > 1 ? s : 1)) { print \"row \" FNR \": \" \$0 \" expected \" x; wrong = 1; exit }; rows++; if (\$4 != 0) nz++ }
    END { if (wrong) exit; if (!rows) print \"no rows\"; else printf \"%d rows %d nonzero\", rows, nz }" "$tmp/$n.p" "$tmp/$n.csv")
  case $got in *" rows "*) ok "$what ($got)" ;; *) bad "$what" "$got" ;; esac
}
# T5: W[bucket(d)][h], the buckets of Raffel et al.: half exact, half log-spaced up to t5-max-dist 32, 8 buckets
check t5 "t5: every distance 0..16T is the table's bucket entry (4 heads x 257, one table for all layers)" '
  nb = 8; ex = nb / 2; if (d < ex) b = d; else { b = ex + int(log(d / ex) / log(32 / ex) * (nb - ex)); if (b > nb - 1) b = nb - 1 }
  if (layer != "all") return "layer " layer; return p[b * H + h]' table
# ALiBi: -2^(-8(h+1)/H) d, no parameters (its table comes from the closed form alone)
check alibi "alibi: -2^(-8(h+1)/H) x d for every head and distance" 'return -(2 ^ (-8 * (h + 1) / H)) * d' -
# FIRE: per layer w1[32], b1[32], w2[4][32], b2[4], c, L; u = log(1 + c d) / log(1 + c max(L, 256))
check fire "fire: the MLP of log(1 + c d) / log(1 + c max(L, query 256)), per layer" '
  P = 32 * (2 + H) + H + 2; o = layer * P; c = p[o + 32 * (2 + H) + H]; L = p[o + 32 * (2 + H) + H + 1]; M = D > L ? D : L
  u = log(1 + c * d) / log(1 + c * M); r = p[o + 32 * (2 + H) + h]
  for (k = 0; k < 32; k++) { z = p[o + k] * u + p[o + 32 + k]; if (z > 0) r += p[o + 64 + h * 32 + k] * z }
  return r' mlp
check kerple-log "kerple-log: -r1 log(1 + r2 d)" 'return -p[h] * log(1 + p[H + h] * d)' r
check kerple-power "kerple-power: -r1 d^r2" 'return -p[h] * d ^ p[H + h]' r
[ "$(wc -l < "$tmp/fire.csv")" = $((2 * 4 * 257 + 1)) ] && [ "$(cut -d, -f1 "$tmp/fire.csv" | sort -u | tr '\n' ' ')" = "0 1 layer " ] \
  && ok "fire (one MLP per layer): rows for layers 0 and 1" || bad "fire layers" "$(wc -l < "$tmp/fire.csv") rows"

# the summary: the overall line is the table's largest |bias| and its distance; alibi's is 2^-2 x 256 at 256
summary_ok() { # NAME: the printed "all all" line's max and distance against the CSV's
  local want got
  want=$(awk -F, 'NR > 1 { a = $4 < 0 ? -$4 : $4; if (a > m) { m = a; d = $3 } } END { printf "%.6g %d", m, d }' "$tmp/$1.csv")
  got=$(awk '$1 == "all" && $2 == "all" { printf "%.6g %d", $3, $4 }' "$tmp/$1.out")
  [ "$want" = "$got" ] && [ -n "$got" ] && ok "$1: the summary's overall largest |bias| and distance are the table's ($got)" || bad "$1 summary" "printed '$got', table '$want'"
}
for s in t5 fire kerple-log; do summary_ok "$s"; done
awk '$1 == "all" && $2 == "all"' "$tmp/alibi.out" | grep -qE '^ +all +all +64 +256 +-0\.25 +-2\.5 +-4 +-64$' \
  && ok "alibi's summary: largest 64 at 256; at d = 1, 10, T, 16T: -0.25 -2.5 -4 -64" || bad "alibi summary" "$(grep -A7 '^position bias' "$tmp/alibi.out")"
"$BIN" info "$tmp/t5/model.bin" --bias "$tmp/t5-40.csv" --bias-max-dist 40 > /dev/null 2>&1
cmp -s "$tmp/t5-40.csv" <(awk -F, 'NR == 1 || ($3 <= 40)' "$tmp/t5.csv") && ok "--bias-max-dist 40: the same rows, distances 0..40" \
  || bad "max dist" "$(head -3 "$tmp/t5-40.csv")"

# before: --bias-init is the model training began from. A run at lr 0 keeps its initial model
# (AdamW moves nothing); the trained run of the same seed, re-initialised, gives the same table
for s in t5 fire kerple-power; do
  train "$s-lr0" --pos "$s" --steps 1 --lr 0 --seed 3 $([ $s = t5 ] && echo --t5-buckets 8 --t5-max-dist 32)
  "$BIN" info "$tmp/$s-lr0/model.bin" --bias "$tmp/$s-0.csv" > /dev/null 2>&1
  "$BIN" info "$tmp/$s/model.bin" --bias "$tmp/$s-init.csv" --bias-init > "$tmp/$s-init.out" 2>&1
  if cmp -s "$tmp/$s-0.csv" "$tmp/$s-init.csv" && ! cmp -s "$tmp/$s.csv" "$tmp/$s-init.csv"; then
    ok "$s: --bias-init on the trained run is byte for byte the table of the same seed's untrained model (and not the trained one's)"
  else bad "$s before" "$(cmp "$tmp/$s-0.csv" "$tmp/$s-init.csv" 2>&1 | head -1)"; fi
done
awk -F, 'NR > 1 && $4 != 0 { n++ } END { exit n > 0 }' "$tmp/t5-init.csv" && grep -q "at initialisation: seed 3" "$tmp/t5-init.out" \
  && ok "t5 at initialisation: every bias 0 (its table starts at zero), the summary says seed 3" || bad "t5 init" "$(grep -m1 '^position' "$tmp/t5-init.out")"
train fire-seed4 --pos fire --steps 1 --lr 0 --seed 4
"$BIN" info "$tmp/fire-seed4/model.bin" --bias "$tmp/fire-4.csv" > /dev/null 2>&1
{ [ -s "$tmp/fire-4.csv" ] && [ -s "$tmp/fire-0.csv" ] && ! cmp -s "$tmp/fire-4.csv" "$tmp/fire-0.csv"; } && ok "fire: another seed, another initial table (the seed is the checkpoint's)" \
  || bad "fire seeds" "seeds 3 and 4: the same initial table, or none"
train t5-from --init-from "$tmp/t5/model.bin" --steps 2
refused "--bias-init on a run started with train --init-from" "started from the checkpoint" \
  "$BIN" info "$tmp/t5-from/model.bin" --bias "$tmp/x.csv" --bias-init

# refusals: schemes without a score bias, flag errors
refused "rope has no score bias" "scheme 'rope' adds no bias to the attention scores (it transforms q and k); the schemes that do: t5|alibi" \
  "$BIN" info "$tmp/rope/model.bin" --bias "$tmp/x.csv"
refused "nope has no score bias" "scheme 'nope' adds no bias.*no position term" "$BIN" info "$tmp/nope/model.bin" --bias "$tmp/x.csv"
refused "shaw has no score bias" "scheme 'shaw' adds no bias.*contents q and k" "$BIN" info "$tmp/shaw/model.bin" --bias "$tmp/x.csv"
refused "learned has no score bias" "scheme 'learned' adds no bias.*input embedding" "$BIN" info "$tmp/learned/model.bin" --bias "$tmp/x.csv"
[ ! -e "$tmp/x.csv" ] && ok "a refused --bias writes no file" || bad "refused wrote" "$tmp/x.csv"
refused "--bias-init needs --bias" "bias-init needs --bias" "$BIN" info "$tmp/t5/model.bin" --bias-init
refused "--bias-max-dist needs --bias" "bias-max-dist needs --bias" "$BIN" info "$tmp/t5/model.bin" --bias-max-dist 5
refused "--bias-max-dist 0" "bias-max-dist must be in" "$BIN" info "$tmp/t5/model.bin" --bias "$tmp/x.csv" --bias-max-dist 0
refused "--bias-max-dist x" "not a valid integer" "$BIN" info "$tmp/t5/model.bin" --bias "$tmp/x.csv" --bias-max-dist x
refused "--bias over the checkpoint" "also the checkpoint" "$BIN" info "$tmp/t5/model.bin" --bias "$tmp/t5/model.bin"
refused "--bias into a missing folder" "cannot" "$BIN" info "$tmp/t5/model.bin" --bias "$tmp/no/such/x.csv"
# hostile paths: an empty path is refused before any temporary file; a full disk (a file size limit)
# and SIGINT during a long write leave no partial table and the earlier file intact
refused "--bias ''" "bias table: the path is empty" "$BIN" info "$tmp/t5/model.bin" --bias ''
[ -z "$(ls -a | grep '^\.tmp\.')" ] && ok "--bias '': no temporary file in the current folder" || bad "empty path tmp" "$(ls -a | grep tmp)"
echo before > "$tmp/full.csv"
(ulimit -f 16; trap '' XFSZ; exec "$BIN" info "$tmp/fire/model.bin" --bias "$tmp/full.csv" --bias-max-dist 100000) > /dev/null 2> "$tmp/full.err"; rc=$?
[ $rc = 1 ] && grep -q "cannot write '$tmp/full.csv'" "$tmp/full.err" && [ "$(cat "$tmp/full.csv")" = before ] && [ -z "$(ls "$tmp" | grep 'full.csv.tmp')" ] \
  && ok "a full disk: exit 1, one error naming the table, the earlier file intact, no temporary left" || bad "full disk" "rc $rc: $(cat "$tmp/full.err")"
"$BIN" info "$tmp/fire/model.bin" --bias "$tmp/full.csv" --bias-max-dist 1000000 > /dev/null 2>&1 & pid=$!
for i in $(seq 50); do ls "$tmp" | grep -q 'full.csv.tmp' && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] && [ "$(cat "$tmp/full.csv")" = before ] && [ -z "$(ls "$tmp" | grep 'full.csv.tmp')" ] \
  && ok "SIGINT during a long write: ended by the signal, no partial table, the earlier file intact" || bad "SIGINT" "rc $rc: $(ls "$tmp" | grep full)"
# --bias-init reads config.txt's init_from line as written by hand too (first line, no spaces, CRLF); without
# a config.txt it warns that the checkpoint alone cannot say
mkdir -p "$tmp/edit" "$tmp/bare"; cp "$tmp/t5-from/model.bin" "$tmp/edit/"; cp "$tmp/t5/model.bin" "$tmp/bare/"
{ echo "init_from=$tmp/t5/model.bin"; grep -v '^init_from' "$tmp/t5-from/config.txt"; } | sed 's/$/\r/' > "$tmp/edit/config.txt"
refused "--bias-init: an edited config.txt's init_from (first line, no spaces, CRLF) still refuses" "started from the checkpoint $tmp/t5/model.bin (" \
  "$BIN" info "$tmp/edit/model.bin" --bias "$tmp/x.csv" --bias-init
"$BIN" info "$tmp/bare/model.bin" --bias "$tmp/bare.csv" --bias-init > /dev/null 2> "$tmp/bare.err"
grep -q "warning: info --bias-init: no $tmp/bare/config.txt" "$tmp/bare.err" && cmp -s "$tmp/bare.csv" "$tmp/t5-init.csv" \
  && ok "--bias-init without config.txt: a warning, the seed's table" || bad "bare" "$(cat "$tmp/bare.err")"

# tools/study3_bias.sh on a constructed study folder: phase A's t5 at multipliers 1 and 10, fire,
# rope (no bias: no row), B's t5 seed 1 without a checkpoint (no row) and seed 2
st=$tmp/study
for r in A/t5/lr3e-3-m1:t5:1 A/t5/lr3e-3-m10:t5:10 A/fire/lr3e-3-m1:fire:1 A/rope/lr3e-3-m1:rope:1 B/t5/seed2:t5:1; do
  IFS=: read -r d s m <<< "$r"
  mkdir -p "$st/${d%/*}"; k=1; case $d in *seed*) k=${d##*seed} ;; esac
  a=(--pos "$s" --steps 12 --lr 3e-3 --seed "$k"); [ "$m" = 1 ] || a+=(--pos-lr-mult "$m")
  nice "$BIN" train --data "$tmp/c.txt" --out "$st/$d" --seq-len 16 --layers 2 --heads 4 --d-model 16 --batch 4 --threads 1 \
    --val-tokens 64 "${a[@]}" > /dev/null 2> "$tmp/st.err" || bad "train $d" "$(tail -2 "$tmp/st.err")"
done
mkdir -p "$st/B/t5/seed1"; echo "step,loss" > "$st/B/t5/seed1/log.csv"
POSGPT=$BIN tools/study3_bias.sh "$st" > "$tmp/sb.out" 2>&1 && ok "study3_bias.sh exits 0" || bad "study3_bias.sh" "$(tail -3 "$tmp/sb.out")"
rows=$(cut -d, -f1-4,9 "$st/bias.csv" | tr '\n' ' ')
[ "$rows" = "phase,run,setting,scheme,when A,fire,lr3e-3-m1,fire,after A,fire,lr3e-3-m1,fire,before A,t5,lr3e-3-m1,t5,after A,t5,lr3e-3-m1,t5,before A,t5,lr3e-3-m10,t5,after A,t5,lr3e-3-m10,t5,before B,t5,seed2,t5,after B,t5,seed2,t5,before " ] \
  && ok "bias.csv: before and after for every run with a checkpoint and a score bias (no rope, no checkpointless seed1)" || bad "bias.csv rows" "$rows"
"$BIN" info "$st/A/t5/lr3e-3-m10/model.bin" --bias "$tmp/m10.csv" > /dev/null 2>&1
"$BIN" info "$st/A/t5/lr3e-3-m10/model.bin" --bias "$tmp/m10-init.csv" --bias-init > /dev/null 2>&1
cmp -s "$tmp/m10.csv" "$st/bias/A/t5/lr3e-3-m10.csv" && cmp -s "$tmp/m10-init.csv" "$st/bias/A/t5/lr3e-3-m10-init.csv" \
  && ok "the exported tables are info --bias's and info --bias --bias-init's" || bad "tables" "$(ls "$st/bias/A/t5")"
# t5: 0 before; after, the multiplier-10 run's largest bias exceeds the multiplier-1 run's; the max is the table's
got=$(awk -F, '$2 == "t5" && $1 == "A" { printf "%s:%s ", $3 "-" $9, $10 }' "$st/bias.csv")
awk -F, '$1 == "A" && $2 == "t5" { v[$3 "-" $9] = $10 } END { exit !(v["lr3e-3-m1-before"] == 0 && v["lr3e-3-m10-before"] == 0 &&
    v["lr3e-3-m1-after"] > 0 && v["lr3e-3-m10-after"] > v["lr3e-3-m1-after"]) }' "$st/bias.csv" \
  && ok "t5: largest bias 0 before; after, larger at pos-lr-mult 10 than at 1 ($got)" || bad "t5 before/after" "$got"
want=$(awk -F, 'NR > 1 { a = $4 < 0 ? -$4 : $4; if (a > m) { m = a; d = $3 } } END { printf "%.6g,%s", m, d }' "$st/bias/A/fire/lr3e-3-m1.csv")
got=$(awk -F, '$2 == "fire" && $9 == "after" { print $10 "," $13 }' "$st/bias.csv")
[ "$want" = "$got" ] && [ -n "$got" ] && ok "bias.csv's largest |bias| and distance are the table's (fire: $got)" || bad "fire max" "$want vs $got"
grep -q '^| A | t5 | lr3e-3-m10 | 0.003 | 10 | 0 (0) | ' "$st/bias.md" && [ "$(grep -c '^| [AB] |' "$st/bias.md")" = 4 ] \
  && ok "bias.md: one row per run, before and after side by side" || bad "bias.md" "$(cat "$st/bias.md")"
# kept: a second call rewrites nothing; without the checkpoints (and the binary) the same files
cp "$st/bias.csv" "$st/bias.md" "$tmp/"; touch "$tmp/mark"; sleep 1
POSGPT=$BIN tools/study3_bias.sh "$st" > /dev/null 2>&1
newer=$(find "$st/bias" -type f -newer "$tmp/mark")
find "$st" -name model.bin -delete
POSGPT=/nonexistent tools/study3_bias.sh "$st" > /dev/null 2>&1; rc=$?
grep -q "^| A | t5 |" "$tmp/bias.md" && [ -z "$newer" ] && [ ! -e "$st/bias/A/rope" ] && [ $rc = 0 ] && cmp -s "$tmp/bias.csv" "$st/bias.csv" && cmp -s "$tmp/bias.md" "$st/bias.md" \
  && ok "tables newer than their checkpoints are kept; without checkpoints bias.csv and bias.md are redrawn the same" || bad "kept" "rc $rc, rewritten: $newer"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
