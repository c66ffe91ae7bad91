#!/usr/bin/env bash
# test_extension.sh - a checkpoint fine-tuned with a context extension (train --init-from
# --rope-scaling pi|ntk|yarn) works in every command, with the extension in force. Tiny rope
# and xpos models are trained at 16 bytes, then fine-tuned at 32 with each method (factor 2
# from 16); for each:
#  - info shows the extension; eval at 32 reproduces the fine-tuning's last validation loss
#    (the same windows, the extension applied as in training) in a row labelled SCHEME+METHOD;
#  - sample with the key/value cache gives the bytes of sample --no-cache (greedy, the whole
#    output within the context, so both see the same positions);
#  - task eval (cached decoding, batched) runs, labels its rows SCHEME+METHOD, and answers every
#    test example with the bytes greedy sample --no-cache (the uncached forward) continues its
#    prompt with, up to the end mark or the expected answer's length;
#  - export writes rope_scaling, rope_factor and rope_from_len into the safetensors metadata
#    ("none" and no factor for a model without one); with NumPy, tools/safetensors_read.py
#    reads them back; with PyTorch too, tools/safetensors_check.py builds the model from the
#    metadata with the extension and matches posgpt eval (else those checks are skipped).
. "$(dirname "$0")/lib.sh" extension

phrase_text 3 3000 > "$tmp/text.txt"
$BIN task gen --task copy --max-len 4 --n 50 --test-per-len 2 --seed 1 --out "$tmp/copy" > /dev/null 2>&1
BASE=(--data "$tmp/text.txt" --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 8 --steps 150 --lr 1e-2 --eval-every 50
      --val-tokens 1024 --threads 1)
FT=(--data "$tmp/text.txt" --seq-len 32 --batch 4 --steps 4 --eval-every 4 --val-tokens 1024 --threads 1)
PY=/usr/bin/python3
has_numpy=0 has_torch=0
$PY -c "import numpy" 2> /dev/null && has_numpy=1
$PY -c "import numpy, torch" 2> /dev/null && has_torch=1

# the outputs file task eval should write for checkpoint $1 and task $2, from greedy
# sample --no-cache on each test example's prompt
uncached_answers() {
  local line len dep text prompt na
  while IFS= read -r line; do
    IFS=$'\t' read -r len dep text <<< "$line"
    prompt=${text%%>*}">"
    na=$((${#text} - ${#prompt}))
    $BIN sample --ckpt "$1" --prompt "$prompt" --tokens "$na" --temperature 0 --no-cache --threads 1 2> /dev/null \
      | tail -c +$((${#prompt} + 1)) | head -c "$na" > "$tmp/cont"
    # up to and including the first end mark
    local cut; cut=$(grep -obUa ';' "$tmp/cont" | head -1 | cut -d: -f1)
    printf '%s\t%s\t%s' "$len" "$dep" "$prompt"
    if [ -n "$cut" ]; then head -c $((cut + 1)) "$tmp/cont"; else cat "$tmp/cont"; fi
    printf '\n'
  done < "$2/test.txt"
}

for s in rope xpos; do
  if ! $BIN train "${BASE[@]}" --pos $s --out "$tmp/$s" > /dev/null 2> "$tmp/err"; then bad "train $s" "$(tail -1 "$tmp/err")"; continue; fi
  $BIN export --ckpt "$tmp/$s/model.bin" --out "$tmp/$s.st" 2> /dev/null
  grep -q '"rope_scaling":"none"' "$tmp/$s.st" && ! grep -q 'rope_factor' "$tmp/$s.st" \
    && ok "export [$s, no extension]: metadata rope_scaling none, no factor" || bad "export $s" "$(head -c 600 "$tmp/$s.st" | tail -c +9)"
  for m in pi ntk yarn; do
    d=$tmp/$s-$m name="$s+$m"
    if ! $BIN train --init-from "$tmp/$s/model.bin" "${FT[@]}" --rope-scaling $m --out "$d" > /dev/null 2> "$tmp/err"; then
      bad "fine-tune $name" "$(tail -1 "$tmp/err")"; continue
    fi
    ck=$d/model.bin
    $BIN info "$ck" 2>&1 | grep -q "^extension  *$m, factor 2 from length 16" && ok "info [$name]: the extension, factor 2 from 16" \
      || bad "info $name" "$($BIN info "$ck" 2>&1 | grep -i ext)"
    # eval at the fine-tuning length: the trainer's last validation loss, in a row SCHEME+METHOD
    val=$(tail -1 "$d/log.csv" | cut -d, -f3)
    $BIN eval --ckpt "$ck" --data "$tmp/text.txt" --lengths 32 --max-tokens 1024 --threads 1 --csv "$tmp/e.csv" 2> "$tmp/err"
    awk -F, -v n="$name" -v m=$m -v v="$val" 'NR == 2 { ok = $1 == n && $2 == 32 && $14 == m && $15 == 2 && $7 == v } END { exit !(ok && NR == 2) }' \
      "$tmp/e.csv" && ok "eval [$name] at 32 reproduces the fine-tuning's val loss ($val), row $name, scale 2" \
      || bad "eval $name" "trainer $val; $(tail -1 "$tmp/e.csv" 2>/dev/null) $(tail -1 "$tmp/err")"
    # sample: the key/value cache against the uncached forward (greedy, 8 + 20 bytes in a context of 32)
    $BIN sample --ckpt "$ck" --prompt "and the " --tokens 20 --temperature 0 --threads 1 > "$tmp/c.txt" 2> "$tmp/err"
    $BIN sample --ckpt "$ck" --prompt "and the " --tokens 20 --temperature 0 --threads 1 --no-cache > "$tmp/n.txt" 2>> "$tmp/err"
    [ "$(wc -c < "$tmp/c.txt")" = 29 ] && cmp -s "$tmp/c.txt" "$tmp/n.txt" \
      && ok "sample [$name]: cached = --no-cache (greedy, 20 bytes)" || bad "sample $name" "$(head -c 40 "$tmp/c.txt") // $(head -c 40 "$tmp/n.txt") $(tail -1 "$tmp/err")"
    # task eval: cached, batched decoding = the uncached forward's greedy answers
    if $BIN task eval --ckpt "$ck" --task "$tmp/copy" --threads 1 --csv "$tmp/acc.csv" --outputs "$tmp/out.txt" 2> "$tmp/err"; then
      uncached_answers "$ck" "$tmp/copy" > "$tmp/want.txt"
      awk -F, -v n="$name" 'NR > 1 && $2 != n { b = 1 } END { exit b || NR != 9 }' "$tmp/acc.csv" && [ -s "$tmp/want.txt" ] \
        && cmp -s "$tmp/out.txt" "$tmp/want.txt" \
        && ok "task eval [$name]: rows $name; its $(wc -l < "$tmp/copy/test.txt") answers = greedy sample --no-cache on each prompt" \
        || bad "task eval $name" "$(sed -n 2p "$tmp/acc.csv"); $(diff <(cat -v "$tmp/out.txt") <(cat -v "$tmp/want.txt") | head -4 | tr '\n' ' ')"
    else bad "task eval $name" "$(tail -1 "$tmp/err")"; fi
    # export: the extension in the metadata; the readers in tools/ apply it
    $BIN export --ckpt "$ck" --out "$d.st" 2> "$tmp/err"
    grep -q "\"rope_scaling\":\"$m\",\"rope_factor\":\"2\",\"rope_from_len\":\"16\"" "$d.st" \
      && ok "export [$name]: metadata rope_scaling $m, rope_factor 2, rope_from_len 16" || bad "export $name" "$(tail -1 "$tmp/err")"
    if [ $has_numpy = 1 ]; then
      $PY tools/safetensors_read.py "$d.st" 2>&1 | grep -q "^extension $m, factor 2 from length 16" \
        && ok "safetensors_read.py [$name]: the extension from the metadata" || bad "safetensors_read $name" "$($PY tools/safetensors_read.py "$d.st" 2>&1 | tail -2)"
    fi
    if [ $has_torch = 1 ]; then
      $PY tools/safetensors_check.py --st "$d.st" --ckpt "$ck" --data "$tmp/text.txt" --len 64 --max-tokens 1024 --posgpt "$BIN" > "$tmp/chk" 2>&1 \
        && ok "safetensors_check.py [$name]: the PyTorch model with the metadata's extension = posgpt eval at 64 ($(tail -1 "$tmp/chk" | cut -c3-40))" \
        || bad "safetensors_check $name" "$(tail -2 "$tmp/chk" | tr '\n' ' ')"
    fi
  done
done
[ $has_numpy = 1 ] || echo "# skipped: safetensors_read.py checks (no NumPy for $PY)"
[ $has_torch = 1 ] || echo "# skipped: safetensors_check.py checks (no PyTorch for $PY)"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
