// Bytecode round trip of bcast.permute: the cases of permute-ops.mlir,
// written with --emit-bytecode and read back, print exactly as the text did.
// RUN: bcast-opt %S/permute-ops.mlir > %t.text
// RUN: bcast-opt %S/permute-ops.mlir --emit-bytecode > %t.mlirbc
// RUN: bcast-opt %t.mlirbc > %t.from-bytecode
// RUN: diff %t.text %t.from-bytecode
// RUN: od -An -c -N4 %t.mlirbc | tr -d ' \n' | FileCheck %s
// CHECK: ML357R
