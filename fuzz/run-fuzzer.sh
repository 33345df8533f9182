#!/usr/bin/env bash
# Runs one of bcast's fuzz targets (docs/Robustness.md) for a fixed time:
#   parse  parse + verify + round trips (printer, bytecode): thousands/s
#   fold   canonicalization (the folders) and the diagnostic passes
#   llvm   --bcast-to-linalg and --bcast-to-llvm with several option sets
#   nvvm   --bcast-to-nvvm up to PTX
# Seeds: the corpus kept in the repository (fuzz/corpus/TARGET, merged and
# minimized), the test suite's .mlir files (fuzz/seed-corpus.py) and
# programs from the generator (bcast-fuzz-gen); the targets' custom mutator
# generates more as it goes. What the fuzzer learns stays in a working
# corpus under the build, from which later runs go on. Exits non-zero,
# printing the reproducer's path, if the fuzzer finds a crash, a sanitizer
# error, a leak, a timeout or an out-of-memory. Every run appends its
# executions (libFuzzer's own count, summed over jobs) to
# BUILD/fuzz/campaigns.tsv.
#
#   fuzz/run-fuzzer.sh [--target T] [--build DIR] [--time SECONDS]
#                      [--jobs N] [--bytecode] [--merge] [--no-build]
#                      [-- LIBFUZZER_ARGS]
# --target:   parse, fold, llvm (default) or nvvm.
# --build:    a build configured with clang-22 and -DBCAST_ENABLE_FUZZER=ON
#             (default build-asan/); the target is built if needed.
# --time:     fuzzing time in seconds (default 90); each job runs this long.
# --jobs:     parallel fuzzing processes (default 1).
# --bytecode: fuzz bytecode too (non-ASCII inputs, bytecode seeds). Off by
#             default: MLIR 22's bytecode reader aborts on some malformed
#             files (report_fatal_error, an upstream bug; docs/Robustness.md),
#             which the fuzzer finds within minutes. The parse target
#             round-trips every valid module through bytecode either way.
# --merge:    afterwards, merge the working corpus into fuzz/corpus/TARGET,
#             keeping only inputs that add coverage (commit the result).
# --no-build: use the binaries as they are (a long campaign while the build
#             directory is rebuilt by hand).
# Reproduce a finding with: build-asan/bin/bcast-fuzz-TARGET CRASH_FILE
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-asan"
target=llvm
time=90
jobs=1
bytecode=0
merge=0
build_first=1
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --time) time="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --bytecode) bytecode=1; shift ;;
    --merge) merge=1; shift ;;
    --no-build) build_first=0; shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [--target parse|fold|llvm|nvvm] [--build DIR]" \
            "[--time SECONDS] [--jobs N] [--bytecode] [--merge] [--no-build]" \
            "[-- ARGS]" >&2
       exit 2 ;;
  esac
done
case "$target" in
  parse|fold|llvm|nvvm) ;;
  *) echo "$0: unknown target '$target' (parse, fold, llvm or nvvm)" >&2
     exit 2 ;;
esac

# libMLIR.so is not instrumented: its containers' annotations do not match
# ours (docs/Robustness.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_container_overflow=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

if [ "$build_first" -eq 1 ]; then
  cmake --build "$build" --target "bcast-fuzz-$target" bcast-fuzz-gen
fi
fuzzer="$build/bin/bcast-fuzz-$target"
work="$build/fuzz/$target"
seeds="$work/seeds"
corpus="$work/corpus"
artifacts="$work/artifacts"
kept="$src/fuzz/corpus/$target"
rm -rf "$seeds"
mkdir -p "$corpus" "$artifacts" "$kept"
/usr/bin/python3 "$src/fuzz/seed-corpus.py" "$src" "$seeds"
# Generated programs (fixed seeds: the same every run), a quarter
# ill-typed.
"$build/bin/bcast-fuzz-gen" --count 200 --seed 1 --ill-typed 25 "$seeds"
# With --bytecode, the valid seeds again as bytecode, so that the bytecode
# reader (bcast's dialect version, op properties) is fuzzed from real files
# too.
if [ "$bytecode" -eq 1 ]; then
  [ "$build_first" -eq 0 ] || cmake --build "$build" --target bcast-opt
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

log="$work/fuzz.log"
rm -f "$work"/fuzz-*.log
echo "fuzzing $target for ${time}s with $jobs job(s); log: $log"
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
(cd "$work" && "$fuzzer" "${args[@]}" "$@" "$corpus" "$kept" "$seeds") \
  > "$log" 2>&1 || status=$?
if [ "$jobs" -gt 1 ]; then
  cat "$work"/fuzz-*.log >> "$log" 2>/dev/null || true
fi

grep -E "^#[0-9]+ *(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$log" || true
executions=$(awk '/stat::number_of_executed_units/ { n += $2 } END { print n + 0 }' "$log")
new_units=$(awk '/stat::new_units_added/ { n += $2 } END { print n + 0 }' "$log")
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
  "$target" "$time" "$jobs" "$executions" "$new_units" \
  "$([ "$status" -eq 0 ] && echo none || echo "exit $status")" \
  >> "$build/fuzz/campaigns.tsv"
echo "bcast-fuzz-$target: $executions executions, $new_units new units" \
  "(appended to $build/fuzz/campaigns.tsv)"
if [ "$status" -ne 0 ]; then
  echo "bcast-fuzz-$target FAILED (exit status $status); the end of its log:" >&2
  tail -60 "$log" >&2
  ls -l "$artifacts" >&2
  exit 1
fi

if [ "$merge" -eq 1 ]; then
  merged="$work/merged"
  rm -rf "$merged"
  mkdir -p "$merged"
  # Edge coverage only (no hit counters, no comparison operands): the
  # corpus kept in the repository stays small.
  (cd "$work" && "$fuzzer" -merge=1 -use_counters=0 -use_cmp=0 \
     -max_len=1024 -timeout=30 -rss_limit_mb=4096 "$merged" "$kept" \
     "$corpus") \
    > "$work/merge.log" 2>&1
  rm -rf "$kept"
  mv "$merged" "$kept"
  echo "merged into $kept: $(ls "$kept" | wc -l) inputs," \
       "$(du -sh "$kept" | cut -f1)"
fi
echo "bcast-fuzz-$target: no finding in ${time}s"
