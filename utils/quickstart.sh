#!/usr/bin/env bash
# The first command of the README's quick start: installs what is missing,
# configures and builds bcast, and runs an example end to end.
set -euo pipefail
cd "$(dirname "$0")/.."

utils/install-deps.sh
cmake -G Ninja -S . -B build
cmake --build build

echo
echo "== bcast-opt --bcast-explain examples/broadcast.mlir"
build/bin/bcast-opt --bcast-explain examples/broadcast.mlir -o /dev/null
