#!/usr/bin/python3
"""safetensors_read.py - a reader of the safetensors format written from its specification,
with NumPy only (the `safetensors` package is not in Debian 12), to check `posgpt export`.

The format: 8 bytes, an unsigned little-endian 64-bit integer N; N bytes of UTF-8 JSON (it
may end in spaces); then the data. The JSON maps each tensor name to an object with
"dtype" (here "F32"), "shape" (a list of non-negative integers) and "data_offsets"
([begin, end) in bytes, relative to the start of the data); an optional "__metadata__" maps
strings to strings. The tensors must cover the data exactly: no gaps, no overlaps, each
tensor's byte count = product(shape) x the dtype's size, row-major, little-endian.

    /usr/bin/python3 tools/safetensors_read.py FILE      prints the metadata and the tensors
As a module: load(path) -> (metadata: dict, tensors: dict[name -> np.ndarray]); a file that
breaks a rule raises ValueError naming it. extension(metadata) -> None, or the context
extension a posgpt model was trained with (train --rope-scaling), in force at every length:
(method, factor, from_len) from the metadata's rope_scaling, rope_factor and rope_from_len
(an export from before posgpt wrote them has no rope_scaling: None).
"""
import json
import struct
import sys

import numpy as np

DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "F64": np.dtype("<f8"), "I32": np.dtype("<i4"),
          "I64": np.dtype("<i8"), "U8": np.dtype("u1"), "BF16": None}


def load(path):
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
        dt = DTYPES.get(t["dtype"])
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


EXTENSIONS = ("pi", "ntk", "yarn")  # what posgpt trains with (train --rope-scaling)


def extension(meta):
    method = meta.get("rope_scaling", "none")
    if method == "none":
        return None
    if method not in EXTENSIONS:
        raise ValueError(f"rope_scaling {method!r} is not a trained context extension ({', '.join(EXTENSIONS)} or none)")
    try:
        factor, from_len = float(meta["rope_factor"]), int(meta["rope_from_len"])
    except (KeyError, ValueError) as e:
        raise ValueError(f"rope_scaling {method}: rope_factor and rope_from_len must be a number and an integer ({e})")
    if not (1.0 <= factor <= 1e6) or from_len < 1:
        raise ValueError(f"rope_scaling {method}: factor {factor} must be in [1, 1e6] and rope_from_len {from_len} >= 1")
    return method, factor, from_len


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        print("usage: safetensors_read.py FILE", file=sys.stderr)
        return 2
    try:
        meta, tensors = load(sys.argv[1])
    except (OSError, ValueError) as e:
        print(f"safetensors_read: error: {e}", file=sys.stderr)
        return 1
    try:
        ext = extension(meta)
    except ValueError as e:
        print(f"safetensors_read: error: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    for k, v in meta.items():
        print(f"meta {k} = {v}")
    if ext:
        print(f"extension {ext[0]}, factor {ext[1]:g} from length {ext[2]} (in force at every length)")
    for name, t in tensors.items():
        print(f"tensor {name} {t.dtype} {list(t.shape)} sum {float(t.astype(np.float64).sum()):.9g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
