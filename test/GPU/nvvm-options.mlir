// Invalid --bcast-to-nvvm options are errors, not partial pipelines.
// RUN: not bcast-opt %s --bcast-to-nvvm="format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not bcast-opt %s --bcast-to-nvvm="block-size=4096" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not bcast-opt %s --bcast-to-nvvm="broadcast-policy=pytorch" 2>&1 | FileCheck %s --check-prefix=POLICY
// FORMAT: bcast: format must be isa, bin or fatbin, not 'elf'
// BLOCK: bcast: block-size must be in [1, 1024]
// POLICY: bcast: broadcast-policy must be 'numpy' or 'static', not 'pytorch'
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = bcast.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
