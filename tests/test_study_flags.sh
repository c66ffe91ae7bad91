#!/usr/bin/env bash
# test_study_flags.sh - the flags a study needs:
#  - train --keep-every N keeps model-STEP.bin every N steps (each the checkpoint of that step,
#    bit for bit; model.bin as without the flag; kept across --resume); N <= 0 and N not a
#    multiple of --ckpt-every are refused;
#  - train --pos-lr-mult X: 1 writes the same checkpoint as no flag; 10 changes the run, is
#    recorded in config.txt and the checkpoint, kept by --resume (another value refused);
#    refused for schemes with no tensors of their own;
#  - eval --ci: a bootstrap interval over the windows that holds the point estimate, is the
#    same on every run and thread count, and narrows with more windows; --ci-block N resamples
#    blocks of N neighbouring windows (column ci_block; default the cube root of the windows); --per-window writes
#    each window's loss, and tools/paired.sh compares two such files;
#  - info: the pairs a rotary context extension leaves, interpolates or blends; parameters and
#    FLOPs per token by the formula of docs/usage.md.
. "$(dirname "$0")/lib.sh" study_flags

phrase_text 5 3000 > "$tmp/text.txt"
R=(--data "$tmp/text.txt" --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --steps 6 --eval-every 3
   --ckpt-every 2 --log-every 2 --val-tokens 512 --threads 2)

# ---- --keep-every ----
$BIN train "${R[@]}" --pos t5 --out "$tmp/plain" > /dev/null 2>&1
$BIN train "${R[@]}" --pos t5 --out "$tmp/keep" --keep-every 2 > /dev/null 2>&1
$BIN train "${R[@]}" --pos t5 --out "$tmp/at4" --stop-at 4 > /dev/null 2>&1
[ "$(cd "$tmp/keep" && ls model*.bin | tr '\n' ' ')" = "model-2.bin model-4.bin model-6.bin model.bin " ] \
  && ok "--keep-every 2 keeps model-2/4/6.bin beside model.bin" || bad "kept files" "$(ls "$tmp/keep")"
# the payload (parameters and moments, after the 1024-byte header, whose run record holds keep_every)
payload_same() { cmp -s <(tail -c +1025 "$1") <(tail -c +1025 "$2") && [ "$(wc -c < "$1")" = "$(wc -c < "$2")" ]; }
payload_same "$tmp/plain/model.bin" "$tmp/keep/model.bin" && ok "--keep-every leaves model.bin's parameters and moments as without it" \
  || bad "keep model.bin" "differs"
payload_same "$tmp/at4/model.bin" "$tmp/keep/model-4.bin" && ok "model-4.bin holds the checkpoint of step 4 (parameters, moments) bit for bit" \
  || bad "model-4.bin" "differs"
$BIN train "${R[@]}" --pos t5 --out "$tmp/keepr" --keep-every 4 --stop-at 2 > /dev/null 2>&1
$BIN train --resume "$tmp/keepr" > /dev/null 2>&1
$BIN train "${R[@]}" --pos t5 --out "$tmp/keep4" --keep-every 4 > /dev/null 2>&1
[ "$(cd "$tmp/keepr" && ls model*.bin | tr '\n' ' ')" = "model-4.bin model.bin " ] && cmp -s "$tmp/keepr/model-4.bin" "$tmp/keep4/model-4.bin" \
  && ok "--resume keeps the run's --keep-every (model-4.bin as uninterrupted)" || bad "keep resume" "$(ls "$tmp/keepr")"
grep -q "^keep_every = 4$" "$tmp/keepr/config.txt" && ok "config.txt records keep_every" || bad "config keep_every" "$(grep keep "$tmp/keepr/config.txt")"
refused "--keep-every 0" "keep-every must be a positive number of steps" $BIN train "${R[@]}" --pos t5 --out "$tmp/x" --keep-every 0
refused "--keep-every -2" "keep-every must be a positive number of steps" $BIN train "${R[@]}" --pos t5 --out "$tmp/x" --keep-every -2
refused "--keep-every 3 with --ckpt-every 2" "not a multiple of --ckpt-every 2" $BIN train "${R[@]}" --pos t5 --out "$tmp/x" --keep-every 3
$BIN train "${R[@]}" --pos t5 --out "$tmp/kr2" --keep-every 2 --stop-at 2 > /dev/null 2>&1
refused "--resume with another --keep-every" "keep-every 4 conflicts with the run.*--keep-every 2" $BIN train --resume "$tmp/kr2" --keep-every 4

# ---- --pos-lr-mult ----
$BIN train "${R[@]}" --pos t5 --out "$tmp/m1" --pos-lr-mult 1 > /dev/null 2>&1
cmp -s "$tmp/plain/model.bin" "$tmp/m1/model.bin" && ok "--pos-lr-mult 1 writes the checkpoint of a run without it, byte for byte" \
  || bad "pos-lr-mult 1" "checkpoints differ"
$BIN train "${R[@]}" --pos t5 --out "$tmp/m10" --pos-lr-mult 10 > /dev/null 2>&1
[ -s "$tmp/m10/model.bin" ] && ! cmp -s "$tmp/plain/model.bin" "$tmp/m10/model.bin" && grep -q "^pos_lr_mult = 10$" "$tmp/m10/config.txt" \
  && ok "--pos-lr-mult 10 changes the run and config.txt records it" || bad "pos-lr-mult 10" "$(grep pos_lr "$tmp/m10/config.txt")"
$BIN train "${R[@]}" --pos t5 --out "$tmp/m10r" --pos-lr-mult 10 --stop-at 2 > /dev/null 2>&1
$BIN train --resume "$tmp/m10r" > /dev/null 2>&1
cmp -s "$tmp/m10/model.bin" "$tmp/m10r/model.bin" && ok "--resume keeps --pos-lr-mult 10 from the checkpoint (== uninterrupted)" \
  || bad "pos-lr-mult resume" "differs"
$BIN train "${R[@]}" --pos t5 --out "$tmp/m10s" --pos-lr-mult 10 --stop-at 2 > /dev/null 2>&1
refused "--resume with another --pos-lr-mult" "pos-lr-mult 1 conflicts with the run.*--pos-lr-mult 10" $BIN train --resume "$tmp/m10s" --pos-lr-mult 1
for s in nope sinusoidal alibi rope; do
  refused "--pos-lr-mult 10 --pos $s" "scheme '$s' has no parameters of its own" $BIN train "${R[@]}" --pos $s --out "$tmp/x" --pos-lr-mult 10
done
refused "--pos-lr-mult 0" "pos-lr-mult must be > 0" $BIN train "${R[@]}" --pos t5 --out "$tmp/x" --pos-lr-mult 0
$BIN train --help | grep -q -- "--keep-every N" && $BIN train --help | grep -q -- "--pos-lr-mult X" \
  && ok "train --help lists --keep-every and --pos-lr-mult" || bad "train help" "missing"

# ---- eval --ci, --per-window, tools/paired.sh ----
E=(--ckpt "$tmp/plain/model.bin" --data "$tmp/text.txt" --lengths 16,32 --protocol both)
$BIN eval "${E[@]}" --ci --threads 1 --per-window "$tmp/pw.csv" > "$tmp/ci1.csv" 2> "$tmp/ci1.err"
$BIN eval "${E[@]}" --ci --threads 3 > "$tmp/ci3.csv" 2> /dev/null
$BIN eval "${E[@]}" --ci --threads 1 > "$tmp/ci1b.csv" 2> /dev/null
# column of NAME in the header of CSV file $1
col() { head -1 "$1" | tr , '\n' | grep -nx "$2" | cut -d: -f1; }
lo=$(col "$tmp/ci1.csv" loss_ci_low) hi=$(col "$tmp/ci1.csv" loss_ci_high) plo=$(col "$tmp/ci1.csv" ppl_ci_low) phi=$(col "$tmp/ci1.csv" ppl_ci_high)
if [ -n "$lo" ] && [ -n "$phi" ] && [ "$(grep -c . "$tmp/ci1.csv")" -eq 5 ] && awk -F, -v lo="$lo" -v hi="$hi" -v plo="$plo" -v phi="$phi" \
  'NR > 1 && !($lo <= $7 && $7 <= $hi && $lo < $hi && $plo <= $8 && $8 <= $phi) { bad = 1 } END { exit bad }' "$tmp/ci1.csv"; then
  ok "eval --ci: every row's interval (loss and ppl columns) holds its point estimate"
else bad "ci holds the estimate" "$(cat "$tmp/ci1.csv")"; fi
[ -n "$lo" ] && cmp -s "$tmp/ci1.csv" "$tmp/ci3.csv" && cmp -s "$tmp/ci1.csv" "$tmp/ci1b.csv" && ok "eval --ci: the same CSV on every run and on 1 and 3 threads" \
  || bad "ci deterministic" "$(diff "$tmp/ci1.csv" "$tmp/ci3.csv" | head -3)"
grep -q "ppl .*(95% CI [0-9.]* to [0-9.]*, blocks of [0-9]* windows\{0,1\})" "$tmp/ci1.err" && ok "eval --ci prints the interval beside each ppl" || bad "ci printed" "$(grep ppl "$tmp/ci1.err" | head -1)"
# --ci-block: the block of neighbouring windows resampled, in the column ci_block: by default the
# cube root of the windows' count, rounded, at least 1; as given (at most the windows) otherwise
cb=$(col "$tmp/ci1.csv" ci_block)
[ "$cb" = 20 ] && awk -F, -v cb="$cb" 'NR > 1 { b = int(exp(log($12) / 3) + 0.5); if (b < 1) b = 1; if ($cb != b) bad = 1; n++ }
  END { exit bad || n != 4 }' "$tmp/ci1.csv" && grep -q "blocks of [0-9]* windows)" "$tmp/ci1.err" \
  && ok "eval --ci: the last column ci_block is the cube root of each row's windows, rounded, and the line says it" \
  || bad "ci_block default" "$(cut -d, -f12,20 "$tmp/ci1.csv" | tr '\n' ' ')"
$BIN eval "${E[@]}" --ci --ci-block 1 > "$tmp/ciq1.csv" 2> /dev/null
$BIN eval "${E[@]}" --ci --ci-block 100000 > "$tmp/ciqK.csv" 2> "$tmp/ciqK.err"
awk -F, 'NR > 1 && $20 != 1 { bad = 1 } NR > 1 && !($16 <= $7 && $7 <= $17 && $16 < $17) { bad = 1 } END { exit bad || NR != 5 }' "$tmp/ciq1.csv" \
  && awk -F, 'NR > 1 && !($20 == 100000 && $16 == "nan" && $17 == "nan" && $18 == "nan") { bad = 1 } END { exit bad || NR != 5 }' "$tmp/ciqK.csv" \
  && [ "$(grep -c "no 95% CI: blocks of 100000 leave fewer than 2 blocks" "$tmp/ciqK.err")" = 4 ] \
  && ok "eval --ci-block 1: windows as independent, an interval that holds the estimate; a block above half the windows: no interval (nan), said" \
  || bad "ci-block given" "$(cut -d, -f7,12,16,17,20 "$tmp/ciq1.csv" "$tmp/ciqK.csv" | tr '\n' ' ')"
# the limit is 2 blocks: at K / 2 (K the first row's windows) an interval, at K / 2 + 1 none
K=$(awk -F, 'NR == 2 { print $12 }' "$tmp/ci1.csv")
$BIN eval "${E[@]}" --ci --ci-block $((K / 2)) 2> /dev/null | awk -F, 'NR == 2' > "$tmp/ciqh.csv"
$BIN eval "${E[@]}" --ci --ci-block $((K / 2 + 1)) 2> /dev/null | awk -F, 'NR == 2' >> "$tmp/ciqh.csv"
awk -F, 'NR == 1 && !($16 < $17) { bad = 1 } NR == 2 && $16 != "nan" { bad = 1 } END { exit bad || NR != 2 }' "$tmp/ciqh.csv" \
  && ok "eval --ci-block: $((K / 2)) of $K windows (2 blocks) gives an interval, $((K / 2 + 1)) gives nan" \
  || bad "ci-block limit" "K $K: $(cut -d, -f12,16,17,20 "$tmp/ciqh.csv" | tr '\n' ' ')"
refused "--ci-block without --ci" "ci-block applies only with --ci" $BIN eval "${E[@]}" --ci-block 3
refused "--ci-block -1" "ci-block must be in" $BIN eval "${E[@]}" --ci --ci-block -1
$BIN eval "${E[@]}" > "$tmp/noci.csv" 2> /dev/null
[ -z "$(col "$tmp/noci.csv" loss_ci_low)" ] && [ "$(col "$tmp/noci.csv" scale)" = 15 ] && ok "without --ci the CSV has its usual 15 columns" \
  || bad "no ci columns" "$(head -1 "$tmp/noci.csv")"
width() { $BIN eval --ckpt "$tmp/plain/model.bin" --data "$tmp/text.txt" --ci --max-tokens "$1" 2> /dev/null | awk -F, -v lo="$lo" -v hi="$hi" 'NR == 2 { print $hi - $lo, $12 }'; }
read -r w_few n_few <<< "$(width 1024)"; read -r w_all n_all <<< "$(width 0)"
awk -v a="$w_few" -v b="$w_all" -v n="$n_few" -v m="$n_all" 'BEGIN { exit !(n == 64 && m > 4 * n && b > 0 && a > b) }' \
  && ok "eval --ci narrows with more windows (--max-tokens 0, the whole split: $n_all windows, width $w_all; $n_few windows: $w_few)" \
  || bad "ci narrows" "$n_few windows: $w_few, $n_all windows: $w_all"
# --per-window: a row a window, whose token-weighted mean is the CSV's loss
if awk -F, 'NR == FNR { if (FNR > 1) { k = $3 "," $4; t[k] += $8; s[k] += $8 * $9; nw[k]++ }; next }
  FNR > 1 { k = $3 "," $4; if (nw[k] != $12 || (s[k] / t[k] - $7)^2 > 1e-10) bad = 1; seen++ } END { exit bad || seen != 4 }' "$tmp/pw.csv" "$tmp/ci1.csv"; then
  ok "eval --per-window: a row per window; their token-weighted mean is each length's loss"
else bad "per-window" "$(head -3 "$tmp/pw.csv")"; fi
# the outputs of one eval are committed together: a per-window file that cannot be written
# (a full disk) leaves the --csv of before in place, and no temporary file
echo "the CSV of before" > "$tmp/keep.csv"
$BIN eval "${E[@]}" --csv "$tmp/keep.csv" --per-window /dev/full > /dev/null 2> "$tmp/full.err"; rc=$?
[ $rc = 1 ] && [ "$(cat "$tmp/keep.csv")" = "the CSV of before" ] && [ -z "$(ls "$tmp" | grep 'keep.csv.tmp')" ] \
  && grep -q "cannot write '/dev/full'" "$tmp/full.err" && ok "eval: --per-window on a full disk -> $(tail -1 "$tmp/full.err"); --csv untouched" \
  || bad "eval outputs together" "rc $rc: $(cat "$tmp/keep.csv") / $(tail -1 "$tmp/full.err")"
tools/paired.sh "$tmp/pw.csv" "$tmp/pw.csv" > "$tmp/same.txt"
[ "$(grep -c ',0.000000,0.000000,0.000000,no (not significant),[0-9]*$' "$tmp/same.txt")" -eq 4 ] \
  && ok "tools/paired.sh: a file against itself: difference 0, not significant, at each length and protocol" || bad "paired same" "$(cat "$tmp/same.txt")"
# hand-computed: differences 1, 2, 3: mean 2, sd 1, t(0.975, 2) = 4.303: 2 -+ 4.303/sqrt(3) = [-0.484, 4.484];
# differences 1, 1.1, 0.9, 1: mean 1, sd 0.0816, t(0.975, 3) = 3.182: [0.870, 1.130]
pwrow() { printf 'x,16,%s,nonoverlapping,%s,0,%s,16,%s\n' "$1" "$1" "$2" "$3"; }
{ echo "scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss"; for w in 0 1 2; do pwrow 16 $w 1; done; for w in 0 1 2 3; do pwrow 32 $w 1; done; } > "$tmp/pa.csv"
{ echo "scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss"; pwrow 16 0 2; pwrow 16 1 3; pwrow 16 2 4
  pwrow 32 0 2; pwrow 32 1 2.1; pwrow 32 2 1.9; pwrow 32 3 2; } > "$tmp/pb.csv"
out=$(tools/paired.sh --block 1 "$tmp/pa.csv" "$tmp/pb.csv")
echo "$out" | grep -q '^16,nonoverlapping,16,0,3,2.000000,-0.484[0-9]*,4.484[0-9]*,no (not significant),1$' \
  && echo "$out" | grep -q '^32,nonoverlapping,32,0,4,1.000000,0.870[0-9]*,1.129[0-9]*,yes,1$' \
  && ok "tools/paired.sh --block 1: the t interval of hand-computed differences as independent, and whether it excludes 0" || bad "paired t" "$out"
# batch means (the default: blocks of the cube root of the windows, rounded): 3 windows, blocks of
# 1, as above; 4 windows, blocks of 2: block means 1.05 and 0.95, sd 0.0707, t(0.975, 1) = 12.706:
# 1 -+ 12.706 x 0.05 = [0.365, 1.635]
out=$(tools/paired.sh "$tmp/pa.csv" "$tmp/pb.csv")
echo "$out" | grep -q '^16,nonoverlapping,16,0,3,2.000000,-0.484[0-9]*,4.484[0-9]*,no (not significant),1$' \
  && echo "$out" | grep -q '^32,nonoverlapping,32,0,4,1.000000,0.364[0-9]*,1.635[0-9]*,yes,2$' \
  && ok "tools/paired.sh: by default batch means over blocks of round(cbrt(windows)) windows, hand-computed" || bad "paired blocks" "$out"
# neighbours that correlate: differences 0.9 1.1 0.9 1.1 -0.1 0.1 -0.1 0.1 (mean 0.5). As independent
# (sd 0.545, t(7) = 2.365): [0.044, 0.956], significant. In blocks of 2 (the default for 8): means
# 1 1 0 0, sd 0.577, t(3) = 3.182: [-0.419, 1.419]; of 4: means 1 and 0, t(1): [-5.853, 6.853]; of
# 5: one block (8 windows, the leftover 3 in it), no interval
{ echo "scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss"; w=0; for d in 0.9 1.1 0.9 1.1 -0.1 0.1 -0.1 0.1; do pwrow 16 $w "$d"; w=$((w + 1)); done; } > "$tmp/pf.csv"
{ echo "scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss"; for w in 0 1 2 3 4 5 6 7; do pwrow 16 $w 0; done; } > "$tmp/pz.csv"
o1=$(tools/paired.sh --block 1 "$tmp/pz.csv" "$tmp/pf.csv" | tail -1); oa=$(tools/paired.sh "$tmp/pz.csv" "$tmp/pf.csv" | tail -1)
o4=$(tools/paired.sh --block 4 "$tmp/pz.csv" "$tmp/pf.csv" | tail -1); o5=$(tools/paired.sh --block 5 "$tmp/pz.csv" "$tmp/pf.csv" | tail -1)
[[ "$o1" == 16,nonoverlapping,16,0,8,0.500000,0.044*,0.955*,yes,1 ]] && [[ "$oa" == 16,nonoverlapping,16,0,8,0.500000,-0.418*,1.418*,"no (not significant)",2 ]] \
  && [[ "$o4" == 16,nonoverlapping,16,0,8,0.500000,-5.853*,6.853*,"no (not significant)",4 ]] && [ "$o5" = "16,nonoverlapping,16,0,8,0.500000,,,n/a (fewer than 2 blocks),5" ] \
  && ok "tools/paired.sh: correlated neighbours are significant as independent windows, not in blocks (2, 4), no interval from one block" \
  || bad "paired correlated" "$o1 / $oa / $o4 / $o5"
for a in 0 -1 x 2.5 ""; do tools/paired.sh --block "$a" "$tmp/pa.csv" "$tmp/pb.csv" > /dev/null 2> "$tmp/e"; rc=$?
  [ $rc = 2 ] && grep -q "block takes a whole number" "$tmp/e" || bad "paired --block '$a'" "rc $rc: $(cat "$tmp/e")"; done
tools/paired.sh "$tmp/pa.csv" "$tmp/pb.csv" --block 2 > /dev/null 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "Usage\|paired.sh \[--block N\]" "$tmp/e" && ok "tools/paired.sh: --block 0, -1, x, 2.5 and empty refused (exit 2), and --block after the files" \
  || bad "paired --block misplaced" "rc $rc: $(cat "$tmp/e")"
head -3 "$tmp/pb.csv" > "$tmp/pc.csv"
tools/paired.sh "$tmp/pa.csv" "$tmp/pc.csv" > /dev/null 2> "$tmp/e" && bad "paired unmatched" "accepted" \
  || { grep -q "error: window .* is not in" "$tmp/e" && ok "tools/paired.sh refuses windows present in one file only" || bad "paired unmatched" "$(cat "$tmp/e")"; }
# a loss that is not a number (a word, nan), a window twice, a short row, files without a window:
# one error line naming the file and line, exit 1 (a word used to count as a loss of 0)
paired_refused() { # NAME PATTERN FILE-B
  tools/paired.sh "$tmp/pa.csv" "$3" > /dev/null 2> "$tmp/e"; local rc=$?
  [ $rc = 1 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && grep -q -- "$2" "$tmp/e" && ok "tools/paired.sh: $1 -> $(cat "$tmp/e")" || bad "paired $1" "rc $rc: $(cat "$tmp/e")"
}
sed '3s/,[^,]*$/,abc/' "$tmp/pb.csv" > "$tmp/pd.csv"; paired_refused "a loss that is a word" "pd.csv:3: the loss \"abc\" is not a finite number" "$tmp/pd.csv"
sed '3s/,[^,]*$/,nan/' "$tmp/pb.csv" > "$tmp/pd.csv"; paired_refused "a nan loss" "pd.csv:3: the loss \"nan\" is not a finite number" "$tmp/pd.csv"
sed '3p' "$tmp/pb.csv" > "$tmp/pd.csv"; paired_refused "a window twice" "pd.csv:4: window 16,nonoverlapping,16,0,1 twice" "$tmp/pd.csv"
sed '3s/,16,[^,]*$//' "$tmp/pb.csv" > "$tmp/pd.csv"; paired_refused "a short row" "pd.csv:3: 7 fields, not 9" "$tmp/pd.csv"
head -1 "$tmp/pb.csv" > "$tmp/pd.csv"; head -1 "$tmp/pa.csv" > "$tmp/pe.csv"
tools/paired.sh "$tmp/pe.csv" "$tmp/pd.csv" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc = 1 ] && grep -q "hold no window" "$tmp/e" && ok "tools/paired.sh: two files without a window -> $(cat "$tmp/e")" || bad "paired empty" "rc $rc: $(cat "$tmp/e")"

# ---- info: FLOPs per token, rotary pairs ----
$BIN info "$tmp/plain/model.bin" > "$tmp/info.txt"
# 6 x the matmul parameters + 12 x layers x T x d_model, from the numbers info prints about the model
if awk '/^model / { for (i = 1; i <= NF; i++) { if ($i == "d_model") C = $(i + 1) + 0; if ($i == "layers") L = $(i + 1) + 0; if ($i == "seq_len") T = $(i + 1) + 0 } }
  /^parameters / { sub(/.*\(/, ""); N = $1 + 0 } /^flops\/token / { F = $2 }
  END { exit !(N == 7408 && L == 1 && T == 16 && C == 16 && F == 6 * N + 12 * L * T * C) }' "$tmp/info.txt"; then
  ok "info: flops/token = 6 x matmul parameters + 12 x layers x T x d_model ($(grep ^flops "$tmp/info.txt" | cut -c17- | cut -d' ' -f1))"
else bad "info flops" "$(grep -E '^(model|parameters|flops)' "$tmp/info.txt")"; fi
# t5's own work: one add per score, every head and key of every layer, x 3 for the backward
if awk '/^model / { for (i = 1; i <= NF; i++) { if ($i == "heads") H = $(i + 1) + 0; if ($i == "layers") L = $(i + 1) + 0; if ($i == "seq_len") T = $(i + 1) + 0 } }
  /^pos flops\/token / { P = $3 }
  END { exit !(H == 2 && L == 1 && T == 16 && P == 3 * L * H * T) }' "$tmp/info.txt" \
  && grep -q "^pos flops/token 96 (the scheme's own work at T 16, .* 0\.[0-9]% of flops/token" "$tmp/info.txt"; then
  ok "info: pos flops/token = 3 x layers x heads x T for t5 ($(grep '^pos flops' "$tmp/info.txt" | cut -d' ' -f3))"
else bad "info pos flops" "$(grep -E '^(model|pos flops)' "$tmp/info.txt")"; fi
RT=(--data "$tmp/text.txt" --seq-len 256 --layers 1 --d-model 32 --heads 2 --batch 1 --steps 1 --val-tokens 512 --threads 2 --pos rope)
$BIN train "${RT[@]}" --out "$tmp/rope" > /dev/null 2>&1
$BIN train "${RT[@]}" --out "$tmp/yarn" --rope-scaling yarn --rope-factor 4 > /dev/null 2>&1
# pair rows: pair wavelength scale class; checked against the formulas of model/pos/rotary.c, theta_k = 10000^(-2k/16)
pairs() { awk '/^rotary pairs/ { on = 1; next } on && /^ +[0-9]+ / { print $1, $2, $3, $4 } on && /^  \(/ { exit }' "$1"; }
check_pairs() { # name method s file
  local name=$1 m=$2 sc=$3 f=$4
  if pairs "$f" | awk -v m="$m" -v s="$sc" 'function abs(x) { return x < 0 ? -x : x }
      { k = $1; th = 10000 ^ (-2 * k / 16); lam = 2 * 3.141592653589793 / th
        if (m == "pi") want = s; else if (m == "ntk") want = s ^ (2 * k / 14)
        else { r = 256 / lam; g = (r - 1) / 31; g = g < 0 ? 0 : g > 1 ? 1 : g; want = 1 / ((1 - g) / s + g) }
        cls = abs(want - 1) < 1e-9 ? "left" : abs(want - s) < 1e-9 * s ? "interpolated" : "blended"; n++
        if (abs($2 - lam) > 1e-5 * lam || abs($3 - want) > 1e-5 * want || $4 != cls) bad = 1; seen[$4]++ }
      END { exit bad || n != 8 }'; then ok "$name"; else bad "$name" "$(pairs "$f" | tr '\n' ';')"; fi
}
$BIN info "$tmp/yarn/model.bin" > "$tmp/iy.txt"
check_pairs "info: a YaRN-trained checkpoint's pairs (wavelength, scale, class) as YaRN's ramp gives them" yarn 4 "$tmp/iy.txt"
[ "$(pairs "$tmp/iy.txt" | awk '{ print $4 }' | sort | uniq -c | awk '{ printf "%s%s ", $1, $2 }')" = "3blended 4interpolated 1left " ] \
  && ok "info: the YaRN table has pairs of each class (1 left, 3 blended, 4 interpolated)" || bad "yarn classes" "$(pairs "$tmp/iy.txt" | tr '\n' ';')"
$BIN info "$tmp/rope/model.bin" --rope-scaling ntk --rope-factor 4 > "$tmp/in.txt"
check_pairs "info --rope-scaling ntk: pair k's frequency divided by s^(2k/(HS-2)); the first left, the last interpolated" ntk 4 "$tmp/in.txt"
$BIN info "$tmp/rope/model.bin" --rope-scaling pi --rope-factor 2 > "$tmp/ip.txt"
check_pairs "info --rope-scaling pi: every pair interpolated by s" pi 2 "$tmp/ip.txt"
grep -q "^rotary pairs" "$tmp/info.txt" && bad "info without extension" "prints a pair table" || ok "info prints no pair table for a checkpoint without an extension"
refused "info --rope-scaling yarn on t5" "scheme 't5' is not rotary" $BIN info "$tmp/plain/model.bin" --rope-scaling yarn --rope-factor 2
refused "info --rope-scaling dynamic-ntk" "pi, ntk or yarn" $BIN info "$tmp/rope/model.bin" --rope-scaling dynamic-ntk --rope-factor 2

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
