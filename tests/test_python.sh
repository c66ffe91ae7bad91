# test_python.sh - python/posgpt.py, the Python reader of posgpt's files, against posgpt itself:
#  - a checkpoint (format v5) of a scheme with tensors one per layer and shared (xl): the
#    config against `posgpt info` (format, scheme, dimensions, step, shards), every array's
#    size and offset against info's tensor table, the scheme tensors' shapes and layout against
#    info's, the AdamW moments' shapes; every array bit for bit against the `posgpt export`
#    safetensors file, read by the same module (load() tells the two kinds apart);
#  - a rope model fine-tuned with --rope-scaling yarn: the context extension of bytes 316-351
#    (method, factor, length) against info;
#  - the same checkpoint rewritten as format v4 (v5 fields zeroed, CRC redone), which posgpt
#    still reads: the module reads it too, with one gradient shard and no extension;
#  - a flipped payload byte and an unknown version are refused with ValueError.
# Needs /usr/bin/python3 with NumPy (apt-get install python3-numpy); without it the test is
# skipped (0 checks): the C suite never needs Python.
. "$(dirname "$0")/lib.sh" python
PY=/usr/bin/python3
if ! [ -x $PY ] || ! $PY -c 'import numpy' 2> /dev/null; then
  echo "# skipped: $PY with NumPy is not installed (apt-get install python3-numpy)"
  echo "# $pass passed, $fail failed"
  [ $fail -eq 0 ]; exit
fi

phrase_text 3 3000 > "$tmp/text.txt"
M=(--data "$tmp/text.txt" --layers 2 --d-model 16 --heads 2 --seq-len 16 --batch 4 --eval-every 3 --threads 1)
$BIN train "${M[@]}" --pos xl --steps 6 --out "$tmp/xl" > /dev/null 2>&1 || bad "train" "xl did not train"
$BIN train "${M[@]}" --pos rope --steps 6 --out "$tmp/rope" > /dev/null 2>&1 || bad "train" "rope did not train"
$BIN train --init-from "$tmp/rope/model.bin" --data "$tmp/text.txt" --seq-len 32 --rope-scaling yarn --steps 3 --threads 1 \
  --out "$tmp/yarn" > /dev/null 2>&1 || bad "train" "the yarn fine-tune did not train"
$BIN export --ckpt "$tmp/xl/model.bin" --out "$tmp/xl.safetensors" 2> /dev/null || bad "export" "xl did not export"
for r in xl yarn; do $BIN info "$tmp/$r/model.bin" > "$tmp/$r.info" || bad "info" "posgpt info failed on $r"; done

out=$(PYTHONPATH=python $PY - "$tmp" 2>&1 <<'PYEOF'
import re, struct, sys, zlib
import numpy as np
import posgpt

tmp = sys.argv[1]
def check(cond, name, why=""):
    print(f"PASS {name}" if cond else f"FAIL {name}: {why}")

info = open(f"{tmp}/xl.info").read()
c, a = posgpt.load(f"{tmp}/xl/model.bin", optimizer=True)
m = re.search(r"format v(\d+)", info)
check(m and c["version"] == int(m.group(1)) == 5, "checkpoint: format version 5, as info says", f"{c['version']} vs {m and m.group(1)}")
m = re.search(r"vocab (\d+), d_model (\d+), layers (\d+), heads (\d+) \(head size \d+\), seq_len (\d+)", info)
got = (c["V"], c["C"], c["L"], c["NH"], c["T"])
check(m and got == tuple(int(x) for x in m.groups()), "config: V, C, L, NH, T as info says", f"{got} vs {m and m.groups()}")
m = re.search(r"step (\d+) of (\d+), batch (\d+)", info)
check(c["scheme"] == "xl" and m and (c["step"], c["steps"], c["batch"]) == tuple(int(x) for x in m.groups()) and c["grad_shards"] == 1,
      "config: scheme, step, steps, batch, shards as info says", f"{c['scheme']} {c['step']} {c['steps']} {c['batch']} {c['grad_shards']}")
rows = re.findall(r"^  (\w+) +(\d+) floats at offset (\d+)$", info, re.M)
off, sizes_ok = 0, len(rows) == 16
for name, n, o in rows:
    names = [k for k in a if k == name or (name == "scheme" and k.startswith("scheme."))]
    size = sum(a[k].size for k in names)
    sizes_ok &= size == int(n) and off == int(o)
    off += size
check(sizes_ok, "arrays: every tensor's size and offset as info's table (16 tensors)", str(rows))
lay = re.findall(r"tensor (\w+) +([\d x]+), (one per layer|shared by the layers)", info)
ok = len(lay) == 3
for name, dims, where in lay:
    shape = tuple(int(d) for d in dims.split(" x "))
    want = ((c["L"],) if where == "one per layer" else ()) + shape
    ok &= a["scheme." + name].shape == want
check(ok, "arrays: scheme tensors named and shaped as info says, a leading layers dimension when per layer", str(lay))
check(a["adam_m.wte"].shape == a["wte"].shape and a["adam_v.scheme.w_r"].shape == a["scheme.w_r"].shape
      and float(np.abs(a["adam_v.wte"]).sum()) > 0, "optimizer=True: the AdamW moments, same shapes, not all zero")

m2, s = posgpt.load(f"{tmp}/xl.safetensors")
params = [k for k in a if not k.startswith("adam_")]
same = sorted(params) == sorted(s) and all(np.array_equal(a[k], s[k]) and a[k].shape == s[k].shape for k in params)
check(same, "safetensors: the same names, shapes and values bit for bit as the checkpoint", f"{sorted(params)} vs {sorted(s)}")
check(m2["pos"] == "xl" and m2["d_model"] == c["C"] and m2["layers"] == c["L"] and m2["step"] == c["step"],
      "safetensors: its config (metadata, numbers as numbers) agrees with the checkpoint's", str(m2))

yi = open(f"{tmp}/yarn.info").read()
y, _ = posgpt.load(f"{tmp}/yarn/model.bin")
m = re.search(r"extension +(\S+), factor (\S+) from length (\d+)", yi)
check(m and (y["ext_method"], y["ext_factor"], y["ext_train_len"]) == (m.group(1), float(m.group(2)), int(m.group(3))),
      "v5 bytes 316-351: the context extension (method, factor, length) as info says", f"{y['ext_method']} {y['ext_factor']} {y['ext_train_len']} vs {m and m.groups()}")

# the xl checkpoint as format v4: version 4, bytes 312..383 zero, CRC redone
b = bytearray(open(f"{tmp}/xl/model.bin", "rb").read())
struct.pack_into("<I", b, 8, 4)
b[312:384] = bytes(72)
struct.pack_into("<I", b, 248, zlib.crc32(bytes(b[:248]) + bytes(4) + bytes(b[252:])) & 0xFFFFFFFF)
open(f"{tmp}/v4.bin", "wb").write(b)
c4, a4 = posgpt.load(f"{tmp}/v4.bin")
check(c4["version"] == 4 and c4["grad_shards"] == 1 and c4["ext_method"] == "" and all(np.array_equal(a4[k], s[k]) for k in s),
      "format v4: read with one shard, no extension, the same arrays", str(c4["version"]))

def refused(data, what):
    open(f"{tmp}/bad.bin", "wb").write(data)
    try:
        posgpt.load(f"{tmp}/bad.bin")
        check(False, f"refused: {what}", "no error")
    except ValueError as e:
        check(True, f"refused: {what} ({e})")
bad = bytearray(b); bad[2000] ^= 1
refused(bytes(bad), "a flipped payload byte")
bad = bytearray(b); struct.pack_into("<I", bad, 8, 6)
refused(bytes(bad), "format version 6")
PYEOF
)
printf '%s\n' "$out"
pass=$((pass + $(printf '%s\n' "$out" | grep -c '^PASS '))) fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
[ "$(printf '%s\n' "$out" | grep -c '^PASS ')" -ge 11 ] || bad "python" "fewer checks ran than written; output above"
$BIN info "$tmp/v4.bin" 2> /dev/null | grep -q 'format v4, checksum ok' && ok "posgpt info reads the v4 rewrite too (the rewrite is a valid v4 file)" \
  || bad "v4" "posgpt info refuses the v4 rewrite"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
