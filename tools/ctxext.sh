#!/usr/bin/env bash
# ctxext.sh - RoPE context extension by fine-tuning (PI, NTK, YaRN; issue 33 item 5) at a
# setting where YaRN means something: a head size and training length at which its ramp leaves
# some frequency pairs unscaled and interpolates others fully (at T = 128, head 32, it left
# none: runs/study2). Four steps, each decided by a stated rule, none by hand:
#   pick      among head sizes 32, 64 and training lengths 128, 256, 512 (d_model D, LAYERS
#             layers, HEADS = D / head size) the cheapest setting (the fewest training
#             flops/token, as `posgpt info` counts them; at equal cost the smaller head) where
#             `posgpt info --rope-scaling yarn --rope-factor 4` on a one-step checkpoint counts
#             at least 2 pairs left and at least 2 interpolated; the counts of every candidate
#             and the chosen one's pair table into OUT/pairs.txt, the choice into OUT/pick.csv
#   base      rope (base 10000) at that setting, BASE_STEPS steps (lr 1e-3, cosine to 0.1,
#             4096 tokens a step); its validation loss over the last 20% of its steps reported
#   finetune  the base model at 4 x its length (factor 4) with none (the control: fine-tuned at
#             4 x its length with no extension), pi, ntk and yarn, seeds SEEDS (each seed one
#             batch order, the same for every method), fresh AdamW at a constant FT_LR after 20
#             warmup steps (Chen et al. 2023), every run FT_CAP steps (v2; run in stages of
#             FT_STAGE steps, so that a stopped one resumes); OUT/ft/RUN/stop.csv: its final
#             validation loss, the improvement over its last 20%, and the least-squares slope
#             of validation loss over its last 40% of steps, as the change over 20% of its
#             steps, with a 95% t interval: "still improving" where the whole interval lies
#             below -FT_TOL, else "plateau"
#   eval      on the test bytes (OUT/test.txt: the held-out split less its first VAL_TOKENS
#             bytes, which the fine-tunes validated on; v2), the first EVAL_TOKENS of them, at
#             1x, 2x, 4x, 5x and 8x the base length (5x: 1.25 x the fine-tuned length, Peng et
#             al.'s Table 1 past-the-window point), `posgpt eval --ci --per-window`: the base;
#             the base with each method at evaluation only, static (s = 4 at every length) and,
#             for pi and yarn, dynamic (s = length / T, 1 at 1x), and dynamic-ntk (v2); every
#             fine-tune; one CSV (and its per-window file) each in OUT/eval/
#   report    OUT/table.md: the evaluation-only rows (one base: window intervals, each method
#             against the base by a paired test over the same windows); the fine-tunes, each
#             method's exp of the mean loss over seeds with a 95% t interval over seeds, each
#             seed's ppl, steps, the last-20% improvement and slope; each pair of methods at
#             each length by a paired test across seeds (per seed the mean difference over the
#             same windows; t with seeds - 1 degrees of freedom): '<' only where it excludes 0;
#             Peng et al.'s Table 1 orderings beside ours with a verdict (claims(), below);
#             OUT/ppl.png (`posgpt plot`). The grid's settings in OUT/grid.env (--report reads it)
#
#   tools/ctxext.sh            the default grid into runs/ctxext
#   tools/ctxext.sh --plan     print the grid and a time estimate (short timing runs of the
#                              chosen setting at 1 thread in a temporary folder); runs nothing
#   tools/ctxext.sh --quick    a tiny model into runs/ctxext-quick (seconds; the smoke test)
#   tools/ctxext.sh --report   redraw table.md and ppl.png from OUT's CSVs
#
# The default grid is cut to fit about 3 hours on 2 quiet cores: BASE_STEPS 4000 (study3 has
# 4800), 3 seeds (v3; 2 before), the fine-tunes at 2048 tokens a step (the base: 4096), FT_CAP 1500 steps,
# EVAL_TOKENS 131072 (not the whole split). `--plan` times a few steps of the chosen setting
# at 1 thread and states the total. Measured so (2026-11-26, this project's 2-core machine,
# busy: load 5 to 7, the background studies paused with SIGSTOP): T 512, head 32, base
# 1.33 s/step and fine-tune 1.48 s/step wall at 64% of a core: 2.1 h if every fine-tune stops
# after its first stage, 4.0 h if all six reach the cap; on quiet cores (the same CPU time)
# 1.3 to 2.6 h. Other runs of it measured 0.73 to 1.16 s/step for the base. (That was v1; v2's
# eight fine-tunes all run to the cap: by the same rates about 5.3 h busy, 3.4 h quiet.)
# Procedure v2 (2026-11-27, after the base, its evaluation-only rows and one fine-tune (pi,
# seed 1) were seen; from a referee's review of the design): v1 stopped a fine-tune once two
# validation points 20% of its steps apart differed by less than FT_TOL, a rule the validation
# noise (about 0.006 nats between two points) decides, so each method got a different number of
# steps; v2 gives every method the same FT_CAP steps and reports the slope instead. v2 also adds
# the control without an extension (none), the dynamic evaluation-only rows, the 5x length, the
# test bytes apart from the validation bytes, and the paired tests across seeds. A v1 run keeps
# its steps (its flags are v2's) and continues to FT_CAP.
# Procedure v3 (2026-11-27, after seed 1's evaluations and seed 2's none and pi validation
# losses were seen, before any evaluation of seed 2's pi, ntk or yarn): a third seed. With 2
# seeds an interval over seeds has 1 degree of freedom (t = 12.7): only a difference about the
# same in both seeds can be significant, which says more about the test than about the methods;
# with 3, t = 4.3. Nothing else changes.
# Limits: one base model (the seeds vary the fine-tunes' batch order, not the base); 3 seeds
# give intervals over seeds with 2 degrees of freedom (t = 4.3); one FT_LR for every method,
# not tuned.
# Resumable: a finished training is kept, an interrupted one resumes (train --resume; a
# fine-tune's stages continue where they stopped), an evaluation newer than its checkpoint and
# made with the same flags is kept; every output is written under a temporary name and renamed
# when done.
# Also in a clone of the committed files (no checkpoints): an evaluation whose CSV and
# per-window file are there, and a fine-tune whose stop.csv, evaluation and settings.txt (the
# same settings) are, are done; the base is trained again only if something that needs it is
# missing (it is deterministic: the same model), and then only what is missing runs.
# The binary is pinned: copied to OUT/bin/posgpt at the first start and used for every run.
# Environment: OUT=dir, DATA=file (default data/kjv.txt), JOBS=N runs at once (default 2, one
# thread each), POSGPT=binary to pin; BASE_STEPS, SEEDS, METHODS (of none pi ntk yarn),
# FT_STAGE, FT_CAP, FT_TOL, FT_LR, EVAL_TOKENS change the grid. They are checked
# before anything runs (--plan too), each an error naming it (exit 2): BASE_STEPS a whole number
# >= 20, FT_STAGE >= 5, FT_CAP >= FT_STAGE, EVAL_TOKENS >= 1, JOBS 1 to 1024; FT_TOL a number >= 0,
# FT_LR > 0; SEEDS whole numbers and METHODS of pi ntk yarn none, each once.
# One start at a time per OUT: a second start (or --report) while one runs into the same OUT is
# refused (exit 2; a lock on OUT/lock, held until the first start and all its runs have ended).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
self=$(realpath "$0")
. "$(dirname "$self")/pin_lib.sh"
cd "$(dirname "$self")/.."
mode=default quick=${QUICK:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; [ "$mode" = default ] && mode=quick ;;
    --plan) mode=plan ;;
    --report) mode=report ;;
    --one) shift; mode=one; break ;; # one job of the list (called through tools/sweep.sh)
    *) echo "ctxext.sh: error: unknown argument '$1' (see tools/ctxext.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$mode" != one ]; then
  if [ "$quick" = 1 ]; then # --quick, or --plan/--report with --quick: the quick grid
    export QUICK=1 OUT=${OUT:-runs/ctxext-quick} D=64 LAYERS=1 TOKENS_STEP=1024 FT_TOKENS_STEP=2048
    export BASE_STEPS=${BASE_STEPS:-20} FT_STAGE=${FT_STAGE:-5} FT_CAP=${FT_CAP:-10} VAL_TOKENS=2048 EVAL_TOKENS=${EVAL_TOKENS:-8192}
    seeds=${SEEDS-"1 2"}
  else
    export OUT=${OUT:-runs/ctxext} D=128 LAYERS=4 TOKENS_STEP=4096 FT_TOKENS_STEP=2048
    export BASE_STEPS=${BASE_STEPS:-4000} FT_STAGE=${FT_STAGE:-250} FT_CAP=${FT_CAP:-1500} VAL_TOKENS=65536
    export EVAL_TOKENS=${EVAL_TOKENS:-131072}
    seeds=${SEEDS-"1 2 3"} # (v3: a third seed; runs/ctxext/README.md)
  fi
  export FT_TOL=${FT_TOL:-0.005} FT_LR=${FT_LR:-2e-4} BASE_LR=1e-3 FACTOR=4 DATA=${DATA:-data/kjv.txt}
  methods=${METHODS-"none pi ntk yarn"}
fi
LENGTHS="128 256 512" HEADSIZES="32 64"

# ---- helpers (jobs and the driver) ----
bin=${PIN:-${POSGPT:-./posgpt}}
# finished CKPT STEPS: the checkpoint exists and trained all its steps
finished() { [ -s "$1" ] && grep -q "step $2 of $2," <("$bin" info "$1" 2> /dev/null); }
# settings DIR TEXT: a run made with other settings is trained again (a v1 fine-tune's text
# ended in " tol X", its stopping threshold, which does not change its training: left out)
settings() {
  if [ -s "$1/settings.txt" ] && [ "$(sed 's/ tol [^ ]*$//' "$1/settings.txt")" != "$2" ]; then
    echo "    $1: made with other settings; trained again" >&2
    rm -f "$1"/model*.bin "$1"/*.csv
  fi
  echo "$2" > "$1/settings.txt"
}
# val_at LOG STEP: the validation loss logged at STEP (the last such row)
val_at() { awk -F, -v s="$2" 'NR > 1 && $1 == s && $3 != "" { v = $3 } END { print v }' "$1"; }
# slope20 LOG N: the least-squares slope of validation loss on step over the validations in
# the last 40% of N steps, times 0.2 N (the change over 20% of the steps), its 95% t interval
# (points - 2 degrees of freedom), and "still improving" where the interval lies wholly below
# -FT_TOL, else "plateau"
slope20() {
  awk -F, -v n="$2" -v tol="$FT_TOL" "$(cat tools/lib.awk)"'NR > 1 && $3 != "" && $1 > 0.6 * n && $1 <= n { k++; x[k] = $1; y[k] = $3; sx += $1; sy += $3 }
    END { if (k < 3) { print ",,,n/a (fewer than 3 validations)"; exit }
      mx = sx / k; my = sy / k; for (i = 1; i <= k; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
      b = sxy / sxx; for (i = 1; i <= k; i++) r += (y[i] - my - b * (x[i] - mx)) ^ 2
      h = tq(k - 2) * sqrt(r / (k - 2) / sxx); w = 0.2 * n
      printf "%.4f,%.4f,%.4f,%s\n", b * w, (b - h) * w, (b + h) * w, ((b + h) * w < -tol) ? "no (still improving)" : "yes" }' "$1"
}
# last20 LOG N: validation loss at 0.8 N minus at N (the improvement over the last 20%)
last20() { awk -v a="$(val_at "$1" $(($2 * 4 / 5)))" -v b="$(val_at "$1" "$2")" 'BEGIN { if (a == "" || b == "") print "nan"; else printf "%.4f\n", a - b }'; }
# ev OUTPUT CKPT ARGS...: posgpt eval of the test bytes at 1x..8x the base length, with its
# per-window file (eval/perwin-NAME.csv); kept when OUTPUT is newer than CKPT and was made with
# the same ARGS (OUTPUT's .args file)
ev() {
  local o=$1 ck=$2; shift 2
  local d; d=$(dirname "$o"); local pw=$d/perwin-${o##*/} args=${o%.csv}.args
  [ -s "$o" ] && [ -s "$pw" ] && [ "$o" -nt "$ck" ] && [ "$(cat "$args" 2> /dev/null)" = "$*" ] && return 0
  mkdir -p "$d"
  "$bin" eval --ckpt "$ck" --val "$OUT/test.txt" --threads 1 --ci --lengths "$T,$((2 * T)),$((4 * T)),$((5 * T)),$((8 * T))" \
    --max-tokens "$EVAL_TOKENS" "$@" --csv "$o.part" --per-window "$pw.part" 2>> "$OUT/eval.log"
  mv "$pw.part" "$pw"
  echo "$*" > "$args"
  mv "$o.part" "$o"
}
# rope_flags T HEADSIZE: the model at that setting
rope_flags() { echo --pos rope --rope-base 10000 --seq-len "$1" --layers "$LAYERS" --d-model "$D" --heads $((D / $2)); }
base_flags() { echo "$(rope_flags "$T" "$HS")" --batch $((TOKENS_STEP / T)) --lr "$BASE_LR" --wd 0 --eval-every $((BASE_STEPS / 20)) --val-tokens "$VAL_TOKENS"; }
ft_flags() { # METHOD SEED
  local f=(--init-from "$OUT/base/model.bin" --seq-len $((FACTOR * T)) --batch $((FT_TOKENS_STEP / (FACTOR * T) > 0 ? FT_TOKENS_STEP / (FACTOR * T) : 1))
    --lr "$FT_LR" --min-lr-frac 1 --warmup $((FT_STAGE < 20 ? 1 : 20)) --wd 0 --seed "$2" --eval-every $((FT_STAGE / 5)) --val-tokens "$VAL_TOKENS")
  [ "$1" != none ] && f+=(--rope-scaling "$1" --rope-factor "$FACTOR")
  echo "${f[@]}"
}

# kept NAME: OUT/eval/NAME.csv and its per-window file are there (a clone of the committed files
# has them without the checkpoints); ft_kept METHOD SEED: that fine-tune's stop.csv and
# evaluation are, made with these settings (its settings.txt; T must be known), and its
# checkpoint is not
kept() { [ -s "$OUT/eval/$1.csv" ] && [ -s "$OUT/eval/perwin-$1.csv" ]; }
ft_kept() {
  local d=$OUT/ft/$1-seed$2
  [ ! -s "$d/model.bin" ] && [ -s "$d/stop.csv" ] && head -1 "$d/stop.csv" | grep -q ',slope20,' && kept "ft-$1-seed$2" \
    && [ -s "$d/settings.txt" ] && [ "$(sed 's/ tol [^ ]*$//' "$d/settings.txt")" = "$(ft_flags "$1" "$2") stage $FT_STAGE cap $FT_CAP" ]
}

if [ "$mode" = one ]; then
  IFS=, read -r T HS < <(awk -F, '$NF == "chosen" { print $1 "," $2 }' "$OUT/pick.csv")
  case "$1" in
    base) # the base model, then its evaluation without extension
      d=$OUT/base; mkdir -p "$d"
      settings "$d" "$(base_flags) --steps $BASE_STEPS"
      if ! finished "$d/model.bin" "$BASE_STEPS"; then
        # shellcheck disable=SC2046 # the flags, one word each
        if [ -s "$d/model.bin" ]; then "$bin" train --resume "$d" --threads 1 >> "$d/train.txt" 2>> "$d/train.err"
        else
          # trained again where its log was kept (a clone): it must be the same model, step for
          # step (the evaluations and fine-tunes kept were made from it), else stop here
          kept_log=""; [ -s "$d/log.csv" ] && kept_log=$(cut -d, -f1-3 "$d/log.csv")
          "$bin" train --data "$DATA" --out "$d" --overwrite --steps "$BASE_STEPS" --threads 1 $(base_flags) > "$d/train.txt" 2> "$d/train.err"
          if [ -n "$kept_log" ] && [ "$kept_log" != "$(cut -d, -f1-3 "$d/log.csv")" ]; then
            echo "ctxext: the base trained again differs from the one whose log was kept ($d/log.csv: step, train and validation loss): the kept evaluations and fine-tunes were made from another model; delete them (OUT/eval, OUT/ft) to make them again" >&2
            exit 1
          fi
        fi
      fi
      ev "$OUT/eval/base.csv" "$d/model.bin" ;;
    evalonly) # METHOD [dyn]: the base with the extension at evaluation only, static (s = FACTOR) or dynamic (s = length / T)
      # (done in a clone without checkpoints: its CSVs kept)
      o=base+$2${3:+-$3}
      [ ! -s "$OUT/base/model.bin" ] && kept "$o" && exit 0
      finished "$OUT/base/model.bin" "$BASE_STEPS" || { echo "ctxext: evalonly $2: the base ($OUT/base) has not finished its $BASE_STEPS steps" >&2; exit 1; }
      if [ "${3:-}" = dyn ] || [ "$2" = dynamic-ntk ]; then ev "$OUT/eval/$o.csv" "$OUT/base/model.bin" --rope-scaling "$2" --rope-factor 0
      else ev "$OUT/eval/$o.csv" "$OUT/base/model.bin" --rope-scaling "$2" --rope-factor "$FACTOR"; fi ;;
    ft) # METHOD SEED: fine-tune in stages to FT_CAP steps, then evaluate
      m=$2 s=$3 d=$OUT/ft/$2-seed$3
      ft_kept "$m" "$s" && exit 0 # (done in a clone without checkpoints)
      finished "$OUT/base/model.bin" "$BASE_STEPS" || { echo "ctxext: ft $m $s: the base ($OUT/base) has not finished its $BASE_STEPS steps: no fine-tune from it" >&2; exit 1; }
      mkdir -p "$d"
      settings "$d" "$(ft_flags "$m" "$s") stage $FT_STAGE cap $FT_CAP"
      if [ -s "$d/stop.csv" ] && [ "$d/stop.csv" -nt "$d/model.bin" ] && head -1 "$d/stop.csv" | grep -q ',slope20,' \
        && finished "$d/model.bin" "$FT_CAP"; then # done before
        ev "$OUT/eval/ft-$m-seed$s.csv" "$d/model.bin"; exit 0
      fi
      if [ ! -s "$d/model.bin" ]; then
        # shellcheck disable=SC2046 # the flags, one word each
        "$bin" train --data "$DATA" --out "$d" --overwrite --steps "$FT_STAGE" --threads 1 $(ft_flags "$m" "$s") > "$d/train.txt" 2> "$d/train.err"
      fi
      while :; do
        n=$("$bin" info "$d/model.bin" | awk '$1 == "training" { print $5; exit }' | tr -d ,)
        if ! finished "$d/model.bin" "$n"; then # interrupted inside a stage: finish it
          "$bin" train --resume "$d" --threads 1 >> "$d/train.txt" 2>> "$d/train.err"; continue
        fi
        [ "$n" -ge "$FT_CAP" ] && break
        next=$((n + FT_STAGE)); [ "$next" -gt "$FT_CAP" ] && next=$FT_CAP
        "$bin" train --resume "$d" --steps "$next" --threads 1 >> "$d/train.txt" 2>> "$d/train.err"
      done
      { echo "run,method,seed,steps,val_loss,last20_improvement,slope20,slope20_ci_low,slope20_ci_high,plateau"
        echo "ft-$m-seed$s,$m,$s,$n,$(val_at "$d/log.csv" "$n"),$(last20 "$d/log.csv" "$n"),$(slope20 "$d/log.csv" "$n")"; } > "$d/stop.csv.part" \
        && mv "$d/stop.csv.part" "$d/stop.csv"
      ev "$OUT/eval/ft-$m-seed$s.csv" "$d/model.bin" ;;
    *) echo "ctxext: unknown job '$*'" >&2; exit 2 ;;
  esac
  exit 0
fi

# ---- the driver ----
die2() { echo "ctxext.sh: error: $*" >&2; exit 2; }
# whole NAME MIN [MAX]: the variable NAME is a whole number from MIN (to MAX)
whole() {
  local v=${!1-}
  [[ $v =~ ^(0|[1-9][0-9]{0,8})$ ]] && [ "$v" -ge "$2" ] && [ "$v" -le "${3:-999999999}" ] \
    || die2 "$1 must be a whole number from $2${3:+ to $3}, got '$v'"
}
# number NAME WHAT: the variable NAME is a decimal number and awk's test WHAT (of x) holds
number() {
  local v=${!1-}
  [[ $v =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]{1,3})?$ ]] && awk -v x="$v" "BEGIN { exit !($2) }" \
    || die2 "$1 must be a number with $2, got '$v'"
}
# once NAME WORDS...: no word twice (two runs into one folder)
once() {
  local n=$1 dup; shift
  dup=$(printf '%s\n' "$@" | sort | uniq -d | head -1)
  [ -z "$dup" ] || die2 "$n gives '$dup' twice (two runs into one folder)"
}
if [ "$mode" != report ]; then
  whole BASE_STEPS 20; whole FT_STAGE 5; whole FT_CAP 1; whole EVAL_TOKENS 1; JOBS=${JOBS:-2}; whole JOBS 1 1024
  [ "$FT_CAP" -ge "$FT_STAGE" ] || die2 "FT_CAP ($FT_CAP) must be at least FT_STAGE ($FT_STAGE)"
  number FT_TOL "x >= 0"; number FT_LR "x > 0"
  set -f # (the words as they are, never globbed)
  for s in $seeds; do [[ $s =~ ^(0|[1-9][0-9]{0,8})$ ]] || die2 "SEEDS: '$s' is not a whole number"; done
  for m in $methods; do case $m in pi | ntk | yarn | none) ;; *) die2 "METHODS: '$m' is not pi, ntk, yarn or none" ;; esac; done
  [ -n "$seeds" ] && [ -n "$methods" ] || die2 "SEEDS and METHODS need at least one word each"
  once SEEDS $seeds; once METHODS $methods
  set +f
fi
[ "$mode" != report ] || [ -s "$OUT/pick.csv" ] || die2 "no $OUT/pick.csv to report on (OUT=dir of a study; tools/ctxext.sh makes it)"
if [ "$mode" != plan ]; then # one start at a time in OUT
  mkdir -p "$OUT" 2> /dev/null && [ -d "$OUT" ] && [ -w "$OUT" ] || die2 "cannot make or write OUT '$OUT' (OUT=dir)"
  exec 9>> "$OUT/lock"
  flock -n 9 || die2 "another tools/ctxext.sh is running into $OUT (OUT/lock is held; wait for it, or stop it: its runs resume)"
fi
[ "$mode" = report ] || [ -s "$DATA" ] || {
  [ "$DATA" = data/kjv.txt ] || { echo "ctxext.sh: error: no corpus '$DATA' (DATA=file)" >&2; exit 2; }
  make --no-print-directory data/kjv.txt; }
src=${POSGPT:-./posgpt}
[ -x "$src" ] || make --no-print-directory posgpt

# pick DIR: one-step checkpoints of every candidate in DIR; DIR/pick.csv and DIR/pairs.txt
pick() {
  local dir=$1 t h c
  mkdir -p "$dir/pick"
  for t in $LENGTHS; do for h in $HEADSIZES; do
    c=$dir/pick/T$t-h$h
    # shellcheck disable=SC2046 # the flags, one word each
    finished "$c/model.bin" 1 || "$bin" train --data "$DATA" --out "$c" --overwrite --steps 1 --batch 1 --val-tokens "$t" \
      --threads 1 $(rope_flags "$t" "$h") > /dev/null 2> "$c.err"
    "$bin" info --rope-scaling yarn --rope-factor 4 "$c/model.bin" > "$c.info"
  done; done
  for t in $LENGTHS; do for h in $HEADSIZES; do
    awk -v t="$t" -v h="$h" '$1 == "flops/token" { f = $2 } /^  \([0-9]+ left/ { gsub(/[(,;]/, ""); l = $1; i = $3; b = $5 }
      END { print t "," h "," f "," l "," i "," b }' "$dir/pick/T$t-h$h.info"
  done; done | sort -t, -k3,3n -k2,2n |
    awk -F, 'BEGIN { print "seq_len,head_size,flops_per_token,left,interpolated,blended,rule" }
      { r = ""; if (!done && $4 >= 2 && $5 >= 2) { r = "chosen"; done = 1 } print $0 "," r }' > "$dir/pick.csv.part"
  mv "$dir/pick.csv.part" "$dir/pick.csv"
  IFS=, read -r T HS < <(awk -F, '$NF == "chosen" { print $1 "," $2 }' "$dir/pick.csv")
  [ -n "${T:-}" ] || { echo "ctxext.sh: error: no candidate leaves 2 pairs and interpolates 2 ($dir/pick.csv)" >&2; exit 1; }
  { echo "YaRN at factor 4 (posgpt info --rope-scaling yarn --rope-factor 4 on a one-step checkpoint of each"
    echo "candidate, d_model $D, $LAYERS layers): pairs left, interpolated, blended; the rule takes the"
    echo "cheapest (fewest flops/token, then the smaller head) with at least 2 left and 2 interpolated."
    echo
    column -t -s, "$dir/pick.csv"
    echo
    echo "chosen: seq_len $T, head size $HS ($((D / HS)) heads)"
    sed -n '/^rotary pairs/,/^  ([0-9]* left/p' "$dir/pick/T$T-h$HS.info"; } > "$dir/pairs.txt.part"
  mv "$dir/pairs.txt.part" "$dir/pairs.txt"
}

if [ "$mode" = plan ]; then
  bin=$src
  p=$(mktemp -d)
  trap 'rm -rf "$p"' EXIT
  pick "$p"
  echo "ctxext grid into $OUT: rope, d_model $D, $LAYERS layers, chosen by the rule (pairs.txt):"
  sed -n '5,/^$/p' "$p/pairs.txt" | sed '/^$/d; s/^/  /'
  echo "  chosen: seq_len $T, head size $HS"
  nm=$(echo $methods | wc -w) ns=$(echo $seeds | wc -w)
  echo "  base: $BASE_STEPS steps at $T ($TOKENS_STEP tokens a step); evaluated alone and with $methods at evaluation only"
  echo "  fine-tunes: $methods x seeds $seeds at $((FACTOR * T)) ($FT_TOKENS_STEP tokens a step, lr $FT_LR constant), stages of $FT_STAGE steps, until the last 20% improve by < $FT_TOL nats or $FT_CAP steps"
  echo "  evaluations: $((4 + nm * ns)) models at $T,$((2 * T)),$((4 * T)),$((8 * T)) on $EVAL_TOKENS tokens with --ci"
  # timing: a few steps of the base and of a fine-tune, and an evaluation at 1x and 8x, at 1
  # thread; the CPU time each took over its wall time is the share of a core it had (under 1
  # on a busy machine): the quiet estimate is the measured one times that share
  k=$([ "$quick" = 1 ] && echo 4 || echo 12)
  probe() { # NAME CMD...: CMD's wall and CPU seconds added up; NAME.err keeps its messages
    local n=$1 TIMEFORMAT='%R %U %S'; shift
    { time "$@" > /dev/null 2> "$p/$n.err"; } 2> "$p/$n.time" || { cat "$p/$n.err" >&2; exit 1; }
    read -r r u s < "$p/$n.time"; wall=$(awk -v a="$wall" -v r="$r" 'BEGIN { print a + r }'); cpu=$(awk -v a="$cpu" -v u="$u" -v s="$s" 'BEGIN { print a + u + s }')
  }
  wall=0 cpu=0
  # shellcheck disable=SC2046 # the flags, one word each
  probe b "$bin" train --data "$DATA" --out "$p/base" --steps "$k" --threads 1 --log-every 1 $(rope_flags "$T" "$HS") --batch $((TOKENS_STEP / T)) --eval-every 1000000 --val-tokens "$T"
  OUT=$p
  # shellcheck disable=SC2046 # the flags, one word each
  probe f "$bin" train --data "$DATA" --out "$p/f" --steps "$k" --threads 1 --log-every 1 $(ft_flags yarn 1 | sed -E 's/--(val-tokens|eval-every|warmup) [0-9]+//g') --warmup 1 --eval-every 1000000 --val-tokens $((FACTOR * T))
  # s a step: the last logged step's elapsed over the steps after the first (start-up left out)
  sps() { awk -F, 'NR == 2 { t0 = $7; s0 = $1 } NR > 2 { t = $7; s = $1 } END { printf "%.4f", (t - t0) / (s - s0) }' "$1"; }
  sb=$(sps "$p/base/log.csv") sf=$(sps "$p/f/log.csv")
  et() { probe "e$1" "$bin" eval --ckpt "$p/base/model.bin" --data "$DATA" --threads 1 --lengths "$1" --max-tokens "$2"
    awk -v n="$2" '{ printf "%.3g", $1 / n }' "$p/e$1.time"; }
  e1=$(et "$T" $((8 * T * 4))); e8=$(et $((8 * T)) $((8 * T * 4)))
  for n in b f "e$T" "e$((8 * T))"; do read -r r u s < "$p/$n.time"; echo "$r $u $s"; done > "$p/times"
  share=$(awk '{ r += $1; c += $2 + $3 } END { s = c / r; if (s > 1) s = 1; printf "%.2f", s }' "$p/times")
  awk -v sb="$sb" -v sf="$sf" -v e1="$e1" -v e8="$e8" -v T="$T" -v F="$FACTOR" -v bs="$BASE_STEPS" -v vt="$VAL_TOKENS" \
    -v st="$FT_STAGE" -v cap="$FT_CAP" -v et="$EVAL_TOKENS" -v nm="$nm" -v ns="$ns" -v jobs="${JOBS:-2}" -v share="$share" 'BEGIN {
      b = e1 - (e8 - e1) / 7 * 1; k = (e8 - e1) / (7 * T)          # eval s/token = b + k * length
      if (k < 0) k = 0
      ev = 0; for (m = 1; m <= 8; m *= 2) ev += et * (b + k * m * T)  # one model at 1x..8x
      base = bs * sb + 20 * vt * (b + k * T)
      ft1 = st * sf + 5 * vt * (b + k * F * T); ftc = ft1 * cap / st
      lo = base + (nm * ns * ft1 + (nm + nm * ns) * ev) / jobs + ev
      hi = base + (nm * ns * ftc + (nm + nm * ns) * ev) / jobs + ev
      printf "  measured now at 1 thread: base %.3f s/step, fine-tune %.3f s/step, evaluation %.3g s/token at 1x, %.3g at 8x\n", sb, sf, e1, e8
      printf "  (these runs had %.0f%% of a core: their CPU time over their wall time)\n", 100 * share
      printf "  estimate: base %.0f min; a fine-tune %.0f min a stage (%.0f at the cap); evaluating one model %.1f min\n", base / 60, ft1 / 60, ftc / 60, ev / 60
      printf "total, %d at a time: %.1f hours (%.0f min) if every fine-tune stops after one stage, %.1f hours (%.0f min) if all reach the cap\n", jobs, lo / 3600, lo / 60, hi / 3600, hi / 60
      printf "on %d quiet cores (times the share): %.1f to %.1f hours\n", jobs, lo * share / 3600, hi * share / 3600 }'
  exit 0
fi

if [ "$mode" != report ]; then
  mkdir -p "$OUT/bin"
  export PIN=$OUT/bin/posgpt
  [ -e "$PIN" ] || { cp "$src" "$PIN.tmp" && mv "$PIN.tmp" "$PIN"; }
  cmp -s "$src" "$PIN" || echo "ctxext.sh: $src differs from the pinned $PIN: the runs use the pinned one" >&2
  bin=$PIN
  pin_kernel ctxext.sh "$bin" "$OUT/bin" 0 # (tools/pin_lib.sh: one kernel for the grid, in OUT/bin/kernel.txt)
  t_start=$SECONDS
  rev=$(git rev-parse --short HEAD 2> /dev/null || echo "no git") dirty=$(git status --porcelain 2> /dev/null | grep -c . || true)
  echo "tools/ctxext.sh $([ $mode = quick ] && echo --quick)   ($(date -u +%Y-%m-%d), $("$bin" --version 2> /dev/null | head -1), tree $rev with $dirty changed files, pinned binary cksum $(cksum < "$bin" | cut -d' ' -f1); $KERNEL)" >> "$OUT/command.txt"
  # the grid's settings, for --report (and the reader)
  { for v in D LAYERS TOKENS_STEP FT_TOKENS_STEP BASE_STEPS BASE_LR FT_STAGE FT_CAP FT_TOL FT_LR VAL_TOKENS EVAL_TOKENS FACTOR; do echo "$v=${!v}"; done
    echo "SEEDS='$seeds'"; echo "METHODS='$methods'"; } > "$OUT/grid.env.part" && mv "$OUT/grid.env.part" "$OUT/grid.env"
  # the test bytes (v2): the held-out split (the last n / 10 bytes of DATA, as posgpt holds it
  # out) less its first VAL_TOKENS bytes, which every run validated on
  n=$(wc -c < "$DATA"); nt=$((n / 10 - VAL_TOKENS))
  [ "$nt" -gt 0 ] || { echo "ctxext.sh: error: $DATA holds out $((n / 10)) bytes, not more than VAL_TOKENS ($VAL_TOKENS)" >&2; exit 2; }
  cmp -s "$OUT/test.txt" <(tail -c "$nt" "$DATA") || { tail -c "$nt" "$DATA" > "$OUT/test.txt.part" && mv "$OUT/test.txt.part" "$OUT/test.txt"; }
  [ -s "$OUT/pick.csv" ] && [ -s "$OUT/pairs.txt" ] || pick "$OUT"
  IFS=, read -r T HS < <(awk -F, '$NF == "chosen" { print $1 "," $2 }' "$OUT/pick.csv")
  echo "ctxext: seq_len $T, head size $HS (OUT/pairs.txt)" >&2
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  failed=0
  sweep() { JOBS=${JOBS:-2} SWEEP_ENV="OUT PIN DATA D LAYERS TOKENS_STEP FT_TOKENS_STEP BASE_STEPS BASE_LR FT_STAGE FT_CAP FT_TOL FT_LR VAL_TOKENS EVAL_TOKENS FACTOR" \
    tools/sweep.sh "$list" "$self" --one || failed=1; }
  # the base: trained unless every evaluation and fine-tune is kept without it (a clone of the
  # committed files; the base is deterministic, so one trained again is the same model)
  need_base=0
  [ -s "$OUT/base/model.bin" ] || { kept base || need_base=1
    for m in $methods; do case $m in none) ;; ntk) kept base+ntk && kept base+dynamic-ntk || need_base=1 ;;
      *) kept "base+$m" && kept "base+$m-dyn" || need_base=1 ;; esac; done
    for s in $seeds; do for m in $methods; do ft_kept "$m" "$s" || need_base=1; done; done; }
  if [ -s "$OUT/base/model.bin" ] || [ $need_base = 1 ]; then echo base > "$list"; sweep
  else echo "ctxext: every evaluation and fine-tune is kept (without checkpoints): the base is not trained again" >&2; fi
  { for m in $methods; do case $m in none) ;; ntk) echo "evalonly ntk"; echo "evalonly dynamic-ntk" ;; *) echo "evalonly $m"; echo "evalonly $m dyn" ;; esac; done
    for s in $seeds; do for m in $methods; do echo "ft $m $s"; done; done; } > "$list"
  sweep
  echo "ctxext wall time: $(((SECONDS - t_start) / 60)) min (work kept from earlier starts takes no time)" | tee -a "$OUT/command.txt" >&2
else
  failed=0 bin=${POSGPT:-$OUT/bin/posgpt}
  [ -x "$bin" ] || bin=./posgpt
  IFS=, read -r T HS < <(awk -F, '$NF == "chosen" { print $1 "," $2 }' "$OUT/pick.csv")
  # the settings the grid ran with (grid.env; without it, the defaults above)
  if [ -s "$OUT/grid.env" ]; then
    while IFS='=' read -r k v; do
      case $k in D | LAYERS | TOKENS_STEP | FT_TOKENS_STEP | BASE_STEPS | BASE_LR | FT_STAGE | FT_CAP | FT_TOL | FT_LR | VAL_TOKENS | EVAL_TOKENS | FACTOR) printf -v "$k" '%s' "$v" ;;
        SEEDS) seeds=${v//\'/} ;; METHODS) methods=${v//\'/} ;; esac
    done < "$OUT/grid.env"
  fi
fi

# ---- the report: table.md and ppl.png from the CSVs ----
lib=$(cat tools/lib.awk)
# ppl_row CSV: the ppl [interval] at each length of an eval CSV, " | "-separated
ppl_row() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { printf "%s%.3f [%.3f, %.3f]", (NR > 2 ? " | " : ""), $c["ppl"], $c["ppl_ci_low"], $c["ppl_ci_high"] }' "$1"; }
# vs_base NAME: per length, the paired test over the same windows of NAME's loss minus the base's
# (tools/paired.sh: evaluation noise only, one model): '<' (below the base), '>' or '~'
vs_base() { tools/paired.sh "$OUT/eval/perwin-base.csv" "$OUT/eval/perwin-$1.csv" 2> /dev/null \
  | awk -F, 'NR > 1 { printf "%s%s %+.5f", (NR > 2 ? " | " : ""), ($9 != "yes" ? "~" : $6 < 0 ? "<" : ">"), $6 }'; }
# seedpairs: for each length and pair of methods with 2 or more common seeds, per seed the mean
# over the same windows of B's loss minus A's, their mean and 95% t interval -> OUT/paired.csv
seedpairs() {
  local a b k L files
  echo "eval_len,a,b,seeds,mean_diff,ci_low,ci_high,significant,seed_diffs"
  for L in $T $((2 * T)) $((4 * T)) $((5 * T)) $((8 * T)); do
    for a in $methods; do for b in $methods; do
      [[ "$a" < "$b" ]] || continue
      files=() ks=
      for k in $seeds; do [ -s "$OUT/eval/perwin-ft-$a-seed$k.csv" ] && [ -s "$OUT/eval/perwin-ft-$b-seed$k.csv" ] \
        && files+=("$OUT/eval/perwin-ft-$a-seed$k.csv" "$OUT/eval/perwin-ft-$b-seed$k.csv") ks="$ks+$k"; done
      [ ${#files[@]} -gt 0 ] || continue
      awk -F, -v L="$L" -v a="$a" -v b="$b" -v ks="${ks#+}" "$lib"'{ pw_row(L) }
        END { if ((m = pw_end()) < 0) { print "ctxext report: " a " and " b ": " PWERR > "/dev/stderr"; exit 1 }
          for (i = 1; i <= m; i++) { d = PWD[i]; sd += d; ss += d * d; l = l (i > 1 ? ";" : "") sprintf("%.6f", d) }
          if (tint(m, sd, ss)) printf "%s,%s,%s,%s,%.6f,%.6f,%.6f,%s,%s\n", L, a, b, ks, TM, TM - TH, TM + TH, (TM - TH > 0 ? "yes (" a " lower)" : TM + TH < 0 ? "yes (" b " lower)" : "no"), l
          else printf "%s,%s,%s,%s,%.6f,,,n/a (one seed),%s\n", L, a, b, ks, TM, l }' "${files[@]}"
    done; done
  done
}
# claims: Peng et al. 2023's Table 1 (docs/papers.csv, peng23-t1-*: Llama 2 7B extended from 4096
# by s = 2, fine-tuned at 8192) says, at the fine-tuned window (8192), YaRN and PI below NTK, and
# 1.25x past it (10240) YaRN below NTK below PI; each such ordering beside ours at the same place
# (4x: the fine-tuned length, 5x: 1.25x past it) from paired.csv: holds where our paired test
# across seeds finds the same method lower, differs where it finds the other, inconclusive where
# it finds neither, not testable with one seed or a method not run. PI and YaRN at 8192 (3.34
# and 3.35) differ by the table's rounding: no claim.
claims() {
  echo
  echo "## Against Peng et al. 2023, Table 1"
  echo
  echo "Theirs: perplexity of Llama 2 7B extended from 4096 by s = 2 and fine-tuned at 8192 (docs/papers.csv, peng23-t1-*;"
  echo "their NTK row is theta = 20k). Ours: rope at $T extended by s = $FACTOR and fine-tuned at $((FACTOR * T)), the paired"
  echo "difference across seeds (paired.csv) at the same place: the fine-tuned length, and 1.25x past it. The verdict is on"
  echo "the direction only: the scales differ by orders of magnitude."
  echo
  echo "| place | claim | theirs | ours: higher - lower, nats/byte [95% interval over seeds] | verdict |"
  echo "|---|---|---|---|---|"
  awk -F, -v papers=docs/papers.csv -v T="$T" -v FAC="$FACTOR" "$lib"'
    BEGIN { while ((getline line < papers) > 0) { if (csv(line) >= 13 && F[1] ~ /^peng23-t1-(pi|ntk|yarn)-(8192|10240)$/) { split(F[1], p, "-"); pv[p[3], p[4]] = F[11] } }
      n = split("8192:yarn:ntk 8192:pi:ntk 10240:yarn:ntk 10240:ntk:pi 10240:yarn:pi", C, " ") }
    NR > 1 { r[$1, $2, $3] = $0 }
    END { for (i = 1; i <= n; i++) { split(C[i], c, ":"); L = c[1] == 8192 ? FAC * T : FAC * T * 5 / 4; lo = c[2]; hi = c[3]
        a = lo < hi ? lo : hi; b = lo < hi ? hi : lo
        place = c[1] == 8192 ? sprintf("the fine-tuned length (theirs 8192, ours %d)", L) : sprintf("1.25x past it (theirs 10240, ours %d)", L)
        theirs = sprintf("%s %s < %s %s", lo, pv[lo, c[1]], hi, pv[hi, c[1]])
        if (!((L, a, b) in r)) { printf "| %s | %s < %s | %s | not run | not testable |\n", place, lo, hi, theirs; continue }
        split(r[L, a, b], x, ",")
        s = lo == a ? 1 : -1 # x[5]: b minus a; shown as hi minus lo
        d = s * x[5]; ours = x[6] == "" ? sprintf("%+.4f (one seed)", d) : sprintf("%+.4f [%+.4f, %+.4f] (%s seeds)", d, s > 0 ? x[6] : -x[7], s > 0 ? x[7] : -x[6], gsub(/\+/, "+", x[4]) + 1)
        v = x[8] ~ /^n\/a/ ? "not testable (one seed)" : x[8] == "no" ? "inconclusive" : index(x[8], "(" lo " lower)") ? "holds" : "differs (" hi " lower)"
        printf "| %s | %s < %s | %s | %s | %s |\n", place, lo, hi, theirs, ours, v } }' "$OUT/paired.csv"
}
report() {
  local f r m k files=() labels=()
  seedpairs > "$OUT/paired.csv.part" && mv "$OUT/paired.csv.part" "$OUT/paired.csv"
  {
    echo "# Context extension: rope at seq_len $T, head size $HS, extended by $FACTOR"
    echo
    echo "Perplexity per byte on the first $EVAL_TOKENS test bytes (the held-out split less its first $VAL_TOKENS bytes, on which"
    echo "the runs validated), nonoverlapping windows (tools/ctxext.sh, procedure v3; the pair table: pairs.txt). Base: $BASE_STEPS"
    echo "steps, its validation loss improved by $(last20 "$OUT/base/log.csv" "$BASE_STEPS") nats over its last 20%."
    echo
    echo "## At evaluation only (one base model)"
    echo
    echo "ppl [95% bootstrap interval over windows]; below each row the paired test over the same windows against the"
    echo "base: the mean loss difference (nats/byte), '<' below the base, '>' above, '~' not significant (window noise only)."
    echo
    echo "| run | $T (1x) | $((2 * T)) (2x) | $((4 * T)) (4x) | $((5 * T)) (5x) | $((8 * T)) (8x) |"
    echo "|---|---|---|---|---|---|"
    [ -s "$OUT/eval/base.csv" ] && echo "| base | $(ppl_row "$OUT/eval/base.csv") |"
    for f in "$OUT"/eval/base+*.csv; do
      [ -s "$f" ] || continue
      r=$(basename "$f" .csv); r=${r#base+}
      case $r in *-dyn) lab="${r%-dyn} dynamic (s = length / $T)" ;; dynamic-ntk) lab="dynamic-ntk" ;; *) lab="$r static (s = $FACTOR)" ;; esac
      echo "| $lab | $(ppl_row "$f") |"
      echo "| (against the base) | $(vs_base "base+$r") |"
    done
    echo
    echo "## Fine-tuned at $((FACTOR * T)) bytes, $FT_CAP steps each"
    echo
    echo "Each method: exp of the mean loss over its seeds [95% t interval over seeds] (seeds differ in batch order only;"
    echo "one base). Each seed: its ppl [window interval], the last-20% improvement of its validation loss, and the"
    echo "least-squares change over 20% of its steps (from its last 40%) [95% interval]: a plateau unless the whole"
    echo "interval lies below -$FT_TOL."
    echo
    echo "| run | steps | last-20% improvement | change per 20% [interval] | plateau | $T (1x) | $((2 * T)) (2x) | $((4 * T)) (4x) | $((5 * T)) (5x) | $((8 * T)) (8x) |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for m in $methods; do
      files=()
      for k in $seeds; do [ -s "$OUT/eval/ft-$m-seed$k.csv" ] && files+=("$OUT/eval/ft-$m-seed$k.csv"); done
      [ ${#files[@]} -gt 0 ] || { echo "| $m | not run | | | | | | | | |"; continue; }
      awk -F, -v m="$m" "$lib"'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { L = $c["eval_len"]; if (!(L in n)) o[++no] = L; n[L]++; s[L] += $c["loss"]; ss[L] += $c["loss"] ^ 2 }
        END { printf "| **%s** (%d seeds) | | | | |", m, n[o[1]]
          for (i = 1; i <= no; i++) { L = o[i]; if (tint(n[L], s[L], ss[L])) printf " **%.3f** [%.3f, %.3f] |", exp(TM), exp(TM - TH), exp(TM + TH); else printf " **%.3f** (one seed) |", exp(TM) }
          print "" }' "${files[@]}"
      for f in "${files[@]}"; do
        r=$(basename "$f" .csv)
        IFS=, read -r _ _ _ st _ im sl lo hi pl < <(tail -1 "$OUT/ft/${r#ft-}/stop.csv")
        echo "| $r | $st | $im | $sl [$lo, $hi] | $pl | $(ppl_row "$f") |"
      done
    done
    echo
    echo "## The methods against each other (paired.csv)"
    echo
    echo "At each length, each pair of fine-tuned methods: per seed the mean over the same windows of the second's loss"
    echo "minus the first's (nats/byte), their mean and 95% t interval over seeds ($(echo $seeds | wc -w) seeds: t with"
    echo "$(($(echo $seeds | wc -w) - 1)) degree(s) of freedom). A method is lower only where the interval excludes 0."
    echo
    echo "| length | first | second | second - first [interval] | per seed | lower |"
    echo "|---|---|---|---|---|---|"
    awk -F, -v T="$T" 'NR > 1 { printf "| %dx | %s | %s | %s [%s, %s] | %s | %s |\n", $1 / T, $2, $3, $5, $6, $7, $9, $8 }' "$OUT/paired.csv"
    claims
  } > "$OUT/table.md.part"
  mv "$OUT/table.md.part" "$OUT/table.md"
  files=() labels=()
  for f in "$OUT/eval/base.csv" "$OUT"/eval/base+*.csv "$OUT"/eval/ft-*.csv; do
    [ -s "$f" ] || continue
    r=$(basename "$f" .csv); r=${r%-seed*}
    files+=("$f"); labels+=("${r/base+/eval-only }")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  "$bin" plot --kind ppl --seeds --ylog --out "$OUT/ppl.png.part.png" --label "$(IFS=,; echo "${labels[*]}")" \
    --title "RoPE (T $T, head $HS) extended by $FACTOR: evaluation only and fine-tuned (lines: mean of seeds, bands: their range)" \
    "${files[@]}" > /dev/null 2> "$OUT/plot.log" \
    || { echo "ctxext: error: posgpt plot failed (ppl.png not redrawn):" >&2; cat "$OUT/plot.log" >&2; return 1; }
  rm -f "$OUT/plot.log" # (its messages kept only when it fails)
  mv "$OUT/ppl.png.part.png" "$OUT/ppl.png"
}
report || failed=1
exit $failed
