#!/usr/bin/python3
"""torch_crosscheck.py - score a posgpt checkpoint with the project's PyTorch reference model.

A thin wrapper around tools/torch_ref.py (or --ref FILE), posgpt's own PyTorch model written
from docs/model.md, docs/schemes.md and docs/checkpoint.md. The checkpoint (model.bin,
formats v1 to v5, any of the fourteen schemes, shared or per-layer tensors, randomized or not) is parsed in Python, its
parameters are copied into torch_ref's GPT, and the held-out text is scored exactly as
`posgpt eval` does (docs/model.md, "Evaluation"):

  * held-out text = the last 10% of the file: bytes [n - n//10, n) (or --val FILE, all of it);
  * nonoverlapping windows of length L (--len, default the checkpoint's T): window k has inputs
    val[kL : kL+L] and targets val[kL+1 : kL+L+1]; only whole windows; the first --max-tokens
    targets at most, so K = (min(nval, max_tokens + 1) - 1) // L windows;
  * contiguous positions 0..L-1 in every window (also for randomized checkpoints).

Output (stdout), CSV:
    source,eval_len,tokens,loss
    torch_ref,64,8192,3.370512
and with --compare also the `posgpt eval` row and the absolute difference; the exit status is
1 if the two losses differ by more than --tol nats (2 on usage / unsupported-checkpoint errors).
Every flag of torch_ref's scoring mode is accepted too (--val, --protocol sliding, --stride,
--pos-offset, --clamp-pos, --rope-scaling, ...; see `tools/torch_ref.py --help`).

Run with Debian's python (python3-torch, numpy):
    OMP_NUM_THREADS=1 /usr/bin/python3 tools/torch_crosscheck.py --ckpt runs/x/model.bin \\
        --data data/kjv.txt --len 256 --max-tokens 8192 --compare
"""
import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REF = os.path.join(HERE, "torch_ref.py")
DEFAULT_TOL = 2e-4


def load_ref(path):
    spec = importlib.util.spec_from_file_location("torch_ref", path)
    if spec is None or not os.path.isfile(path):
        print(f"torch_crosscheck: error: cannot import the reference model from '{path}'", file=sys.stderr)
        sys.exit(2)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--ref", default=DEFAULT_REF)
    known, rest = pre.parse_known_args(argv)
    ref = load_ref(known.ref)
    ap = ref.score_parser("torch_crosscheck", DEFAULT_TOL)
    ap.description = __doc__
    ap.add_argument("--ref", default=DEFAULT_REF, help=f"reference model file (default {DEFAULT_REF})")
    args = ap.parse_args(argv)
    return ref.score_main(args, prog="torch_crosscheck", source="torch_ref")


if __name__ == "__main__":
    sys.exit(main())
