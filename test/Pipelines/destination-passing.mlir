// Kernels in destination-passing style write straight into the caller's
// buffer: no allocation and no copy, for out-of-place and in-place ops.
// RUN: bcast-opt %s --bcast-to-linalg --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s --check-prefix=BUF
// RUN: bcast-opt %s --bcast-to-llvm | FileCheck %s --check-prefix=LLVM

// BUF-LABEL: func @chain_into_out
// BUF-SAME: (%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32xf32>, %[[C:.*]]: memref<64x1xf32>, %[[D:.*]]: memref<f32>, %[[OUT:.*]]: memref<64x32xf32>)
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: linalg.generic
// BUF-SAME: ins(%[[A]], %[[B]], %[[C]], %[[D]] :
// BUF-SAME: outs(%[[OUT]] : memref<64x32xf32>)
// BUF-NOT: memref.copy
// BUF: return
// LLVM-LABEL: llvm.func @chain_into_out
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.return
func.func @chain_into_out(%ma: memref<64x32xf32>, %mb: memref<32xf32>, %mc: memref<64x1xf32>, %md: memref<f32>, %out: memref<64x32xf32>) {
  %a = bufferization.to_tensor %ma restrict : memref<64x32xf32> to tensor<64x32xf32>
  %b = bufferization.to_tensor %mb restrict : memref<32xf32> to tensor<32xf32>
  %c = bufferization.to_tensor %mc restrict : memref<64x1xf32> to tensor<64x1xf32>
  %d = bufferization.to_tensor %md restrict : memref<f32> to tensor<f32>
  %0 = bcast.add %a, %b : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %1 = bcast.mul %0, %c : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  %2 = bcast.sub %1, %d : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<64x32xf32>, memref<64x32xf32>) -> ()
  return
}

// In place on a caller's buffer.
// BUF-LABEL: func @add_in_place_buffer
// BUF-SAME: (%[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<3xf32>)
// BUF-NOT: memref.alloc
// BUF: linalg.generic
// BUF-SAME: ins(%[[X]], %[[Y]] : memref<4x3xf32>, memref<3xf32>) outs(%[[X]] : memref<4x3xf32>)
// BUF-NOT: memref.copy
// LLVM-LABEL: llvm.func @add_in_place_buffer
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.return
func.func @add_in_place_buffer(%mx: memref<4x3xf32>, %my: memref<3xf32>) {
  %x = bufferization.to_tensor %mx restrict writable : memref<4x3xf32> to tensor<4x3xf32>
  %y = bufferization.to_tensor %my restrict : memref<3xf32> to tensor<3xf32>
  %r = bcast.add_ %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  bufferization.materialize_in_destination %r in restrict writable %mx : (tensor<4x3xf32>, memref<4x3xf32>) -> ()
  return
}

// In place on a tensor argument that is dead afterwards: the result is the
// argument's buffer, no new allocation.
// BUF-LABEL: func @add_in_place_tensor
// BUF-SAME: (%[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<3xf32>) -> memref<4x3xf32>
// BUF-NOT: memref.alloc
// BUF: linalg.generic
// BUF-SAME: outs(%[[X]] : memref<4x3xf32>)
// BUF: return %[[X]]
func.func @add_in_place_tensor(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = bcast.add_ %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// ...but when the in-place operand is used afterwards, bufferization keeps
// its value by writing the result into a new buffer (reading the operand
// as an input, so no copy).
// BUF-LABEL: func @add_in_place_still_used
// BUF-SAME: (%[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<3xf32>)
// BUF: %[[NEW:.*]] = memref.alloc
// BUF-NOT: memref.copy
// BUF: linalg.generic
// BUF-SAME: ins(%[[X]], %[[Y]] : memref<4x3xf32>, memref<3xf32>) outs(%[[NEW]] : memref<4x3xf32>)
// BUF: return %[[NEW]], %[[X]]
func.func @add_in_place_still_used(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %r = bcast.add_ %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r, %x : tensor<4x3xf32>, tensor<4x3xf32>
}

// An argmin and an argmax over the same dim, each written to its own
// destination. Their index accumulators are identical zero fills that CSE
// merges; bcast-unshare-inits gives each generic its own again, so each
// fills and writes its destination in place. With one shared fill,
// eliminate-empty-tensors tied it to %[[I]] and both destinations received
// one op's indices (a copy of %[[I]] into %[[J]] after %[[I]] had been
// overwritten).
// BUF-LABEL: func @argmin_and_argmax_into_outs
// BUF-SAME: (%[[X:.*]]: memref<4x5xf32>, %[[I:.*]]: memref<5xi64>, %[[J:.*]]: memref<5xi64>)
// BUF-NOT: memref.copy
// BUF-DAG: linalg.fill ins(%{{.*}} : i64) outs(%[[I]] : memref<5xi64>)
// BUF-DAG: linalg.fill ins(%{{.*}} : i64) outs(%[[J]] : memref<5xi64>)
// BUF: linalg.generic
// BUF-SAME: ins(%[[X]] : memref<4x5xf32>) outs(%{{.*}}, %[[I]] : memref<5xf32>, memref<5xi64>)
// BUF: arith.cmpf olt
// BUF: linalg.generic
// BUF-SAME: ins(%[[X]] : memref<4x5xf32>) outs(%{{.*}}, %[[J]] : memref<5xf32>, memref<5xi64>)
// BUF: arith.cmpf ogt
// BUF-NOT: memref.copy
// BUF: return
func.func @argmin_and_argmax_into_outs(%mx: memref<4x5xf32>, %oi: memref<5xi64>, %oj: memref<5xi64>) {
  %x = bufferization.to_tensor %mx restrict : memref<4x5xf32> to tensor<4x5xf32>
  %i = bcast.argmin %x {dim = 0 : i64} : (tensor<4x5xf32>) -> tensor<5xi64>
  %j = bcast.argmax %x {dim = 0 : i64} : (tensor<4x5xf32>) -> tensor<5xi64>
  bufferization.materialize_in_destination %i in restrict writable %oi : (tensor<5xi64>, memref<5xi64>) -> ()
  bufferization.materialize_in_destination %j in restrict writable %oj : (tensor<5xi64>, memref<5xi64>) -> ()
  return
}
