#!/usr/bin/env bash
# The first command of the README's quick start: installs what is missing,
# configures and builds bcast, and runs an example end to end.
set -euo pipefail
cd "$(dirname "$0")/.."

utils/install-deps.sh
cmake -G Ninja -S . -B build
cmake --build build

echo
echo "== examples/broadcast.mlir through --bcast-to-llvm and mlir-runner"
lib=/usr/lib/llvm-22/lib
build/bin/bcast-opt --bcast-to-llvm examples/broadcast.mlir |
  /usr/lib/llvm-22/bin/mlir-runner -e main -entry-point-result=void \
    -shared-libs=$lib/libmlir_c_runner_utils.so,$lib/libmlir_runner_utils.so,$lib/libomp.so
