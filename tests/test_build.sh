#!/usr/bin/env bash
# test_build.sh - the build's portability knobs (docs/install.md): make data CORPUS=file, the
# quiet build lines and V=1, OpenBLAS found through pkg-config (PKG_CONFIG) or given
# (BLAS_CFLAGS, BLAS_LIBS), STB_CFLAGS, BLAS=onednn, and tools/deps.sh naming Fedora's and Homebrew's packages.
. "$(dirname "$0")/lib.sh" build
root=$PWD
mk() { make --no-print-directory -C "$root" "$@" 2>&1; }
mkdata() { make --no-print-directory -C "$tmp/w" -f "$root/Makefile" data CORPUS="$1" 2>&1; } # in a folder of its own

# make data CORPUS=file: the file becomes data/kjv.txt (in the folder make runs in), anew each
# time; the fortunes are not fetched; a missing file is refused
mkdir -p "$tmp/w"
phrase_text 1 50 > "$tmp/corpus.txt"
out=$(mkdata "$tmp/corpus.txt")
if cmp -s "$tmp/corpus.txt" "$tmp/w/data/kjv.txt" && [ ! -e "$tmp/w/data/fortunes.txt" ] && [[ $out == *"wrote data/kjv.txt"* ]]; then
  ok "make data CORPUS=file copies it to data/kjv.txt"
else bad "make data CORPUS" "$out"; fi
phrase_text 2 30 > "$tmp/corpus.txt"
mkdata "$tmp/corpus.txt" > /dev/null
cmp -s "$tmp/corpus.txt" "$tmp/w/data/kjv.txt" && ok "make data CORPUS=file copies a changed file again" ||
  bad "CORPUS again" "data/kjv.txt not replaced"
out=$(mkdata "$tmp/nope.txt") && bad "CORPUS missing" "make succeeded" ||
  { [[ $out == *"posgpt: error: CORPUS=$tmp/nope.txt"* ]] && ok "make data CORPUS=missing is refused" || bad "CORPUS missing" "$out"; }

# quiet lines by default, the command itself with V=1
out=$(mk B="$tmp/b" "$tmp/b/f/model/common.o")
[ "$out" = "  CC  model/common.c" ] && ok "quiet build line" || bad "quiet build line" "$out"
out=$(mk -B V=1 B="$tmp/b" "$tmp/b/f/model/common.o")
[[ $out == *" -c -o $tmp/b/f/model/common.o model/common.c"* ]] && ok "V=1 prints the command" || bad "V=1" "$out"

# OpenBLAS: the first name pkg-config knows (here only openblas-openmp), its flags and folder
# as the run-time path; BLAS_CFLAGS/BLAS_LIBS and STB_CFLAGS replace what is found
cat > "$tmp/pkg-config" << 'EOF'
#!/bin/sh
case "$*" in
  "--exists openblas-openmp") exit 0 ;;
  "--cflags openblas-openmp") echo "-I/fake/include" ;;
  "--libs openblas-openmp") echo "-L/fake/lib -lopenblas" ;;
  *) exit 1 ;;
esac
EOF
chmod +x "$tmp/pkg-config"
out=$(mk -n -B V=1 B="$tmp/c" PKG_CONFIG="$tmp/pkg-config" posgpt)
[[ $out == *"-I/fake/include"* && $out == *"-L/fake/lib -lopenblas -Wl,-rpath,/fake/lib"* ]] &&
  ok "OpenBLAS through pkg-config (openblas-openmp)" || bad "pkg-config" "$(echo "$out" | tail -2)"
out=$(mk -n -B V=1 B="$tmp/c" BLAS_CFLAGS=-I/my/blas BLAS_LIBS="-L/my/lib -lopenblas" STB_CFLAGS=-I/my/stb posgpt)
[[ $out == *"-I/my/blas -I/my/stb"* && $out == *"-L/my/lib -lopenblas -Wl,-rpath,/my/lib"* && $out != *openblas-openmp* ]] &&
  ok "BLAS_CFLAGS, BLAS_LIBS and STB_CFLAGS override" || bad "overrides" "$(echo "$out" | tail -2)"

# deps.sh on Fedora and macOS installs nothing: it names the packages of the missing files
# (CC=false: no header is found) and fails, or passes silently when everything is there
out=$(CC=false POSGPT_PKG=dnf tools/deps.sh 2>&1) && bad "deps dnf" "exit 0" ||
  { [[ $out == *"sudo dnf install -y openblas-devel zlib-devel"* ]] && ok "deps.sh names Fedora's packages" || bad "deps dnf" "$out"; }
out=$(CC=false POSGPT_PKG=brew tools/deps.sh 2>&1) && bad "deps brew" "exit 0" ||
  { [[ $out == *"brew install openblas zlib"* ]] && ok "deps.sh names Homebrew's packages" || bad "deps brew" "$out"; }
# BLAS=onednn: its own folder and -DPOSGPT_ONEDNN, -ldnnl beside OpenBLAS; the default build
# neither; clang (another OpenMP runtime than Debian's oneDNN) and an unknown BLAS are refused
out=$(mk -n -B V=1 BLAS=onednn DNNL_LIBS=-ldnnl build/onednn/posgpt)
[[ $out == *"-DPOSGPT_ONEDNN"* && $out == *"-o build/onednn/posgpt "*"-ldnnl "*"-lopenblas"* ]] &&
  ok "make BLAS=onednn builds build/onednn/posgpt with -ldnnl" || bad "BLAS=onednn" "$(echo "$out" | tail -2)"
out=$(mk -n -B V=1 posgpt)
[[ $out != *dnnl* && $out != *ONEDNN* && $out == *"-o posgpt "* ]] && ok "the default build names no oneDNN" ||
  bad "default build" "$(echo "$out" | grep -i dnnl | head -2)"
out=$(mk -n BLAS=onednn CLANG=1 posgpt) && bad "BLAS=onednn CLANG=1" "make succeeded" ||
  { [[ $out == *"BLAS=onednn: Debian's oneDNN runs on GNU OpenMP"* ]] && ok "BLAS=onednn with CLANG=1 is refused" || bad "BLAS=onednn CLANG=1" "$out"; }
out=$(mk -n BLAS=mkl posgpt) && bad "BLAS=mkl" "make succeeded" ||
  { [[ $out == *"BLAS=mkl: unknown"* ]] && ok "an unknown BLAS= is refused" || bad "BLAS=mkl" "$out"; }

out=$(POSGPT_PKG=dnf tools/deps.sh 2>&1) && [ -z "$out" ] && ok "deps.sh on Fedora carries on when the files are there" || bad "deps present" "$out"

echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
