#!/usr/bin/python3
"""torch_crosscheck.py - score a posgpt checkpoint with the plain PyTorch reference model.

An independent check of posgpt's forward pass: the checkpoint (model.bin, format v1, see
docs/checkpoint.md) is parsed here in Python, its parameters are copied into the GPT class of
the PyTorch reference (../shared/bench/torch_ref.py beside the repo, or --ref), and the held-out split of a
text file is scored exactly as `posgpt eval` does by default:

  * held-out text = the last 10% of the file: bytes [n - n//10, n);
  * nonoverlapping windows of length L (--len, default the checkpoint's T): window k has inputs
    val[kL : kL+L] and targets val[kL+1 : kL+L+1]; only whole windows; the first --max-tokens
    targets at most, so K = (min(nval, max_tokens + 1) - 1) // L windows;
  * contiguous positions 0..L-1 in every window (eval mode, also for randomized checkpoints).

Output (stdout), CSV:
    source,eval_len,tokens,loss
    torch_ref,64,8192,3.370512
and with --compare also the `posgpt eval` row and the absolute difference; the exit status is
1 if the two losses differ by more than --tol nats (2 on usage / unsupported-checkpoint errors).

Run with Debian's python (torch 1.13, numpy):
    OMP_NUM_THREADS=1 /usr/bin/python3 tools/torch_crosscheck.py --ckpt runs/x/model.bin \
        --data data/tinyshakespeare.txt --len 256 --max-tokens 8192 --compare
"""
import argparse
import importlib.util
import math
import os
import struct
import subprocess
import sys
import types
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_REF = os.path.join(REPO, "..", "shared", "bench", "torch_ref.py")
DEFAULT_POSGPT = os.path.join(REPO, "posgpt")

HEADER_SIZE = 1024
TENSOR_NAMES = ["wte", "ln1_w", "ln1_b", "qkv_w", "qkv_b", "attproj_w", "attproj_b", "ln2_w", "ln2_b",
                "fc_w", "fc_b", "fcproj_w", "fcproj_b", "lnf_w", "lnf_b", "pos"]


class Refuse(Exception):
    """The checkpoint (or request) is valid for posgpt but cannot be expressed in torch_ref."""


def fail(msg, code=2):
    print(f"torch_crosscheck: error: {msg}", file=sys.stderr)
    sys.exit(code)


# ----------------------------------------------------------------------------------------------
# checkpoint

def read_checkpoint(path):
    """Parse a posgpt v1 checkpoint: returns (header dict, {name: np.ndarray float32})."""
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < HEADER_SIZE:
        raise ValueError(f"{path}: {len(b)} bytes, shorter than the {HEADER_SIZE}-byte header")
    if b[:8] != b"POSGPTCK":
        raise ValueError(f"{path}: bad magic {b[:8]!r} (want b'POSGPTCK')")
    version, hsize = struct.unpack_from("<2I", b, 8)
    if version != 1:
        raise ValueError(f"{path}: format version {version}, this reader knows version 1")
    if hsize != HEADER_SIZE:
        raise ValueError(f"{path}: header size {hsize}, want {HEADER_SIZE}")
    h = {"version": version, "header_size": hsize}
    (h["V"], h["C"], h["L"], h["NH"], h["T"], h["pos_rows"], h["rand_max"],
     h["has_optimizer"]) = struct.unpack_from("<8I", b, 16)
    h["scheme"] = b[48:80].split(b"\0", 1)[0].decode("ascii")
    h["hp"] = list(struct.unpack_from("<8f", b, 80))
    h["P"], h["step"] = struct.unpack_from("<2Q", b, 112)
    h["rng"] = list(struct.unpack_from("<4Q", b, 128))
    (h["lr"], h["min_lr_frac"], h["wd"], h["beta1"], h["beta2"], h["eps"],
     h["clip"]) = struct.unpack_from("<7d", b, 160)
    h["warmup"], h["steps"], h["batch"] = struct.unpack_from("<3I", b, 216)
    h["seed"], = struct.unpack_from("<Q", b, 232)
    h["val_loss"], = struct.unpack_from("<d", b, 240)
    h["crc"], h["n_tensors"] = struct.unpack_from("<2I", b, 248)

    V, C, L, NH, P = h["V"], h["C"], h["L"], h["NH"], h["P"]
    if h["n_tensors"] != len(TENSOR_NAMES):
        raise ValueError(f"{path}: {h['n_tensors']} tensors, want {len(TENSOR_NAMES)}")
    if V != 256:
        raise ValueError(f"{path}: vocabulary {V}, posgpt checkpoints are byte-level (256)")
    if min(C, L, NH, h["T"]) < 1 or C % NH:
        raise ValueError(f"{path}: bad dimensions C={C} L={L} NH={NH} T={h['T']}")
    want = HEADER_SIZE + 4 * P * (3 if h["has_optimizer"] else 1)
    if len(b) != want:
        raise ValueError(f"{path}: file is {len(b)} bytes; the header (P={P}, has_optimizer="
                         f"{h['has_optimizer']}) implies {want}")
    crc = zlib.crc32(b[:248] + bytes(4) + b[252:]) & 0xFFFFFFFF  # header with the CRC field zeroed, payload
    if crc != h["crc"]:
        raise ValueError(f"{path}: CRC-32 {crc:08x} != stored {h['crc']:08x}")

    shapes = [("wte", (V, C)), ("ln1_w", (L, C)), ("ln1_b", (L, C)), ("qkv_w", (L, 3 * C, C)),
              ("qkv_b", (L, 3 * C)), ("attproj_w", (L, C, C)), ("attproj_b", (L, C)),
              ("ln2_w", (L, C)), ("ln2_b", (L, C)), ("fc_w", (L, 4 * C, C)), ("fc_b", (L, 4 * C)),
              ("fcproj_w", (L, C, 4 * C)), ("fcproj_b", (L, C)), ("lnf_w", (C,)), ("lnf_b", (C,))]
    n_fixed = sum(int(np.prod(s)) for _, s in shapes)
    n_pos = P - n_fixed
    if n_pos < 0:
        raise ValueError(f"{path}: P={P} is smaller than the {n_fixed} non-position parameters")
    params = np.frombuffer(b, dtype="<f4", count=P, offset=HEADER_SIZE).astype(np.float32)
    out, off = {}, 0
    for name, shape in shapes:
        n = int(np.prod(shape))
        out[name] = params[off:off + n].reshape(shape)
        off += n
    out["pos"] = params[off:off + n_pos]
    return h, out


# ----------------------------------------------------------------------------------------------
# reference model

def load_ref(path):
    spec = importlib.util.spec_from_file_location("torch_ref", path)
    if spec is None:
        fail(f"cannot import the reference model from '{path}'")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ref_config(h, pos_tensor, eval_len):
    """The torch_ref config namespace equivalent to the checkpoint; raises Refuse if none exists."""
    C, NH, hp = h["C"], h["NH"], h["hp"]
    base, rand_max, rows = h["scheme"], h["rand_max"], h["pos_rows"]
    known = ("sinusoidal", "learned", "t5", "alibi", "rope", "nope")
    if base not in known:
        raise Refuse(f"position scheme '{base}' is not one of {', '.join(known)}")
    cfg = types.SimpleNamespace(
        n_layer=h["L"], d_model=C, n_head=NH, T=h["T"], vocab_size=256, tied=True, gelu="tanh",
        pos=base, rand_base="sinusoidal", max_pos=max(h["T"], eval_len),
        rope_base=10000.0, sin_scale=1.0, t5_buckets=32, t5_max_distance=128)
    n_pos = pos_tensor.size
    if base == "sinusoidal":
        cfg.sin_scale = float(hp[0]) if hp[0] > 0 else C ** -0.5         # posgpt: 0 means 1/sqrt(C)
        cfg.max_pos = max(cfg.max_pos, rows)
    elif base == "learned":
        if n_pos != rows * C:
            raise ValueError(f"learned: pos tensor has {n_pos} floats, want pos_rows*C = {rows}*{C}")
        if eval_len > rows:
            raise Refuse(f"learned: length {eval_len} needs position {eval_len - 1} but the table has "
                         f"{rows} rows (posgpt refuses too, unless --clamp-pos)")
        cfg.max_pos = rows
    elif base == "t5":
        buckets, maxd = hp[0], hp[1]
        if buckets != 32 or maxd != 128:
            raise Refuse(f"t5 with {buckets:g} buckets / max distance {maxd:g}: torch_ref implements only "
                         f"32 buckets and max distance 128")
        if n_pos != 32 * NH:
            raise ValueError(f"t5: pos tensor has {n_pos} floats, want buckets*NH = 32*{NH}")
    elif base == "rope":
        if hp[1] != 0:
            raise Refuse(f"rope with interleaved pairing (rope-interleaved = {hp[1]:g}): torch_ref implements "
                         f"only rotate-half (GPT-NeoX) pairing")
        if (C // NH) % 2:
            raise Refuse(f"rope needs an even head size, got {C // NH}")
        cfg.rope_base = float(hp[0])
    if base != "learned" and base != "t5" and n_pos != 0:
        raise ValueError(f"{base}: pos tensor should be empty, has {n_pos} floats")
    if rand_max > 0:
        # randomized positions only matter in training; eval mode uses 0..T-1, i.e. the base scheme.
        # torch_ref's 'randomized' covers sinusoidal/learned bases; any other base is just itself.
        if base in ("sinusoidal", "learned"):
            cfg.pos, cfg.rand_base = "randomized", base
    return cfg


def build_model(ref, h, p, cfg):
    import torch
    model = ref.GPT(cfg)
    C, L, NH = h["C"], h["L"], h["NH"]
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
    sd = {"wte.weight": t(p["wte"]), "ln_f.weight": t(p["lnf_w"]), "ln_f.bias": t(p["lnf_b"])}
    for l in range(L):
        pre = f"blocks.{l}."
        sd[pre + "ln_1.weight"] = t(p["ln1_w"][l])
        sd[pre + "ln_1.bias"] = t(p["ln1_b"][l])
        sd[pre + "attn.c_attn.weight"] = t(p["qkv_w"][l])          # (3C, C): out = x W^T + b
        sd[pre + "attn.c_attn.bias"] = t(p["qkv_b"][l])
        sd[pre + "attn.c_proj.weight"] = t(p["attproj_w"][l])
        sd[pre + "attn.c_proj.bias"] = t(p["attproj_b"][l])
        sd[pre + "ln_2.weight"] = t(p["ln2_w"][l])
        sd[pre + "ln_2.bias"] = t(p["ln2_b"][l])
        sd[pre + "c_fc.weight"] = t(p["fc_w"][l])
        sd[pre + "c_fc.bias"] = t(p["fc_b"][l])
        sd[pre + "c_proj.weight"] = t(p["fcproj_w"][l])
        sd[pre + "c_proj.bias"] = t(p["fcproj_b"][l])
    if getattr(model, "abs_kind", None) == "learned":
        sd["wpe.weight"] = t(p["pos"].reshape(h["pos_rows"], C))
    if cfg.pos == "t5":
        sd["t5_table.weight"] = t(p["pos"].reshape(cfg.t5_buckets, NH))  # row bucket, column head
    model.load_state_dict(sd, strict=True)                          # every parameter, no extras
    model.eval()
    return model


# ----------------------------------------------------------------------------------------------
# scoring

def heldout(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = len(raw)
    if n == 0:
        fail(f"data file '{path}' is empty")
    ntr = n - n // 10                                               # posgpt: last 10% held out
    return np.frombuffer(raw, dtype=np.uint8)[ntr:]


def score(model, val, L, max_tokens, batch_tokens):
    import torch
    import torch.nn.functional as F
    span = len(val)
    if max_tokens > 0:
        span = min(span, max_tokens + 1)
    if span < L + 1:
        fail(f"held-out text has {span} usable bytes; length {L} needs at least {L + 1}")
    K = (span - 1) // L
    B = max(1, min(K, batch_tokens // L))
    data = torch.from_numpy(val[:K * L + 1].astype(np.int64))
    total, ntok = 0.0, 0
    with torch.no_grad():
        for k0 in range(0, K, B):
            nb = min(B, K - k0)
            idx = torch.stack([data[k * L:k * L + L] for k in range(k0, k0 + nb)])
            tgt = torch.stack([data[k * L + 1:k * L + L + 1] for k in range(k0, k0 + nb)])
            logits, _ = model(idx)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1), reduction="none")
            total += float(loss.double().sum())
            ntok += loss.numel()
    return total / ntok, ntok


def run_posgpt(exe, ckpt, data, L, max_tokens, threads):
    cmd = [exe, "eval", "--ckpt", ckpt, "--data", data, "--lengths", str(L), "--max-tokens", str(max_tokens)]
    if threads > 0:
        cmd += ["--threads", str(threads)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        fail(f"`{' '.join(cmd)}` exited with status {r.returncode}:\n{r.stderr.strip()}")
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    if len(lines) < 2:
        fail(f"posgpt eval printed no CSV rows:\n{r.stdout}")
    cols = lines[0].split(",")
    for need in ("tokens", "loss"):
        if need not in cols:
            fail(f"posgpt eval CSV has no '{need}' column: {lines[0]}")
    rows = [dict(zip(cols, ln.split(","))) for ln in lines[1:]]
    rows = [r_ for r_ in rows if r_.get("eval_len", str(L)) == str(L)
            and r_.get("protocol", "nonoverlapping") == "nonoverlapping"]
    if len(rows) != 1:
        fail(f"expected one nonoverlapping row at length {L} from posgpt eval, got {len(rows)}:\n{r.stdout}")
    return float(rows[0]["loss"]), int(rows[0]["tokens"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True, help="posgpt checkpoint (model.bin)")
    ap.add_argument("--data", required=True, help="text file; its last 10%% (posgpt's held-out split) is scored")
    ap.add_argument("--len", type=int, default=0, help="window length (default: the checkpoint's T)")
    ap.add_argument("--max-tokens", type=int, default=65536, help="score the first N targets (0 = all)")
    ap.add_argument("--batch-tokens", type=int, default=8192, help="tokens per torch forward pass")
    ap.add_argument("--ref", default=DEFAULT_REF, help=f"reference model file (default {DEFAULT_REF})")
    ap.add_argument("--threads", type=int, default=1, help="torch (and posgpt) threads; 0 = library default")
    ap.add_argument("--compare", action="store_true", help="also run `posgpt eval` and compare the losses")
    ap.add_argument("--posgpt", default=DEFAULT_POSGPT, help=f"posgpt binary (default {DEFAULT_POSGPT})")
    ap.add_argument("--tol", type=float, default=2e-4, help="--compare: max |loss difference| in nats")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the parsed header to stderr")
    args = ap.parse_args()
    if args.max_tokens < 0 or args.batch_tokens < 1 or args.len < 0:
        ap.error("--len, --max-tokens must be >= 0 and --batch-tokens >= 1")

    try:
        h, p = read_checkpoint(args.ckpt)
    except (OSError, ValueError) as e:
        fail(str(e))
    L = args.len or h["T"]
    try:
        cfg = ref_config(h, p["pos"], L)
    except Refuse as e:
        fail(f"cannot cross-check this checkpoint with torch_ref: {e}")
    except ValueError as e:
        fail(f"{args.ckpt}: {e}")

    import torch
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    ref = load_ref(args.ref)
    model = build_model(ref, h, p, cfg)
    if args.verbose:
        show = {k: v for k, v in h.items() if k not in ("rng",)}
        print(f"header: {show}", file=sys.stderr)
        print(f"torch_ref config: {vars(cfg)}", file=sys.stderr)

    val = heldout(args.data)
    loss, ntok = score(model, val, L, args.max_tokens, args.batch_tokens)
    print("source,eval_len,tokens,loss")
    print(f"torch_ref,{L},{ntok},{loss:.6f}", flush=True)
    if not args.compare:
        return 0
    ploss, ptok = run_posgpt(args.posgpt, args.ckpt, args.data, L, args.max_tokens, args.threads)
    print(f"posgpt,{L},{ptok},{ploss:.6f}")
    diff = abs(loss - ploss)
    ok = diff <= args.tol and ptok == ntok
    label = h["scheme"] if not h["rand_max"] else f"randomized-{h['scheme']}"
    print(f"# {label} L={L}: torch_ref {loss:.6f}  posgpt {ploss:.6f}  |diff| {diff:.2e}  "
          f"(tol {args.tol:g}, tokens {ntok}/{ptok})  {'OK' if ok else 'MISMATCH'}")
    if ptok != ntok:
        print(f"torch_crosscheck: token counts differ: torch_ref {ntok}, posgpt {ptok}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
