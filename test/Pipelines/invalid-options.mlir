// Invalid --bcast-to-linalg and --bcast-to-llvm options are errors (exit
// status 1, a message naming the option), never partial pipelines.
// (test/GPU/nvvm-options.mlir does the same for --bcast-to-nvvm.)
// RUN: not bcast-opt %s --bcast-to-llvm="broadcast-policy=bogus" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not bcast-opt %s --bcast-to-linalg="broadcast-policy=bogus" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not bcast-opt %s --bcast-to-llvm="vector-bytes=0" 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not bcast-opt %s --bcast-to-llvm="vector-bytes=-4" 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not bcast-opt %s --bcast-to-llvm="in-cache-bytes=-1" 2>&1 | FileCheck %s --check-prefix=CACHE
// RUN: not bcast-opt %s --bcast-to-llvm="math-interleave=-1" 2>&1 | FileCheck %s --check-prefix=INTERLEAVE
// RUN: not bcast-opt %s --bcast-to-llvm="vector-math=svml" 2>&1 | FileCheck %s --check-prefix=MATH
// RUN: not bcast-opt %s --bcast-to-llvm="block-size=128" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not bcast-opt %s --pass-pipeline="builtin.module(bcast-to-llvm{broadcast-policy=bogus})" 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: bcast: broadcast-policy must be 'numpy' or 'static', not 'bogus'
// POLICY-NOT: llvm.func
// VECTOR: bcast: vector-bytes must be positive
// VECTOR-NOT: llvm.func
// CACHE: bcast: in-cache-bytes must not be negative
// CACHE-NOT: llvm.func
// INTERLEAVE: bcast: math-interleave must not be negative
// INTERLEAVE-NOT: llvm.func
// MATH: bcast: vector-math must be libm, libmvec or libmvec-avx512, not 'svml'
// MATH-NOT: llvm.func
// UNKNOWN: no such option block-size
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = bcast.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
