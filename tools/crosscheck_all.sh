#!/usr/bin/env bash
# crosscheck_all.sh - every scheme through the project's PyTorch reference model: train a small
# model per scheme (and the sharing variants, randomized positions), score its held-out loss
# with tools/torch_ref.py (written from docs/ alone) at L = T and 4T, compare with posgpt eval;
# export each to safetensors and compare again through tools/safetensors_check.py.
#
#   tools/crosscheck_all.sh [DIR]      (default DIR: a temporary directory, removed at the end)
#
# Needs Debian's python3-torch and python3-numpy (tools/deps.sh torch). Prints one line per
# check and ends with "N passed, N failed"; exit status 0 only if every check passed.
# About 5 minutes on 2 cores.
set -uo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
bin=${POSGPT:-./posgpt}
data=${DATA:-data/kjv.txt}
[ -x "$bin" ] || { echo "crosscheck_all: $bin not built (make)" >&2; exit 2; }
[ -s "$data" ] || { echo "crosscheck_all: $data missing (make data)" >&2; exit 2; }
/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || { echo "crosscheck_all: needs python3-torch and python3-numpy (tools/deps.sh torch)" >&2; exit 2; }
dir=${1:-}
if [ -z "$dir" ]; then dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi
mkdir -p "$dir"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
T=32
pass=0 fail=0
# name: scheme and extra training flags
runs=(
  "sinusoidal" "learned" "t5" "alibi" "rope" "nope" "kerple-log" "kerple-power" "sandwich" "xpos"
  "fire" "cope" "shaw --shaw-clip 8" "xl"
  "fire --pos-sharing shared" "t5 --pos-sharing layer" "xl --pos-sharing layer" "cope --pos-sharing shared"
  "rope --rope-interleaved 1" "rope --positions random --rand-max 256" "learned --positions random --rand-max 256"
)
for r in "${runs[@]}"; do
  set -- $r
  name=$(echo "$r" | tr ' ' '_' | tr -s '_' | sed 's/--//g')
  out="$dir/$name"
  if ! "$bin" train --data "$data" --out "$out" --overwrite --pos $r --seq-len $T --layers 2 --d-model 32 --heads 2 \
       --batch 8 --steps 200 --lr 3e-3 --eval-every 200 --ckpt-every 200 --val-tokens 4096 --threads 2 > "$out.log" 2>&1; then
    echo "FAIL $name: training failed: $(tail -1 "$out.log")"; fail=$((fail + 1)); continue
  fi
  for L in $T $((4 * T)); do
    extra=()
    [[ $r == learned* ]] && extra=(--clamp-pos)
    if res=$(/usr/bin/python3 tools/torch_crosscheck.py --ckpt "$out/model.bin" --data "$data" --len $L --max-tokens 4096 \
             --compare --tol 2e-6 --posgpt "$bin" "${extra[@]}" 2>&1); then
      echo "PASS $name L=$L: $(echo "$res" | tail -1 | grep -o '|diff|.*' | cut -c1-30)"; pass=$((pass + 1))
    else
      echo "FAIL $name L=$L: $(echo "$res" | tail -2 | tr '\n' ' ')"; fail=$((fail + 1))
    fi
  done
  "$bin" export --ckpt "$out/model.bin" --out "$out/model.safetensors" > /dev/null 2>&1
  if res=$(/usr/bin/python3 tools/safetensors_check.py --st "$out/model.safetensors" --ckpt "$out/model.bin" --data "$data" \
           --max-tokens 4096 --tol 2e-6 --posgpt "$bin" 2>&1); then
    echo "PASS $name safetensors: $(echo "$res" | grep -o 'difference.*' | head -1)"; pass=$((pass + 1))
  else
    echo "FAIL $name safetensors: $(echo "$res" | tail -2 | tr '\n' ' ')"; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
