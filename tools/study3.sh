#!/usr/bin/env bash
# study3.sh - the study a reviewer would accept (issue 33): each scheme at its own learning
# rate, trained to convergence with checkpoints kept along the way, evaluated with confidence
# intervals and paired tests, beside parameter-matched controls. The procedure, fixed before
# the runs, is runs/study3/PROTOCOL.md; in short:
#   phase A  each scheme at lr 3e-4, 1e-3, 3e-3 (seed 1, A_STEPS steps); schemes with their own
#            tensors also at --pos-lr-mult 10 at the chosen lr; the choice (smallest lr, then
#            multiplier, within TOL nats of the best 1x validation loss) into OUT/chosen.csv;
#            a scheme whose choice is the grid's largest lr also runs at 1e-2, its smallest at
#            1e-4 (the edge rule, PROTOCOL.md v2), before the choice is made again
#   phase B  the chosen settings, B_STEPS steps, a checkpoint kept every KEEP steps; the core six
#            with SEEDS, the relatives with REL_SEEDS, rope and kerple-power at xl's parameter
#            count (the width from posgpt info; OUT/match.csv)
#   phase C  on the test bytes (OUT/test.txt: the held-out split less the VAL_TOKENS bytes that
#            chose the lrs; PROTOCOL.md v3) every kept checkpoint at 1x..16x on the first
#            SAMPLE bytes, the final one at 1x..16x on all of them, with --ci (and the final
#            one --per-window)
#   phase D  (PROTOCOL.md v4) diagnostics beside the choices, which stand: each scheme's phase-A
#            run at its chosen lr (with each multiplier run there) evaluated as the final
#            checkpoints are, into its OUT/A/SCHEME/lrLR-mM/eval-final.csv (a one-seed view at a
#            second horizon, 1200 steps); and a choice at the edge of what was run gets one
#            A_STEPS run one lr step (or 3 times the multiplier) further, into OUT/D. A phase-A
#            run whose checkpoint is gone (not committed, or lost with a machine) is trained
#            again (in its folder's remake/): under the pinned binary and kernel a run repeats
#            itself, so its checkpoint is used only if its log.csv repeats the run's own (step,
#            train_loss, val_loss, lr, grad_norm on every row); else the job fails, saying where
#   report   tools/study3_report.sh OUT: eval.csv, the tables, the figure, claims.md (CSVs only)
#
#   tools/study3.sh            the default grid into runs/study3 (the core six; 9.3 h estimated on 2 cores;
#                              as run, 27.1 h of one-run wall time summed, two runs at a time)
#   tools/study3.sh --full     and the relatives and the matched controls (reuses the default's runs; as
#                              run, 19.0 h more of one-run wall time summed, two runs at a time)
#   tools/study3.sh --quick    a tiny grid into runs/study3-quick (seconds; the CI smoke test)
#   tools/study3.sh --report   redraw the report from OUT's CSVs only (also: tools/study3_report.sh OUT)
#   tools/study3.sh --choose PHASEA.csv   print chosen.csv for a phaseA.csv (the rule alone)
#   tools/study3.sh --edges CHOSEN.csv    print the edge rule's extra phase-A jobs for a chosen.csv
#     (each reads its columns by the header's names, CRLF as LF; a missing or empty file, one
#     without the columns or rows, or a chosen.csv with a scheme twice: one error line, exit 2)
#   --repin (with any grid): pin the tree's binary again, though it differs from OUT/bin/posgpt
#   --status (with any grid): which runs are done, under way (their step) and not started; starts nothing
#   --flops (with any grid): write posflops.csv, the scheme's own FLOPs per token (posgpt info's "pos
#     flops/token", PROTOCOL.md v6), for every finished phase-B run with its checkpoint and without one
#     (a run finished since writes it itself); by the tree's binary, INFO_BIN (default ./posgpt)
#
# Resumable across days: a run whose checkpoint finished its steps is kept, an interrupted one
# resumes (train --resume), an evaluation newer than its checkpoint is kept. Also in a clone
# without checkpoints: a phase-A run whose trained.txt and log.csv are there is done, a phase-B
# run whose done.txt and info.csv are there (written after its last evaluation and its bias
# tables) is done; so committing those files and the CSVs keeps the work of finished runs. The binary is
# pinned: copied to OUT/bin/posgpt at the first start and used for every run; a later start
# whose tree binary (POSGPT, default ./posgpt) differs is refused unless --repin. So is a start
# whose matrix products would run on another kernel than the first start's (posgpt --version's
# second line, recorded in OUT/bin/kernel.txt: POSGPT_BLAS and OPENBLAS_CORETYPE choose it).
# Environment: OUT=dir, DATA=file (default data/kjv.txt), JOBS=N runs at once (default 2, one
# thread each), RANKS=N (tools/sweep.sh); CORE, RELATIVES, SEEDS, REL_SEEDS to change the grid.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
self=$(realpath "$0")
. "$(dirname "$self")/pin_lib.sh"
here=$PWD # (--choose and --edges read a FILE named from where the script was called)
cd "$(dirname "$self")/.."
TOL=0.01
# need_csv FILE WHAT COLUMN...: FILE is a regular, non-empty CSV (CRLF line ends read as LF) whose
# header names every COLUMN, with a row under it; else one error line and exit 2
need_csv() {
  local f=$1 what=$2; shift 2
  [ -f "$f" ] && [ -s "$f" ] || { echo "study3.sh: error: ${f:-(no file)}: no such file, or empty (give $what)" >&2; exit 2; }
  LC_ALL=C awk -F, -v f="$f" -v what="$what" -v want="$*" '{ sub(/\r$/, "") }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = 1; n = split(want, W, " ")
      for (i = 1; i <= n; i++) if (!(W[i] in c)) { printf "study3.sh: error: %s: the header has no column %s (%s has %s; the first line is %s)\n", f, W[i], what, want, $0 > "/dev/stderr"; bad = 1; exit 2 }
      next }
    { rows++ } END { if (bad) exit 2; if (!rows) { printf "study3.sh: error: %s: no rows under the header\n", f > "/dev/stderr"; exit 2 } }' "$f"
}
# choose PHASEA.csv: the rule of PROTOCOL.md ("Phase A", 3): per scheme the smallest lr within
# TOL of the lowest finite loss among its multiplier-1 runs, then the smallest multiplier
# within TOL of the best among that lr's runs
choose() {
  need_csv "$1" "a phaseA.csv" scheme lr pos_lr_mult val_loss
  # (a row: scheme, lr and pos_lr_mult numbers, val_loss a number, or empty / nan / inf for a
  # run that did not finish or diverged, which the rule passes over; anything else is an error)
  awk -F, -v tol="$TOL" -v f="$1" '
    function no(why) { printf "study3.sh: error: %s:%d: %s\n", f, NR, why > "/dev/stderr"; bad = 1; exit 2 }
    function num(x) { return x ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
    { sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; nh = NF; next }
    NF < nh { no(NF " fields, fewer than the header'"'"'s " nh) }
    { s = $c["scheme"]; lr = $c["lr"]; m = $c["pos_lr_mult"]; v = $c["val_loss"]
      if (s == "") no("no scheme")
      if (!num(lr) || lr <= 0 || !num(m) || m <= 0) no("lr and pos_lr_mult must be numbers above 0, got \"" lr "\" and \"" m "\"")
      if (!(s in seen)) { seen[s] = 1; order[++n] = s }
      if (tolower(v) ~ /^(|[-+]?nan|[-+]?inf(inity)?)$/) next
      if (!num(v)) no("val_loss must be a number (or empty, nan or inf for a run that did not finish), got \"" v "\"")
      k[++r] = s; L[r] = lr + 0; LS[r] = lr; M[r] = m + 0; V[r] = v + 0 }
    END { if (bad) exit 2
      out = "scheme,lr,pos_lr_mult,val_loss,rule\n"
      for (i = 1; i <= n; i++) { s = order[i]; best = ""
        for (j = 1; j <= r; j++) if (k[j] == s && M[j] == 1 && (best == "" || V[j] < best)) best = V[j]
        if (best == "") { printf "study3.sh: error: %s: scheme %s has no finite val_loss at pos_lr_mult 1: no lr can be chosen\n", f, s > "/dev/stderr"; exit 2 }
        lr = -1; for (j = 1; j <= r; j++) if (k[j] == s && M[j] == 1 && V[j] <= best + tol && (lr < 0 || L[j] < lr)) { lr = L[j]; ls = LS[j] }
        b2 = ""; for (j = 1; j <= r; j++) if (k[j] == s && L[j] == lr && (b2 == "" || V[j] < b2)) b2 = V[j]
        m = -1; for (j = 1; j <= r; j++) if (k[j] == s && L[j] == lr && V[j] <= b2 + tol && (m < 0 || M[j] < m)) { m = M[j]; v = V[j] }
        out = out sprintf("%s,%s,%s,%.6f,smallest lr then multiplier within %s nats of the best 1x val_loss\n", s, ls, m, v, tol) }
      printf "%s", out }' "$1"
}
# edges CHOSEN.csv: the edge rule (PROTOCOL.md, v2): a scheme whose chosen lr is the largest of
# LRS runs once more at EDGE_UP, one whose chosen lr is the smallest at EDGE_DOWN (seed 1,
# multiplier 1, as the other phase-A runs); one extension only
edges() {
  need_csv "$1" "a chosen.csv" scheme lr
  awk -F, -v f="$1" -v lrs="$LRS" -v up="$EDGE_UP" -v down="$EDGE_DOWN" 'BEGIN { n = split(lrs, L, " ") } { sub(/\r$/, "") }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; nh = NF; next }
    { s = $c["scheme"]; lr = $c["lr"]
      if (NF < nh || s == "" || lr !~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ || lr <= 0) {
        printf "study3.sh: error: %s:%d: a row of a scheme and its lr (a number above 0), got \"%s\"\n", f, NR, $0 > "/dev/stderr"; bad = 1; exit 2 }
      if (s in seen) { printf "study3.sh: error: %s: scheme %s on two rows (a chosen.csv has one row a scheme)\n", f, s > "/dev/stderr"; bad = 1; exit 2 }
      seen[s] = 1
      if (lr + 0 == L[n] + 0) out = out "A " s " " up " 1\n"; else if (lr + 0 == L[1] + 0) out = out "A " s " " down " 1\n" }
    END { if (bad) exit 2; printf "%s", out }' "$1"
}
export LRS="3e-4 1e-3 3e-3" MULTS="10" EDGE_UP=1e-2 EDGE_DOWN=1e-4
mode=default repin=0 status=0 flops=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --report) mode=report ;;
    --repin) repin=1 ;;
    --status) status=1 ;;
    --flops) flops=1 ;;
    --choose) f=${2:-}; [ -z "$f" ] || [[ $f == /* ]] || f=$here/$f; choose "$f"; exit 0 ;;
    --edges) f=${2:-}; [ -z "$f" ] || [[ $f == /* ]] || f=$here/$f; edges "$f"; exit 0 ;;
    --one) shift; mode=one; break ;; # one job of a list (called through tools/sweep.sh)
    *) echo "study3.sh: error: unknown argument '$1' (see tools/study3.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$status" = 1 ] && [ "$mode" = report ] && { echo "study3.sh: error: --status and --report do different things (where the grid stands; the report redrawn): give one" >&2; exit 2; }
[ "$repin" = 1 ] && [ "$mode" = report ] && { echo "study3.sh: error: --repin with --report: the report runs no binary to pin" >&2; exit 2; }
relatives_all="kerple-power sandwich xl fire xpos"
if [ "$mode" = quick ]; then
  out=${OUT:-runs/study3-quick}
  export T=32 MODEL="--layers 1 --heads 2" D=16 BATCH=4 A_STEPS=${A_STEPS:-8} B_STEPS=${B_STEPS:-16} KEEP=8 CKPT=4 EVERY=4
  export SAMPLE=1024 FINAL_TOKENS=4096 VAL_TOKENS=1024 WIDTHS="8 16 24 32"
  core=${CORE-"alibi rope t5"} relatives=${RELATIVES-"xl"} seeds=${SEEDS-"1 2"} rel_seeds=${REL_SEEDS-"1"} controls="rope"
elif [ "$mode" != one ]; then
  out=${OUT:-runs/study3}
  export T=128 MODEL="--layers 4 --heads 4" D=128 BATCH=32 A_STEPS=1200 B_STEPS=4800 KEEP=600 CKPT=300 EVERY=240
  export SAMPLE=131072 FINAL_TOKENS=0 VAL_TOKENS=65536 WIDTHS="$(seq -s ' ' 64 8 256)"
  core=${CORE-"sinusoidal learned t5 alibi rope nope"} seeds=${SEEDS-"1 2 3"} rel_seeds=${REL_SEEDS-"1"}
  relatives=${RELATIVES-""} controls=""
  [ "$mode" = full ] && relatives=${RELATIVES-$relatives_all} controls="rope kerple-power"
fi
[ "$mode" = report ] && exec tools/study3_report.sh "$out"
# pos_flops DIR RUN SCHEME SEED: DIR/posflops.csv, the scheme's own training FLOPs per token of the
# run's checkpoint (PROTOCOL.md v6), counted by INFO_BIN (default ./posgpt): the pinned binary
# predates the count (`posgpt info`'s "pos flops/token"); the binary's checksum in the file
pos_flops() {
  local ib=${INFO_BIN:-./posgpt} pf
  pf=$("$ib" info "$1/model.bin" 2> /dev/null | awk '$1 == "pos" && $2 == "flops/token" { print $3 }')
  [[ $pf =~ ^[0-9]+$ ]] || { echo "study3: warning: $ib info does not count a scheme's FLOPs (pos flops/token): no $1/posflops.csv" >&2; return 0; }
  { echo "run,pos,seed,pos_flops_per_token,counted_by"; echo "$2,$3,$4,$pf,posgpt cksum $(cksum < "$ib" | cut -d' ' -f1)"; } > "$1/posflops.csv.part"
  mv "$1/posflops.csv.part" "$1/posflops.csv"
}
if [ "$flops" = 1 ]; then
  [ "$status" = 0 ] && [ "$repin" = 0 ] || { echo "study3.sh: error: --flops with --status or --repin: give --flops alone (with a grid)" >&2; exit 2; }
  n=0
  for d in "$out"/B/*/seed*; do
    [ -s "$d/done.txt" ] && [ -s "$d/info.csv" ] && [ -s "$d/model.bin" ] && [ ! -s "$d/posflops.csv" ] || continue
    IFS=, read -r r s k _ < <(sed -n 2p "$d/info.csv")
    pos_flops "$d" "$r" "$s" "$k"; [ -s "$d/posflops.csv" ] && n=$((n + 1))
  done
  echo "study3: posflops.csv written for $n runs in $out" >&2
  exit 0
fi
# b_jobs: the phase-B runs, a line each (B RUN SCHEME SEED DMODEL): the core six with SEEDS, the
# relatives with REL_SEEDS, each control at its width from match.csv (WIDTH until it is chosen)
b_jobs() {
  local seed s w
  for seed in $seeds; do for s in $core; do echo "B $s $s $seed $D"; done; done
  for seed in $rel_seeds; do for s in $relatives; do echo "B $s $s $seed $D"; done; done
  for s in $controls; do
    w=WIDTH
    [ -s "$out/match.csv" ] && w=$(awk -F, -v s="$s" '$1 == s { print $2 }' "$out/match.csv")
    echo "B $s-d$w $s 1 $w"
  done
}
# --status: where the grid stands, from its folders alone (starts nothing, needs no binary)
if [ $status = 1 ]; then
  [ -d "$out" ] || { echo "study3.sh: no folder '$out': the grid has not started" >&2; exit 1; }
  at() { awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { s = $1 } END { print s + 0 }' "$1/log.csv" 2> /dev/null || echo 0; }
  echo "study3 in $out, $(date -u '+%Y-%m-%d %H:%M') UTC"
  na=0 pa=0
  for d in "$out"/A/*/lr*-m*; do
    [ -d "$d" ] || continue
    if [ -s "$d/trained.txt" ]; then na=$((na + 1)); else pa=$((pa + 1)); echo "  A ${d#"$out"/A/}: step $(at "$d") of $A_STEPS"; fi
  done
  echo "phase A: $na runs trained$([ $pa = 0 ] || echo ", $pa under way or interrupted (above)")$([ -s "$out/chosen.csv" ] && echo "; chosen.csv: $(($(grep -c . "$out/chosen.csv") - 1)) schemes")"
  # (the grid's schemes with no phase-A run yet, e.g. --full's relatives before their sweep)
  nos=$(for s in $core $relatives; do ls -d "$out/A/$s"/lr*-m* > /dev/null 2>&1 || printf '%s ' "$s"; done)
  [ -z "$nos" ] || echo "  phase A not started for: ${nos% } (3 lrs each, then the edge rule and the pos-lr-mult runs: tools/study3.sh --help)"
  # (this grid's runs only: a folder of another grid, e.g. --full's relatives seen by the
  # default grid, is counted apart, not as one of this grid's)
  grid=$(b_jobs | awk '{ print "B/" $2 "/seed" $4 }')
  nb=$(grep -c . <<< "$grid")
  db=0 eb=0 pb=0 ob=0
  for d in "$out"/B/*/seed*; do
    [ -d "$d" ] || continue
    grep -qxF "${d#"$out"/}" <<< "$grid" || { ob=$((ob + 1)); continue; }
    if [ -s "$d/done.txt" ]; then db=$((db + 1))
    elif [ -s "$d/trained.txt" ]; then eb=$((eb + 1)); echo "  B ${d#"$out"/B/}: trained, its evaluations left"
    else pb=$((pb + 1)); echo "  B ${d#"$out"/B/}: step $(at "$d") of $B_STEPS"; fi
  done
  echo "phases B and C: $db of $nb runs trained and evaluated, $eb trained with evaluations left, $pb under way or interrupted, $((nb - db - eb - pb)) not started$([ $ob = 0 ] || echo "; $ob more folders of another grid (--full's) not counted")"
  # phase D (after B and C): the phase-A runs evaluated as the final checkpoints are, and the
  # edge diagnostics trained into D/
  nd=0 ne=0
  for f in "$out"/A/*/lr*-m*/eval-final.csv; do [ -s "$f" ] && nd=$((nd + 1)); done
  for d in "$out"/D/*/lr*-m*; do
    [ -d "$d" ] || continue
    if [ -s "$d/trained.txt" ]; then ne=$((ne + 1)); else echo "  D ${d#"$out"/D/}: step $(at "$d") of $A_STEPS"; fi
  done
  echo "phase D: $nd phase-A runs evaluated at 1x..16x, $ne edge diagnostics trained"
  exit 0
fi

bin=${PIN:-}
# finished CKPT STEPS: the checkpoint exists and trained all its steps
finished() { [ -s "$1" ] && grep -q "step $2 of $2," <("$bin" info "$1" 2> /dev/null); }
# trained.txt (a run's settings, written when its training finished) marks a finished training
# in a clone without checkpoints (its log.csv committed: phase A needs no more); done.txt (the
# same, written after a phase-B run's last evaluation) a finished phase-B run
same() { [ -s "$1" ] && [ "$(cat "$1")" = "$2" ]; }
# train_run DIR STEPS ARGS...: kept if finished, resumed if interrupted, else trained
train_run() {
  local d=$1 steps=$2; shift 2
  mkdir -p "$d"
  if [ -s "$d/settings.txt" ] && [ "$(cat "$d/settings.txt")" != "$*" ]; then
    echo "    $d: made with other settings; trained again" >&2
    rm -f "$d"/model*.bin "$d"/*.csv "$d/trained.txt" "$d/done.txt"
  fi
  echo "$*" > "$d/settings.txt"
  if [ -s "$d/model.bin" ]; then finished "$d/model.bin" "$steps" && { echo "$*" > "$d/trained.txt"; return 0; }
  else same "$d/trained.txt" "$*" && [ -s "$d/log.csv" ] && return 0; fi # (finished, its checkpoint not kept)
  local rc=0
  if [ -s "$d/model.bin" ]; then
    echo "    $d was interrupted: resuming it" >&2
    "$bin" train --resume "$d" --data "$DATA" --threads 1 >> "$d/train.txt" 2>> "$d/train.err" || rc=$?
  else
    "$bin" train --data "$DATA" --out "$d" --overwrite --steps "$steps" --threads 1 "$@" > "$d/train.txt" 2> "$d/train.err" || rc=$?
  fi
  finished "$d/model.bin" "$steps" && { echo "$*" > "$d/trained.txt"; return 0; }
  # (a failure says why here: the sweep's own line names only the job)
  echo "study3: $d: training ended with status $rc before its $steps steps; the end of $d/train.err:" >&2
  tail -3 "$d/train.err" | sed 's/^/    /' >&2
  return 1
}
# common SCHEME: the flags every run of SCHEME shares
common() {
  local x=(--pos "$1" --seq-len "$T" $MODEL --batch "$BATCH" --wd 0 --eval-every "$EVERY" --val-tokens "$VAL_TOKENS"
    --ckpt-every "$CKPT")
  [ "$1" = learned ] && x+=(--max-pos $((16 * T)))
  echo "${x[@]}"
}
# ev OUTPUT CKPT ARGS...: posgpt eval of the test bytes, kept when OUTPUT is newer than CKPT,
# was made with the same ARGS (OUTPUT's .args file) and has its per-window file where asked
# (@OUT@ -> OUTPUT.part; @PW@ -> the per-window file beside it, also renamed when complete)
ev() {
  local o=$1 ck=$2; shift 2
  local a=() x pw=${o%.csv} args=${o%.csv}.args; pw=$(dirname "$o")/perwin-${pw##*/eval-}.csv
  if [ -s "$o" ] && [ "$o" -nt "$ck" ] && [ "$(cat "$args" 2> /dev/null)" = "$*" ]; then
    case " $* " in *" @PW@ "*) [ -s "$pw" ] && return 0 ;; *) return 0 ;; esac
  fi
  rm -f "$o" "$pw"
  for x in "$@"; do x=${x//@OUT@/$o.part}; a+=("${x//@PW@/$pw.part}"); done
  "$bin" eval --ckpt "$ck" --val "$OUT/test.txt" --threads 1 --ci "${a[@]}" 2>> "$(dirname "$o")/eval.log"
  [ -e "$pw.part" ] && mv "$pw.part" "$pw"
  echo "$*" > "$args"
  mv "$o.part" "$o"
}

# remake DIR: a finished phase-A run whose checkpoint is gone, trained again into DIR/remake by
# train_run (resumed there if stopped) with its settings.txt; its model.bin moves to DIR only
# when the new log.csv repeats DIR/log.csv's step,train_loss,val_loss,lr,grad_norm on every row
# (the other columns are the clock's). A run that does not repeat is left in DIR/remake, and said
remake() {
  local d=$1 t=$1/remake at
  [ -s "$d/settings.txt" ] && [ -s "$d/log.csv" ] && [ -s "$d/trained.txt" ] \
    || { echo "study3: $d: no checkpoint to evaluate, nor a finished run's settings.txt and log.csv to make it again" >&2; return 1; }
  echo "    $d: its checkpoint is gone: training it again (it must repeat its log.csv)" >&2
  # shellcheck disable=SC2046 # the run's own flags, as the script wrote them
  train_run "$t" "$A_STEPS" $(cat "$d/settings.txt") || return 1
  at=$(awk -F, 'NR == FNR { a[FNR] = $1 "," $2 "," $3 "," $4 "," $5; n = FNR; next }
    ($1 "," $2 "," $3 "," $4 "," $5) != a[FNR] { print "row " FNR " (step " $1 ")"; exit }
    END { if (FNR != n) print "its length (" n " rows, made again " FNR ")" }' "$d/log.csv" "$t/log.csv")
  if [ -n "$at" ]; then
    echo "study3: $d: made again, it differs from its log.csv at $at: another binary or kernel? Its checkpoint is not used (left in $t)" >&2
    return 1
  fi
  mv "$t/model.bin" "$d/model.bin" && rm -rf "$t"
}
if [ "$mode" = one ]; then
  job=$1
  if [ "$job" = A ]; then # A SCHEME LR MULT
    s=$2 lr=$3 m=$4
    train_run "$OUT/A/$s/lr$lr-m$m" "$A_STEPS" $(common "$s") --d-model "$D" --lr "$lr" --pos-lr-mult "$m" --seed 1
    POSGPT=$bin tools/study3_bias.sh "$OUT" "$OUT/A/$s/lr$lr-m$m" > /dev/null # its bias tables while its checkpoint is here
  elif [ "$job" = width ]; then # width SCHEME D: one step, for the parameter count
    d=$OUT/match/$2-d$3
    train_run "$d" 1 --pos "$2" --seq-len "$T" $MODEL --d-model "$3" --batch 1 --val-tokens "$T" --seed 1
    # (a clone without checkpoints keeps the count it committed)
    [ -s "$d/params.csv" ] && ! [ -s "$d/model.bin" ] && exit 0
    "$bin" info "$d/model.bin" | awk -v s="$2" -v d="$3" '$1 == "parameters" { print s "," d "," $2; exit }' > "$d/params.csv.part"
    mv "$d/params.csv.part" "$d/params.csv"
  elif [ "$job" = B ]; then # B RUN SCHEME SEED DMODEL
    run=$2 s=$3 seed=$4 dm=$5
    IFS=, read -r _ lr m _ < <(awk -F, -v s="$s" '$1 == s' "$OUT/chosen.csv")
    [ -n "${lr:-}" ] || { echo "study3: no chosen lr for $s in $OUT/chosen.csv" >&2; exit 1; }
    d=$OUT/B/$run/seed$seed
    set -- $(common "$s") --d-model "$dm" --lr "$lr" --pos-lr-mult "$m" --seed "$seed" --keep-every "$KEEP"
    # trained and evaluated (also in a clone without checkpoints): done.txt and every output there,
    # and no checkpoint newer than done.txt (one trained again since)
    if same "$d/done.txt" "$*" && [ -s "$d/info.csv" ] && [ -s "$d/eval-final.csv" ] && [ -s "$d/perwin-final.csv" ] \
      && ! [ "$d/model.bin" -nt "$d/done.txt" ]; then
      for ((k = KEEP; k <= B_STEPS; k += KEEP)); do [ -s "$d/eval-$k.csv" ] || break; done
      [ $k -gt "$B_STEPS" ] && exit 0
    fi
    rm -f "$d/done.txt"
    # trained earlier, but its checkpoints are gone before its evaluations were done: train again
    [ -s "$d/model.bin" ] || rm -f "$d/trained.txt"
    train_run "$d" "$B_STEPS" "$@"
    t_eval=$SECONDS
    for ((k = KEEP; k <= B_STEPS; k += KEEP)); do
      ev "$d/eval-$k.csv" "$d/model-$k.bin" --lengths 1x,2x,4x,8x,16x --max-tokens "$SAMPLE" --csv @OUT@
    done
    ev "$d/eval-final.csv" "$d/model.bin" --lengths 1x,2x,4x,8x,16x --max-tokens "$FINAL_TOKENS" --csv @OUT@ --per-window @PW@
    # the evaluations' seconds in this start (the training's are log.csv's elapsed_s): the study's
    # time is summed from the runs' own records, as it is stopped and resumed across days
    echo "eval_s=$((SECONDS - t_eval))" > "$d/eval-time.txt"
    "$bin" info "$d/model.bin" | awk -v r="$run" -v s="$s" -v k="$seed" -v d="$dm" -v lr="$lr" -v m="$m" '
      $1 == "parameters" { p = $2 } $1 == "flops/token" { f = $2 }
      END { print "run,pos,seed,d_model,lr,pos_lr_mult,params,flops_per_token"; print r "," s "," k "," d "," lr "," m "," p "," f }' > "$d/info.csv"
    pos_flops "$d" "$run" "$s" "$seed"
    # its position-bias tables while the checkpoints are here (tools/study3_bias.sh keeps them after)
    POSGPT=$bin tools/study3_bias.sh "$OUT" "$d" > /dev/null
    echo "$*" > "$d/done.txt"
  elif [ "$job" = E ]; then # E SCHEME LR MULT: an edge diagnostic, trained as phase A into OUT/D
    train_run "$OUT/D/$2/lr$3-m$4" "$A_STEPS" $(common "$2") --d-model "$D" --lr "$3" --pos-lr-mult "$4" --seed 1
  elif [ "$job" = D ]; then # D SCHEME LR MULT: a phase-A run evaluated as the final checkpoints are
    d=$OUT/A/$2/lr$3-m$4
    if [ ! -s "$d/model.bin" ]; then # (a clone keeps the evaluation it committed)
      [ -s "$d/eval-final.csv" ] && exit 0
      remake "$d" || exit 1
    fi
    # (with its per-window losses: the report's window interval, batch means, PROTOCOL.md v5)
    ev "$d/eval-final.csv" "$d/model.bin" --lengths 1x,2x,4x,8x,16x --max-tokens "$FINAL_TOKENS" --csv @OUT@ --per-window @PW@
  else
    echo "study3: unknown job '$*'" >&2; exit 2
  fi
  exit 0
fi

# ---- the grid ----
export DATA=${DATA:-data/kjv.txt}
if [ ! -s "$DATA" ]; then
  [ "$DATA" = data/kjv.txt ] || { echo "study3: error: no corpus '$DATA' (DATA=file)" >&2; exit 2; }
  make --no-print-directory data/kjv.txt
fi
src=${POSGPT:-./posgpt}
[ -x "$src" ] || make --no-print-directory posgpt
mkdir -p "$out/bin"
export PIN=$out/bin/posgpt OUT=$out
if [ ! -e "$PIN" ] || [ $repin = 1 ]; then
  [ -e "$PIN" ] && echo "study3: --repin: $PIN replaced by $src (runs made before keep their results)" >&2
  cp "$src" "$PIN.tmp" && mv "$PIN.tmp" "$PIN"
elif ! cmp -s "$src" "$PIN"; then
  echo "study3: error: $src differs from the pinned $PIN; rerun with --repin to pin it (runs made before keep their results), or POSGPT=$PIN" >&2
  exit 2
fi
bin=$PIN
pin_kernel study3 "$bin" "$out/bin" "$repin" # (tools/pin_lib.sh: one kernel for the grid, in OUT/bin/kernel.txt)
t_start=$SECONDS
echo "tools/study3.sh $([ $mode = default ] || echo "--$mode")$([ $repin = 1 ] && echo " --repin")   ($(date -u +%Y-%m-%d), $("$bin" --version 2> /dev/null | head -1), pinned $PIN, cksum $(cksum < "$PIN" | cut -d' ' -f1); $KERNEL)" >> "$out/command.txt"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
# the test bytes (PROTOCOL.md v3): the held-out split (the last n / 10 bytes of DATA, as
# posgpt holds it out) less its first VAL_TOKENS bytes, which every run validated on and
# phase A chose the lrs by
n=$(wc -c < "$DATA"); nt=$(( n / 10 - VAL_TOKENS ))
[ "$nt" -gt 0 ] || { echo "study3: $DATA holds out $((n / 10)) bytes, not more than VAL_TOKENS ($VAL_TOKENS)" >&2; exit 1; }
if ! cmp -s "$out/test.txt" <(tail -c "$nt" "$DATA"); then
  tail -c "$nt" "$DATA" > "$out/test.txt.part" && mv "$out/test.txt.part" "$out/test.txt"
fi
jobs=${JOBS:-$([ -n "${RANKS:-}" ] && echo 1 || echo 2)}
sweep() { JOBS=$jobs SWEEP_ENV="OUT PIN DATA T MODEL D BATCH A_STEPS B_STEPS KEEP CKPT EVERY SAMPLE FINAL_TOKENS VAL_TOKENS" \
  tools/sweep.sh "$list" "$self" --one; }
phase() { echo "study3: $1 ($(grep -c . "$list") jobs)" >&2; sweep || failed=1; }
failed=0
# has_tensors SCHEME: the scheme has parameters of its own (posgpt info's "N position" of a one-step
# model of it, made by the pinned binary), so it also runs at each of MULTS (the position-lr sweep)
has_tensors() {
  local t n
  t=$(mktemp -d)
  "$bin" train --data "$DATA" --pos "$1" --out "$t/r" --steps 1 --seq-len 8 --layers 1 --heads 2 --d-model 8 --batch 1 \
    --val-tokens 8 --threads 1 > /dev/null 2> "$t/err" \
    || { echo "study3: error: a one-step $1 model (for its parameter count) failed: $(tail -1 "$t/err")" >&2; rm -rf "$t"; exit 1; }
  n=$("$bin" info "$t/r/model.bin" 2> "$t/err" | sed -n 's/^parameters .*, \([0-9]*\) position)$/\1/p')
  [ -n "$n" ] || { echo "study3: error: posgpt info gave no position parameter count for $1: $(tail -1 "$t/err")" >&2; rm -rf "$t"; exit 1; }
  rm -rf "$t"
  [ "$n" -gt 0 ]
}
all="$core $relatives"
# phase A
for s in $all; do for lr in $LRS; do echo "A $s $lr 1"; done; done > "$list"
phase "phase A, the lr sweep"
gather_a() {
  echo "scheme,lr,pos_lr_mult,steps,val_loss"
  for s in $all; do for d in "$out/A/$s"/lr*-m*; do
    [ -s "$d/log.csv" ] || continue
    n=${d##*/lr}; lr=${n%-m*} m=${n##*-m}
    # a run that did not finish its steps has no score (PROTOCOL.md: it is out)
    awk -F, -v s="$s" -v lr="$lr" -v m="$m" -v n="$A_STEPS" 'NR > 1 && $3 != "" { st = $1; v = $3 }
      END { print s "," lr "," m "," st "," (st == n ? v : "") }' "$d/log.csv"
  done; done
}
gather_a > "$out/phaseA.csv"
choose "$out/phaseA.csv" > "$out/chosen.csv"
edges "$out/chosen.csv" > "$list"
phase "phase A, the edge rule (a choice at the grid's edge: one lr further)"
gather_a > "$out/phaseA.csv"
choose "$out/phaseA.csv" > "$out/chosen.csv"
for s in $all; do has_tensors "$s" || continue
  lr=$(awk -F, -v s="$s" '$1 == s { print $2 }' "$out/chosen.csv")
  [ -n "$lr" ] && for m in $MULTS; do echo "A $s $lr $m"; done
done > "$list"
phase "phase A, the position-lr sweep"
gather_a > "$out/phaseA.csv"
choose "$out/phaseA.csv" > "$out/chosen.csv"
# the matched controls' width: the candidate whose parameter count is closest to xl's
if [ -n "$controls" ]; then
  { echo "width xl $D"; for s in $controls; do for w in $WIDTHS; do echo "width $s $w"; done; done; } > "$list"
  phase "the matched controls' width"
  target=$(cat "$out/match/xl-d$D/params.csv" | cut -d, -f3)
  { echo "scheme,d_model,params,target,target_params,rel_diff"
    for s in $controls; do cat "$out"/match/"$s"-d*/params.csv | sort -t, -k2,2n |
      awk -F, -v t="$target" -v D="$D" '{ d = $3 - t; if (d < 0) d = -d; if (b == "" || d < b) { b = d; w = $2; p = $3 } }
        END { printf "%s,%s,%s,xl-d%s,%s,%+.4f\n", $1, w, p, D, t, (p - t) / t }'
    done; } > "$out/match.csv"
fi
# phases B and C
b_jobs > "$list"
phase "phases B and C, training and evaluation"
# phase D (PROTOCOL.md v4), a diagnostic beside the choices, which stand: each scheme's phase-A
# run at its chosen lr (a complete 1200-step schedule, seed 1), with each multiplier it ran
# there, evaluated at 1x..16x on all the test bytes as the final checkpoints are: the ranking at
# a second horizon, and what the position-lr multiplier does beyond the training length
for s in $all; do
  lr=$(awk -F, -v s="$s" '$1 == s { print $2 }' "$out/chosen.csv")
  [ -n "$lr" ] && for m in 1 $MULTS; do [ -d "$out/A/$s/lr$lr-m$m" ] && echo "D $s $lr $m"; done
done > "$list"
phase "phase D, the phase-A runs at the chosen lr evaluated at 1x..16x"
# and the edge diagnostics (PROTOCOL.md v4): a choice at the largest (smallest) lr its scheme ran
# at multiplier 1 gets one 1200-step run one lr step further (1e-4 3e-4 1e-3 3e-3 1e-2 3e-2 1e-1),
# at the chosen multiplier; a chosen multiplier above 1 and the largest run, one at 3 times it,
# at the chosen lr. Into OUT/D/SCHEME/lrLR-mM, never into phaseA.csv: the choice stands, and
# the report shows each beside it
awk -F, -v mults="1 $MULTS" -v runs="$out/phaseA.csv" "$(cat tools/lib.awk)"'BEGIN { n = split("1e-4 3e-4 1e-3 3e-3 1e-2 3e-2 1e-1", G, " "); for (i = 1; i <= n; i++) at[G[i]] = i
    nm = split(mults, M, " "); for (i = 1; i <= nm; i++) if (M[i] + 0 > mmax) mmax = M[i] + 0
    lr_range(runs) } # (the lrs each scheme ran, a failed run included: tools/lib.awk)
  FNR > 1 { if ($2 + 0 == LR_HI[$1] && at[$2] < n) print "E", $1, G[at[$2] + 1], $3
    if ($2 + 0 == LR_LO[$1] && at[$2] > 1) print "E", $1, G[at[$2] - 1], $3
    if ($3 + 0 > 1 && $3 + 0 == mmax) print "E", $1, $2, 3 * $3 }' "$out/chosen.csv" > "$list"
phase "phase D, the edge diagnostics"
echo "study3 wall time: $(( (SECONDS - t_start) / 60 )) min (tools/study3.sh $mode; work kept from earlier starts takes no time)" | tee -a "$out/command.txt" >&2
POSGPT=$bin tools/study3_report.sh "$out" > /dev/null || failed=1
exit $failed
