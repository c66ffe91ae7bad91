#!/usr/bin/env bash
# bench.sh - `make bench`: speed and memory of posgpt on this machine, one process per
# measurement (so peak RSS is per configuration). Prints:
#   the sgemm peak (2048^3) and the OpenBLAS kernel in use;
#   training tokens/s (median over timed steps) at configs S and M for every scheme, with
#     achieved GFLOP/s (FLOPs/token = 6N + 12 L T d_model) as a fraction of the sgemm peak;
#   forward-only evaluation tokens/s and peak RSS at T = 1024, 4096, 16384 (config S, batch 1);
#   greedy decoding tokens/s at a 1024-token context (config S, batch 1), with the key/value
#     cache and recomputing the forward pass for every token, and their ratio;
#   training on task examples one a row and packed (train --task --pack), the algorithmic
#     tasks study's model and batch, one thread: seconds per run of PACK_STEPS steps (100), the
#     median of ROUNDS alternating rounds (default 3), and the ratio;
#   scaling: per op of a training step at configs S and M (rope), its work units and one-thread
#     time, and the step time and speedup they predict on 2 to 64 threads (build/bench scaling;
#     cheap: three steps on one thread; the model: docs/performance.md, "Scaling model"); beside
#     them the step measured on P threads, P the largest power of two <= the cores, against 1
#     thread (bench profile, the same steps; SCALING_ROUNDS alternating rounds, default 5, the
#     median speedup and each round's), to check the model on this machine;
#   bind: a config S training step on 2 threads unbound and bound (OMP_PROC_BIND=close
#     OMP_PLACES=cores), and the ratio bound / unbound (the target: at most 1.10);
#   sgemm: posgpt's own packed sgemm (POSGPT_BLAS=posgpt, the default on AVX-512 CPUs; skipped
#     without AVX-512F) against OpenBLAS: per product shape of a config S and M training step
#     the GFLOP/s of posgpt's sgemm, of OpenBLAS as posgpt calls it (work units) and of one whole
#     OpenBLAS call, medians of REPS (9) alternating reps, and the ratio posgpt / OpenBLAS units;
#     then training tokens/s at S and M (rope) with each (POSGPT_BLAS=posgpt, =openblas), medians
#     of ROUNDS alternating rounds (default 3), and the median ratio;
#   onednn (not in the default PARTS): in a BLAS=onednn build (build/onednn/bench, made if
#     missing; Debian: libdnnl-dev), per product shape of a config S and M training step the
#     GFLOP/s of OpenBLAS and oneDNN, as posgpt calls them (work units on this thread count) and
#     as one whole call the library threads itself, medians of REPS (9) alternating reps, and the
#     faster library; then training tokens/s at S and M (rope) with each library (POSGPT_BLAS),
#     medians of ROUNDS alternating rounds (default 3);
#   bf16: training tokens/s at configs S and M (rope), fp32 and bf16 (train --precision bf16)
#     in alternating runs, medians of ROUNDS (default 3), the ratio bf16 / fp32, and what ran
#     the bf16 products (cblas_sbgemm, or sgemm on the rounded inputs: no speed-up expected);
#     refused with the reason on a CPU without AVX512-BF16 / AMX-BF16 (not in the default PARTS);
#   with TORCH=1, the project's own PyTorch reference model (tools/torch_ref.py, written from
#     docs/model.md and docs/schemes.md; needs /usr/bin/python3 with Debian's python3-torch) at
#     the same configs in the same run, and the ratio ours / PyTorch.
# Environment: PARTS (which of "train eval decode plot pack mpi scaling bind sgemm onednn bf16" to run; default all but onednn and bf16), SCHEMES (default: sinusoidal learned t5 alibi rope nope randomized; all: every scheme), STEPS (timed training steps, 15), QUICK=1 (S only, T <= 4096),
#   ROUNDS (training runs per scheme and side, alternating posgpt and PyTorch; default 3 with TORCH=1, else 1).
# Training figures are medians: of the timed steps within a run, then of the rounds; the
# ratio is the median of the rounds' ratios, each taken between runs made one after the
# other, so a slow spell of a shared machine hits both sides of a ratio.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
B=build/bench
[ -x $B ] || make --no-print-directory $B
# default: the seven schemes of the original comparison; SCHEMES=all: every registered scheme
# (tools/torch_ref.py implements every one of them)
schemes=${SCHEMES:-"sinusoidal learned t5 alibi rope nope randomized"}
[ "$schemes" = all ] && schemes=$(./posgpt --help | sed -n 's/.*(--pos): //p' | tr '|' ' ')
steps=${STEPS:-15}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
torch_ref=tools/torch_ref.py
if [ "${TORCH:-0}" = 1 ]; then
  if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
    echo "bench: TORCH=1 needs /usr/bin/python3 with torch: apt-get install python3-torch (Debian)" >&2; exit 1
  fi
  # the PyTorch side uses the same OpenBLAS; give it the kernel posgpt picked
  core=$($B sgemm | sed -n 's/.*core=\([A-Za-z0-9]*\).*/\1/p' | head -1)
  export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-$core}
fi
. tools/bench_lib.sh # get, list, med
parts=" ${PARTS:-train eval decode plot pack mpi scaling bind sgemm} "
for p in $parts; do case $p in train|eval|decode|plot|pack|mpi|scaling|bind|sgemm|onednn|bf16) ;; *) echo "bench: PARTS takes train, eval, decode, plot, pack, mpi, scaling, bind, sgemm, onednn, bf16; got '$p'" >&2; exit 2 ;; esac; done
want() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }
rounds=${ROUNDS:-$([ "${TORCH:-0}" = 1 ] && echo 3 || echo 1)}

sg=$($B sgemm) || { echo "bench: $B sgemm failed (exit $?): the BLAS library crashed or is missing" >&2; exit 1; }
peak=$(echo "$sg" | head -1 | get gflops)
echo "$sg" | head -1 | sed 's/^RESULT //'
core=$(echo "$sg" | head -1 | get core)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1); mod=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "kernel: OpenBLAS $core kernels (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}); CPU: $cpu (family $fam, model $mod)"
echo "products: $(echo "$sg" | sed -n 's/^LIB //p') (POSGPT_BLAS=${POSGPT_BLAS:-unset})"
echo "sgemm peak: $peak GFLOP/s ($OMP_NUM_THREADS threads)"
echo
configs="S M"; evalT="1024 4096 16384"
[ "${QUICK:-0}" = 1 ] && configs="S" && evalT="1024 4096"
want train || configs=""
for cfg in $configs; do
  if [ $cfg = S ]; then targs="--n-layer 4 --d-model 128 --n-head 4 --T 128 --batch 32"; else targs="--n-layer 6 --d-model 256 --n-head 8 --T 256 --batch 16"; fi
  echo "training, config $cfg (median of $steps steps after 3 warm-up steps; median of $rounds round(s))"
  printf "%-12s %12s %9s %8s" scheme tokens/s GFLOP/s "% peak"
  [ "${TORCH:-0}" = 1 ] && printf " %14s %8s" "torch tok/s" ratio
  printf "\n"
  for s in $schemes; do
    ours=""; theirs=""; ratios=""; gfs=""
    extra=""; [ $s = randomized ] && extra="--rand-base sinusoidal --max-pos $([ $cfg = S ] && echo 2048 || echo 4096)"
    for round in $(seq "$rounds"); do
      r=$($B train $cfg $s 3 "$steps")
      tps=$(echo "$r" | get tokens_per_s); ours="$ours $tps"; gfs="$gfs $(echo "$r" | get gflops)"
      if [ "${TORCH:-0}" = 1 ]; then
        tt=$(/usr/bin/python3 $torch_ref --bench --pos $s $targs $extra --warmup 3 --steps "$steps" --threads $OMP_NUM_THREADS 2>/dev/null | get tokens_per_s)
        theirs="$theirs $tt"; ratios="$ratios $(echo "$tps $tt" | awk '{print $1 / $2}')"
      fi
    done
    gf=$(med $gfs)
    printf "%-12s %12.0f %9.1f %7.0f%%" $s "$(med $ours)" "$gf" "$(echo "$gf $peak" | awk '{print 100 * $1 / $2}')"
    if [ "${TORCH:-0}" = 1 ]; then printf " %14.0f %7.2fx" "$(med $theirs)" "$(med $ratios)"; fi
    if [ "$rounds" -gt 1 ]; then # every round, so the spread is visible
      printf "   rounds:%s" "$(list %.0f $ours)"
      [ -z "$ratios" ] || printf " | torch%s | ratios%s" "$(list %.0f $theirs)" "$(list %.2f $ratios)"
    fi
    printf "\n"
  done
  echo
done
if want eval; then
echo "evaluation, config S, batch 1, forward with loss (median of 3 passes after one warm-up)"
printf "%-12s %7s %12s %10s" scheme T tokens/s "RSS MiB"
[ "${TORCH:-0}" = 1 ] && printf " %14s %8s %10s" "torch tok/s" ratio "torch RSS"
printf "\n"
for s in $schemes; do
  for T in $evalT; do
    r=$($B eval S $s $T 3)
    printf "%-12s %7d %12.0f %10.0f" $s $T "$(echo "$r" | get tokens_per_s)" "$(echo "$r" | get peak_rss_mib)"
    if [ "${TORCH:-0}" = 1 ]; then
      extra=""; [ $s = randomized ] && extra="--rand-base sinusoidal --max-pos $T"
      [ $s = learned ] && extra="--max-pos $T"
      tr=$(/usr/bin/python3 $torch_ref --eval-bench --pos $s --n-layer 4 --d-model 128 --n-head 4 --T 128 --batch 32 $extra \
             --eval-T $T --warmup 1 --steps 3 --threads $OMP_NUM_THREADS 2>/dev/null || true)
      tt=$(echo "$tr" | get tokens_per_s); trss=$(echo "$tr" | get peak_rss_mib)
      if [ -n "$tt" ]; then printf " %14.0f %7.2fx %10.0f" "$tt" "$(echo "$r $tt" | get tokens_per_s | awk -v t="$tt" '{print $1 / t}')" "$trss"
      else printf " %14s" "failed"; fi
    fi
    printf "\n"
  done
done
fi

if want decode; then
echo
echo "decoding, config S, batch 1, 1024-token context (median time per token: 64 cached steps after a 960-token prefill;"
echo "8 uncached steps, each a forward pass over the 1017..1024 tokens so far)"
printf "%-12s %16s %18s %9s %16s\n" scheme "cached tok/s" "uncached tok/s" speedup "prefill tok/s"
for s in $schemes; do
  r=$($B decode S $s 1024 64)
  printf "%-12s %16.0f %18.2f %8.0fx %16.0f\n" $s "$(echo "$r" | get cached_tokens_per_s)" "$(echo "$r" | get uncached_tokens_per_s)" \
    "$(echo "$r" | get speedup)" "$(echo "$r" | get prefill_tokens_per_s)"
done
fi

# plot --kind position reads a row per position: its time must grow as n log n, not n^2
# (ratio 200k/50k rows: ~4.4 for n log n, 16 for n^2). Median of 3 runs per size.
if want plot; then
echo
echo "plot --kind position (median of 3 runs; n log n gives a ratio near 4.4, n^2 gives 16)"
ptmp=$(mktemp -d)
pt=()
for n in 50000 200000; do
  awk -v n=$n 'BEGIN { print "scheme,train_len,eval_len,protocol,stride,position,loss,count"
    for (i = 0; i < n; i++) printf "rope,%d,%d,nonoverlapping,%d,%d,%.4f,3\n", n, n, n, i, 2 + sin(i / 100.0) }' > "$ptmp/p$n.csv"
  ts=()
  for r in 1 2 3; do
    t0=$(date +%s.%N); ./posgpt plot "$ptmp/p$n.csv" --out "$ptmp/p.png" > /dev/null 2>&1; t1=$(date +%s.%N)
    ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  done
  pt+=("$(med "${ts[@]}")")
  printf "%8d rows  %8.3f s\n" $n "${pt[-1]}"
done
awk -v a="${pt[0]}" -v b="${pt[1]}" 'BEGIN { printf "ratio 200k / 50k: %.2f\n", b / a }'
rm -rf "$ptmp"
fi

# task examples one a row against packed (train --pack), as tools/tasks.sh trains them: the
# same examples and so the same gradient; the time differs by the positions computed
if want pack; then
echo
psteps=${PACK_STEPS:-100} prounds=${ROUNDS:-3}
echo "training on task examples, one a row and packed (train --pack; tools/tasks.sh's model, batch 64, 1 thread;"
echo "seconds for $psteps steps, median of $prounds alternating rounds; the ratio: the median of the rounds' ratios)"
printf "%-9s %8s %12s %8s %12s %8s\n" task "row len" "one a row s" "row len" "packed s" ratio
ktmp=$(mktemp -d)
for task in copy add sum passkey; do
  L=10; [ $task = passkey ] && L=4
  ./posgpt task gen --task $task --max-len $L --n 20000 --seed 1 --out "$ktmp/$task" > /dev/null 2>&1
  tp=() tk=() rt=()
  for r in $(seq "$prounds"); do
    for mode in pad pack; do
      x=(); [ $mode = pack ] && x=(--pack)
      t0=$(date +%s.%N)
      ./posgpt train --task "$ktmp/$task" --pos alibi --layers 3 --d-model 64 --heads 4 --batch 64 --steps "$psteps" --lr 3e-3 \
        --eval-every 100000 --threads 1 --out "$ktmp/run" --overwrite "${x[@]}" > "$ktmp/out" 2>&1
      t1=$(date +%s.%N)
      dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
      if [ $mode = pad ]; then tp+=("$dt"); Tpad=$(sed -n 's/^seq_len = //p' "$ktmp/run/config.txt")
      else tk+=("$dt"); Tpack=$(sed -n 's/^pack = yes (rows of [0-9]* x seq_len = \([0-9]*\) bytes.*/\1/p' "$ktmp/run/config.txt"); rt+=("$(awk -v a="${tp[-1]}" -v b="$dt" 'BEGIN { print a / b }')"); fi
    done
  done
  printf "%-9s %8d %12.2f %8d %12.2f %7.2fx\n" $task "$Tpad" "$(med "${tp[@]}")" "$Tpack" "$(med "${tk[@]}")" "$(med "${rt[@]}")"
done
rm -rf "$ktmp"
fi

# data-parallel training over MPI, when OpenMPI is installed (tools/deps.sh mpi)
if want mpi && command -v mpirun > /dev/null && command -v mpicc > /dev/null; then
  echo
  tools/bench_mpi.sh
fi

# the scaling model: work units and one-thread times per op, the step they predict on p threads
if want scaling; then
  for cfg in S M; do
    echo
    r=$($B scaling $cfg 2)
    echo "scaling model, config $cfg: one-thread ms per step by op (calls per step, work units each), and the predicted step"
    printf "%-28s %16s %6s %8s %10s\n" op shape calls units "1-thr ms"
    echo "$r" | grep '^OP ' | while read -r line; do
      printf "%-28s %16s %6d %8d %10.2f\n" "$(echo "$line" | sed 's/.* op=\(.*\) shape=.*/\1/')" "$(echo "$line" | get shape)" \
        "$(echo "$line" | get calls)" "$(echo "$line" | get units)" "$(echo "$line" | get ms)"
    done
    res=$(echo "$r" | grep '^RESULT')
    printf "step on 1 thread: %.1f ms (%.1f ms outside the timed ops, counted as serial)\n" "$(echo "$res" | get step_ms)" "$(echo "$res" | get untimed_ms)"
    for p in 2 4 8 16 32 64; do
      printf "  %2d threads: %8.1f ms predicted, speedup %5.1f\n" $p "$(echo "$res" | get pred_ms_$p)" "$(echo "$res" | get speedup_$p)"
    done
    P=1; while [ $((P * 2)) -le "$(nproc)" ] && [ $((P * 2)) -le 64 ]; do P=$((P * 2)); done
    if [ "$P" -ge 2 ]; then # SCALING_ROUNDS alternating rounds of 1 and P threads (a shared machine's slow spells hit both)
      one=() many=() ratio=()
      for round in $(seq "${SCALING_ROUNDS:-5}"); do
        a=$(OMP_NUM_THREADS=1 $B profile $cfg 2 | get step_ms)
        b=$(OMP_NUM_THREADS=$P $B profile $cfg 2 | get step_ms)
        one+=("$a") many+=("$b") ratio+=("$(awk -v a="$a" -v b="$b" 'BEGIN {print a / b}')")
      done
      printf "  measured on %d threads: %.1f ms against %.1f on 1 (medians of %d alternating rounds), speedup %.2f" $P \
        "$(med "${many[@]}")" "$(med "${one[@]}")" ${#one[@]} "$(med "${ratio[@]}")"
      printf " (the rounds' ratios:%s; predicted %.1f)\n" "$(list %.2f "${ratio[@]}")" "$(echo "$res" | get speedup_$P)"
    fi
  done
fi

# thread binding must not slow a step: 2 threads, config S, unbound and bound to cores
if want bind; then
  echo
  u=() b=() q=()
  for round in 1 2 3; do # alternating, so a slow spell of a shared machine hits both
    tu=$(OMP_NUM_THREADS=2 $B train S sinusoidal 2 8 | get step_s)
    tb=$(OMP_NUM_THREADS=2 OMP_PROC_BIND=close OMP_PLACES=cores $B train S sinusoidal 2 8 | get step_s)
    u+=("$tu") b+=("$tb") q+=("$(awk -v a="$tb" -v b="$tu" 'BEGIN { print a / b }')")
  done
  ratio=$(med "${q[@]}")
  printf "binding, config S, 2 threads: step %.4f s unbound, %.4f s with OMP_PROC_BIND=close OMP_PLACES=cores; ratio %.3f (%s)\n" \
    "$(med "${u[@]}")" "$(med "${b[@]}")" "$ratio" "$(awk -v r="$ratio" 'BEGIN { print r <= 1.10 ? "within the 1.10 target" : "ABOVE the 1.10 target" }')"
fi

# lib_ab BENCH CFG LIB_A LIB_B: training tokens/s at config CFG (rope) with POSGPT_BLAS=LIB_A and
# =LIB_B in ROUNDS alternating rounds (a slow spell of a shared machine hits both); prints the
# median of each and the median of the rounds' ratios B / A
lib_ab() {
  local x=() y=() q=() ta tb
  for _ in $(seq "${ROUNDS:-3}"); do
    ta=$(POSGPT_BLAS=$3 $1 train "$2" rope 3 "$steps" | get tokens_per_s)
    tb=$(POSGPT_BLAS=$4 $1 train "$2" rope 3 "$steps" | get tokens_per_s)
    x+=("$ta") y+=("$tb") q+=("$(awk -v a="$tb" -v b="$ta" 'BEGIN { print a / b }')")
  done
  echo "$(med "${x[@]}") $(med "${y[@]}") $(med "${q[@]}")"
}

# posgpt's own sgemm against OpenBLAS, per product shape and per training step
if want sgemm; then
  echo
  if ! grep -qw avx512f /proc/cpuinfo 2> /dev/null; then
    echo "sgemm: skipped: this CPU has no AVX-512F (posgpt's sgemm would run its portable kernel, not a contender)"
  else
    echo "posgpt's sgemm (AVX-512 12x32) against OpenBLAS $core kernels, $OMP_NUM_THREADS threads; CPU: $cpu"
    for cfg in $([ "${QUICK:-0}" = 1 ] && echo S || echo "S M"); do
      echo "products of a config $cfg training step: GFLOP/s, median of ${REPS:-9} alternating reps (OpenBLAS units: as posgpt"
      echo "calls it with POSGPT_BLAS=openblas; whole: one call OpenBLAS threads itself; attention: B x heads calls, OpenBLAS in both)"
      printf "%-15s %14s %5s %6s %6s %9s %9s %9s  %s\n" product shape calls units sg_units "ob units" "ob whole" posgpt "posgpt/ob units"
      $B gemm $cfg "${REPS:-9}" | grep '^RESULT kind=gemm ' | while read -r line; do
        ob=$(echo "$line" | get openblas) pg=$(echo "$line" | get posgpt)
        printf "%-15s %14s %5d %6d %6s %9s %9s %9s  %s\n" "$(echo "$line" | get op)" "$(echo "$line" | get shape)" \
          "$(echo "$line" | get calls)" "$(echo "$line" | get units)" "$(echo "$line" | get posgpt_units)" "$ob" \
          "$(echo "$line" | get openblas_whole)" "$pg" "$(awk -v a="$pg" -v b="$ob" 'BEGIN { printf "%.2f", a / b }')"
      done
      read -r mo mp mq <<< "$(lib_ab $B $cfg openblas posgpt)"
      printf "training, config %s, rope: %.0f tokens/s with OpenBLAS, %.0f with posgpt's sgemm; posgpt / OpenBLAS %.3f (median of %s rounds of %s steps)\n\n" \
        $cfg "$mo" "$mp" "$mq" "${ROUNDS:-3}" "$steps"
    done
  fi
fi

# oneDNN against OpenBLAS, per product shape and per training step (one BLAS=onednn binary runs both)
if want onednn; then
  OB=build/onednn/bench
  make --no-print-directory BLAS=onednn $OB > /dev/null # (anew where the sources changed)
  echo
  echo "oneDNN against OpenBLAS, $OMP_NUM_THREADS threads; CPU: $cpu"
  $OB gemm S 1 | sed -n 's/^LIB /  library: /p'
  for cfg in $([ "${QUICK:-0}" = 1 ] && echo S || echo "S M"); do
    echo "products of a config $cfg training step: GFLOP/s, median of ${REPS:-9} alternating reps (gemm: posgpt's work units;"
    echo "whole: one call the library threads itself; attention: B x heads calls in one parallel loop)"
    printf "%-15s %14s %5s %6s %9s %9s %9s %9s  %s\n" product shape calls units openblas onednn "ob whole" "dnn whole" faster
    $OB gemm $cfg "${REPS:-9}" | grep '^RESULT kind=gemm ' | while read -r line; do
      ob=$(echo "$line" | get openblas) dn=$(echo "$line" | get onednn)
      printf "%-15s %14s %5d %6d %9s %9s %9s %9s  %s\n" "$(echo "$line" | get op)" "$(echo "$line" | get shape)" \
        "$(echo "$line" | get calls)" "$(echo "$line" | get units)" "$ob" "$dn" "$(echo "$line" | get openblas_whole)" \
        "$(echo "$line" | get onednn_whole)" "$(awk -v a="$ob" -v b="$dn" 'BEGIN { printf "%s %.2fx", (b > a) ? "oneDNN" : "OpenBLAS", (b > a) ? b / a : a / b }')"
    done
    read -r mo md mq <<< "$(lib_ab $OB $cfg openblas onednn)"
    printf "training, config %s, rope: %.0f tokens/s with OpenBLAS, %.0f with oneDNN; oneDNN / OpenBLAS %.3f (median of %s rounds of %s steps)\n\n" \
      $cfg "$mo" "$md" "$mq" "${ROUNDS:-3}" "$steps"
  done
fi

# bf16 against fp32: training tokens/s at S and M, alternating runs (a slow spell hits both)
if want bf16; then
  echo
  if ! BENCH_PRECISION=bf16 $B train S rope 0 1 > /dev/null 2> /tmp/posgpt-bench-bf16.$$; then
    echo "bf16: skipped: $(sed 's/^posgpt: error: //' /tmp/posgpt-bench-bf16.$$)"
  else
    for cfg in S M; do
      f=() h=() q=() by=""
      for round in $(seq "${ROUNDS:-3}"); do
        tf=$(BENCH_PRECISION=fp32 $B train $cfg rope 3 "$steps" | get tokens_per_s)
        r=$(BENCH_PRECISION=bf16 $B train $cfg rope 3 "$steps"); th=$(echo "$r" | get tokens_per_s); by=$(echo "$r" | get bf16_by)
        f+=("$tf") h+=("$th") q+=("$(awk -v a="$th" -v b="$tf" 'BEGIN { print a / b }')")
      done
      printf "bf16, config %s (rope), %d threads, OpenBLAS %s kernels, bf16 products by %s: %.0f tokens/s fp32, %.0f bf16; ratio %.2f (median of %d rounds)\n" \
        $cfg "$OMP_NUM_THREADS" "$core" "$by" "$(med "${f[@]}")" "$(med "${h[@]}")" "$(med "${q[@]}")" "${ROUNDS:-3}"
    done
  fi
  rm -f /tmp/posgpt-bench-bf16.$$
fi
