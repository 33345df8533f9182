#!/usr/bin/env bash
# Runs bcast-fuzz: builds the seed corpus from the test suite's .mlir files
# (fuzz/seed-corpus.py, plus the valid ones as bytecode), then fuzzes for a fixed time with the bcast
# dictionary, keeping what it learns in a working corpus that later runs
# start from. Exits non-zero, printing the reproducer's path, if the fuzzer
# finds a crash, a sanitizer error, a leak, a timeout or an out-of-memory.
#   fuzz/run-fuzzer.sh [--build DIR] [--time SECONDS] [--jobs N] [--bytecode]
#                      [-- LIBFUZZER_ARGS]
# --build: a build configured with clang-22 and -DBCAST_ENABLE_FUZZER=ON
#          (default build-asan/); bcast-fuzz is built if needed.
# --time:  total fuzzing time (default 90, CI's short run).
# --jobs:  parallel fuzzing processes (default 1).
# --bytecode: fuzz bytecode too (bytecode seeds, non-ASCII inputs). Off by
#          default: MLIR 22's bytecode reader aborts on some malformed files
#          (report_fatal_error, an upstream bug; docs/Robustness.md), which
#          the fuzzer finds within minutes, so a time-boxed run such as CI's
#          fuzzes textual IR (-only_ascii=1) and the bytecode reader is
#          covered by test/Robustness/hostile-files.test and the unit tests.
# Reproduce a finding with: build-asan/bin/bcast-fuzz CRASH_FILE
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-asan"
time=90
jobs=1
bytecode=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --time) time="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --bytecode) bytecode=1; shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [--build DIR] [--time SECONDS] [--jobs N] [--bytecode] [-- ARGS]" >&2; exit 2 ;;
  esac
done

# libMLIR.so is not instrumented: its containers' annotations do not match
# ours (docs/Robustness.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_container_overflow=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

cmake --build "$build" --target bcast-fuzz
fuzzer="$build/bin/bcast-fuzz"
seeds="$build/fuzz/seeds"
corpus="$build/fuzz/corpus"
artifacts="$build/fuzz/artifacts"
rm -rf "$seeds"
mkdir -p "$corpus" "$artifacts"
/usr/bin/python3 "$src/fuzz/seed-corpus.py" "$src" "$seeds"
# With --bytecode, the valid seeds again as bytecode, so that the bytecode
# reader (bcast's dialect version, op properties) is fuzzed from real files
# too.
if [ "$bytecode" -eq 1 ]; then
  cmake --build "$build" --target bcast-opt
  converted=0
  for seed in "$seeds"/*; do
    if "$build/bin/bcast-opt" "$seed" --emit-bytecode -o "$seed.mlirbc" \
         2>/dev/null; then
      converted=$((converted + 1))
    else
      rm -f "$seed.mlirbc"
    fi
  done
  echo "added $converted bytecode seeds"
fi


log="$build/fuzz/fuzz.log"
echo "fuzzing for ${time}s with $jobs job(s); log: $log"
status=0
args=(
  -max_total_time="$time"
  -timeout=30                 # a single input taking longer is a hang
  -rss_limit_mb=4096
  -max_len=16384
  -dict="$src/fuzz/bcast.dict"
  -artifact_prefix="$artifacts/"
  -print_final_stats=1
)
if [ "$bytecode" -eq 0 ]; then
  args+=(-only_ascii=1)
fi
if [ "$jobs" -gt 1 ]; then
  args+=(-jobs="$jobs" -workers="$jobs")
fi
(cd "$build/fuzz" && "$fuzzer" "${args[@]}" "$@" "$corpus" "$seeds") \
  > "$log" 2>&1 || status=$?
if [ "$jobs" -gt 1 ]; then
  cat "$build"/fuzz/fuzz-*.log >> "$log" 2>/dev/null || true
fi

grep -E "^#[0-9]+ *(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$log" || true
if [ "$status" -ne 0 ]; then
  echo "bcast-fuzz FAILED (exit status $status); the end of its log:" >&2
  tail -60 "$log" >&2
  ls -l "$artifacts" >&2
  exit 1
fi
echo "bcast-fuzz: no crash in ${time}s"
