#!/usr/bin/env bash
# test_mpi.sh - data-parallel training over MPI (./posgpt-mpi, make MPI=1; train/dist.c, shards.c):
#  - `mpirun -np 2` trains bit for bit like one process with the same --grad-shards (the
#    checkpoint's bytes and every logged loss and gradient norm), for a bias scheme on text, a
#    query-dependent one with random positions, and a task (a masked loss: the shards score
#    different numbers of answer bytes; fresh examples, made on every process alike), also
#    packed (--pack: each shard packs its own rows);
#    -np 4 likewise;
#  - cutting the batch in shards computes the same gradient: the first step's gradient norm of
#    2 and 4 shards agrees with 1 shard's to 1e-4 (float sums in another order, relative
#    error ~1e-6 at this size);
#  - a run stopped under 2 processes resumes in 1 with the same bytes as the uninterrupted run;
#    a 1-shard run resumed under 2 processes says that its shards change;
#  - SIGTERM to mpirun, or to one rank only: every process stops after the same step, rank 0
#    saves it, and the message says so; a rank killed outright (SIGKILL) ends the job with
#    mpirun's message and the last periodic checkpoint intact and resumable;
#  - refusals: 3 processes, their messages whole lines (one prefix each), the plain build under mpirun, eval under mpirun, a --grad-shards
#    the batch or the process count cannot take;
#  - the processes agree before the first step: a flag given differently on one rank (--lr, a
#    scheme hyperparameter, --stop-at, which used to leave rank 1 waiting forever, --data) is
#    refused naming the flag and both values; the same --data path holding another text on
#    one rank (its own working directory) names the data's bytes and CRC on both; --threads
#    may differ (per process);
#  - nothing waits forever: a data file missing on rank 1 only ends the job within 20 s with
#    rank 1's message; a process that ends before MPI starts ends the job after
#    POSGPT_MPI_INIT_TIMEOUT seconds with a message (it used to hang), and a bad value of it
#    is refused.
# Every one-process reference runs the same ./posgpt-mpi without mpirun (then it is one
# process): bit-identity is a claim about one binary (another build may contract a*b+c into
# one fused multiply-add where this one does not). Without OpenMPI the test is skipped (0
# checks), unless POSGPT_REQUIRE_MPI=1 (CI) makes that a failure.
. "$(dirname "$0")/lib.sh" mpi
MPIBIN=${POSGPT_MPI:-./posgpt-mpi}
if ! command -v mpirun > /dev/null || [ ! -x "$MPIBIN" ]; then
  if [ "${POSGPT_REQUIRE_MPI:-0}" = 1 ]; then bad "MPI" "mpirun or $MPIBIN is missing (tools/deps.sh mpi; make MPI=1)"
  else echo "# skipped: OpenMPI is not installed (tools/deps.sh mpi), or $MPIBIN is not built (make MPI=1)"; fi

  echo "# $pass passed, $fail failed"
  [ $fail -eq 0 ]; exit
fi
# mpirun, given a SIGTERM (or Ctrl-C), sends the processes SIGCONT, waits this many seconds
# (OpenMPI's default: 1), sends SIGTERM, waits as long again, then SIGKILL, reading none of their
# output meanwhile (rank 0 skips progress lines while its stderr pipe is half full; once a rank
# blocked on a full pipe here); 3 leaves rank 0 time to save on a loaded machine
export OMPI_MCA_odls_base_sigkill_timeout=3
MPIRUN=(mpirun --oversubscribe $([ "$(id -u)" = 0 ] && echo --allow-run-as-root) --mca btl self,vader)
phrase_text 11 4000 > "$tmp/text.txt"
M=(--layers 2 --d-model 32 --heads 4 --batch 8 --steps 12 --lr 3e-3 --eval-every 6 --val-tokens 2048 --log-every 1 --threads 1)
A=(--data "$tmp/text.txt" --seq-len 32 "${M[@]}")
losses() { cut -d, -f1-5 "$1/log.csv"; } # step, train loss, val loss, lr, grad norm
same() { cmp -s "$1/model.bin" "$2/model.bin" && [ "$(losses "$1")" = "$(losses "$2")" ]; }

# ---- -np 2 (and 4) == one process with as many shards ----
$BIN task gen --task copy --max-len 8 --n 400 --seed 1 --out "$tmp/copy" > /dev/null
cases=("t5|--pos t5" "fire-random|--pos fire --positions random --rand-max 256" "task|--pos nope --task $tmp/copy"
       "task-pack|--pos rope --task $tmp/copy --pack")
for c in "${cases[@]}"; do
  name=${c%%|*}; read -ra F <<< "${c#*|}"
  AA=("${A[@]}")
  # the task's examples set --seq-len, and a task run validates on all its held-out examples (no --val-tokens)
  case $name in task*) AA=(); for ((i = 0; i < ${#M[@]}; i++)); do [ "${M[i]}" = --val-tokens ] && { i=$((i + 1)); continue; }; AA+=("${M[i]}"); done ;; esac
  "$MPIBIN" train "${AA[@]}" "${F[@]}" --grad-shards 2 --out "$tmp/$name-s2" > /dev/null 2> "$tmp/$name-s2.err" \
    || bad "$name: one process, 2 shards" "$(tail -1 "$tmp/$name-s2.err")"
  "${MPIRUN[@]}" -np 2 "$MPIBIN" train "${AA[@]}" "${F[@]}" --out "$tmp/$name-np2" > "$tmp/$name-np2.out" 2> "$tmp/$name-np2.err" \
    || bad "$name: mpirun -np 2" "$(grep error "$tmp/$name-np2.err" | head -1)"
  if same "$tmp/$name-s2" "$tmp/$name-np2"; then ok "$name: mpirun -np 2 gives the bytes and losses of one process with --grad-shards 2"
  else bad "$name: -np 2 vs one process" "$(diff <(losses "$tmp/$name-s2") <(losses "$tmp/$name-np2") | head -4)"; fi
  grep -q "2 processes, 2 gradient shards: the gradient exchange took" "$tmp/$name-np2.out" \
    && ok "$name: rank 0 reports the exchange time" || bad "$name: exchange time" "$(tail -2 "$tmp/$name-np2.out")"
  [ "$(grep -c 'OpenBLAS' "$tmp/$name-np2.err")" = 1 ] && grep -q "2 processes x 1 threads" "$tmp/$name-np2.err" \
    && ok "$name: one banner, naming the processes" || bad "$name: banner" "$(grep OpenBLAS "$tmp/$name-np2.err")"
done
# (the task runs make fresh examples, task_draw_fresh: example b of a step is the same on any process)
grep -q "^examples = fresh" "$tmp/task-np2/config.txt" && grep -q "^examples = fresh" "$tmp/task-pack-np2/config.txt" \
  && ok "task, task-pack: trained on fresh examples (the default), the same bytes on 2 processes as on one" \
  || bad "task: fresh examples" "$(grep examples "$tmp/task-np2/config.txt")"
# train --until-acc --after-learn: the lead decides when the task is learned; every process goes
# on for the same steps after it and stops at the same step (the bytes of one process, 2 shards)
$BIN task gen --task copy --max-len 3 --n 400 --seed 1 --out "$tmp/copy3" > /dev/null
U=(--task "$tmp/copy3" --task-examples file --pos alibi --layers 1 --d-model 32 --heads 2 --batch 32 --lr 1e-2 --threads 1
   --steps 400 --eval-every 20 --until-acc 0.1 --after-learn 10)
"$MPIBIN" train "${U[@]}" --grad-shards 2 --out "$tmp/al-s2" > /dev/null 2>&1
"${MPIRUN[@]}" -np 2 "$MPIBIN" train "${U[@]}" --out "$tmp/al-np2" > /dev/null 2> "$tmp/al-np2.err"
S=$(sed -n 's/^  "steps_to_learn": \([0-9]*\),$/\1/p' "$tmp/al-np2/summary.json")
[ -n "$S" ] && grep -q '^  "step": '$((S + 10))',$' "$tmp/al-np2/summary.json" && same "$tmp/al-s2" "$tmp/al-np2" \
  && cmp -s "$tmp/al-s2/model-learned.bin" "$tmp/al-np2/model-learned.bin" \
  && ok "task --until-acc --after-learn 10: learned at step $S, both processes stop at step $((S + 10)), the bytes of one process" \
  || bad "--after-learn under MPI" "steps_to_learn '$S': $(grep error "$tmp/al-np2.err" | head -1)"
"$MPIBIN" train "${A[@]}" --pos cope --grad-shards 4 --out "$tmp/s4" > /dev/null 2>&1
"${MPIRUN[@]}" -np 4 "$MPIBIN" train "${A[@]}" --pos cope --out "$tmp/np4" > /dev/null 2> "$tmp/np4.err"
same "$tmp/s4" "$tmp/np4" && ok "cope: mpirun -np 4 gives the bytes and losses of one process with --grad-shards 4" \
  || bad "-np 4" "$(grep error "$tmp/np4.err" | head -1)"
"${MPIRUN[@]}" -np 2 "$MPIBIN" train "${A[@]}" --pos cope --grad-shards 4 --out "$tmp/np2s4" > /dev/null 2>&1
same "$tmp/s4" "$tmp/np2s4" && ok "cope: mpirun -np 2 --grad-shards 4 gives the same bytes too" || bad "-np 2 --grad-shards 4" "differs"

# ---- shards compute the same gradient as the whole batch ----
"$MPIBIN" train "${A[@]}" --pos cope --out "$tmp/s1" > /dev/null 2>&1
norm1() { awk -F, 'NR == 2 { print $5 }' "$1/log.csv"; }
"$MPIBIN" train "${A[@]}" --pos cope --grad-shards 2 --out "$tmp/c2" > /dev/null 2>&1
for d in c2 s4; do
  if awk -v a="$(norm1 "$tmp/s1")" -v b="$(norm1 "$tmp/$d")" 'BEGIN { r = (a - b) / a; exit !(a > 0 && r < 1e-4 && r > -1e-4) }'; then
    ok "$d: the first step's gradient norm matches one shard's ($(norm1 "$tmp/$d") vs $(norm1 "$tmp/s1"))"
  else bad "$d: gradient norm" "$(norm1 "$tmp/$d") vs $(norm1 "$tmp/s1")"; fi
done

# ---- resume with another process count ----
"${MPIRUN[@]}" -np 2 "$MPIBIN" train "${A[@]}" --pos cope --out "$tmp/r2" --stop-at 5 > /dev/null 2>&1
"$MPIBIN" train --resume "$tmp/r2" > /dev/null 2> "$tmp/r2.err"
# (--stop-at validates at the pause: the val_loss column has one more value)
cmp -s "$tmp/r2/model.bin" "$tmp/c2/model.bin" && [ "$(cut -d, -f1,2,4,5 "$tmp/r2/log.csv")" = "$(cut -d, -f1,2,4,5 "$tmp/c2/log.csv")" ] \
  && ok "stopped under 2 processes, resumed in 1: the bytes and losses of the uninterrupted run" \
  || bad "resume -np 2 -> 1" "$(tail -1 "$tmp/r2.err")"
"$MPIBIN" train "${A[@]}" --pos cope --out "$tmp/r1" --stop-at 5 > /dev/null 2>&1
"${MPIRUN[@]}" -np 2 "$MPIBIN" train --resume "$tmp/r1" > /dev/null 2> "$tmp/r1.err"
if grep -q "note: the run summed each step's gradient over 1 shard; from step 5 on, over 2" "$tmp/r1.err" \
   && $BIN info "$tmp/r1/model.bin" | grep -q "step 12 of 12, batch 8 (in 2 gradient shards)"; then
  ok "a 1-shard run resumed under 2 processes finishes in 2 shards and says so"
else bad "resume 1 -> -np 2" "$(grep -v '^step' "$tmp/r1.err" | tail -2)"; fi

# ---- signals and a dead rank ----
L=("${A[@]}")
L[${#L[@]}]=--steps; L[${#L[@]}]=100000; L[${#L[@]}]=--ckpt-every; L[${#L[@]}]=20
# the process of rank $1 of the job writing into $2 (only this job's: another test's MPI jobs may run
# beside it; once, a SIGTERM meant for this job's rank 1 went nowhere and the job trained on)
ranks() { for p in $(pgrep -f "$MPIBIN train.* --out $2( |$)"); do tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -q "^OMPI_COMM_WORLD_RANK=$1$" && echo $p; done; }
wait_steps() { for _ in $(seq 300); do [ -s "$1/model.bin" ] && [ "$(wc -l < "$1/log.csv" 2>/dev/null || echo 0)" -gt 40 ] && return 0; sleep 0.1; done; return 1; }
# wait for the job PID at most 60 s: a job that does not end after the signal is a failure, killed
# with its ranks, not a CI that waits forever
wait_job() {
  for _ in $(seq 600); do kill -0 "$1" 2> /dev/null || { wait "$1"; return; }; sleep 0.1; done
  bad "a job ($2)" "still running 60 s after the signal; killed"
  pkill -KILL -f "$MPIBIN train.* --out $3( |$)" 2> /dev/null; kill -KILL "$1" 2> /dev/null; wait "$1" 2> /dev/null; return 124
}
for how in mpirun rank1; do
  d=$tmp/sig-$how
  "${MPIRUN[@]}" -np 2 "$MPIBIN" train "${L[@]}" --pos t5 --out "$d" > "$d.out" 2> "$d.err" & pid=$!
  wait_steps "$d" || bad "signal ($how)" "the run did not start"
  if [ $how = mpirun ]; then kill -TERM $pid; else kill -TERM $(ranks 1 "$d"); fi
  wait_job $pid "SIGTERM to $how" "$d"; rc=$?
  msg=$(grep "received SIGTERM: stopped at step" "$d.err")
  step=$(sed -n 's/.*stopped at step \([0-9]*\) of.*/\1/p' <<< "$msg")
  if [ $rc -ne 0 ] && [ -n "$step" ] && $BIN info "$d/model.bin" | grep -q "step $step of 100000"; then
    ok "SIGTERM to $how: exit $rc, every process stopped, rank 0 saved step $step and says so"
  else bad "SIGTERM to $how" "rc $rc; $(grep -v '^step' "$d.err" | tail -2)"; fi
done
d=$tmp/kill9
"${MPIRUN[@]}" -np 2 "$MPIBIN" train "${L[@]}" --pos t5 --out "$d" > "$d.out" 2> "$d.err" & pid=$!
wait_steps "$d" || bad "kill -9" "the run did not start"
kill -KILL $(ranks 1 "$d")
wait_job $pid "SIGKILL to rank 1" "$d"; rc=$?
step=$($BIN info "$d/model.bin" 2>&1 | sed -n 's/^training *step \([0-9]*\) of.*/\1/p')
if [ $rc -ne 0 ] && grep -q "exited on signal 9" "$d.err" && [ -n "$step" ] && [ $((step % 20)) = 0 ]; then
  ok "a rank killed with SIGKILL ends the job (exit $rc, mpirun names it); the checkpoint of step $step is intact"
else bad "kill -9 a rank" "rc $rc, step '$step'; $(grep -i -m1 'signal\|error' "$d.err")"; fi
"$MPIBIN" train --resume "$d" --stop-at $((step + 2)) > /dev/null 2> "$d.resume" \
  && ok "... and the run resumes from it" || bad "resume after kill -9" "$(tail -1 "$d.resume")"

# ---- refusals ----
expect() { # NAME PATTERN command...: fails (not by timeout's 124) with a message matching PATTERN
  local name=$1 pat=$2 rc=0; shift 2
  "$@" > "$tmp/x.out" 2> "$tmp/x.err" || rc=$?
  if [ $rc = 0 ] || [ $rc = 124 ]; then bad "$name" "exit $rc"
  elif grep -q -- "$pat" "$tmp/x.err"; then ok "$name: $(grep -m1 -- "$pat" "$tmp/x.err" | cut -c1-150)"
  else bad "$name" "rc $rc; $(grep -m1 error "$tmp/x.err")"; fi
}
expect "3 processes" "needs a power of two" "${MPIRUN[@]}" -np 3 "$MPIBIN" train "${A[@]}" --pos alibi --out "$tmp/x3"
# every rank's message is one line with one prefix (die printed it in three writes, and the
# ranks' pieces interleaved after MPI_Init: "posgpt: error: posgpt: error: rank 1: ...")
mixed=0
for i in 1 2 3 4 5; do
  "${MPIRUN[@]}" -np 3 "$MPIBIN" train "${A[@]}" --pos alibi --out "$tmp/x3" > /dev/null 2> "$tmp/x.err"
  [ "$(grep -c '^posgpt: error: \(rank [12]: \)\?train: 3 processes; the exact gradient sum needs a power of two (1, 2, 4, 8, ...): use mpirun -np 2$' "$tmp/x.err")" = 3 ] \
    && ! grep -q 'error: .*posgpt: error' "$tmp/x.err" || mixed=$((mixed + 1))
done
[ $mixed = 0 ] && ok "3 ranks refusing at once: each message is one whole line, one prefix" \
  || bad "ranks' messages" "mixed in $mixed of 5 tries: $(grep -m1 'error: .*error' "$tmp/x.err")"
expect "plain build under mpirun" "built without MPI" "${MPIRUN[@]}" -np 2 "$BIN" train "${A[@]}" --pos alibi --out "$tmp/xp"
expect "eval under mpirun" "eval runs in one process" "${MPIRUN[@]}" -np 2 "$MPIBIN" eval --ckpt "$tmp/s1/model.bin" --data "$tmp/text.txt"
expect "--grad-shards 3" "a power of two" $BIN train "${A[@]}" --pos alibi --grad-shards 3 --out "$tmp/x4"
expect "--grad-shards 16 of a batch of 8" "cannot be cut into 16" $BIN train "${A[@]}" --pos alibi --grad-shards 16 --out "$tmp/x5"
expect "--grad-shards 2 on 4 processes" "every one of the 4 processes" "${MPIRUN[@]}" -np 4 "$MPIBIN" train "${A[@]}" --pos alibi --grad-shards 2 --out "$tmp/x6"

# ---- the processes agree before the first step; nothing waits forever ----
on1() { # FLAGS-OF-RANK-1 FLAGS...: mpirun -np 2 train, rank 1 with its own extra flags (last: they win)
  local r1=$1; shift
  timeout 60 "${MPIRUN[@]}" -np 2 bash -c "x=; [ \$OMPI_COMM_WORLD_RANK = 1 ] && x='$r1'; exec $MPIBIN train $* \$x"
}
expect "--lr on rank 1 only" "started with different flags: --lr is 0.003 on rank 0 but 0.001 on rank 1; every process must run the same command" \
  on1 "--lr 1e-3" "${A[*]}" --pos alibi --out "$tmp/xa"
expect "--rope-base on rank 1 only" "different flags: --rope-base is 10000 on rank 0 but 500 on rank 1" \
  on1 "--rope-base 500" "${A[*]}" --pos rope --rope-base 10000 --out "$tmp/xb"
expect "--stop-at on rank 1 only (it used to hang)" "different flags: --stop-at is 5 on rank 0 but 6 on rank 1" \
  on1 "--stop-at 6" "${A[*]}" --pos alibi --stop-at 5 --out "$tmp/xc"
phrase_text 12 4000 > "$tmp/text1.txt"
expect "--data of another file on rank 1" "different flags: --data is $tmp/text.txt on rank 0 but $tmp/text1.txt on rank 1" \
  on1 "--data $tmp/text1.txt" "${A[*]}" --pos alibi --out "$tmp/xd"
mkdir -p "$tmp/cwd0" "$tmp/cwd1"; cp "$tmp/text.txt" "$tmp/cwd0/t.txt"; head -3000 "$tmp/text.txt" > "$tmp/cwd1/t.txt"
in_cwd() { timeout 60 "${MPIRUN[@]}" -np 2 bash -c "cd $tmp/cwd\$OMPI_COMM_WORLD_RANK && exec $(realpath "$MPIBIN") train $*"; }
expect "the same --data path, another text on rank 1" \
  "do not start from the same state: the data is $(wc -c < "$tmp/cwd0/t.txt") bytes, CRC-32 [0-9a-f]* on rank 0 but $(wc -c < "$tmp/cwd1/t.txt") bytes" \
  in_cwd --data t.txt --seq-len 32 --pos alibi "${M[*]}" --out "$tmp/xe"
on1 "--threads 2" "${A[*]}" --pos alibi --steps 2 --out "$tmp/xf" > /dev/null 2> "$tmp/xf.err" \
  && ok "--threads may differ between processes" || bad "--threads on rank 1 only" "$(grep -m1 error "$tmp/xf.err")"
rm "$tmp/cwd1/t.txt"
t0=$(date +%s)
expect "a data file missing on rank 1 only ends the job" "cannot read data file 't.txt'" \
  timeout 20 "${MPIRUN[@]}" -np 2 bash -c "cd $tmp/cwd\$OMPI_COMM_WORLD_RANK && exec $(realpath "$MPIBIN") train --data t.txt --seq-len 32 --pos alibi ${M[*]} --out $tmp/xg"
echo "# (ended in $(($(date +%s) - t0)) s)"
expect "rank 1 ends before MPI starts (it used to hang)" "MPI did not start within 3 s: not every process of the launch reached MPI_Init" \
  timeout 40 "${MPIRUN[@]}" -np 2 -x POSGPT_MPI_INIT_TIMEOUT=3 bash -c \
  "[ \$OMPI_COMM_WORLD_RANK = 1 ] && exit 0; exec $MPIBIN train ${A[*]} --pos alibi --out $tmp/xh"
expect "POSGPT_MPI_INIT_TIMEOUT=soon" "POSGPT_MPI_INIT_TIMEOUT must be a number of seconds from 1 to 86400, got 'soon'" \
  timeout 40 "${MPIRUN[@]}" -np 2 -x POSGPT_MPI_INIT_TIMEOUT=soon "$MPIBIN" train "${A[@]}" --pos alibi --out "$tmp/xi"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
