#!/usr/bin/env bash
# test_hostile.sh - commands as hostile users meet them:
#  - no command writes over one of its own inputs, nor gives two outputs one file: the same
#    path, ./x, a/../x, a symlink or a hard link is refused before any work, naming both, and
#    the input is left byte for byte (export, eval, task eval, plot, train --out/--init-from/
#    --data, train --resume);
#  - a flag that does not apply (to this command, scheme, kind of run or resumed run) is an
#    error that says why, never ignored; flags about what a checkpoint brings (its random
#    positions, its extension) name the checkpoint and the command that works.
. "$(dirname "$0")/lib.sh" hostile
phrase_text 7 3000 > "$tmp/text.txt"
S=(--data "$tmp/text.txt" --pos alibi --layers 1 --d-model 16 --heads 2 --seq-len 16 --batch 4 --eval-every 5 --val-tokens 256 --threads 1)
$BIN train "${S[@]}" --steps 5 --out "$tmp/run" > /dev/null 2>&1 || bad "train" "the small run failed"
$BIN train "${S[@]}" --steps 5 --stop-at 3 --positions random --rand-max 64 --out "$tmp/rnd" > /dev/null 2>&1 || bad "train" "random run failed"
$BIN train "${S[@]}" --steps 5 --pos learned --out "$tmp/lrn" > /dev/null 2>&1 || bad "train" "learned run failed"
$BIN train "${S[@]}" --steps 5 --stop-at 3 --pos rope --out "$tmp/rope" > /dev/null 2>&1 || bad "train" "rope run failed"
CK=$tmp/run/model.bin
cp "$CK" "$tmp/ck.orig"; cp "$tmp/text.txt" "$tmp/text.orig"
ln -s "$CK" "$tmp/link.bin"; ln "$CK" "$tmp/hard.bin"; mkdir -p "$tmp/sub"

# refused: rc 1, one line naming $2, and every input unchanged
refused() { # name pattern command...
  local name=$1 pat=$2; shift 2
  "$@" > "$tmp/o" 2> "$tmp/e"; local rc=$?
  if [ $rc -eq 1 ] && [ "$(grep -c . "$tmp/e")" -eq 1 ] && grep -q -- "$pat" "$tmp/e" && cmp -s "$CK" "$tmp/ck.orig" \
     && cmp -s "$tmp/text.txt" "$tmp/text.orig"; then ok "$name"
  else bad "$name" "rc=$rc: $(head -2 "$tmp/e")"; cp "$tmp/ck.orig" "$CK"; cp "$tmp/text.orig" "$tmp/text.txt"; fi
}
same="same file\|is also"
# export --out onto its checkpoint, by every spelling
for o in "$CK" "$tmp/run/./model.bin" "$tmp/sub/../run/model.bin" "$tmp/link.bin" "$tmp/hard.bin"; do
  refused "export --out ${o#$tmp/} onto the checkpoint: refused" "$same" $BIN export --ckpt "$CK" --out "$o"
done
(cd "$tmp/run" && "$OLDPWD/$BIN" export model.bin --out ./model.bin > /dev/null 2> "$tmp/e"; echo $? > "$tmp/rc")
[ "$(cat "$tmp/rc")" = 1 ] && cmp -s "$CK" "$tmp/ck.orig" && ok "export model.bin --out ./model.bin: refused" || bad "export ./" "$(cat "$tmp/e")"
E=(eval --ckpt "$CK" --data "$tmp/text.txt" --max-tokens 256)
refused "eval --csv onto the checkpoint (symlink)" "$same" $BIN "${E[@]}" --csv "$tmp/link.bin"
refused "eval --csv onto --data" "$same" $BIN "${E[@]}" --csv "$tmp/text.txt"
refused "eval --per-position onto --data (hard link)" "$same" $BIN "${E[@]}" --per-position "$tmp/text.txt" --csv "$tmp/x.csv"
ln "$tmp/text.txt" "$tmp/text.hard"
refused "eval --csv onto a hard link of --data" "$same" $BIN "${E[@]}" --csv "$tmp/text.hard"
refused "eval --csv X --per-position X" "same file\|is also" $BIN "${E[@]}" --csv "$tmp/pp.csv" --per-position "$tmp/sub/../pp.csv"
[ -e "$tmp/pp.csv" ] && bad "eval two outputs" "a file was written" || ok "... and nothing was written"
cp "$tmp/text.txt" "$tmp/val.txt"
refused "eval --csv onto --val" "$same" $BIN eval --ckpt "$CK" --val "$tmp/val.txt" --csv "$tmp/./val.txt"
# plot --out onto an input CSV or the font
$BIN "${E[@]}" --csv "$tmp/e.csv" 2> /dev/null; cp "$tmp/e.csv" "$tmp/e.orig"
refused "plot --out onto its input CSV" "$same" $BIN plot --out "$tmp/e.csv" "$tmp/e.csv"
refused "plot --out onto its second input CSV (symlink)" "$same" $BIN plot --out "$tmp/e2.png" "$tmp/e.csv" "$tmp/e2.png" 
ln -s "$tmp/e.csv" "$tmp/e.png"
refused "plot --out a symlink to its input" "$same" $BIN plot --out "$tmp/e.png" "$tmp/e.csv"
cmp -s "$tmp/e.csv" "$tmp/e.orig" && ok "... and the CSV is intact" || bad "plot input" "changed"
cp "$tmp/e.csv" "$tmp/font.ttf"
refused "plot --out onto --font" "$same" $BIN plot --font "$tmp/font.ttf" --out "$tmp/font.ttf" "$tmp/e.csv"
# train: the run directory's files against --init-from and --data
refused "train --init-from DIR/model.bin --out DIR --overwrite" "$same" $BIN train "${S[@]}" --steps 2 --init-from "$CK" --out "$tmp/run" --overwrite
refused "train --init-from via symlink --out DIR --overwrite" "$same" $BIN train "${S[@]}" --steps 2 --init-from "$tmp/link.bin" --out "$tmp/sub/../run" --overwrite
mkdir -p "$tmp/r2"; ln "$tmp/text.txt" "$tmp/r2/log.csv"
refused "train --data DIR/log.csv (hard link) --out DIR" "$same" $BIN train "${S[@]}" --steps 2 --out "$tmp/r2" --overwrite
[ -e "$tmp/r2/model.bin" ] || [ -e "$tmp/r2/config.txt" ] && bad "train onto its data" "wrote the run" || ok "... and no run was written"
cp "$tmp/text.txt" "$tmp/r2v.txt"; mkdir -p "$tmp/r3"; ln -s "$tmp/r2v.txt" "$tmp/r3/config.txt"
refused "train --val onto DIR/config.txt (symlink)" "$same" $BIN train "${S[@]}" --val "$tmp/r2v.txt" --steps 2 --out "$tmp/r3"

# task eval: two outputs of one path, and an output onto the task's files
$BIN task gen --task copy --max-len 4 --n 200 --test-per-len 2 --test-mult 1 --out "$tmp/copy" > /dev/null 2>&1
$BIN train --task "$tmp/copy" --pos alibi --layers 1 --d-model 16 --heads 2 --batch 4 --steps 2 --threads 1 --out "$tmp/trun" > /dev/null 2>&1
cp "$tmp/copy/test.txt" "$tmp/test.orig"
TE=(task eval --ckpt "$tmp/trun/model.bin" --task "$tmp/copy")
refused "task eval --csv X --outputs X" "same file\|is also" $BIN "${TE[@]}" --csv "$tmp/te.csv" --outputs "$tmp/te.csv"
[ -e "$tmp/te.csv" ] && bad "task eval two outputs" "a file was written" || ok "... and nothing was written"
refused "task eval --outputs onto the test set" "$same" $BIN "${TE[@]}" --outputs "$tmp/copy/test.txt"
cmp -s "$tmp/copy/test.txt" "$tmp/test.orig" && ok "... and test.txt is intact" || bad "task test.txt" "replaced"
refused "task eval --csv onto the checkpoint" "$same" $BIN "${TE[@]}" --csv "$tmp/trun/./model.bin"
# allowed: a pipe is written in place, two outputs may share it
$BIN "${E[@]}" --csv /dev/stdout --per-position /dev/stdout 2> /dev/null | cat > "$tmp/both.out"
[ "${PIPESTATUS[0]}" = 0 ] && grep -q '^scheme,train_len,eval_len,protocol,stride,position' "$tmp/both.out" && ok "eval: two outputs onto /dev/stdout still work" \
  || bad "eval /dev/stdout" "failed"
# an output that is a link: one to a descriptor (/dev/stdout is a link to /proc/self/fd/1) is
# written through that descriptor, also when stdout is a regular file (it was replaced by a new
# file: run as root, /dev/stdout itself); a link to a file has its file replaced, the link kept
ln -s /proc/self/fd/1 "$tmp/fdlink"
$BIN "${E[@]}" --csv "$tmp/fdlink" > "$tmp/fd.out" 2> /dev/null
[ -L "$tmp/fdlink" ] && grep -q '^scheme,train_len,eval_len' "$tmp/fd.out" \
  && ok "eval --csv onto a link to /proc/self/fd/1 with stdout a file: written to stdout, the link kept" || bad "fd link" "$(ls -l "$tmp/fdlink")"
echo old > "$tmp/real.csv"; ln -s real.csv "$tmp/flink.csv"
$BIN "${E[@]}" --csv "$tmp/flink.csv" > /dev/null 2>&1
[ -L "$tmp/flink.csv" ] && grep -q '^scheme,train_len,eval_len' "$tmp/real.csv" \
  && ok "eval --csv onto a link to a file: the file replaced, the link kept" || bad "file link" "$(ls -l "$tmp/flink.csv")"

# flags that do not apply
flag() { # name pattern command...
  local name=$1 pat=$2; shift 2
  "$@" > "$tmp/o" 2> "$tmp/e"; local rc=$?
  if [ $rc -eq 1 ] && [ "$(grep -c "error" "$tmp/e")" -eq 1 ] && grep -q -- "$pat" "$tmp/e"; then ok "$name: refused"
  else bad "$name" "rc=$rc: $(head -2 "$tmp/e")"; fi
}
flag "train --resume --rope-factor (run has no extension)" "without a context extension" $BIN train --resume "$tmp/rope" --rope-factor 2
flag "train --task --val-tokens" "val-tokens applies to text runs" $BIN train --task "$tmp/copy" --pos alibi --val-tokens 100 --steps 2 --out "$tmp/tv"
flag "train --rope-scaling none --rope-factor 2" "not none" $BIN train "${S[@]}" --pos rope --rope-scaling none --rope-factor 2 --steps 2 --out "$tmp/rn"
flag "train --pos alibi --max-pos 64" "has none" $BIN train "${S[@]}" --max-pos 64 --steps 2 --out "$tmp/mp"
flag "train --pos alibi --t5-buckets 8" "another position scheme" $BIN train "${S[@]}" --t5-buckets 8 --steps 2 --out "$tmp/t5"
flag "train --pos alibi --rope-scaling pi" "no such context extension" $BIN train "${S[@]}" --rope-scaling pi --rope-factor 2 --steps 2 --out "$tmp/ap"
flag "train --init-from a contiguous ckpt --rand-max 64" "trained at contiguous positions" $BIN train "${S[@]}" --init-from "$CK" --rand-max 64 --steps 2 --out "$tmp/if"
$BIN train "${S[@]}" --init-from "$tmp/rnd/model.bin" --rand-max 128 --steps 2 --out "$tmp/if2" > /dev/null 2>&1 \
  && $BIN info "$tmp/if2/model.bin" | grep -q "rand_max *128" && ok "train --init-from a random-positions ckpt --rand-max 128: used" \
  || bad "init-from rand-max" "$($BIN info "$tmp/if2/model.bin" 2>&1 | grep rand_max)"
flag "eval --rand-max on a random-positions ckpt without --positions random" "trained at random positions from \[0, 64).*--positions random --rand-max 100" \
  $BIN eval --ckpt "$tmp/rnd/model.bin" --data "$tmp/text.txt" --rand-max 100
flag "eval --rand-max on a contiguous ckpt" "applies only with --positions random" $BIN "${E[@]}" --rand-max 100
flag "eval --stride with nonoverlapping" "stride applies to the sliding" $BIN "${E[@]}" --stride 4
flag "eval --seed with contiguous positions" "seed draws random positions" $BIN "${E[@]}" --seed 3
flag "eval --data and --val" "give one of them" $BIN "${E[@]}" --val "$tmp/val.txt"
flag "eval --val --all" "drop --all" $BIN eval --ckpt "$CK" --val "$tmp/val.txt" --all
flag "eval --clamp-pos on alibi" "has none" $BIN "${E[@]}" --clamp-pos
flag "eval --rope-window without rerope" "needs --rope-scaling rerope" $BIN eval --ckpt "$tmp/rope/model.bin" --data "$tmp/text.txt" --rope-window 8
flag "eval --rope-scaling none --rope-factor 2" "applies no extension" $BIN eval --ckpt "$tmp/rope/model.bin" --data "$tmp/text.txt" --rope-scaling none --rope-factor 2
flag "eval --rope-scaling pi on alibi" "rope-scaling pi" $BIN "${E[@]}" --rope-scaling pi
flag "sample --temperature 0 --top-k 5" "no effect with --temperature 0" $BIN sample --ckpt "$CK" --temperature 0 --top-k 5 --tokens 2
flag "sample --temperature 0 --seed 2" "no effect with --temperature 0" $BIN sample --ckpt "$CK" --temperature 0 --seed 2 --tokens 2
flag "plot --xlog on a ppl CSV" "applies to kind position" $BIN plot --xlog --out "$tmp/p.png" "$tmp/e.csv"
flag "plot --smooth on a ppl CSV" "applies to kind position" $BIN plot --smooth 3 --out "$tmp/p.png" "$tmp/e.csv"
flag "plot --metric on a training log" "applies to kinds ppl, offset and accuracy" $BIN plot --metric loss --out "$tmp/p.png" "$tmp/run/log.csv"
flag "plot --positions on a training log" "applies to kind ppl" $BIN plot --positions random --out "$tmp/p.png" "$tmp/run/log.csv"
flag "plot --protocol on a training log" "applies to kinds ppl, offset and position" $BIN plot --protocol sliding --out "$tmp/p.png" "$tmp/run/log.csv"
# a run trained with an extension: a factor without the method names the checkpoint's
$BIN train "${S[@]}" --pos rope --init-from "$tmp/rope/model.bin" --seq-len 32 --rope-scaling pi --steps 2 --out "$tmp/pi" > /dev/null 2>&1
flag "eval --rope-factor on a pi-trained ckpt without --rope-scaling" "extension it was trained with (pi, factor 2).*--rope-scaling pi --rope-factor" \
  $BIN eval --ckpt "$tmp/pi/model.bin" --data "$tmp/text.txt" --rope-factor 3
flag "train --init-from a pi-trained ckpt --rope-factor without --rope-scaling" "brings its extension (pi, factor 2).*--rope-scaling pi --rope-factor 4" \
  $BIN train "${S[@]}" --pos rope --init-from "$tmp/pi/model.bin" --seq-len 32 --rope-factor 4 --steps 2 --out "$tmp/pi2"
# resumed random positions: --rand-max repeats the run's own (used), another is a conflict naming the run
flag "train --resume (random run) --rand-max 100" "the run in '$tmp/rnd', which has --rand-max 64" $BIN train --resume "$tmp/rnd" --rand-max 100
$BIN train --resume "$tmp/rnd" --rand-max 64 > /dev/null 2> "$tmp/e" && $BIN info "$tmp/rnd/model.bin" | grep -q "step 5 of 5" \
  && ok "train --resume (random run) --rand-max 64, its own value: resumes" || bad "resume --rand-max" "$(tail -1 "$tmp/e")"
# outputs that do not exist yet, in a directory that does: a new run into an empty directory,
# and two new outputs of one command side by side (the overlap check once read freed memory
# here and aborted the command)
mkdir "$tmp/empty" "$tmp/two"
$BIN train "${S[@]}" --steps 2 --out "$tmp/empty" > /dev/null 2> "$tmp/e" && [ -s "$tmp/empty/model.bin" ] \
  && ok "train --out an empty directory that exists: trains" || bad "train into an empty directory" "rc $?: $(tail -1 "$tmp/e")"
$BIN eval --ckpt "$tmp/run/model.bin" --data "$tmp/text.txt" --lengths 16 --max-tokens 256 --csv "$tmp/two/e.csv" \
  --per-position "$tmp/two/p.csv" > /dev/null 2> "$tmp/e" && [ -s "$tmp/two/e.csv" ] && [ -s "$tmp/two/p.csv" ] \
  && ok "eval --csv D/e.csv --per-position D/p.csv (both new): both written" || bad "two new outputs" "rc $?: $(tail -1 "$tmp/e")"
# an unknown subcommand of task is named, like an unknown command (it printed the usage alone)
for sub in frob --frob; do
  $BIN task $sub > "$tmp/o" 2> "$tmp/e"; rc=$?
  [ $rc = 2 ] && [ "$(grep -c . "$tmp/e")" = 1 ] && grep -q "^posgpt: error: unknown task subcommand '$sub'; try gen, eval" "$tmp/e" \
    && ok "task $sub: an unknown subcommand, named (exit 2)" || bad "task $sub" "rc $rc: $(head -2 "$tmp/e")"
done
# from the second hostile pass (issue 32): a flag's value that is a flag, a --keep-every no step
# reaches, a bootstrap of too few resamples or of one window, an output onto the task's train.txt
flag "export --out --help (a forgotten value)" "needs a value, and the next word '--help' is a flag" bash -c "cd '$tmp' && '$PWD/$BIN' export '$CK' --out --help"
[ -e "$tmp/--help" ] && bad "export --out --help" "wrote ./--help" || ok "... and no file named --help was written"
flag "train --keep-every beyond --steps" "beyond --steps 4: no copy would be kept" $BIN train "${S[@]}" --steps 4 --ckpt-every 2 --keep-every 100 --out "$tmp/ke"
flag "eval --ci --ci-resamples 1" "ci-resamples must be in \[100" $BIN "${E[@]}" --ci --ci-resamples 1
$BIN eval --ckpt "$CK" --data "$tmp/text.txt" --lengths 16 --max-tokens 16 --ci > "$tmp/o" 2> "$tmp/e" \
  && grep -q ",nan,nan,nan,nan,1$" "$tmp/o" && grep -q "no 95% CI: one window" "$tmp/e" \
  && ok "eval --ci over one window: no interval (nan), and it says so" || bad "ci one window" "$(tail -1 "$tmp/o")"
cp "$tmp/copy/train.txt" "$tmp/train.orig"
refused "task eval --csv onto the task's train.txt" "is also the task's training set" $BIN "${TE[@]}" --csv "$tmp/copy/train.txt"
cmp -s "$tmp/copy/train.txt" "$tmp/train.orig" && ok "... and train.txt is intact" || bad "task train.txt" "replaced"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
