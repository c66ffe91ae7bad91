#!/usr/bin/python3
"""safetensors_check.py - the round trip of `posgpt export`: read the safetensors file with the
NumPy reader written from the format's specification (tools/safetensors_read.py), build the
project's PyTorch model (tools/torch_ref.py) from its metadata alone (with the context
extension it was trained with, if any), load the named tensors,
score held-out text as `posgpt eval` does, and compare with `posgpt eval` on the checkpoint
the file was exported from.

    /usr/bin/python3 tools/safetensors_check.py --st model.safetensors --ckpt model.bin \\
        --data data/kjv.txt [--len L] [--max-tokens N] [--tol X]

Prints CSV `source,eval_len,tokens,loss` (the PyTorch model on the safetensors file, then
posgpt eval on the checkpoint) and the absolute difference; exits 1 if it exceeds --tol
(default 1e-4 nats; float32 on both sides agree to about 1e-6), 2 on errors.
"""
import argparse
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def module(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--st", required=True, help="the safetensors file (posgpt export)")
    ap.add_argument("--ckpt", required=True, help="the checkpoint it was exported from (for posgpt eval)")
    ap.add_argument("--data", required=True, help="text whose held-out part is scored")
    ap.add_argument("--len", type=int, default=0, help="window length (default: the training length)")
    ap.add_argument("--max-tokens", type=int, default=8192)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--posgpt", default=os.path.join(os.path.dirname(HERE), "posgpt"))
    a = ap.parse_args()
    st, ref = module("safetensors_read"), module("torch_ref")
    try:
        meta, tensors = st.load(a.st)
    except (OSError, ValueError) as e:
        print(f"safetensors_check: error: {e}", file=sys.stderr)
        return 2
    if meta.get("producer", "").split(" ")[0] != "posgpt":
        print("safetensors_check: error: the metadata does not name posgpt as its producer", file=sys.stderr)
        return 2
    scheme = meta["pos"]
    hp = [float(meta[name]) for name, _ in ref.HYPERS.get(scheme, [])]
    hp += [0.0] * (8 - len(hp))
    dims = {k: int(meta[k]) for k in ("vocab", "d_model", "layers", "heads", "seq_len", "pos_rows", "rand_max")}
    # the scheme's tensors are "scheme.NAME", with a leading dimension of layers when per layer
    layout = []
    for name, shape, _ in ref.scheme_tensors(scheme, dims["d_model"], dims["heads"], dims["pos_rows"], hp):
        if "scheme." + name not in tensors:
            print(f"safetensors_check: error: the file has no tensor scheme.{name}", file=sys.stderr)
            return 2
        layout.append(len(tensors["scheme." + name].shape) == len(shape) + 1)
    model = ref.GPT(dims["vocab"], dims["d_model"], dims["layers"], dims["heads"], dims["seq_len"], scheme, hp,
                    dims["pos_rows"], dims["rand_max"], layout=layout)
    nfile = len(tensors)
    try:
        model.load_tensors(tensors)
    except ValueError as e:
        print(f"safetensors_check: error: {e}", file=sys.stderr)
        return 2
    model.eval()
    try:  # the context extension the model was trained with, as posgpt eval applies it
        ext = st.extension(meta)
    except ValueError as e:
        print(f"safetensors_check: error: {e}", file=sys.stderr)
        return 2
    if ext:
        model.set_rope_scaling(ext[0], ext[1], ext[2])
    L = a.len or dims["seq_len"]
    loss, tokens, _ = ref.evaluate(model, ref.heldout_text(a.data), L, a.max_tokens)
    out = subprocess.run([a.posgpt, "eval", "--ckpt", a.ckpt, "--data", a.data, "--lengths", str(L), "--max-tokens",
                          str(a.max_tokens)], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"safetensors_check: error: posgpt eval failed: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return 2
    row = out.stdout.strip().splitlines()[-1].split(",")
    ploss, ptokens = float(row[6]), int(row[5])
    diff = abs(loss - ploss)
    print("source,eval_len,tokens,loss")
    print(f"torch_ref+safetensors,{L},{tokens},{loss:.7f}")
    print(f"posgpt,{L},{ptokens},{ploss:.7f}")
    extn = f", extension {ext[0]} x{ext[1]:g} from {ext[2]}" if ext else ""
    print(f"# |difference| {diff:.3g} nats (tolerance {a.tol:g}); scheme {meta['scheme']}{extn}, {nfile} tensors in the file")
    return 0 if diff <= a.tol and tokens == ptokens else 1


if __name__ == "__main__":
    sys.exit(main())
