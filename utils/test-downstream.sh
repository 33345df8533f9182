#!/usr/bin/env bash
# Checks bcast as an installed package: installs a built bcast into a fresh
# prefix, configures and builds examples/downstream against that prefix alone
# (find_package(BcastMLIR CONFIG)), and runs the example's lit tests. The
# bcast test suite runs it through test/Embedding/downstream.test, so
# `check-bcast` (and CI) covers packaging; by hand:
#   utils/test-downstream.sh [--build DIR] [--work DIR]
# --build: the bcast build to install (default: build/), already built.
# --work:  where the prefix and the example's build go (default: a temporary
#          directory, removed afterwards); emptied first.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--work DIR]" >&2; exit 2 ;;
  esac
done
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

cache_value() {
  sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"
}

echo "== installing $build into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
echo "installed $(wc -l < "$build/install_manifest.txt") files"

echo "== configuring examples/downstream against the installed package"
# The same compiler as bcast (an ASan build's runtime is the compiler's own).
cmake -G Ninja -S "$src/examples/downstream" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$(cache_value CMAKE_CXX_COMPILER)" \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
grep "Using BcastMLIRConfig.cmake in" "$work/configure.log"

echo "== building downstream-opt"
cmake --build "$work/build" > "$work/build.log" ||
  { cat "$work/build.log"; exit 1; }

echo "== running the example's lit tests"
cmake --build "$work/build" --target check-downstream
