#!/usr/bin/env bash
# The hygiene gate of .ci/run: clang-format-22 over every tracked C and C++
# file (the checked-in .clang-format), pyflakes3 over every tracked Python
# file (unused imports and variables, undefined names) and clang-tidy-22
# over lib/ (the checked-in .clang-tidy, with the compile commands of a
# configured build).
#
#   utils/check-format.sh [--build DIR]   # check; non-zero exit on a finding
#   utils/check-format.sh --fix           # reformat the C/C++ files in place
#
# Installs clang-format-22, clang-tidy-22 and pyflakes3 with apt-get when
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
fix=false
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --fix) fix=true; shift ;;
    *) echo "usage: $0 [--build DIR] [--fix]" >&2; exit 2 ;;
  esac
done

missing=()
for tool in clang-format-22 clang-tidy-22 pyflakes3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

mapfile -t sources < <(git ls-files '*.c' '*.cpp' '*.h')
if $fix; then
  clang-format-22 -i "${sources[@]}"
  exit 0
fi

echo "clang-format-22: ${#sources[@]} files"
clang-format-22 --dry-run -Werror "${sources[@]}"

# Banners are comments, which clang-format leaves alone: check their width.
if ! awk '/^\/\/===/ && length > 80 { print FILENAME ":" FNR ": " $0; bad = 1 }
          END { exit bad }' "${sources[@]}"; then
  echo "error: banners wider than 80 columns (above)" >&2
  exit 1
fi

# lit's configuration files run inside lit, which defines their `config`
# and `lit_config`: pyflakes would call every use undefined.
mapfile -t python < <(git ls-files '*.py' | grep -v '/lit\.cfg\.py$')
echo "pyflakes3: ${#python[@]} files"
pyflakes3 "${python[@]}"

if [ ! -f "$build/compile_commands.json" ]; then
  echo "error: $build/compile_commands.json is missing: configure and build" \
    "first (cmake -G Ninja -S . -B $build && cmake --build $build)" >&2
  exit 1
fi
mapfile -t libs < <(git ls-files 'lib/*.cpp')
echo "clang-tidy-22: ${#libs[@]} files under lib/"
# The build's flags are GCC's; clang does not know some of its warnings.
printf '%s\n' "${libs[@]}" |
  xargs -P "$(nproc)" -n 4 clang-tidy-22 -p "$build" --quiet \
    --warnings-as-errors='*' --extra-arg=-Wno-unknown-warning-option
