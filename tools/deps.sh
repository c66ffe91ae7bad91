#!/usr/bin/env bash
# deps.sh - check (and, as root, install) the Debian packages posgpt needs.
#   tools/deps.sh          build + test dependencies
#   tools/deps.sh kjv      also the King James Bible (bible-kjv) for the default corpus
#   tools/deps.sh fortunes also fortune-mod's fortunes (fortunes), the study's second corpus
#   tools/deps.sh torch    also Debian's PyTorch and NumPy, for the optional cross-checks
#                          (tools/torch_ref.py, torch_crosscheck.py, safetensors_check.py)
#   tools/deps.sh mpi      also OpenMPI, for ./posgpt-mpi (make MPI=1) and its tests
# (several of these words may be given)
# Without root it prints the apt-get command to run instead of installing.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
need=()
[ -f /usr/include/x86_64-linux-gnu/openblas-openmp/cblas.h ] || need+=(libopenblas-openmp-dev)
[ -f /usr/include/stb/stb_image_write.h ] || need+=(libstb-dev)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
want=" $* "
if [[ $want == *" torch "* ]]; then
  /usr/bin/python3 -c "import numpy" 2>/dev/null || need+=(python3-numpy)
  /usr/bin/python3 -c "import torch" 2>/dev/null || need+=(python3-torch)
fi
if [[ $want == *" mpi "* ]]; then
  command -v mpicc >/dev/null || need+=(libopenmpi-dev)
  command -v mpirun >/dev/null || need+=(openmpi-bin)
fi
if [[ $want == *" kjv "* ]]; then
  command -v bible >/dev/null || need+=(bible-kjv)
  [ -f /usr/lib/bible.data ] || need+=(bible-kjv-text)
fi
if [[ $want == *" fortunes "* ]]; then
  [ -f /usr/share/games/fortunes/literature ] || need+=(fortunes)
fi
[ ${#need[@]} -eq 0 ] && exit 0
echo "posgpt: installing Debian packages: ${need[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; else
    echo "posgpt: error: missing packages; run: sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
else SUDO=""; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq "${need[@]}" >/dev/null
