#!/usr/bin/python3
"""safetensors_read.py - a reader of the safetensors format written from its specification,
with NumPy only (the `safetensors` package is not in Debian 12), to check `posgpt export`;
the reader is python/posgpt.py's read_safetensors, this file its command line.

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
import os
import sys

import numpy as np

# the reader itself is python/posgpt.py's read_safetensors
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from posgpt import SAFETENSORS_DTYPES as DTYPES  # noqa: E402,F401
from posgpt import read_safetensors as load  # noqa: E402


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
