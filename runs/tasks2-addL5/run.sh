#!/bin/bash
# add at L = 5 (lengths 1..5, tests to 15), the core six, seed 1, the task study's settings otherwise
# (tools/tasks2.sh: cap 10000, until 0.9, 1000 steps after, packed, 3 blocks of width 64): does
# this model learn addition at all, where at L = 20 none of 16 runs did?
set -euo pipefail
cd "$(dirname "$0")"
B=../tasks2/bin/posgpt
export OPENBLAS_CORETYPE=SkylakeX
# the data: tools/tasks2.sh's for add, at --max-len 5 (tests to 3L: 15)
[ -s data/test.txt ] || $B task gen --task add --max-len 5 --n 100000 --test-mult 3 --test-per-len 100 --seed 1 --format lsb --out data --overwrite > gen.txt
for s in sinusoidal learned t5 alibi rope nope; do
  d=$s/seed1
  [ -s $d/acc.csv ] && continue
  x=(); [ $s = learned ] && x=(--max-pos 50)
  mkdir -p $d
  t0=$SECONDS
  $B train --task data --pos $s --out $d --overwrite --layers 3 --d-model 64 --heads 4 --batch 64 --steps 10000 --lr 3e-3 --seed 1 \
    --eval-every 250 --until-acc 0.9 --after-learn 1000 --threads 1 --pack "${x[@]}" > $d/train.txt 2> $d/train.err
  $B task eval --ckpt $d/model.bin --task data --threads 1 --csv $d/acc.csv.part 2> $d/eval.txt && mv $d/acc.csv.part $d/acc.csv
  echo "$s: $((SECONDS - t0)) s, steps_to_learn $(sed -n 's/^  "steps_to_learn": \(.*\),$/\1/p' $d/summary.json)"
done
