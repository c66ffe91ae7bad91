#!/usr/bin/env bash
# deps.sh - check the files posgpt needs and, on Debian/Ubuntu (apt) as root, install the
# packages that give the missing ones. On Fedora (dnf), macOS (brew) or another system it
# installs nothing: it names that system's packages to install and fails, or, when every file
# is there, carries on silently. docs/install.md has the packages of each system.
#   tools/deps.sh          build + test dependencies
#   tools/deps.sh kjv      also the King James Bible (bible-kjv) for the default corpus
#                          (Debian only; elsewhere: make data CORPUS=file)
#   tools/deps.sh fortunes also fortune-mod's fortunes (fortunes), the study's second corpus
#   tools/deps.sh torch    also Debian's PyTorch and NumPy, for the optional cross-checks
#                          (tools/torch_ref.py, torch_crosscheck.py, safetensors_check.py)
#   tools/deps.sh mpi      also OpenMPI, for ./posgpt-mpi (make MPI=1) and its tests
#   tools/deps.sh onednn   also oneDNN, for make BLAS=onednn (Debian: libdnnl-dev)
#   tools/deps.sh clang    also clang and its OpenMP runtime (make test-clang)
#   tools/deps.sh arm64    also the arm64 cross compiler, arm64 libraries and qemu (make
#                          test-arm64; Debian only: adds the arm64 architecture to dpkg)
# (several of these words may be given)
# Without root it prints the apt-get command to run instead of installing. POSGPT_PKG=dnf (or
# apt, brew, other) picks the system whose packages it names, where it would guess wrong.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
if [ -n "${POSGPT_PKG:-}" ]; then sys=$POSGPT_PKG # apt, dnf, brew or other: the system's packages to name
elif command -v apt-get >/dev/null; then sys=apt; elif command -v dnf >/dev/null; then sys=dnf
elif command -v brew >/dev/null; then sys=brew; else sys=other; fi
need=() none=()
# pkgs APT DNF BREW: the packages that give one missing thing on each system (several:
# comma-separated; "-": none on that system)
pkgs() {
  local p
  case $sys in dnf) p=$2 ;; brew) p=$3 ;; *) p=$1 ;; esac
  if [ "$p" = - ]; then none+=("$1"); else need+=(${p//,/ }); fi
}
# header H [CC FLAGS...]: the C compiler finds header H
header() { local h=$1; shift; printf '#include <%s>\n' "$h" | "${@:-${CC:-cc}}" -E -x c - >/dev/null 2>&1; }
anyfile() { local f; for f; do [ -f "$f" ] && return 0; done; return 1; }
blas_cflags=$(pkg-config --cflags openblas 2>/dev/null || pkg-config --cflags openblas-openmp 2>/dev/null || true)
# (openblas_config.h, not cblas.h: a reference BLAS's cblas.h, such as Debian's libblas-dev, has none
# of OpenBLAS's own calls, openblas_set_num_threads and openblas_get_corename, that posgpt makes)
header openblas_config.h ${CC:-cc} $blas_cflags -I/usr/include/x86_64-linux-gnu/openblas-openmp ||
  pkgs libopenblas-openmp-dev openblas-devel openblas
[ -n "${STB_CFLAGS:-}" ] || anyfile {/usr/include/stb,/usr/local/include/stb,/opt/homebrew/include/stb}/stb_image_write.h ||
  pkgs libstb-dev stb_image_write-devel,stb_truetype-devel -
# (the fonts posgpt plot looks for without --font: tools/plot/text.c)
anyfile /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf \
  /usr/share/fonts/dejavu/DejaVuSans.ttf /usr/share/fonts/TTF/DejaVuSans.ttf || pkgs fonts-dejavu-core dejavu-sans-fonts -
header zlib.h || pkgs zlib1g-dev zlib-devel zlib
command -v "${CC:-gcc}" >/dev/null || command -v cc >/dev/null || pkgs gcc gcc -
command -v make >/dev/null || pkgs make make make
command -v pkg-config >/dev/null || pkgs pkg-config pkgconf-pkg-config pkg-config
want=" $* "
if [[ $want == *" torch "* ]]; then
  /usr/bin/python3 -c "import numpy" 2>/dev/null || pkgs python3-numpy python3-numpy -
  /usr/bin/python3 -c "import torch" 2>/dev/null || pkgs python3-torch python3-torch -
fi
if [[ $want == *" mpi "* ]]; then
  command -v mpicc >/dev/null || pkgs libopenmpi-dev openmpi-devel open-mpi
  command -v mpirun >/dev/null || pkgs openmpi-bin - -
fi
if [[ $want == *" onednn "* ]]; then
  header oneapi/dnnl/dnnl.h || pkgs libdnnl-dev onednn-devel onednn
fi
if [[ $want == *" clang "* ]]; then
  command -v clang >/dev/null || pkgs clang clang -
  header omp.h clang -fopenmp || pkgs libomp-dev libomp-devel libomp
fi
arm64=(gcc-aarch64-linux-gnu libc6:arm64 libopenblas0-openmp:arm64 libopenblas-openmp-dev:arm64 zlib1g-dev:arm64 libgomp1:arm64 qemu-user)
if [[ $want == *" arm64 "* ]]; then
  command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null &&
    anyfile /usr/include/aarch64-linux-gnu/openblas-openmp/cblas.h && anyfile /usr/lib/aarch64-linux-gnu/libz.so &&
    anyfile /usr/lib/aarch64-linux-gnu/libgomp.so.1 && anyfile /lib/ld-linux-aarch64.so.1 || pkgs "$(IFS=,; echo "${arm64[*]}")" - -
fi
if [[ $want == *" kjv "* ]]; then
  command -v bible >/dev/null || pkgs bible-kjv - -
  [ -f /usr/lib/bible.data ] || pkgs bible-kjv-text - -
fi
if [[ $want == *" fortunes "* ]]; then
  [ -f /usr/share/games/fortunes/literature ] || pkgs fortunes fortune-mod fortune
fi
[ ${#need[@]} -eq 0 ] && [ ${#none[@]} -eq 0 ] && exit 0
if [ $sys != apt ]; then
  case $sys in dnf) run="sudo dnf install -y" ;; brew) run="brew install" ;; *) run="install the equivalents of Debian's" ;; esac
  [ ${#need[@]} -gt 0 ] && echo "posgpt: error: missing files; run: $run ${need[*]} (docs/install.md)" >&2
  [ ${#none[@]} -gt 0 ] && echo "posgpt: error: missing files that no $sys package gives (Debian's ${none[*]}); see docs/install.md" >&2
  exit 1
fi
echo "posgpt: installing Debian packages: ${need[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; else
    foreign=; [[ " ${need[*]}" == *:arm64* ]] && foreign="sudo dpkg --add-architecture arm64 && "
    echo "posgpt: error: missing packages; run: ${foreign}sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
else SUDO=""; fi
export DEBIAN_FRONTEND=noninteractive
if [[ " ${need[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq "${need[@]}" >/dev/null
