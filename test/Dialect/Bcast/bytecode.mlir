// Bytecode round trips: every op of ops.mlir, and IR after --bcast-to-linalg,
// written with --emit-bytecode and read back, print exactly as the text did.
// (bcast-opt also runs with --verify-roundtrip; this checks the result.)
// RUN: bcast-opt %S/ops.mlir > %t.text
// RUN: bcast-opt %S/ops.mlir --emit-bytecode > %t.mlirbc
// RUN: bcast-opt %t.mlirbc > %t.from-bytecode
// RUN: diff %t.text %t.from-bytecode
// RUN: bcast-opt %s --bcast-to-linalg > %t.linalg
// RUN: bcast-opt %s --bcast-to-linalg --emit-bytecode | bcast-opt > %t.linalg-from-bytecode
// RUN: diff %t.linalg %t.linalg-from-bytecode
// What was read back really was bytecode (MLIR's magic number "ML\xefR").
// The dialect version it carries is tested in unittests/Dialect/BcastBytecodeTest.cpp.
// RUN: od -An -c -N4 %t.mlirbc | tr -d ' \n' | FileCheck %s --check-prefix=MAGIC
// MAGIC: ML357R
// A truncated bytecode file is an error, never a crash.
// RUN: head -c 100 %t.mlirbc > %t.truncated
// RUN: not bcast-opt %t.truncated 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error:

func.func @kernel(%a: tensor<?x1xf32>, %b: tensor<4xf32>, %c: tensor<?x4xi1>) -> tensor<?x4xf32> {
  %s = bcast.add %a, %b : (tensor<?x1xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %w = bcast.where %c, %s, %b : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %w : tensor<?x4xf32>
}
