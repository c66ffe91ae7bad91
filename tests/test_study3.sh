#!/usr/bin/env bash
# test_study3.sh - tools/study3.sh --quick end to end on a generated corpus (every phase: the lr
# and position-lr sweeps, the choice, the matched width, training with kept checkpoints, their
# evaluation, the report): eval.csv's columns; chosen.csv is the rule applied to the measured
# losses, and the rule itself on a constructed case; a second start trains and evaluates nothing
# again; a tree binary that differs from the pinned one is refused; the report is byte-identical
# when run twice and when run from the CSVs alone (every checkpoint deleted); a new start there
# (a clone of the committed files) trains nothing again.
. "$(dirname "$0")/lib.sh" study3

phrase_text 1 12000 > "$tmp/c.txt"
run() { DATA=$tmp/c.txt OUT=$tmp/o POSGPT=${2:-$BIN} INFO_BIN=$BIN tools/study3.sh --quick > "$tmp/$1.out" 2> "$tmp/$1.err"; }
# (a failure shows the lines that say what failed, which are not the last ones: the study goes on)
run first && ok "study3 --quick runs every phase and exits 0" || bad "study3 --quick" "$(grep -v '^study3: \|^sweep: [0-9]* jobs' "$tmp/first.err" | head -8)"
head -1 "$tmp/o/eval.csv" | grep -q '^scheme,seed,step,train_len,eval_len,loss,ppl,ci_low,ci_high,.*flops_per_token' \
  && ok "eval.csv has the columns scheme,seed,step,train_len,eval_len,loss,ppl,ci_low,ci_high ... flops_per_token" \
  || bad "eval.csv header" "$(head -1 "$tmp/o/eval.csv")"
# every kept checkpoint (steps 8, 16) evaluated; the final one at 1x..16x; every interval holds its ppl
n8=$(awk -F, '$3 == 8 && $14 == "kept"' "$tmp/o/eval.csv" | wc -l); nf=$(awk -F, '$14 == "final"' "$tmp/o/eval.csv" | wc -l)
out=$(awk -F, 'NR > 1 && !($8 <= $7 && $7 <= $9)' "$tmp/o/eval.csv" | head -2)
# 8 runs (alibi, rope, t5 x 2 seeds, xl, the rope control): 5 lengths at step 8 and at the end
# (PROTOCOL.md v3), on the test bytes: the held-out split less the first VAL_TOKENS (1024) bytes
[ "$n8" = 40 ] && [ "$nf" = 40 ] && [ -z "$out" ] && ok "kept checkpoints at 1x..16x ($n8 rows), final ones at 5 lengths ($nf), ci_low <= ppl <= ci_high" \
  || bad "eval rows" "step 8: $n8, final: $nf, outside: $out"
n=$(wc -c < "$tmp/c.txt")
cmp -s "$tmp/o/test.txt" <(tail -c $((n / 10 - 1024)) "$tmp/c.txt") && grep -q -- "--val $tmp/o/test.txt\|--lengths 1x,2x,4x,8x,16x" "$tmp/o/B/rope/seed1/eval-8.args" \
  && ok "test.txt is the held-out split less the 1024 bytes the runs validated on; the evaluations score it" || bad "test bytes" "$(wc -c < "$tmp/o/test.txt")"
cmp -s <(tools/study3.sh --choose "$tmp/o/phaseA.csv") "$tmp/o/chosen.csv" && [ "$(wc -l < "$tmp/o/chosen.csv")" = 5 ] \
  && ok "chosen.csv is the rule applied to the measured phaseA.csv (4 schemes)" || bad "chosen.csv" "$(cat "$tmp/o/chosen.csv")"
# the rule on a constructed case: x's best is 3e-3 (0.980) but 1e-3 (0.989) is within 0.01: 1e-3;
# at 1e-3, multiplier 10 (0.970) beats 1 (0.989) by more than 0.01: 10; y's 3e-3 run failed
# (no loss): 1e-3; z: 3e-4 within 0.01 of the best (1e-3): 3e-4, and mult 10 within 0.01 of 1: 1
cat > "$tmp/pa.csv" <<'CSV'
scheme,lr,pos_lr_mult,steps,val_loss
x,3e-4,1,8,1.000
x,1e-3,1,8,0.989
x,3e-3,1,8,0.980
x,1e-3,10,8,0.970
y,3e-4,1,8,1.5
y,1e-3,1,8,1.2
y,3e-3,1,5,
z,3e-4,1,8,2.005
z,1e-3,1,8,2.000
z,3e-3,1,8,2.100
z,3e-4,10,8,1.999
CSV
got=$(tools/study3.sh --choose "$tmp/pa.csv" | cut -d, -f1-3 | tr '\n' ' ')
[ "$got" = "scheme,lr,pos_lr_mult x,1e-3,10 y,1e-3,1 z,3e-4,1 " ] && ok "the choice rule: the smallest lr, then multiplier, within 0.01 of the best; failed runs out" \
  || bad "choice rule" "$got"
# the edge rule (PROTOCOL.md v2) on a constructed chosen.csv: a choice at the grid's largest lr
# (3e-3) runs once more at 1e-2, at its smallest (3e-4, whatever the multiplier) at 1e-4, inside
# it nothing
printf 'scheme,lr,pos_lr_mult,val_loss,rule\nhi,3e-3,1,1.4,r\nmid,1e-3,1,1.5,r\nlo,3e-4,10,1.6,r\n' > "$tmp/ch.csv"
got=$(tools/study3.sh --edges "$tmp/ch.csv" | tr '\n' ' ')
[ "$got" = "A hi 1e-2 1 A lo 1e-4 1 " ] && ok "the edge rule: one lr further up (1e-2) or down (1e-4) where the choice is at the grid's edge" \
  || bad "edge rule" "$got"
# --choose and --edges on a missing, empty, headerless, header-only or wrong file: one error line
# naming the file, exit 2, nothing printed; CRLF line ends read as LF
s3_refused() { # NAME PATTERN ARGS...
  local name=$1 pat=$2 rc; shift 2
  tools/study3.sh "$@" > "$tmp/s3.out" 2> "$tmp/s3.err"; rc=$?
  [ $rc = 2 ] && [ ! -s "$tmp/s3.out" ] && [ "$(wc -l < "$tmp/s3.err")" = 1 ] && grep -q -- "$pat" "$tmp/s3.err" \
    && ok "study3 $name -> $(cat "$tmp/s3.err")" || bad "study3 $name" "rc $rc: $(head -2 "$tmp/s3.err"); out $(head -2 "$tmp/s3.out")"
}
: > "$tmp/empty.csv"; tail -n +2 "$tmp/pa.csv" > "$tmp/pa-nohead.csv"; head -1 "$tmp/pa.csv" > "$tmp/pa-head.csv"
for op in choose edges; do
  s3_refused "--$op a missing file" "$tmp/none.csv: no such file, or empty" --$op "$tmp/none.csv"
  s3_refused "--$op an empty file" "$tmp/empty.csv: no such file, or empty" --$op "$tmp/empty.csv"
  s3_refused "--$op without a file" "(no file): no such file" --$op
  s3_refused "--$op a folder" "$tmp: no such file" --$op "$tmp"
  s3_refused "--$op a file without a header" "pa-nohead.csv: the header has no column scheme" --$op "$tmp/pa-nohead.csv"
  s3_refused "--$op the header alone" "pa-head.csv: no rows under the header" --$op "$tmp/pa-head.csv"
done
s3_refused "--edges a phaseA.csv (a scheme on several rows)" "pa.csv: scheme x on two rows" --edges "$tmp/pa.csv"
# a row the rule cannot read is an error naming its line, not a row passed over: a truncated
# row, an lr or multiplier that is not a number, a val_loss that is a word; a scheme whose runs
# all diverged (val_loss nan) has no choice; an uppercase exponent is a number; the file is
# named from where the script was called
H3=scheme,lr,pos_lr_mult,val_loss
printf '%s\nrope,1e-3,1,1.5\nrope,3e-3\n' "$H3" > "$tmp/b1.csv"; printf '%s\nrope,abc,1,1.0\n' "$H3" > "$tmp/b2.csv"
printf '%s\nrope,1e-3,x,1.0\n' "$H3" > "$tmp/b3.csv"; printf '%s\nrope,1e-3,1,low\n' "$H3" > "$tmp/b4.csv"
printf '%s\nrope,1e-3,1,nan\nrope,3e-3,1,inf\n' "$H3" > "$tmp/b5.csv"; printf 'scheme,lr\nrope,\n' > "$tmp/b6.csv"
s3_refused "--choose a truncated row" "b1.csv:3: 2 fields, fewer than the header's 4" --choose "$tmp/b1.csv"
s3_refused "--choose an lr that is a word" "b2.csv:2: lr and pos_lr_mult must be numbers above 0" --choose "$tmp/b2.csv"
s3_refused "--choose a multiplier that is a word" "b3.csv:2: lr and pos_lr_mult must be numbers above 0" --choose "$tmp/b3.csv"
s3_refused "--choose a val_loss that is a word" "b4.csv:2: val_loss must be a number" --choose "$tmp/b4.csv"
s3_refused "--choose a scheme whose runs all diverged" "b5.csv: scheme rope has no finite val_loss at pos_lr_mult 1" --choose "$tmp/b5.csv"
s3_refused "--edges an empty lr" "b6.csv:2: a row of a scheme and its lr" --edges "$tmp/b6.csv"
printf '%s\nrope,1e-3,1,1.40E+0\nrope,3e-3,1,nan\n' "$H3" > "$tmp/b7.csv"
[ "$(cd "$tmp" && "$OLDPWD/tools/study3.sh" --choose b7.csv | tail -1 | cut -d, -f1-4)" = "rope,1e-3,1,1.400000" ] \
  && ok "study3 --choose: 1.40E+0 is a number, a nan run is passed over, a relative FILE is read from the caller's folder" \
  || bad "study3 --choose relative" "$(cd "$tmp" && "$OLDPWD/tools/study3.sh" --choose b7.csv 2>&1)"
sed 's/$/\r/' "$tmp/pa.csv" > "$tmp/pa-crlf.csv"; sed 's/$/\r/' "$tmp/ch.csv" > "$tmp/ch-crlf.csv"
cmp -s <(tools/study3.sh --choose "$tmp/pa-crlf.csv") <(tools/study3.sh --choose "$tmp/pa.csv") \
  && cmp -s <(tools/study3.sh --edges "$tmp/ch-crlf.csv") <(tools/study3.sh --edges "$tmp/ch.csv") && [ -n "$(tools/study3.sh --edges "$tmp/ch.csv")" ] \
  && ok "study3 --choose and --edges read CRLF files as LF ones" || bad "study3 CRLF" "$(tools/study3.sh --edges "$tmp/ch-crlf.csv" 2>&1)"
# in the quick grid: the choice from the first three lrs alone (multiplier 1) calls for exactly
# the edge runs that phaseA.csv holds
want=$(awk -F, 'NR == 1 || ($3 == 1 && ($2 == "3e-4" || $2 == "1e-3" || $2 == "3e-3"))' "$tmp/o/phaseA.csv" > "$tmp/pa3.csv"
  tools/study3.sh --choose "$tmp/pa3.csv" > "$tmp/ch3.csv"; tools/study3.sh --edges "$tmp/ch3.csv" | awk '{ print $2 "," $3 }' | sort)
have=$(awk -F, 'NR > 1 && $3 == 1 && ($2 == "1e-2" || $2 == "1e-4") && $5 != "" { print $1 "," $2 }' "$tmp/o/phaseA.csv" | sort)
[ "$want" = "$have" ] && [ -n "$have" ] && ok "the quick grid ran exactly the edge rule's runs ($(echo $have))" || bad "edge runs" "want '$want', have '$have'"
# a choice at the largest or smallest lr its scheme ran (after the edge rule) is marked in README.md
edge=$(awk -F, 'NR == FNR { if (FNR > 1 && $3 == 1) { if (!($1 in lo) || $2 + 0 < lo[$1]) lo[$1] = $2 + 0; if (!($1 in hi) || $2 + 0 > hi[$1]) hi[$1] = $2 + 0 }; next }
  FNR > 1 && ($2 + 0 == hi[$1] || $2 + 0 == lo[$1]) { print $1 }' "$tmp/o/phaseA.csv" "$tmp/o/chosen.csv" | sort | tr '\n' ' ')
marked=$(grep "at the grid's edge" "$tmp/o/README.md" | awk -F' [|] ' '{ print substr($1, 3) }' | sort | tr '\n' ' ')
[ "$edge" = "$marked" ] && ok "README.md marks the choices at their grid's edge (${edge:-none})" || bad "edge marks" "want '$edge', marked '$marked'"
grep -q "^rope,[0-9]*,[0-9]*,xl-d16," "$tmp/o/match.csv" && [ -s "$tmp/o/B/rope-d$(awk -F, '$1 == "rope" { print $2 }' "$tmp/o/match.csv")/seed1/info.csv" ] \
  && ok "the matched control's width comes from match.csv and was trained" || bad "match" "$(cat "$tmp/o/match.csv")"
# xl against its control (PROTOCOL.md v7): control minus xl at each length against the seed
# spread of the runs with 2 seeds, computed here from eval.csv's final rows on their own
c=rope-d$(awk -F, '$1 == "rope" { print $2 }' "$tmp/o/match.csv")
want=$(awk -F, -v c="$c" '$14 == "final" { L = $5 / $4; if ($2 == 1) x[$1, L] = $6; k = $1 SUBSEP L; if (!(k in lo) || $6 < lo[k]) lo[k] = $6; if (!(k in hi) || $6 > hi[k]) hi[k] = $6; m[k]++; Ls[L] = 1 }
  END { for (k in m) if (m[k] > 1) { split(k, K, SUBSEP); if (hi[k] - lo[k] > sp[K[2]]) sp[K[2]] = hi[k] - lo[k] }
    for (L = 1; L <= 16; L *= 2) if (L in Ls) { d = x[c, L] - x["xl", L]; printf "%gx %+.4f %.4f %s;", L, d, sp[L], (d > sp[L] ? "xl lower" : -d > sp[L] ? c " lower" : "within the seed spread") } }' "$tmp/o/eval.csv")
have=$(awk -F' [|] ' -v c="$c" '$2 == "xl" && $4 == c { printf "%s %s %s %s;", substr($1, 3), $6, $7, substr($8, 1, length($8) - 2) }' "$tmp/o/README.md")
[ -n "$want" ] && [ "$want" = "$have" ] && [ "$(grep -o ';' <<< "$have" | wc -l)" = 5 ] \
  && ok "README.md sets xl against its matched control at each length, against the seed spread (PROTOCOL.md v7: $have)" \
  || bad "matched reading" "want '$want', have '$have'"
# the scheme's own FLOPs (PROTOCOL.md v6): each finished run's posflops.csv (alibi: 2 FLOPs a score,
# x 3 with the backward, 1 layer, 2 heads, T 32: 384), added to info.csv's in table.md, and
# eval.csv's column; a run's file is the tree binary's `info` line
pa=$(sed -n 2p "$tmp/o/B/alibi/seed1/posflops.csv" | cut -d, -f4) fa=$(sed -n 2p "$tmp/o/B/alibi/seed1/info.csv" | cut -d, -f8)
px=$(sed -n 2p "$tmp/o/B/xl/seed1/posflops.csv" | cut -d, -f4)
ix=$($BIN info "$tmp/o/B/xl/seed1/model.bin" | awk '$1 == "pos" { print $3 }')
[ "$pa" = 384 ] && [ -n "$px" ] && [ "$px" = "$ix" ] && grep -q "^| alibi | 2 | [0-9]* | $((fa + pa)) |" "$tmp/o/table.md" \
  && [ "$(awk -F, 'NR > 1 && $14 == "final" && $24 == "" { n++ } END { print n + 0 }' "$tmp/o/eval.csv")" = 0 ] \
  && ok "posflops.csv: alibi 384 (2 a score x 3 x 2 heads x T 32), xl $px as posgpt info counts it; table.md's flops/token $((fa + pa)) = info.csv's + the scheme's" \
  || bad "pos flops" "alibi '$pa' (info $fa), xl '$px' vs '$ix': $(grep '^| alibi' "$tmp/o/table.md")"
cp "$tmp/o/B/xl/seed1/posflops.csv" "$tmp/pf.csv"; rm "$tmp/o/B/xl/seed1/posflops.csv"
OUT=$tmp/o INFO_BIN=$BIN tools/study3.sh --quick --flops > /dev/null 2> "$tmp/pf.err"; rc=$?
OUT=$tmp/o tools/study3.sh --quick --flops --status > /dev/null 2> "$tmp/pf2.err"; rc2=$?
[ $rc = 0 ] && cmp -s "$tmp/pf.csv" "$tmp/o/B/xl/seed1/posflops.csv" && grep -q "written for 1 runs" "$tmp/pf.err" && [ $rc2 = 2 ] \
  && ok "study3 --flops writes the missing posflops.csv (1 run), the same file; --flops --status refused" || bad "--flops" "rc $rc $rc2: $(cat "$tmp/pf.err" "$tmp/pf2.err")"
[ "$(wc -l < "$tmp/o/paired.csv")" -gt 1 ] && grep -A5 '^At 16x' "$tmp/o/README.md" | grep -qE '\) [<~] [a-z]'  && [ -s "$tmp/o/ratio_vs_step.png" ] && [ -s "$tmp/o/ppl_vs_length.png" ] && grep -q "](ppl_vs_length.png)" "$tmp/o/README.md" \
  && grep -q '^| C8 | rotary |' "$tmp/o/claims.md" && ok "paired tests, rankings with '<'/'~', the figures and claims.md are written" \
  || bad "report" "$(ls "$tmp/o")"
# phase D: each scheme's phase-A run at its chosen lr (and t5's at the other multiplier there)
# evaluated at 1x..16x on all the test bytes, in the README beside phase B's seed 1
nd=0; want=0
while IFS=, read -r s lr m _; do
  for d in "$tmp/o/A/$s/lr$lr"-m*; do [ -d "$d" ] || continue; want=$((want + 1))
    [ "$(awk -F, 'NR > 1 { n++ } END { print n + 0 }' "$d/eval-final.csv" 2> /dev/null)" = 5 ] \
      && grep -q "^| $s | A, lr $lr x ${d##*-m}$([ "${d##*-m}" = "$m" ] && echo '\*') | 8 |" "$tmp/o/README.md" && nd=$((nd + 1)); done
  grep -q "^| $s | B, seed 1 | 16 |" "$tmp/o/README.md" || nd=-99
done < <(tail -n +2 "$tmp/o/chosen.csv")
[ "$nd" = "$want" ] && [ "$want" -ge 3 ] && ok "phase D: the $want phase-A runs at the chosen lr evaluated at 1x..16x, in the README beside phase B's seed 1" \
  || bad "phase D" "$nd of $want: $(grep -A12 '^### Two horizons' "$tmp/o/README.md")"
# phase D's edge diagnostics: every choice the README marks at its grid's edge, and every chosen
# multiplier 10 (the largest run), has a run in D/ and a row beside its choice; nothing else
# does, and none enters phaseA.csv (the choice stands)
we=0; nrow=$(awk '/^### Edge diagnostics/ { on = 1; next } on && /^### / { on = 0 } on && /^\| [a-z]/ && !/^\| scheme/' "$tmp/o/README.md" | wc -l)
while IFS=, read -r s lr m _; do
  e=0; grep -q "^| $s | $lr (the .* lr run: at the grid's edge)" "$tmp/o/README.md" && e=1
  [ "$m" = 10 ] && e=$((e + 1))
  [ $e -gt 0 ] && [ "$(grep -c "^| $s | $lr x $m | " "$tmp/o/README.md")" = $e ] && [ "$(ls -d "$tmp/o/D/$s"/lr*-m* | wc -l)" = $e ] && we=$((we + e))
done < <(tail -n +2 "$tmp/o/chosen.csv")
[ "$we" = "$nrow" ] && [ "$(ls -d "$tmp"/o/D/*/lr*-m* 2> /dev/null | wc -l)" = "$nrow" ] && ! grep -q ",30,\|,3e-2,\|,1e-1," "$tmp/o/phaseA.csv" \
  && ok "phase D: an edge diagnostic for each choice at the edge ($nrow), beside its choice in the README, none in phaseA.csv" \
  || bad "edge diagnostics" "$we of $nrow: $(ls -d "$tmp"/o/D/*/* 2>&1); $(grep -A8 '^### Edge diag' "$tmp/o/README.md")"
# a verdict where the paper's ratio is within 5% of 1 is marked weak: T5's 0.956 and 1.039 (C9,
# C10; the quick grid runs t5 with 2 seeds), none of ALiBi's (0.949 and below) or the others'
weak=$(grep "(weak: the paper's ratio is within 5% of 1) |$" "$tmp/o/claims.md" | awk -F' [|] ' '{ print substr($1, 3) }' | tr '\n' ' ')
[ "$weak" = "C9 C10 " ] && ok "claims.md: the verdicts where the paper's ratio is within 5% of 1 are marked weak (C9 C10)" || bad "weak verdicts" "'$weak'"
# the paired tests are across seeds (PROTOCOL.md v3): each row's seed_diffs are, per common seed,
# the mean over the same windows of the worse run's loss minus the better's (recomputed here from
# the per-window files), and mean_diff, ci_low, ci_high their mean and 95% t interval (recomputed
# from the 6-decimal list: each d_k within 5e-7 of the report's, so the mean within 1e-6, and the
# bounds, t(1) = 12.706 times the spread, within 2e-5)
chk=$(awk -F, 'NR > 1 && $4 != "" { print $1, $2, $3, $4, $6, $7, $8, $10 }' "$tmp/o/paired.csv" | while read -r L a b ks m lo hi list; do
  want=$(for k in ${ks//+/ }; do
    awk -F, -v L="$L" 'FNR == 1 { f++; next } $3 != L { next } f == 1 { x[$7] = $9; next } { s += $9 - x[$7]; n++ } END { printf "%.6f\n", s / n }' \
      "$tmp/o/B/$a/seed$k/perwin-final.csv" "$tmp/o/B/$b/seed$k/perwin-final.csv"; done | paste -sd';')
  stats=$(echo "$want" | tr ';' '\n' | awk '{ s += $1; ss += $1 * $1; n++ } END { m = s / n; h = 12.706 * sqrt((ss - n * m * m) / (n - 1) / n); printf "%.6f %.6f %.6f", m, m - h, m + h }')
  [ "$want" = "$list" ] && awk -v a="$stats" -v m="$m" -v lo="$lo" -v hi="$hi" 'BEGIN { split(a, w, " "); exit !((w[1] - m) ^ 2 <= 1e-12 && (w[2] - lo) ^ 2 <= 4e-10 && (w[3] - hi) ^ 2 <= 4e-10) }' \
    || echo "$L $a $b: want $want ($stats), have $list ($m $lo $hi)"
done)
np=$(awk -F, 'NR > 1 && $4 == "1+2"' "$tmp/o/paired.csv" | wc -l)
[ -z "$chk" ] && [ "$np" -ge 5 ] && ok "paired.csv: $np tests across 2 seeds, each seed's mean window difference and the t interval (1 df) recomputed" \
  || bad "paired across seeds" "$np rows; $chk"
# the table: a run of one seed (xl) shows its window interval, marked w; one of 2 seeds exp(mean loss)
x=$(grep '^| xl | 1 |' "$tmp/o/README.md"); r=$(grep '^| rope | 2 |' "$tmp/o/README.md")
wantr=$(awk -F, '$1 == "rope" && $14 == "final" && $5 == 32 { s += $6; n++ } END { printf "%#.4g", exp(s / n) }' "$tmp/o/eval.csv")
[ "$(echo "$x" | grep -o ' w |' | wc -l)" = 5 ] && echo "$r" | grep -q "| $wantr (" && ! echo "$r" | grep -q ' w |' \
  && ok "the table: one seed marked w (window interval only); 2 seeds exp of the mean loss ($wantr at 1x) with an interval over seeds" \
  || bad "table" "$x / $r / $wantr"
# a one-seed row's window interval (PROTOCOL.md v5), recomputed here from xl's per-window file:
# blocks of b consecutive windows, b the cube root of their count rounded ((b - 0.5)^3 <= K <
# (b + 0.5)^3), the leftover windows in the last block; t(blocks - 1) on the block means
wantx=$(awk -F, "$(cat tools/lib.awk)"'NR > 1 && $3 == 32 && $4 == "nonoverlapping" { l[$7] = $9; K++; all += $9 }
  END { b = 1; while ((b + 0.5) ^ 3 <= K) b++; nb = int(K / b)
    for (w = 0; w < K; w++) { g = int(w / b); if (g >= nb) g = nb - 1; s[g] += l[w]; c[g]++ }
    for (g = 0; g < nb; g++) { x = s[g] / c[g]; a += x; q += x * x }
    m = all / K; h = tq(nb - 1) * sqrt((q - a * a / nb) / (nb - 1) / nb)
    printf "%#.4g (%#.4g-%#.4g) w", exp(m), exp(m - h), exp(m + h) }' "$tmp/o/B/xl/seed1/perwin-final.csv")
echo "$x" | grep -qF "| $wantx |" && ok "a one-seed row's window interval: batch means over blocks of neighbouring windows ($wantx at 1x, recomputed)" \
  || bad "one-seed batch means" "want $wantx in $x"
# eval.csv: the final rows carry that interval (bm_ci_low, bm_ci_high, bm_block: about it their
# ppl), the kept rows leave it empty
awk -F, 'NR == 1 { ok = $21 == "bm_ci_low" && $22 == "bm_ci_high" && $23 == "bm_block"; next }
  $14 == "final" { nf++; if (!($21 <= $7 && $7 <= $22 && $21 < $22 && $23 >= 1)) bad = 1 }
  $14 == "kept" { nk++; if ($21 $22 $23 != "") bad = 1 } END { exit !(ok && !bad && nf && nk) }' "$tmp/o/eval.csv" \
  && ok "eval.csv: the final rows' batch-means interval holds their ppl; the kept rows have none" \
  || bad "eval.csv bm columns" "$(head -2 "$tmp/o/eval.csv")"
# the lib's t interval on known values: 0.1, 0.2, 0.3 -> 0.2 +- 4.303 * 0.1 / sqrt(3) = 0.248434
got=$(awk "$(cat tools/lib.awk)"' BEGIN { tint(3, 0.6, 0.14); printf "%.6f %.6f %s %.4f", TM, TH, tint(1, 2, 4), tq(40) }')
[ "$got" = "0.200000 0.248434 0 2.0210" ] && ok "lib.awk: the 95% t interval of 0.1, 0.2, 0.3 is 0.2 +- 0.248434; none for one value; t(40) 2.0210" || bad "lib.awk" "$got"
# the lib's batch means (bmh), by hand: 1,2,3,4 in blocks of 2 -> block means 1.5, 3.5, their
# standard error 1, so 12.706 * 1; weighted by tokens 1,3,1,1 -> 1.75, 3.5, se 0.875 -> 11.11775;
# 1..5 in blocks of 2 -> the leftover 5 joins the last block: 1.5, 4, se 1.25 -> 15.8825; 3
# values in blocks of 2 -> one block, no interval (-1)
got=$(awk "$(cat tools/lib.awk)"' BEGIN { split("1 2 3 4 5", X, " "); split("1 3 1 1", W, " ")
  a = bmh(4, 2, X); b = bmh(4, 2, X, W, 1); c = bmh(5, 2, X); d = bmh(3, 2, X); printf "%.5f %.5f %.5f %d %d", a, b, c, d, BM_NB }')
[ "$got" = "12.70600 11.11775 15.88250 -1 1" ] && ok "lib.awk: batch means by hand (plain, token-weighted, a leftover window in the last block, one block: none)" || bad "lib.awk bmh" "$got"
# the lib's paired per-window differences: pair 1 (windows 0, 1 at length 8; a row at 16 left
# out) differs by 0.5 and 1.0 (mean 0.75), pair 2 by -0.25 (its windows in another order); a
# window of B missing from A, or one window fewer, is an error naming it
h=scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss
printf '%s\nr,8,8,nonoverlapping,8,0,0,8,1.0\nr,8,8,nonoverlapping,8,0,1,8,2.0\nr,8,16,nonoverlapping,16,0,0,16,9\n' $h > "$tmp/pa1.csv"
printf '%s\nr,8,8,nonoverlapping,8,0,0,8,1.5\nr,8,8,nonoverlapping,8,0,1,8,3.0\nr,8,16,nonoverlapping,16,0,0,16,1\n' $h > "$tmp/pb1.csv"
printf '%s\nr,8,8,nonoverlapping,8,0,1,8,1.0\nr,8,8,nonoverlapping,8,0,0,8,1.0\n' $h > "$tmp/pa2.csv"
printf '%s\nr,8,8,nonoverlapping,8,0,0,8,0.75\nr,8,8,nonoverlapping,8,0,1,8,0.75\n' $h > "$tmp/pb2.csv"
printf '%s\nr,8,8,nonoverlapping,8,0,5,8,0.75\nr,8,8,nonoverlapping,8,0,1,8,0.75\n' $h > "$tmp/pb3.csv"
printf '%s\nr,8,8,nonoverlapping,8,0,0,8,0.75\n' $h > "$tmp/pb4.csv"
# wall(): a log's elapsed_s restarts at 0 on resume: 9 s, then 4 s after the resume (13 in all);
# a second file after wall_reset() counts alone
got=$(printf '10,5\n20,9\n30,2\n40,4\n' | awk -F, "$(cat tools/lib.awk)"'{ wall($2) } END { a = WALL; wall_reset(); wall(3); wall(7); print a, WALL }')
[ "$got" = "13 7" ] && ok "lib.awk: a run's training seconds over its resumed segments (9 + 4)" || bad "lib.awk wall" "$got"
pw() { awk -F, "$(cat tools/lib.awk)"'{ pw_row(8) } END { m = pw_end(); if (m < 0) print PWERR; else for (i = 1; i <= m; i++) printf "%g:%d ", PWD[i], PWN[i] }' "$@"; }
got=$(pw "$tmp/pa1.csv" "$tmp/pb1.csv" "$tmp/pa2.csv" "$tmp/pb2.csv")
e1=$(pw "$tmp/pa2.csv" "$tmp/pb3.csv"); e2=$(pw "$tmp/pa2.csv" "$tmp/pb4.csv")
[ "$got" = "0.75:2 -0.25:2 " ] && [ "$e1" = "window nonoverlapping,8,0,5 of $tmp/pb3.csv at 8 is not in the file paired with it" ] \
  && [ "$e2" = "pair 1 differs in its windows at the length asked" ] \
  && ok "lib.awk: paired per-window differences (0.75 and -0.25 over 2 windows each); a window one file lacks, or one fewer, is an error" \
  || bad "lib.awk pw" "$got / $e1 / $e2"
# the stable-step rule on constructed runs: b above a at the last step in all 3 seeds (0.10, 0.11,
# 0.12: significant), in order at step 2 (mean 0.01), reversed at step 1: "step 2"; the last
# step not significant (0.05, -0.2, 0.05): not established; reversed at step 2: not established
for k in 1 2 3; do printf 'a,%d,1,0.5\na,%d,2,0.5\na,%d,3,0.5\n' $k $k $k; done > "$tmp/st.csv"
printf 'b,1,1,0.4\nb,2,1,0.45\nb,3,1,0.5\nb,1,2,0.52\nb,2,2,0.5\nb,3,2,0.51\nb,1,3,0.60\nb,2,3,0.61\nb,3,3,0.62\n' >> "$tmp/st.csv"
sed 's/^b,\([13]\),3,.*/b,\1,3,0.55/; s/^b,2,3,.*/b,2,3,0.3/' "$tmp/st.csv" > "$tmp/st2.csv"
sed 's/^b,\([123]\),2,.*/b,\1,2,0.49/' "$tmp/st.csv" > "$tmp/st3.csv"
s1=$(tools/study3_report.sh --stable "$tmp/st.csv" 4); s2=$(tools/study3_report.sh --stable "$tmp/st2.csv" 4); s3=$(tools/study3_report.sh --stable "$tmp/st3.csv" 4)
case "$s1|$s2|$s3" in "step 2 "*"|not established (no pair"*"|not established (of the 1 pairs"*) ok "the stable-step rule: step 2; none significant; reversed before the last step" ;;
  *) bad "stable rule" "$s1 / $s2 / $s3" ;; esac
tools/study3_report.sh --stable "$tmp/none.csv" 4 > "$tmp/st.out" 2> "$tmp/st.err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/st.out" ] && grep -q "takes a readable FILE and a COLUMN" "$tmp/st.err" \
  && ok "--stable on a missing file: one error line, exit 2" || bad "--stable missing" "rc $rc: $(cat "$tmp/st.err")"
# the position bias before and after: t5's and alibi's runs (xl and rope add none); t5 starts at 0, alibi's is fixed
b=$(awk -F, 'NR > 1 { n[$2]++ } END { for (k in n) printf "%s:%d ", k, n[k] }' "$tmp/o/bias.csv" | tr ' ' '\n' | sort | tr '\n' ' ')
t5=$(awk -F, '$2 == "t5" && $9 == "before" && $10 != 0' "$tmp/o/bias.csv" | head -1)
al=$(awk -F, '$2 == "alibi" { v[$1 $3, $9] = $10 } END { for (k in v) { split(k, p, SUBSEP); if (v[p[1], "before"] != v[p[1], "after"]) print k } }' "$tmp/o/bias.csv")
# two rows (before, after) for each of t5's and alibi's runs with a checkpoint: phase A (its lrs,
# the edge rule's, t5's multiplier 10) and phase B (2 seeds); how many the edge rule adds
# depends on the measured losses, so the count is read from the folders
want=$(for s in alibi t5; do printf '%s:%d ' $s $((2 * $(ls "$tmp"/o/A/$s/*/model.bin "$tmp"/o/B/$s/seed*/model.bin | wc -l))); done)
[ "$b" = "$want" ] && [ -z "$t5" ] && [ -z "$al" ] && grep -q '^### Largest position bias before and after' "$tmp/o/README.md" \
  && ok "bias.csv: before and after for the t5 and alibi runs (t5 0 before, alibi unchanged), in README.md" || bad "bias" "$b (want $want) / $t5 / $al"
# a scheme without a bias has no folder there, and no table was left half made (.part): its two
# runs at once under the sweep once raced there (one removed the folder the other wrote into)
left=$(cd "$tmp/o/bias" && find . -path '*rope*' -o -path '*xl*' -o -name '*.part' | head -3)
[ -z "$left" ] && ok "bias/: no folder for rope or xl (no bias), no .part file left" || bad "bias folders" "$left"
# --status: from the folders alone; on a copy with one run's evaluations undone and one run gone
st=$(OUT=$tmp/o tools/study3.sh --quick --status 2>&1)
cp -r "$tmp/o" "$tmp/st" && rm "$tmp/st/B/rope/seed1/done.txt" && rm -r "$tmp/st/B/t5/seed2"
# (and a finished run of another grid, a relative of --full's: not one of this grid's 8)
mkdir -p "$tmp/st/B/xpos/seed1" && echo done > "$tmp/st/B/xpos/seed1/done.txt"
st2=$(OUT=$tmp/st tools/study3.sh --quick --status 2>&1); rm -rf "$tmp/st"
grep -q "^phases B and C: 8 of 8 runs trained and evaluated, 0 trained" <<< "$st" && grep -q "^phase A: [0-9]* runs trained; chosen.csv: 4 schemes" <<< "$st" \
  && grep -qx "phase D: $(ls "$tmp"/o/A/*/*/eval-final.csv | wc -l) phase-A runs evaluated at 1x..16x, $(ls "$tmp"/o/D/*/*/trained.txt | wc -l) edge diagnostics trained" <<< "$st" \
  && grep -qx "  B rope/seed1: trained, its evaluations left" <<< "$st2" \
  && grep -qx "phases B and C: 6 of 8 runs trained and evaluated, 1 trained with evaluations left, 0 under way or interrupted, 1 not started; 1 more folders of another grid (--full's) not counted" <<< "$st2" \
  && grep -qx "phases B and C: 8 of 8 runs trained and evaluated, 0 trained with evaluations left, 0 under way or interrupted, 0 not started" <<< "$st" \
  && ok "--status: 8 of 8 done, phase D counted; with a run's evaluations undone, a run gone and another grid's run, 6 of 8 done, 1 to evaluate, 1 not started, 1 apart" || bad "--status" "$st / $st2"
# chance.csv: the test bytes' unigram perplexity under the training split's byte counts (add-one),
# computed apart here (counts by sort | uniq, summed per byte value); table.md's reference row;
# with a DATA whose tail is not the test bytes, a warning and no chance.csv
n=$(wc -c < "$tmp/c.txt")
want=$({ head -c $((n - n / 10)) "$tmp/c.txt" | od -An -v -tu1 | tr -s ' ' '\n' | grep . | sort -n | uniq -c | awk '{ print "c", $2, $1 }'
  echo "N $((n - n / 10))"; od -An -v -tu1 "$tmp/o/test.txt" | tr -s ' ' '\n' | grep . | sort -n | uniq -c | awk '{ print "t", $2, $1 }'; } \
  | awk '$1 == "c" { c[$2] = $3 } $1 == "N" { N = $2 } $1 == "t" { s += $3 * log((c[$2] + 1) / (N + 256)); m += $3 } END { printf "%.4f", exp(-s / m) }')
got=$(awk -F, 'NR == 2 && $1 == "unigram" { print $5 }' "$tmp/o/chance.csv" 2> /dev/null)
cp -r "$tmp/o" "$tmp/ch" && rm "$tmp/ch/chance.csv"
DATA=tools/lib.awk POSGPT=$BIN tools/study3_report.sh "$tmp/ch" > /dev/null 2> "$tmp/ch.err"; rc=$?
awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 1e-8) }' && grep -q "^| (unigram: no context) | - | - | - | $(printf '%.2f' "$got") |" "$tmp/o/table.md" \
  && [ $rc = 0 ] && [ ! -e "$tmp/ch/chance.csv" ] && grep -q "test.txt is not the tail of tools/lib.awk" "$tmp/ch.err" \
  && ok "chance.csv: the unigram reference $got (computed apart: $want), a row of table.md; not made from another corpus" \
  || bad "chance.csv" "got '$got' want '$want', rc $rc: $(cat "$tmp/ch.err")"
rm -rf "$tmp/ch"
# and a scheme of the grid with no phase-A run is named (RELATIVES: one the quick grid never swept)
st3=$(OUT=$tmp/o RELATIVES="xl sandwich" tools/study3.sh --quick --status 2>&1)
grep -q "^  phase A not started for: sandwich (" <<< "$st3" && ! grep -q "not started for" <<< "$st" \
  && ok "--status: the grid's schemes without a phase-A run are named (sandwich)" || bad "--status phase A" "$st3"
# resume: nothing trained or evaluated again
touch "$tmp/marker"; sleep 1
run second && ok "a second start exits 0" || bad "second start" "$(tail -3 "$tmp/second.err")"
newer=$(find "$tmp/o/A" "$tmp/o/B" \( -name '*.bin' -o -name 'eval-*.csv' -o -name 'perwin-*.csv' \) -newer "$tmp/marker" | head -3)
nck=$(find "$tmp/o/B" -name 'model-*.bin' | wc -l)
[ -z "$newer" ] && [ "$nck" = 16 ] && ok "a second start keeps every training and evaluation ($nck kept checkpoints)" || bad "resume" "$nck kept; rewritten: $newer"
# an interrupted run resumes from its checkpoint
d=$tmp/o/B/alibi/seed2
rm -f "$d"/model*.bin "$d"/eval-*.csv
# (the run's own flags, from its settings.txt, stopped at step 8)
"$tmp/o/bin/posgpt" train --data "$tmp/c.txt" --out "$d" --overwrite --steps 16 --threads 1 $(cat "$d/settings.txt") --stop-at 8 > /dev/null 2>&1
"$tmp/o/bin/posgpt" info "$d/model.bin" 2> /dev/null | grep -q "step 8 of 16," || bad "stopped run" "not at step 8 of 16"
run third
grep -q "was interrupted: resuming it" "$tmp/third.err" && "$tmp/o/bin/posgpt" info "$d/model.bin" | grep -q "step 16 of 16," \
  && ok "a run stopped at step 8 of 16 is resumed to its end" || bad "interrupted" "$(grep -i alibi/seed2 "$tmp/third.err" | head -3)"
# the pinned binary: a different tree binary is refused
cp "$BIN" "$tmp/other"; echo >> "$tmp/other"
run pinned "$tmp/other"; rc=$?
[ $rc = 2 ] && grep -q "differs from the pinned" "$tmp/pinned.err" && ok "a tree binary that differs from the pinned one is refused (--repin to change)" \
  || bad "pin" "rc $rc: $(tail -2 "$tmp/pinned.err")"
# the kernel: the first start recorded its matrix products' kernel (posgpt --version's second
# line); a start that would run on another is refused before any run, and says which
kt=$(cat "$tmp/o/bin/kernel.txt" 2> /dev/null); want=$("$BIN" --version | sed -n 2p)
echo "another kernel" > "$tmp/o/bin/kernel.txt"; n0=$(find "$tmp/o" -newer "$tmp/o/bin/kernel.txt" -type f | wc -l)
run kernel; rc=$?
n1=$(find "$tmp/o" -newer "$tmp/o/bin/kernel.txt" -type f ! -name command.txt | wc -l)
echo "$kt" > "$tmp/o/bin/kernel.txt"
[ -n "$kt" ] && [ "$kt" = "$want" ] && [ $rc = 2 ] && [ "$n1" = "$n0" ] && grep -q "would run on '$want', but this grid's runs ran on 'another kernel'" "$tmp/kernel.err" \
  && ok "kernel.txt holds the first start's kernel ($kt); a start on another is refused (exit 2), nothing run" \
  || bad "kernel" "rc $rc, recorded '$kt', want '$want', $n0/$n1 files: $(tail -1 "$tmp/kernel.err")"
# phase D with a phase-A checkpoint gone (not committed, or lost with a machine): the run is made
# again, and its checkpoint used only when its log.csv repeats the run's; the evaluation is then
# the one made before, byte for byte. A log that does not repeat (here: one loss changed) fails
# the job, names the row, and leaves no checkpoint in the run's folder
lr=$(awk -F, '$1 == "alibi" { print $2 }' "$tmp/o/chosen.csv"); a=$tmp/o/A/alibi/lr$lr-m1
cp "$a/eval-final.csv" "$tmp/ef.csv"; cp "$a/log.csv" "$tmp/alog.csv"
rm -f "$a/model.bin" "$a/eval-final.csv" "$a/perwin-final.csv"
run remake1; rc=$?
[ $rc = 0 ] && cmp -s "$a/eval-final.csv" "$tmp/ef.csv" && [ -s "$a/model.bin" ] && [ ! -e "$a/remake" ] && grep -q "checkpoint is gone: training it again" "$tmp/remake1.err" \
  && ok "phase D: a phase-A run without its checkpoint is made again, repeats its log, and evaluates to the same bytes" \
  || bad "remake" "rc $rc: $(grep -i 'alibi/lr' "$tmp/remake1.err" | head -3)"
rm -f "$a/model.bin" "$a/eval-final.csv" "$a/perwin-final.csv"
awk -F, -v OFS=, 'FNR == 3 { $2 = $2 + 0.5 } { print }' "$tmp/alog.csv" > "$a/log.csv"
run remake2; rc=$?
[ $rc != 0 ] && [ ! -e "$a/model.bin" ] && [ ! -e "$a/eval-final.csv" ] && [ -s "$a/remake/model.bin" ] && grep -q "differs from its log.csv at row 3 (step" "$tmp/remake2.err" \
  && ok "phase D: a run made again that does not repeat its log (row 3 changed) fails, says where, and its checkpoint is not used" \
  || bad "remake differs" "rc $rc: $(grep -i 'alibi/lr' "$tmp/remake2.err" | head -3)"
cp "$tmp/alog.csv" "$a/log.csv"; run remake3 || bad "remake restored" "$(tail -2 "$tmp/remake3.err")"
cmp -s "$a/eval-final.csv" "$tmp/ef.csv" || bad "remake restored" "eval-final.csv differs"
# the report: byte-identical twice, and from the CSVs alone
files="eval.csv paired.csv convergence.csv training.csv short.csv table.md claims.md README.md ratio_vs_step.png ppl_vs_length.png bias.csv bias.md"
mkdir -p "$tmp/r1" "$tmp/r2"
POSGPT=$BIN tools/study3_report.sh "$tmp/o" > /dev/null 2>&1 && for f in $files; do cp "$tmp/o/$f" "$tmp/r1/"; done
POSGPT=$BIN tools/study3_report.sh "$tmp/o" > /dev/null 2>&1
diff1=$(for f in $files; do cmp -s "$tmp/o/$f" "$tmp/r1/$f" || echo "$f"; done)
find "$tmp/o" -name '*.bin' -delete; rm -rf "$tmp/o/bin"
POSGPT=$BIN tools/study3_report.sh "$tmp/o" > /dev/null 2> "$tmp/r.err"; rc=$?
diff2=$(for f in $files; do cmp -s "$tmp/o/$f" "$tmp/r1/$f" || echo "$f"; done)
[ -z "$diff1" ] && ok "the report run twice is byte-identical ($files)" || bad "report twice" "differ: $diff1"
[ $rc = 0 ] && [ -z "$diff2" ] && ok "the report from the CSVs alone (no checkpoint, no pinned binary) is byte-identical" \
  || bad "report from CSVs" "rc $rc, differ: $diff2 $(head -2 "$tmp/r.err")"
# a clone that kept the CSVs and markers but no checkpoint (the committed files): a new start
# pins a binary again and trains and evaluates nothing; the report is the same bytes
run fourth; rc=$?
nbin=$(find "$tmp/o/A" "$tmp/o/B" -name '*.bin' | wc -l)
diff3=$(for f in $files; do cmp -s "$tmp/o/$f" "$tmp/r1/$f" || echo "$f"; done)
[ $rc = 0 ] && [ "$nbin" = 0 ] && [ -z "$diff3" ] && ok "a start in a clone without checkpoints (trained.txt, done.txt and the CSVs kept) trains nothing again; the same report" \
  || bad "clone without checkpoints" "rc $rc, $nbin checkpoints made, differ: $diff3; $(tail -2 "$tmp/fourth.err")"

# training.csv's seconds: alibi seed 2 was stopped at step 8 and resumed, so its training seconds
# (log.csv's elapsed_s over both segments) exceed its log's last elapsed_s (the second segment's);
# every run has its evaluation seconds (eval-time.txt); README.md sums them per phase
tr=$(awk -F, '$1 == "alibi" && $2 == 2 { print $9 }' "$tmp/o/training.csv"); la=$(tail -1 "$tmp/o/B/alibi/seed2/log.csv" | cut -d, -f7)
ne=$(awk -F, 'NR > 1 && $10 !~ /^[0-9]+$/' "$tmp/o/training.csv" | wc -l)
[ "$(head -1 "$tmp/o/training.csv" | cut -d, -f9,10)" = train_s,eval_s ] && awk -v t="$tr" -v l="$la" 'BEGIN { exit !(t + 0 > l + 0) }' && [ "$ne" = 0 ] \
  && grep -q '^| B and C (finished runs) | [0-9]* | [0-9.]* | [0-9.]* |$' "$tmp/o/README.md" \
  && ok "training.csv: each run's training seconds over its resumed segments (alibi seed 2: $tr s, its last segment $la) and evaluation seconds; README.md sums them" \
  || bad "study3 machine time" "$tr / $la / $ne without eval_s / $(grep -A4 '^### Machine' "$tmp/o/README.md")"
# short.csv: a row for every finished phase-A (and phase-D) run, its last-20% fall computed here
# again from its log.csv (the last validation, and the last one at or before 80% of the steps)
want=$(for f in "$tmp/o"/A/*/lr*-m*/log.csv "$tmp/o"/D/*/lr*-m*/log.csv; do [ -e "${f%/log.csv}/trained.txt" ] || continue
  d=${f%/log.csv}; n=${d##*/lr}; s=${d%/*}; ph=${s%/*}
  awk -F, -v k="${ph##*/},${s##*/},${n%-m*},${n##*-m}" 'NR > 1 && $3 != "" { st[++m] = $1; v[m] = $3 }
    END { for (i = 1; i <= m; i++) if (st[i] <= 0.8 * st[m]) j = i; printf "%s,%.4f\n", k, v[j] - v[m] }' "$f"; done | sort)
got=$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $4 "," $9 }' "$tmp/o/short.csv" | sort)
na=$(find "$tmp/o/A" -name trained.txt | wc -l)
[ -n "$want" ] && [ "$want" = "$got" ] && [ "$(grep -c '^A,' "$tmp/o/short.csv")" = "$na" ] && grep -q '^### The last 20% of the short runs' "$tmp/o/README.md" \
  && ok "short.csv: every finished phase-A run ($na) and edge diagnostic, its last-20% fall as its log.csv gives it; README.md's table of them" \
  || bad "short.csv" "$(diff <(echo "$want") <(echo "$got") | head -4)"
# table.md: the final table, compact (for the top-level README), a row per run with a final
# evaluation, in the order of the README's full table (by name, not by score: no implied ranking)
nr=$(awk -F, 'NR > 1 && $14 == "final" { print $1 }' "$tmp/o/eval.csv" | sort -u | wc -l)
want=$(awk -F, 'NR > 1 && $14 == "final" { print $1 }' "$tmp/o/eval.csv" | sort -u | tr '\n' ' ')
got=$(awk -F' [|] ' 'NR > 2 && /^\| [a-z]/ { print substr($1, 3) }' "$tmp/o/table.md" | tr '\n' ' ')
head -1 "$tmp/o/table.md" | grep -q '^| scheme | seeds | params | flops/token | 1x | 2x | 4x | 8x | 16x |$' && [ "$(grep -c '^| [a-z]' "$tmp/o/table.md")" = $((nr + 1)) ] \
  && [ "$got" = "$want" ] \
  && ok "table.md: the compact final table, $nr runs, by name ($got)" || bad "table.md" "'$got' want '$want': $(head -4 "$tmp/o/table.md")"
# claims.md copies runs/ctxext's claims against Peng et al. (P1..), or says they were not run
np=$(grep -c '^| P[0-9]* | ' "$tmp/o/claims.md"); nc=$(awk '/^## Against Peng et al\. 2023, Table 1/ { on = 1; next } on && /^## / { on = 0 }
  on && /^\| / && !/^\| place \|/ && !/^\|---/' runs/ctxext/table.md | wc -l)
CTXEXT=$tmp/none.md POSGPT=$BIN tools/study3_report.sh "$tmp/o" > /dev/null 2>&1 && grep -q "^Not run: no $tmp/none.md" "$tmp/o/claims.md" \
  && ! grep -q '^| P1 | ' "$tmp/o/claims.md" && [ "$np" -ge 1 ] && [ "$np" = "$nc" ] \
  && ok "claims.md copies runs/ctxext's $np claims against Peng et al. (P1..P$np); without the table it says not run" || bad "ctxext claims" "$np copied of $nc"
POSGPT=$BIN tools/study3_report.sh "$tmp/o" > /dev/null 2>&1
# a run without its final evaluation (under way, or failed) is listed as missing and left out
# of the tables, training.csv's last-20% rows included (its steps so far are not its last 20%)
cp -r "$tmp/o" "$tmp/u"; rm "$tmp/u/B/alibi/seed2/eval-final.csv" "$tmp/u/B/alibi/seed2/done.txt"
POSGPT=$BIN tools/study3_report.sh "$tmp/u" > /dev/null 2>&1; rc=$?
[ $rc = 0 ] && grep -q "without a final evaluation.*alibi/seed2" "$tmp/u/README.md" && ! grep -q "^alibi,2," "$tmp/u/training.csv" \
  && grep -q "^alibi,2," "$tmp/o/training.csv" && ok "a run without its final evaluation is listed as missing, with no training.csv row" \
  || bad "missing run" "rc $rc: $(grep -c "^alibi,2," "$tmp/u/training.csv") rows; $(grep "without a final" "$tmp/u/README.md")"


# a damaged input CSV: one error line naming the file and line, exit 1, and the report already
# there left as it was (every output, byte for byte); a failure after the checks (here the plot
# binary) likewise
damaged() { # NAME FILE (under $tmp/o) EDIT (a sed script, or "EMPTY", or "CUT") WANT (in the error)
  rm -rf "$tmp/h"; cp -r "$tmp/o" "$tmp/h"
  case $3 in EMPTY) : > "$tmp/h/$2" ;; CUT) head -c 300 "$tmp/o/$2" > "$tmp/h/$2" ;; *) sed -i "$3" "$tmp/h/$2" ;; esac
  POSGPT=$BIN tools/study3_report.sh "$tmp/h" > /dev/null 2> "$tmp/h.err"; rc=$?
  local changed; changed=$(for f in $files; do cmp -s "$tmp/h/$f" "$tmp/o/$f" || echo "$f"; done; ls -a "$tmp/h" | grep '^\.report')
  [ $rc = 1 ] && [ "$(grep -c . "$tmp/h.err")" = 1 ] && grep -qF "$4" "$tmp/h.err" && [ -z "$changed" ] \
    && ok "report refuses $1 -> $(cat "$tmp/h.err"); nothing written" || bad "report $1" "rc $rc, changed '$changed': $(head -3 "$tmp/h.err")"
}
pw=B/alibi/seed1/perwin-final.csv ev=B/alibi/seed1/eval-final.csv
damaged "a loss that is a word" $ev '2s/^\(\([^,]*,\)\{6\}\)[^,]*/\1abc/' "$ev:2: the loss \"abc\" is not a finite number"
damaged "a nan window loss" $pw '3s/,[^,]*$/,nan/' "$pw:3: the loss \"nan\" is not a finite number"
damaged "a column cut" $ev 's/,[^,]*//' "$ev:1: the header is not scheme,"
damaged "a row twice" $ev '2p' "$ev:3: a second row for eval_len"
damaged "CRLF line ends" B/alibi/seed1/info.csv 's/$/\r/' "info.csv:1: a carriage return"
damaged "a file cut short" $pw CUT "$pw is empty or does not end in a newline"
damaged "a finished run's empty file" $ev EMPTY "seed1 is finished (done.txt) but has no eval-final.csv"
damaged "a header only" $pw '2,$d' "$pw: holds a header only"
damaged "info.csv with two rows" B/alibi/seed1/info.csv '2{p;s/^alibi,/alibi2,/}' "info.csv: holds 2 rows, not one"
damaged "a scheme twice in chosen.csv" chosen.csv '2p' "chosen.csv:3: a second row for scheme"
# a control above xl's parameter count: study3.sh writes its rel_diff with a '+' (%+.4f), which
# the report reads as a number (the stop of 2026-12-06 found it refused: "+0.0427")
rm -rf "$tmp/h"; cp -r "$tmp/o" "$tmp/h"; sed -i '2s/,[^,]*$/,+0.0427/' "$tmp/h/match.csv"
POSGPT=$BIN tools/study3_report.sh "$tmp/h" > /dev/null 2> "$tmp/h.err" && grep -q ',+0.0427$' "$tmp/h/match.csv" \
  && ok "report reads match.csv's rel_diff with a '+' sign (+0.0427)" || bad "report signed rel_diff" "$(head -3 "$tmp/h.err")"
rm -rf "$tmp/h"; cp -r "$tmp/o" "$tmp/h"
POSGPT=false PLOT_BIN=/bin/false tools/study3_report.sh "$tmp/h" > /dev/null 2> "$tmp/h.err"; rc=$?
changed=$(for f in $files; do cmp -s "$tmp/h/$f" "$tmp/o/$f" || echo "$f"; done; ls -a "$tmp/h" | grep '^\.report')
[ $rc = 1 ] && grep -q "failed.*left as it was" "$tmp/h.err" && [ -z "$changed" ] \
  && ok "a report that fails after its checks (no plot binary) leaves the last one as it was: $(tail -1 "$tmp/h.err")" \
  || bad "report fails halfway" "rc $rc, changed '$changed': $(tail -2 "$tmp/h.err")"
OUT="$tmp/h" tools/study3.sh --status --report > /dev/null 2> "$tmp/h.err"; rc=$?
[ $rc = 2 ] && grep -q "give one" "$tmp/h.err" && ok "study3 --status --report: refused, exit 2" || bad "--status --report" "rc $rc: $(cat "$tmp/h.err")"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
