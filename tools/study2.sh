#!/usr/bin/env bash
# study2.sh - the extrapolation study with seeds, training lengths, fine-tuning at a longer
# length and a second corpus (issue "The study, made trustworthy and broad"). Four parts, all
# with the same model and optimizer settings, none tuned per scheme:
#   seeds     every scheme at the base length T0 on the King James Bible, seeds SEEDS; each
#             evaluated at 1..32 x T0 (nonoverlapping); seed 1 also sliding, by position, the
#             shift test and (rope) the evaluation-time context extensions
#   lengths   LSCHEMES at every length of LENGTHS, seed 1, the same tokens per step (batch =
#             TOKENS_STEP / T), each evaluated at 1..16 x its length (Press et al. 2022, Fig. 1)
#   finetune  the rope model of seed 1 fine-tuned at 2 x and 4 x T0 with each extension method
#             (pi, ntk, yarn, and none), FT_STEPS steps at FT_LR, fresh AdamW (Chen et al. 2023),
#             evaluated at 1..32 x T0
#   corpus    CSCHEMES on a second corpus (data/fortunes.txt), seed 1, evaluated at 1..16 x T0
#
#   tools/study2.sh            the default grid into runs/study2
#   tools/study2.sh --quick    a small grid into runs/study2-quick (minutes; for trying it)
#   tools/study2.sh --full     the full grid into runs/study2-full: config S (d_model 128), and
#                              every scheme at every training length and on the second corpus
#                              (roughly 20 h on 2 cores: config S takes 2.5 h for fifteen
#                              schemes at one length; the default grid fits in about 3 h)
#
# It resumes: a finished training is kept (its checkpoint says so), an interrupted one resumes
# from its checkpoint, and an evaluation whose CSV is newer than its checkpoint is kept, so a
# fresh clone (no checkpoints) reruns everything. Every output is written under a temporary
# name and renamed when complete. Environment: SEEDS, SCHEMES, LENGTHS, LSCHEMES, CSCHEMES,
# FT_STEPS to change the grid (an empty list skips its part) (with --quick also STEPS, and TOKENS: the evaluation tokens);
# OUT=dir; DATA=dir holding kjv.txt and fortunes.txt (default data/, made by make);
# POSGPT=binary to pin a copy; JOBS=N runs at once (default 2, one thread each); RANKS=N
# spreads the runs over MPI processes (tools/sweep.sh).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
self=$(realpath "$0")
cd "$(dirname "$self")/.."
all_schemes="sinusoidal learned t5 alibi rope nope randomized kerple-log kerple-power sandwich xpos fire cope shaw xl"
mode=default
case "${1:-}" in
  --quick) mode=quick ;;
  --full) mode=full ;;
  --one) mode=$2; shift 2 ;; # one job of the list (called through tools/sweep.sh)
  "") ;;
  *) echo "usage: tools/study2.sh [--quick | --full]   (see the comment at the top)" >&2; exit 2 ;;
esac
bin=${POSGPT:-./posgpt}
export DATA=${DATA:-data}
if [ "$mode" = x ]; then :  # a job: the settings come in the environment
elif [ "$mode" = quick ]; then
  T0=64 MODEL="--layers 2 --d-model 64 --heads 4" STEPS=${STEPS:-300} TOKENS_STEP=1024 LR=2e-3 TOKENS=${TOKENS:-16384}
  seeds=${SEEDS-"1 2"} schemes=${SCHEMES-"alibi rope nope"} lengths=${LENGTHS-"32 64"}
  lschemes=${LSCHEMES-"alibi rope"} cschemes=${CSCHEMES-"alibi rope"} FT_STEPS=${FT_STEPS:-40}
  out=${OUT:-runs/study2-quick}
else # the default grid, and --full: config S's width, every scheme in every part
  width=64 lall="sinusoidal rope t5 alibi nope" call="sinusoidal rope t5 alibi nope kerple-log fire" dir=runs/study2
  [ "$mode" = full ] && width=128 lall=$all_schemes call=$all_schemes dir=runs/study2-full
  T0=128 MODEL="--layers 4 --d-model $width --heads 4" STEPS=1200 TOKENS_STEP=4096 LR=1e-3 TOKENS=65536
  seeds=${SEEDS-"1 2 3"} schemes=${SCHEMES-$all_schemes} lengths=${LENGTHS-"64 128 256 512"}
  lschemes=${LSCHEMES-$lall} cschemes=${CSCHEMES-$call}
  FT_STEPS=${FT_STEPS:-200}
  out=${OUT:-$dir}
fi
if [ "$mode" != x ]; then
  FT_LR=$(awk -v l="$LR" 'BEGIN { printf "%g", l / 5 }')
  export T0 MODEL STEPS TOKENS_STEP LR TOKENS FT_STEPS FT_LR
fi

# mults T: the evaluation lengths, comma-separated (1..32 x T at T0, else 1..16 x T)
lens_of() { local t=$1 top=16 m s=""; [ "$t" = "$T0" ] && top=32
  for m in 1 2 4 8 16 32; do [ $m -le $top ] && s="${s:+$s,}$((m * t))"; done; echo "$s"; }
# ev OUTPUT CKPT ARGS...: `posgpt eval`, kept when OUTPUT is newer than CKPT; @OUT@ in ARGS
# becomes OUTPUT.part, renamed to OUTPUT when the evaluation completes
ev() {
  local o=$1 ck=$2; shift 2
  if [ -s "$o" ] && [ "$o" -nt "$ck" ]; then return 0; fi
  worked=1
  local a=() x
  for x in "$@"; do a+=("${x//@OUT@/$o.part}"); done
  "$bin" eval --ckpt "$ck" --threads 1 "${a[@]}" 2>> "$(dirname "$o")/eval.log"
  mv "$o.part" "$o"
}
# finished CKPT STEPS: the checkpoint exists and trained all its steps
finished() { [ -s "$1" ] && grep -q "step $2 of $2," <("$bin" info "$1" 2>/dev/null); }
# settings DIR STAMP: a run directory made with other settings (its settings.txt differs) is
# cleared, so that nothing trained or evaluated under them reaches the new tables
settings() {
  if [ -s "$1/settings.txt" ] && [ "$(cat "$1/settings.txt")" != "$2" ]; then
    echo "    $1: made with other settings ($(tr '\n' ' ' < "$1/settings.txt")); trained again" >&2
    rm -f "$1"/model.bin "$1"/*.csv "$1"/time.txt
  fi
  echo "$2" > "$1/settings.txt"
}
# timing DIR T0 T1: one line per invocation that trained or evaluated something
timing() { [ "$worked" = 1 ] && echo "train_s=$(($2 - $1)) eval_s=$((SECONDS - $2))" >> "$3/time.txt"; return 0; }
worked=0
# train_run DIR STEPS DATA ARGS...: nothing if DIR/model.bin trained all STEPS; else resume it if
# it exists; else `posgpt train --data DATA --out DIR --overwrite --steps STEPS ARGS`
train_run() {
  local d=$1 steps=$2 data=$3; shift 3
  finished "$d/model.bin" "$steps" && return 0
  worked=1
  if [ -s "$d/model.bin" ]; then
    "$bin" train --resume "$d" --data "$data" --threads 1 >> "$d/train.txt" 2>> "$d/train.err"
  else
    "$bin" train --data "$data" --out "$d" --overwrite --steps "$steps" --threads 1 "$@" > "$d/train.txt" 2> "$d/train.err"
  fi
}

if [ "$mode" = x ]; then
  # ---- one job: "train CORPUS T SCHEME SEED" or "ft T2 METHOD" ----
  job=$1
  if [ "$job" = train ]; then
    corpus=$2 T=$3 s=$4 seed=$5
    d=$OUT/$corpus-T$T/$s/seed$seed
    data=$DATA/$corpus.txt
    mkdir -p "$d"
    lens=$(lens_of "$T") longest=${lens##*,}
    pos=$s extra=()
    [ "$s" = randomized ] && pos=sinusoidal extra=(--positions random --rand-max "$longest")
    [ "$s" = learned ] && extra=(--max-pos "$longest")
    settings "$d" "model $MODEL; steps $STEPS; lr $LR; tokens/step $TOKENS_STEP; eval tokens $TOKENS; T0 $T0; $pos ${extra[*]}"
    t0=$SECONDS
    train_run "$d" "$STEPS" "$data" --pos "$pos" --seq-len "$T" $MODEL --batch $((TOKENS_STEP / T)) --lr "$LR" --wd 0 \
      --seed "$seed" --eval-every $((STEPS >= 10 ? STEPS / 10 : 1)) "${extra[@]}"
    t1=$SECONDS
    : >> "$d/eval.log"
    full=0; [ "$corpus" = kjv ] && [ "$T" = "$T0" ] && [ "$seed" = 1 ] && full=1
    proto=nonoverlapping; [ $full = 1 ] && proto=both
    ev "$d/eval.csv" "$d/model.bin" --data "$data" --lengths "$lens" --protocol $proto --max-tokens "$TOKENS" --csv @OUT@
    if [ "$s" = randomized ]; then # the paper's protocol: random positions at test time too
      ev "$d/eval_random.csv" "$d/model.bin" --data "$data" --lengths "$lens" --protocol $proto --max-tokens "$TOKENS" \
        --positions random --csv @OUT@
    fi
    if [ $full = 1 ]; then
      ev "$d/pos.csv" "$d/model.bin" --data "$data" --lengths "$longest" --max-tokens $((4 * TOKENS)) --per-position @OUT@ --csv /dev/null
      offs=""; for k in 0 4 8 12 16 20 24 28 31; do offs="${offs:+$offs,}$((k * T))"; done
      ev "$d/offset.csv" "$d/model.bin" --data "$data" --max-tokens "$TOKENS" --pos-offset "$offs" --csv @OUT@
      if [ "$s" = rope ]; then # context extension at evaluation, no fine-tuning (runs/study/README.md: why these factors)
        for m in pi ntk dynamic-ntk yarn rerope; do
          f=(); [ $m = ntk ] && f=(--rope-factor 32); [ $m = rerope ] && f=(--rope-window $((T / 2)))
          ev "$d/ext_$m.csv" "$d/model.bin" --data "$data" --lengths "$lens" --protocol nonoverlapping --max-tokens "$TOKENS" \
            --rope-scaling $m "${f[@]}" --csv @OUT@
        done
      fi
    fi
    timing "$t0" "$t1" "$d"
    echo "  $corpus T=$T $s seed $seed: train $((t1 - t0)) s, eval $((SECONDS - t1)) s" >&2
  elif [ "$job" = ft ]; then
    T2=$2 m=$3
    src=$OUT/kjv-T$T0/rope/seed1
    d=$src/ft-T$T2-$m
    mkdir -p "$d"
    finished "$src/model.bin" "$STEPS" || { echo "study2: $src/model.bin has not finished training" >&2; exit 1; }
    f=(); [ "$m" != none ] && f=(--rope-scaling "$m")
    settings "$d" "steps $FT_STEPS; lr $FT_LR; tokens/step $TOKENS_STEP; eval tokens $TOKENS; T0 $T0"
    # a source trained again since: the fine-tune starts over from it
    [ -s "$d/model.bin" ] && [ "$src/model.bin" -nt "$d/model.bin" ] && rm -f "$d/model.bin" "$d"/*.csv
    t0=$SECONDS
    train_run "$d" "$FT_STEPS" "$DATA/kjv.txt" --init-from "$src/model.bin" --seq-len "$T2" --batch $((TOKENS_STEP / T2)) \
      --lr "$FT_LR" --wd 0 --seed 1 --eval-every $((FT_STEPS >= 4 ? FT_STEPS / 4 : 1)) "${f[@]}"
    t1=$SECONDS
    : >> "$d/eval.log"
    ev "$d/eval.csv" "$d/model.bin" --data "$DATA/kjv.txt" --lengths "$(lens_of "$T0")" --protocol nonoverlapping \
      --max-tokens "$TOKENS" --csv @OUT@
    timing "$t0" "$t1" "$d"
    echo "  fine-tune rope at $T2 with $m: train $((t1 - t0)) s, eval $((SECONDS - t1)) s" >&2
  else
    echo "study2: unknown job '$*'" >&2; exit 2
  fi
  exit 0
fi

# ---- the grid ----
[ -x "$bin" ] || make --no-print-directory posgpt
for c in kjv fortunes; do
  [ -s "$DATA/$c.txt" ] && continue
  [ "$DATA" = data ] || { echo "study2: no corpus $DATA/$c.txt" >&2; exit 2; }
  make --no-print-directory "data/$c.txt"
done
mkdir -p "$out"
export OUT=$out POSGPT=$bin
echo "${SEEDS:+SEEDS=\"$SEEDS\" }${SCHEMES:+SCHEMES=\"$SCHEMES\" }tools/study2.sh $*   ($(date -u +%Y-%m-%d), $($bin --version 2>/dev/null | head -1))" >> "$out/command.txt"
list=$(mktemp) list2=$(mktemp)
trap 'rm -f "$list" "$list2"' EXIT
{
  for seed in $seeds; do for s in $schemes; do echo "train kjv $T0 $s $seed"; done; done
  for T in $lengths; do for s in $lschemes; do echo "train kjv $T $s 1"; done; done
  echo "train kjv $T0 rope 1" # the fine-tunes start from it
  # the second corpus is compared with the same schemes on the Bible
  for s in $cschemes; do echo "train fortunes $T0 $s 1"; echo "train kjv $T0 $s 1"; done
} | awk '!seen[$0]++' > "$list"
for T2 in $((2 * T0)) $((4 * T0)); do for m in pi ntk yarn none; do echo "ft $T2 $m"; done; done > "$list2"
echo "study2: $(wc -l < "$list") trainings, then $(wc -l < "$list2") fine-tunes, into $out" >&2
t_start=$SECONDS failed=0
jobs=${JOBS:-$([ -n "${RANKS:-}" ] && echo 1 || echo 2)}
env_list="OUT POSGPT DATA T0 MODEL STEPS TOKENS_STEP LR TOKENS FT_STEPS FT_LR"
JOBS=$jobs SWEEP_ENV="$env_list" tools/sweep.sh "$list" "$self" --one x || failed=1
JOBS=$jobs SWEEP_ENV="$env_list" tools/sweep.sh "$list2" "$self" --one x || failed=1
echo "study2 wall time: $(( (SECONDS - t_start) / 60 )) min (work kept from earlier runs takes no time)" | tee -a "$out/walltime.txt" >&2
# the tables and figures, from every CSV in the folder
POSGPT=$bin tools/study2_report.sh "$out" "$T0" > /dev/null || failed=1
echo "study2: tables in $out/table.md, figures in $out/*.png (commands in $out/figures.txt)" >&2
exit $failed
