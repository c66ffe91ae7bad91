# pin_lib.sh - sourced by the studies that pin a binary (study3.sh, tasks2.sh, ctxext.sh): one
# kernel for a grid's matrix products, as one pinned binary.
# shellcheck shell=bash
#
# pin_kernel NAME BIN DIR REPIN: BIN's kernel for the matrix products (posgpt --version's second
# line, which follows POSGPT_BLAS and OPENBLAS_CORETYPE) is recorded in DIR/kernel.txt at a
# grid's first start (or when REPIN is 1); a later start whose kernel differs is refused (exit 2,
# naming both). Sets KERNEL to the line, for command.txt. Runs on two kernels would differ in
# their last bits, so a resumed or added run would not be the run the grid's others are.
pin_kernel() {
  local name=$1 bin=$2 dir=$3 repin=$4
  KERNEL=$("$bin" --version 2> /dev/null | sed -n 2p)
  [ -n "$KERNEL" ] || { echo "$name: error: $bin --version names no kernel for the matrix products" >&2; exit 2; }
  if [ ! -s "$dir/kernel.txt" ] || [ "$repin" = 1 ]; then
    echo "$KERNEL" > "$dir/kernel.txt.tmp.$$" && mv "$dir/kernel.txt.tmp.$$" "$dir/kernel.txt"
  elif [ "$(cat "$dir/kernel.txt")" != "$KERNEL" ]; then
    echo "$name: error: the matrix products would run on '$KERNEL', but this grid's runs ran on '$(cat "$dir/kernel.txt")' ($dir/kernel.txt): set POSGPT_BLAS or OPENBLAS_CORETYPE as at its first start (posgpt --help); to go on with the new one, --repin where the study has it, else remove $dir/kernel.txt" >&2
    exit 2
  fi
}
