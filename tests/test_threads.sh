#!/usr/bin/env bash
# test_threads.sh - the determinism contract (docs/architecture.md, "Determinism"): on one OpenBLAS kernel,
# training and evaluation give the same floats whatever the thread count and thread binding.
#  - training with --threads 1, 2 and 3 writes byte-identical checkpoints and the same losses
#    and gradient norms in log.csv, for a bias scheme with parameters (t5), a content-term
#    scheme (cope), a rotary one (rope) and an MLP bias (fire); the model is large enough that
#    the big products are cut into several bands and the weight gradients' K into chunks
#    (model/layers.c, gemm), the column sums into row chunks and the training attention into
#    two query blocks;
#  - t5 and cope on 5, 8 and 16 threads (more threads than this machine may have: they take
#    turns, the floats must not change), and on 2 and 5 threads bound to places
#    (OMP_PROC_BIND=close OMP_PLACES=cores, and spread over threads), write the same checkpoints;
#  - a run stopped on 2 threads and resumed on 1 (or 3) ends with the same checkpoint as the
#    uninterrupted run;
#  - eval on 1 and 3 threads prints the same loss.
# Which kernel ran is printed (# kernel: ...): .ci/run runs the suite under several.
. "$(dirname "$0")/lib.sh" threads
awk 'BEGIN { srand(5); split("the a every no", d); split("cat dog ship bird tree river", n); split("sees finds keeps hears", v);
  for (i = 0; i < 3000; i++) printf "%s %s %s %s %s.\n", d[int(rand()*4)+1], n[int(rand()*6)+1], v[int(rand()*4)+1],
  d[int(rand()*4)+1], n[int(rand()*6)+1] }' > "$tmp/text.txt"
kernel=$($BIN --version | sed -n 's/.*OpenBLAS \([A-Za-z0-9_]*\) kernels$/\1/p')
echo "# kernel: ${kernel:-unknown}; products: $($BIN --version | sed -n 2p)"
# 1152 tokens a step, width 64: the token-row products (e.g. 1152 x 256 x 64) are cut into
# 16 bands, the weight gradients (e.g. 192 x 64 x 1152) into 2 bands x 4 chunks of K; length 96:
# the training attention in query blocks of 64 and 32
A=(--data "$tmp/text.txt" --layers 2 --d-model 64 --heads 4 --seq-len 96 --batch 12 --steps 12 --lr 3e-3
   --eval-every 6 --val-tokens 4096 --ckpt-every 6 --log-every 1 --seed 3)
losses() { cut -d, -f1-5 "$1/log.csv"; } # step, train loss, val loss, lr, grad norm
for s in t5 cope rope fire; do
  for t in 1 2 3; do
    $BIN train "${A[@]}" --pos $s --threads $t --out "$tmp/$s-t$t" > /dev/null 2> "$tmp/$s-t$t.err" \
      || bad "train $s --threads $t" "$(tail -1 "$tmp/$s-t$t.err")"
  done
  if cmp -s "$tmp/$s-t1/model.bin" "$tmp/$s-t2/model.bin" && cmp -s "$tmp/$s-t1/model.bin" "$tmp/$s-t3/model.bin" \
     && [ "$(losses "$tmp/$s-t1")" = "$(losses "$tmp/$s-t2")" ] && [ "$(losses "$tmp/$s-t1")" = "$(losses "$tmp/$s-t3")" ]; then
    ok "$s: training on 1, 2 and 3 threads gives byte-identical checkpoints and identical losses"
  else bad "$s: training on 1, 2, 3 threads" "$(cmp "$tmp/$s-t1/model.bin" "$tmp/$s-t3/model.bin" 2>&1 | head -1); $(diff <(losses "$tmp/$s-t1") <(losses "$tmp/$s-t3") | head -3 | tr '\n' ' ')"; fi
done
# more threads, and threads bound to places: the same checkpoint as on 1 thread
same_ckpt() { # NAME DIR: DIR's checkpoint and losses are those of NAME's run on 1 thread
  cmp -s "$tmp/$1-t1/model.bin" "$2/model.bin" && [ "$(losses "$tmp/$1-t1")" = "$(losses "$2")" ]
}
for s in t5 cope; do
  for run in "5" "8" "16" "2 close cores" "5 close cores" "2 spread threads"; do
    set -- $run
    d=$tmp/$s-x$1${2:-}${3:-}
    env ${2:+OMP_PROC_BIND=$2 OMP_PLACES=$3} $BIN train "${A[@]}" --pos $s --threads $1 --out "$d" > /dev/null 2> "$d.err" \
      || bad "train $s --threads $1" "$(tail -1 "$d.err")"
    if same_ckpt $s "$d"; then ok "$s: training on $1 threads${2:+ (OMP_PROC_BIND=$2 OMP_PLACES=$3)} == 1 thread, byte for byte"
    else bad "$s: training on $1 threads${2:+ bound $2/$3}" "$(cmp "$tmp/$s-t1/model.bin" "$d/model.bin" 2>&1 | head -1)"; fi
  done
done
# bound threads keep their cores when posgpt re-executes itself for faster OpenBLAS kernels
# (POSGPT_TEST_REEXEC=1 forces that path): the OpenMP runtime had bound the first thread to one
# core, and the new image must not inherit that one-core mask (all threads would share it; the
# start-up check then warns that the process may run on 1 core)
if [ "$(nproc)" -ge 2 ]; then
  d=$tmp/reexec
  POSGPT_TEST_REEXEC=1 OMP_PROC_BIND=close OMP_PLACES=cores $BIN train "${A[@]}" --pos t5 --threads 2 --out "$d" > /dev/null 2> "$d.err"; rc=$?
  if [ $rc = 0 ] && ! grep -q "may run on" "$d.err" && same_ckpt t5 "$d"; then
    ok "re-executed for the OpenBLAS kernel under OMP_PROC_BIND=close OMP_PLACES=cores: 2 threads keep 2 cores, same checkpoint"
  else bad "re-exec under binding" "rc $rc; $(grep -m1 "may run on\|error" "$d.err")"; fi
else echo "# skipped the re-exec binding check: one core"; fi
# resume across thread counts: stop at step 6 on 2 threads, continue on 1 and on 3
for t in 1 3; do
  d=$tmp/split-t$t
  $BIN train "${A[@]}" --pos t5 --threads 2 --stop-at 6 --out "$d" > /dev/null 2>&1
  $BIN train --resume "$d" --data "$tmp/text.txt" --threads $t --eval-every 6 --val-tokens 4096 --ckpt-every 6 --log-every 1 \
    > /dev/null 2> "$d.err" || bad "resume on $t threads" "$(tail -1 "$d.err")"
  if cmp -s "$tmp/t5-t2/model.bin" "$d/model.bin" && [ "$(losses "$tmp/t5-t2")" = "$(losses "$d")" ]; then
    ok "stopped on 2 threads, resumed on $t: checkpoint and losses identical to the uninterrupted run"
  else bad "resume on $t threads" "$(cmp "$tmp/t5-t2/model.bin" "$d/model.bin" 2>&1 | head -1); $(diff <(losses "$tmp/t5-t2") <(losses "$d") | head -3 | tr '\n' ' ')"; fi
done
# eval: same loss on 1 and 3 threads, at 4x the training length (attention cut into query blocks)
for t in 1 3; do
  $BIN eval --ckpt "$tmp/cope-t1/model.bin" --data "$tmp/text.txt" --lengths 256 --max-tokens 4096 --threads $t \
    --csv "$tmp/eval-t$t.csv" > /dev/null 2>&1
done
if [ -s "$tmp/eval-t1.csv" ] && cmp -s "$tmp/eval-t1.csv" "$tmp/eval-t3.csv"; then
  ok "eval on 1 and 3 threads: identical CSV ($(tail -1 "$tmp/eval-t1.csv" | cut -d, -f7) nats)"
else bad "eval on 1 and 3 threads" "$(diff "$tmp/eval-t1.csv" "$tmp/eval-t3.csv" | head -3 | tr '\n' ' ')"; fi
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
