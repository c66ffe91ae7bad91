"""posgpt.py - read posgpt's files from Python: checkpoints (`model.bin`, format versions 1 to 5,
docs/checkpoint.md) and `posgpt export` safetensors files (train/cmd_export.c). Standard
library and NumPy only; no PyTorch needed (torch.from_numpy takes the arrays as they are).

    import sys; sys.path.insert(0, "python")   # or PYTHONPATH=python
    import posgpt
    config, arrays = posgpt.load("runs/alibi-128/model.bin")          # or a .safetensors file
    config["scheme"], config["C"], arrays["wte"].shape                 # 'alibi', 128, (256, 128)

load(path) -> (config: dict, arrays: {name: np.ndarray float32}) reads either kind (told apart
by the first bytes). The arrays are the sixteen tensors of docs/checkpoint.md by name
("wte", "ln1_w", ..., "lnf_b") with their documented shapes, and the scheme's own tensors as
"scheme.NAME", with a leading dimension of layers when one per layer (the names and shapes
`posgpt export` writes). A checkpoint's config holds every header field (names below); with
optimizer=True its arrays also hold the AdamW moments as "adam_m.NAME" and "adam_v.NAME".
A safetensors file's config is its `__metadata__` with the numbers converted. A scheme this
module does not know (one added after it) gives its tensors as one flat "scheme" array.
Files that break the format raise ValueError naming the check.

    /usr/bin/python3 python/posgpt.py FILE     prints the config and each array's shape
"""
import json
import struct
import sys
import zlib

import numpy as np

HEADER_SIZE = 1024
MAGIC = b"POSGPTCK"
VERSIONS = (1, 2, 3, 4, 5)
TENSOR_NAMES = ["wte", "ln1_w", "ln1_b", "qkv_w", "qkv_b", "attproj_w", "attproj_b", "ln2_w", "ln2_b",
                "fc_w", "fc_b", "fcproj_w", "fcproj_b", "lnf_w", "lnf_b", "scheme"]
# hyperparameter slots and defaults (docs/checkpoint.md, offset 80; docs/schemes.md)
HYPERS = {
    "sinusoidal": [("sin-scale", 0.0)],
    "t5": [("t5-buckets", 32.0), ("t5-max-dist", 128.0)],
    "rope": [("rope-base", 10000.0), ("rope-interleaved", 0.0)],
    "sandwich": [("sandwich-dim", 128.0)],
    "xpos": [("xpos-rope-base", 10000.0), ("xpos-base", 512.0)],
    "fire": [("fire-hidden", 32.0), ("fire-threshold", 32.0)],
    "cope": [("cope-npos", 128.0)],
    "shaw": [("shaw-clip", 16.0)],
    "xl": [("xl-dim", 0.0)],
}
# the schemes whose tensors this module can name (docs/checkpoint.md, the scheme's tensors)
SCHEMES = ["sinusoidal", "learned", "t5", "alibi", "rope", "nope", "kerple-log", "kerple-power", "sandwich",
           "xpos", "fire", "cope", "shaw", "xl"]

# (name, offset, struct format) of the header's fields; the version that added each is below
FIELDS_V1 = [
    ("V", 16, "I"), ("C", 20, "I"), ("L", 24, "I"), ("NH", 28, "I"), ("T", 32, "I"), ("pos_rows", 36, "I"),
    ("rand_max", 40, "I"), ("has_optimizer", 44, "I"), ("P", 112, "Q"), ("step", 120, "Q"), ("lr", 160, "d"),
    ("min_lr_frac", 168, "d"), ("wd", 176, "d"), ("beta1", 184, "d"), ("beta2", 192, "d"), ("eps", 200, "d"),
    ("clip", 208, "d"), ("warmup", 216, "I"), ("steps", 220, "I"), ("batch", 224, "I"), ("seed", 232, "Q"),
    ("val_loss", 240, "d"), ("crc", 248, "I"), ("n_tensors", 252, "I")]
FIELDS_V2 = [  # the run record
    ("data_bytes", 256, "Q"), ("val_bytes", 264, "Q"), ("data_crc", 272, "I"), ("val_crc", 276, "I"),
    ("eval_every", 280, "I"), ("ckpt_every", 284, "I"), ("log_every", 288, "I"), ("flags", 292, "I"),
    ("val_tokens", 296, "Q")]
FIELDS_V5 = [  # gradient shards; the context extension trained with (method "" = none)
    ("grad_shards", 312, "I"), ("ext_train_len", 316, "I"), ("ext_window", 320, "I"), ("ext_factor", 328, "d")]


def default_hypers(scheme):
    """The 8 hyperparameter slots of a scheme at their defaults (unused slots 0)."""
    hp = [h[1] for h in HYPERS.get(scheme, [])]
    return hp + [0.0] * (8 - len(hp))


def core_shapes(V, C, L):
    """Tensors 0..14 of the parameter vector, in file order (docs/checkpoint.md, Payload)."""
    return [("wte", (V, C)), ("ln1_w", (L, C)), ("ln1_b", (L, C)), ("qkv_w", (L, 3 * C, C)),
            ("qkv_b", (L, 3 * C)), ("attproj_w", (L, C, C)), ("attproj_b", (L, C)),
            ("ln2_w", (L, C)), ("ln2_b", (L, C)), ("fc_w", (L, 4 * C, C)), ("fc_b", (L, 4 * C)),
            ("fcproj_w", (L, C, 4 * C)), ("fcproj_b", (L, C)), ("lnf_w", (C,)), ("lnf_b", (C,))]


def scheme_tensors(scheme, C, NH, rows, hp):
    """The scheme's tensors, in file order: [(name, shape, per layer by default)]
    (docs/checkpoint.md, tensor 15, and docs/schemes.md, first table)."""
    HS = C // NH
    if scheme == "learned":
        return [("table", (rows, C), False)]
    if scheme == "t5":
        return [("table", (int(hp[0]), NH), False)]  # row = bucket, column = head
    if scheme in ("kerple-log", "kerple-power"):
        return [("r", (2, NH), False)]               # r1 (NH), then r2 (NH)
    if scheme == "fire":
        Hf = int(hp[0])                              # w1 (Hf), b1 (Hf), w2 (NH, Hf), b2 (NH), c, L
        return [("mlp", (2 * Hf + NH * Hf + NH + 2,), True)]
    if scheme == "cope":
        return [("emb", (int(hp[0]), HS), True)]     # e (npos, HS)
    if scheme == "shaw":
        k = int(hp[0])
        return [("key", (k + 1, HS), True), ("value", (k + 1, HS), True)]
    if scheme == "xl":
        dR = int(hp[0]) or C
        return [("w_r", (C, dR), True), ("u", (NH, HS), False), ("v", (NH, HS), False)]
    return []


def scheme_layout(scheme, C, NH, rows, hp, sharing):
    """Per tensor, whether it is one per layer under a sharing (0 as the scheme declares, 1 all
    shared, 2 all per layer; an input table is never per layer)."""
    t = scheme_tensors(scheme, C, NH, rows, hp)
    if sharing == 1 or scheme == "learned":
        return [False] * len(t)
    return [True] * len(t) if sharing == 2 else [pl for _, _, pl in t]


def _string(b, begin, end, what, path):
    raw = b[begin:end].split(b"\0", 1)[0]
    try:
        return raw.decode("utf-8" if end - begin > 32 else "ascii")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: the {what} {raw!r} is not text")


def _header(b, path):
    """The header's fields as a dict (docs/checkpoint.md), after the format checks."""
    if len(b) < HEADER_SIZE:
        raise ValueError(f"{path}: {len(b)} bytes, shorter than the {HEADER_SIZE}-byte header")
    if b[:8] != MAGIC:
        raise ValueError(f"{path}: bad magic {b[:8]!r} (want {MAGIC!r})")
    version, hsize = struct.unpack_from("<2I", b, 8)
    if version not in VERSIONS:
        raise ValueError(f"{path}: format version {version}; this reader knows versions 1 to {VERSIONS[-1]}")
    if hsize != HEADER_SIZE:
        raise ValueError(f"{path}: header size {hsize}, want {HEADER_SIZE}")
    h = {"version": version, "header_size": hsize}
    fields = FIELDS_V1 + (FIELDS_V2 if version >= 2 else []) + (FIELDS_V5 if version >= 5 else [])
    for name, off, fmt in fields:
        h[name], = struct.unpack_from("<" + fmt, b, off)
    h["scheme"] = _string(b, 48, 80, "scheme name", path)
    h["hp"] = list(struct.unpack_from("<8f", b, 80))
    h["rng"] = list(struct.unpack_from("<4Q", b, 128))
    if version >= 2:
        h["data_path"] = _string(b, 384, 704, "data path", path)
        h["val_path"] = _string(b, 704, 1024, "val path", path)
    if version >= 5:
        h["ext_method"] = _string(b, 336, 352, "context extension", path)
    else:
        h.update(grad_shards=1, ext_method="", ext_train_len=0, ext_window=0, ext_factor=0.0)
    # where the scheme's tensors live: v1, v2 all shared; v3 the sharing asked for; v4 also the
    # layout it gave (bit k: the scheme's tensor k is one per layer)
    h["sharing"] = struct.unpack_from("<I", b, 304)[0] if version >= 3 else 1
    if h["sharing"] > 2:
        raise ValueError(f"{path}: scheme sharing {h['sharing']}, want 0, 1 or 2")
    h["layout_mask"] = struct.unpack_from("<I", b, 308)[0] if version >= 4 else None
    V, C, L, NH, T = h["V"], h["C"], h["L"], h["NH"], h["T"]
    if h["n_tensors"] != len(TENSOR_NAMES):
        raise ValueError(f"{path}: {h['n_tensors']} tensors, want {len(TENSOR_NAMES)}")
    if min(V, C, L, NH, T) < 1 or C % NH:
        raise ValueError(f"{path}: bad dimensions V={V} C={C} L={L} NH={NH} T={T}")
    if h["has_optimizer"] not in (0, 1):
        raise ValueError(f"{path}: has_optimizer = {h['has_optimizer']}, want 0 or 1")
    want = HEADER_SIZE + 4 * h["P"] * (3 if h["has_optimizer"] else 1)
    if len(b) != want:
        raise ValueError(f"{path}: file is {len(b)} bytes; the header (P={h['P']}, has_optimizer="
                         f"{h['has_optimizer']}) implies {want}")
    crc = zlib.crc32(b[:248] + bytes(4) + b[252:]) & 0xFFFFFFFF  # header with the CRC zeroed, payload
    if crc != h["crc"]:
        raise ValueError(f"{path}: CRC-32 {crc:08x} != stored {h['crc']:08x}")
    return h


def _shapes(h, path):
    """[(name, shape)] of the parameter vector, in file order; sets h["layout"]."""
    V, C, L, NH, P = h["V"], h["C"], h["L"], h["NH"], h["P"]
    core = core_shapes(V, C, L)
    n_core = sum(int(np.prod(s)) for _, s in core)
    if n_core > P:
        raise ValueError(f"{path}: P={P}, fewer than the {n_core} parameters of the dimensions")
    if h["scheme"] not in SCHEMES:  # a scheme added after this module: its tensors as one array
        h["layout"] = None
        return core + [("scheme", (P - n_core,))]
    st = scheme_tensors(h["scheme"], C, NH, h["pos_rows"], h["hp"])
    if h["layout_mask"] is not None:
        if h["layout_mask"] >> len(st):
            raise ValueError(f"{path}: scheme layout 0x{h['layout_mask']:x} names tensors '{h['scheme']}' does not have")
        h["layout"] = [bool(h["layout_mask"] >> k & 1) for k in range(len(st))]
    else:  # a v3 file's sharing 0 meant format 3's defaults: FIRE's MLP shared then
        sharing = 1 if h["version"] == 3 and h["sharing"] == 0 and h["scheme"] == "fire" else h["sharing"]
        h["layout"] = scheme_layout(h["scheme"], C, NH, h["pos_rows"], h["hp"], sharing)
    shapes = core + [("scheme." + n, ((L,) if pl else ()) + s) for (n, s, _), pl in zip(st, h["layout"])]
    n_all = sum(int(np.prod(s)) for _, s in shapes)
    if n_all != P:
        raise ValueError(f"{path}: P={P}, but the dimensions and the '{h['scheme']}' scheme give {n_all} "
                         f"parameters (scheme tensors {shapes[len(core):]})")
    return shapes


def read_checkpoint(path, optimizer=False):
    """A posgpt checkpoint (format versions 1 to 5) -> (header dict, {name: np.ndarray float32});
    with optimizer=True (and a file that has them) the AdamW moments too, as "adam_m.NAME" and
    "adam_v.NAME". Raises ValueError naming the check that failed."""
    with open(path, "rb") as f:
        b = f.read()
    h = _header(b, path)
    shapes = _shapes(h, path)
    P = h["P"]
    copies = [""] + (["adam_m.", "adam_v."] if optimizer and h["has_optimizer"] else [])
    out = {}
    for c, prefix in enumerate(copies):
        flat = np.frombuffer(b, dtype="<f4", count=P, offset=HEADER_SIZE + 4 * P * c).astype(np.float32)
        off = 0
        for name, shape in shapes:
            n = int(np.prod(shape))
            out[prefix + name] = flat[off:off + n].reshape(shape)
            off += n
    return h, out


SAFETENSORS_DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "F64": np.dtype("<f8"),
                      "I32": np.dtype("<i4"), "I64": np.dtype("<i8"), "U8": np.dtype("u1"), "BF16": None}


def read_safetensors(path):
    """A safetensors file, read from the format's specification -> (metadata: {str: str},
    {name: np.ndarray}). The format: 8 bytes, a little-endian u64 N; N bytes of UTF-8 JSON (it
    may end in spaces) mapping each tensor name to {"dtype", "shape", "data_offsets": [begin,
    end)} relative to the data, plus an optional "__metadata__" of strings; then the data,
    which the tensors cover exactly (no gaps, no overlaps), row-major, little-endian."""
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < 8:
        raise ValueError(f"{path}: {len(b)} bytes, shorter than the 8-byte header length")
    (n,) = struct.unpack_from("<Q", b, 0)
    if 8 + n > len(b):
        raise ValueError(f"{path}: header length {n} runs past the end of the file ({len(b)} bytes)")
    head = b[8:8 + n]
    try:
        header = json.loads(head.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: the header is not UTF-8 JSON: {e}")
    if not isinstance(header, dict):
        raise ValueError(f"{path}: the header is not a JSON object")
    if not head.startswith(b"{"):
        raise ValueError(f"{path}: the header must start with '{{'")
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        raise ValueError(f"{path}: __metadata__ must map strings to strings")
    data = memoryview(b)[8 + n:]
    spans, tensors = [], {}
    for name, t in header.items():
        if not isinstance(t, dict) or set(t) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"{path}: tensor {name!r} must have exactly dtype, shape and data_offsets")
        dt = SAFETENSORS_DTYPES.get(t["dtype"])
        if dt is None:
            raise ValueError(f"{path}: tensor {name!r}: dtype {t['dtype']!r} is not one this reader handles")
        shape = t["shape"]
        if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise ValueError(f"{path}: tensor {name!r}: shape {shape!r} is not a list of non-negative integers")
        begin, end = t["data_offsets"]
        count = int(np.prod(shape, dtype=np.int64))
        if not (0 <= begin <= end <= len(data)) or end - begin != count * dt.itemsize:
            raise ValueError(f"{path}: tensor {name!r}: data_offsets [{begin}, {end}) do not hold shape {shape} of {t['dtype']}"
                             f" inside {len(data)} data bytes")
        spans.append((begin, end, name))
        tensors[name] = np.frombuffer(data[begin:end], dtype=dt).reshape(shape).copy()  # writable, owns its data
    pos = 0
    for begin, end, name in sorted(spans):
        if begin != pos:
            raise ValueError(f"{path}: tensor {name!r} starts at byte {begin} of the data, expected {pos} "
                             f"({'a gap' if begin > pos else 'an overlap'})")
        pos = end
    if pos != len(data):
        raise ValueError(f"{path}: the tensors cover {pos} of {len(data)} data bytes")
    return meta, tensors


def _number(v):
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return v


def load(path, optimizer=False):
    """A checkpoint or a `posgpt export` safetensors file -> (config dict, {name: np.ndarray}).
    A checkpoint's config is read_checkpoint's header; a safetensors file's is its metadata
    with numbers as numbers (keys vocab, d_model, layers, heads, seq_len, pos, ...)."""
    with open(path, "rb") as f:
        start = f.read(8)
    if start == MAGIC:
        return read_checkpoint(path, optimizer)
    meta, tensors = read_safetensors(path)
    return {k: _number(v) for k, v in meta.items()}, tensors


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if len(argv) == 2 else sys.stderr)
        return 0 if len(argv) == 2 else 2
    try:
        config, arrays = load(argv[1])
    except (OSError, ValueError) as e:
        print(f"posgpt.py: error: {e}", file=sys.stderr)
        return 1
    for k, v in config.items():
        print(f"config {k} = {v}")
    for name, a in arrays.items():
        print(f"array {name} {a.dtype} {list(a.shape)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
