// Bytecode round trip of bcast.matmul: every case of matmul-ops.mlir, and
// the IR --bcast-to-linalg makes of a product, written with --emit-bytecode
// and read back, print exactly as the text did.
// RUN: bcast-opt %S/matmul-ops.mlir > %t.text
// RUN: bcast-opt %S/matmul-ops.mlir --emit-bytecode > %t.mlirbc
// RUN: bcast-opt %t.mlirbc > %t.from-bytecode
// RUN: diff %t.text %t.from-bytecode
// RUN: od -An -c -N4 %t.mlirbc | tr -d ' \n' | FileCheck %s --check-prefix=MAGIC
// MAGIC: ML357R
// RUN: bcast-opt %s --bcast-to-linalg > %t.linalg
// RUN: bcast-opt %s --bcast-to-linalg --emit-bytecode | bcast-opt > %t.linalg-from-bytecode
// RUN: diff %t.linalg %t.linalg-from-bytecode

func.func @kernel(%a: tensor<?x1x4x3xf32>, %b: tensor<5x3x6xf32>) -> tensor<?x5x4x6xf32> {
  %r = bcast.matmul %a, %b : (tensor<?x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<?x5x4x6xf32>
  return %r : tensor<?x5x4x6xf32>
}
