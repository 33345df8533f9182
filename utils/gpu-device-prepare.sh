#!/usr/bin/env bash
# Prepares the GPU checks for a machine with an NVIDIA GPU but no LLVM: builds
# here (with --bcast-to-nvvm, mlir-translate and clang-22) the GPU execution
# tests of test/Integration/Inputs/numeric.py and test/GPU/Inputs, and the
# GPU benchmark, into DIR together with libbcast_cuda_runtime.so and a run.sh
# that runs them all there and writes their outputs to $OUT (or DIR/out).
# Afterwards, here: utils/gpu-device-report.sh DIR OUTPUTS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: gpu-device-prepare.sh DIR}
export PATH=$root/build/bin:/usr/lib/llvm-22/bin:$PATH
py=/usr/bin/python3
rm -rf "$dir" && mkdir -p "$dir"
cp "$root/build/lib/libbcast_cuda_runtime.so" "$dir/"

families="float int bool nan where broadcast_to in_place dynamic vector half reduction
  reduction_rows expressions"
for f in $families; do
  $py "$root/test/Integration/Inputs/numeric.py" --target gpu --family "$f" \
    --build-exe "$dir/test_$f"
  rm -f "$dir/test_$f.ll"
done
$py "$root/test/Integration/Inputs/numeric.py" --target gpu \
  --family dynamic_static_policy --policy static --build-exe "$dir/test_static"
rm -f "$dir/test_static.ll"

# The run-time error and the fused chain (test/GPU/Execution/*.test).
for t in runtime_error chain matmul; do
  bcast-opt --bcast-to-nvvm "$root/test/GPU/Inputs/$t.mlir" |
    mlir-translate --mlir-to-llvmir > "$dir/$t.ll"
  clang-22 -O2 -Wno-override-module "$dir/$t.ll" \
    "$root/test/GPU/Inputs/gpu_test_main.c" -o "$dir/test_$t" \
    -L"$dir" -lbcast_cuda_runtime -Wl,-rpath,'$ORIGIN'
  rm -f "$dir/$t.ll"
done

clang-22 -O2 "$root/test/GPU/Inputs/host_register.c" -o "$dir/test_host_register" \
  -L"$dir" -lbcast_cuda_runtime -Wl,-rpath,'$ORIGIN'

$py "$root/benchmarks/gpu_bench.py" build "$dir"

cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine: every test and benchmark, outputs into $OUT.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/tests" "$out/bench"
nvidia-smi -L > "$out/device.txt" 2>&1
# 300 s: the reduction family's 2704 kernels took about 120 s on an H200
# (each module's PTX compiled by the driver on first use).
for t in test_*; do
  timeout 300 ./$t > "$out/tests/$t.txt" 2> "$out/tests/$t.err"
  echo "$t $?" >> "$out/tests/status.txt"
done
# Out-of-bounds accesses the comparisons might not see (memcheck).
if command -v compute-sanitizer > /dev/null; then
  for t in test_vector test_dynamic test_broadcast_to test_chain test_reduction_rows \
      test_expressions; do
    timeout 300 compute-sanitizer --tool memcheck --print-limit 5 \
      --error-exitcode 99 --log-file "$out/tests/memcheck_$t.log" ./$t \
      > /dev/null 2>&1
    echo "memcheck_$t $?" >> "$out/tests/status.txt"
  done
fi
for b in bench_*; do timeout 120 ./$b > "$out/bench/${b#bench_}.txt" 2>&1; done
timeout 300 python3 torch_bench.py > "$out/bench/torch.txt" 2>&1
cd "$out" && tar czf results.tgz tests bench device.txt && rm -rf tests bench
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
