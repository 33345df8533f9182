#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages bcast needs to build and to run
# all of its tests. Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
  cmake ninja-build
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  # ASan/UBSan and libFuzzer runtimes for clang-22 (CI's sanitizer build and
  # the bcast-fuzz-* targets); only recommended by clang-22, so named here.
  libclang-rt-22-dev
  libomp-22-dev libgtest-dev
  # MPI for sharded programs (libbcast_mpi_runtime.so, the mpirun tests).
  mpich libmpich-dev
  python3 python3-numpy python3-pybind11 pybind11-dev python3-pytest
  python3-hypothesis
  # The Python linter of the hygiene gate (utils/check-format.sh).
  pyflakes3
  # Test oracle for the differential tests (about a minute to install).
  python3-torch python3-mpmath
  # The census models of benchmarks/torch_models.py, bench.py --torch and
  # examples/torch_resnet.py (random weights: nothing is downloaded).
  python3-torchvision
  # Peers and the plot of benchmarks/bench.py --sizes.
  python3-numexpr python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
