#!/usr/bin/env bash
# Checks, here, what utils/gpu-device-prepare.sh DIR's run.sh produced on the
# GPU machine (OUTPUTS holds its results.tgz): the numeric families against
# NumPy (numeric.py --compare, the same seeded cases), the chain, the
# product (matmul) and the run-time error against their lit tests' CHECK
# lines, then the benchmark table (benchmarks/gpu_bench.py report). Exits
# non-zero if any check fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: gpu-device-report.sh DIR OUTPUTS}
outputs=${2:?usage: gpu-device-report.sh DIR OUTPUTS}
export PATH=/usr/lib/llvm-22/bin:$PATH
py=/usr/bin/python3
work=$(mktemp -d)
tar xzf "$outputs/results.tgz" -C "$work"
cat "$work/device.txt"
echo "exit statuses:"; cat "$work/tests/status.txt"
failed=0
numeric=$root/test/Integration/Inputs/numeric.py
for f in float int bool nan where broadcast_to in_place dynamic vector half reduction \
    reduction_rows expressions; do
  echo -n "$f: "
  $py "$numeric" --target gpu --family "$f" \
    --compare "$work/tests/test_$f.txt" || failed=1
done
echo -n "dynamic_static_policy: "
$py "$numeric" --target gpu --family dynamic_static_policy --policy static \
  --compare "$work/tests/test_static.txt" || failed=1
for t in chain matmul; do
  echo -n "$t: "
  FileCheck "$root/test/GPU/Execution/$t.test" \
    --input-file "$work/tests/test_$t.txt" && echo PASS || failed=1
done
echo -n "host_register: "
FileCheck "$root/test/GPU/Execution/host-register.test" \
  --input-file "$work/tests/test_host_register.txt" && echo PASS || failed=1
echo -n "runtime_error: "
if grep -qx "test_runtime_error 1" "$work/tests/status.txt" &&
   FileCheck "$root/test/GPU/Execution/runtime-error.test" \
     --input-file "$work/tests/test_runtime_error.err"; then
  echo PASS
else
  echo FAIL; failed=1
fi
for t in "$work"/tests/*.err; do
  [[ $t == *runtime_error.err ]] || [[ ! -s $t ]] || {
    echo "stderr of $(basename "$t"):"; cat "$t"; }
done
for m in "$work"/tests/memcheck_*.log; do
  [[ -e $m ]] || continue
  echo "$(basename "$m" .log): $(grep -h "ERROR SUMMARY" "$m")"
  grep -q "ERROR SUMMARY: 0 errors" "$m" || failed=1
done
echo
$py "$root/benchmarks/gpu_bench.py" report "$dir" "$work/bench" || failed=1
exit $failed
