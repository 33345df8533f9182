// A written-out softmax and LayerNorm (the generics convert-bcast-to-linalg
// gives amax/sum with keepdim and the element-wise ops) become, through the
// pieces of --bcast-to-llvm (fusion, bufferization, bcast-fuse-rows, the
// vectorizers), one parallel loop over row blocks each: no [M,N] buffer but
// the result, the statistics ([M,1]) computed and applied per block of
// rows, the reductions vectorized inside without a second parallel loop.
// The whole --bcast-to-llvm pipeline gives one OpenMP parallel region per
// function.
// RUN: bcast-opt %s --bcast-to-linalg | bcast-opt --pass-pipeline="builtin.module(func.func(eliminate-empty-tensors),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},func.func(canonicalize),buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(bcast-fuse-rows,bcast-vectorize-elementwise,bcast-vectorize-reductions,convert-linalg-to-loops,canonicalize,cse))" | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm | FileCheck %s --check-prefix=LLVM

// The exponentials are computed once, stored into the result's rows,
// summed from there while the block is in cache and divided in place
// (bcast-fuse-elementwise's costly-producer rule); the maximum and the sum
// share one [M,1] buffer, the maximum being dead once the exponentials
// are computed.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: memref<64x1000xf32>) -> memref<64x1000xf32>
// CHECK-DAG:     %[[M:.*]] = memref.alloc() {{.*}} : memref<64x1xf32>
// CHECK-DAG:     %[[Y:.*]] = memref.alloc() {{.*}} : memref<64x1000xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
// CHECK:         scf.parallel
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           vector.reduction <maximumf>
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           math.exp {{.*}} : vector<8xf32>
// CHECK:           vector.store
// CHECK-NOT:       math.exp
// CHECK:           vector.reduction <add>
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK-NOT:       math.exp
// CHECK:           arith.divf {{.*}} : vector<8xf32>
// CHECK:           vector.store
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.alloc
// CHECK:         return %[[Y]]

// The two sums' zero fills, which CSE merges, are two again
// (bcast-unshare-inits): each statistic has its own [M,1] buffer, filled
// inside the row loop rather than copied from a shared one before it; the
// [M,N] centred values, squares and normalized values exist only inside the
// loop bodies.
// CHECK-LABEL: func.func @layernorm(
// CHECK-NOT:     memref.alloc() {{.*}} : memref<64x1024xf32>
// CHECK-DAG:     %[[MEAN:.*]] = memref.alloc() {{.*}} : memref<64x1xf32>
// CHECK-DAG:     %[[VAR:.*]] = memref.alloc() {{.*}} : memref<64x1xf32>
// CHECK-DAG:     %[[Y:.*]] = memref.alloc() {{.*}} : memref<64x1024xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
// CHECK:         scf.parallel
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           memref.subview %[[MEAN]]
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           memref.subview %[[VAR]]
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           vector.reduction <add>
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           vector.reduction <add>
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.parallel
// CHECK:           math.rsqrt
// CHECK:           vector.store
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.alloc
// CHECK:         return %[[Y]]

// The bcast.softmax op lowers to the written-out form and becomes the same
// loop nest: each exponential computed once, stored, summed, divided in
// place.
// CHECK-LABEL: func.func @softmax_op(
// CHECK-DAG:     memref.alloc() {{.*}} : memref<64x1xf32>
// CHECK-DAG:     %[[Y:.*]] = memref.alloc() {{.*}} : memref<64x1000xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         scf.parallel
// CHECK:           vector.reduction <maximumf>
// CHECK:           math.exp {{.*}} : vector<8xf32>
// CHECK:           vector.store {{.*}}, %[[Y]]
// CHECK-NOT:       math.exp
// CHECK:           vector.reduction <add>
// CHECK-NOT:       math.exp
// CHECK:           arith.divf {{.*}} : vector<8xf32>
// CHECK:           vector.store {{.*}}, %[[Y]]
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.alloc
// CHECK:         return %[[Y]]

// In f16 the exponentials (f32) cannot be stored in the result: they are
// computed again for the division rather than kept in an [M,N] f32 buffer.
// CHECK-LABEL: func.func @softmax_op_f16(
// CHECK-NOT:     memref.alloc() {{.*}} : memref<64x1000xf32>
// CHECK:         scf.parallel
// CHECK:           vector.reduction <maximumf>
// CHECK:           math.exp {{.*}} : vector<8xf32>
// CHECK:           vector.reduction <add>
// CHECK:           math.exp {{.*}} : vector<8xf32>
// CHECK:           arith.divf {{.*}} : vector<8xf32>
// CHECK:           arith.truncf
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.alloc

// LLVM-LABEL: llvm.func @softmax(
// LLVM:         omp.parallel
// LLVM-NOT:     omp.parallel
// LLVM-LABEL: llvm.func @layernorm(
// LLVM:         omp.parallel
// LLVM-NOT:     omp.parallel
// LLVM:         llvm.return

func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x1xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<64x1xf32>) -> tensor<64x1xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%i0 : tensor<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<64x1xf32>
  %e1 = tensor.empty() : tensor<64x1000xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<64x1000xf32>, tensor<64x1xf32>) outs(%e1 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  %e4 = tensor.empty() : tensor<64x1000xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<64x1000xf32>) outs(%e4 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  %e2 = tensor.empty() : tensor<64x1xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x1xf32>) -> tensor<64x1xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<64x1000xf32>) outs(%i2 : tensor<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<64x1xf32>
  %e3 = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<64x1000xf32>, tensor<64x1xf32>) outs(%e3 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.divf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}
func.func @layernorm(%a0: tensor<64x1024xf32>, %a1: tensor<1024xf32>, %a2: tensor<1024xf32>) -> (tensor<64x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %s1_e = tensor.empty() : tensor<64x1xf32>
  %s1_i = linalg.fill ins(%zero : f32) outs(%s1_e : tensor<64x1xf32>) -> tensor<64x1xf32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%a0 : tensor<64x1024xf32>) outs(%s1_i : tensor<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<64x1xf32>
  %mean_e = tensor.empty() : tensor<64x1xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s1 : tensor<64x1xf32>) outs(%mean_e : tensor<64x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %nn = arith.constant 1024.0 : f32
    %t = arith.divf %p, %nn : f32
    linalg.yield %t : f32
  } -> tensor<64x1xf32>
  %xc_e = tensor.empty() : tensor<64x1024xf32>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a0, %mean : tensor<64x1024xf32>, tensor<64x1xf32>) outs(%xc_e : tensor<64x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.subf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<64x1024xf32>
  %sq_e = tensor.empty() : tensor<64x1024xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xc : tensor<64x1024xf32>) outs(%sq_e : tensor<64x1024xf32>) {
  ^bb0(%p: f32, %o: f32):
    %t = arith.mulf %p, %p : f32
    linalg.yield %t : f32
  } -> tensor<64x1024xf32>
  %s2_e = tensor.empty() : tensor<64x1xf32>
  %s2_i = linalg.fill ins(%zero : f32) outs(%s2_e : tensor<64x1xf32>) -> tensor<64x1xf32>
  %s2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<64x1024xf32>) outs(%s2_i : tensor<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<64x1xf32>
  %rstd_e = tensor.empty() : tensor<64x1xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s2 : tensor<64x1xf32>) outs(%rstd_e : tensor<64x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %nn = arith.constant 1024.0 : f32
    %eps = arith.constant 1.0e-05 : f32
    %v = arith.divf %p, %nn : f32
    %ve = arith.addf %v, %eps : f32
    %t = math.rsqrt %ve : f32
    linalg.yield %t : f32
  } -> tensor<64x1xf32>
  %xn_e = tensor.empty() : tensor<64x1024xf32>
  %xn = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xc, %rstd : tensor<64x1024xf32>, tensor<64x1xf32>) outs(%xn_e : tensor<64x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.mulf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<64x1024xf32>
  %y_e = tensor.empty() : tensor<64x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xn, %a1, %a2 : tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%y_e : tensor<64x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %o: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %t, %r : f32
    linalg.yield %u : f32
  } -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}
func.func @softmax_op(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %y = bcast.softmax %x {dim = 1 : i64} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}
func.func @softmax_op_f16(%x: tensor<64x1000xf16>) -> tensor<64x1000xf16> {
  %y = bcast.softmax %x {dim = -1 : i64} : (tensor<64x1000xf16>) -> tensor<64x1000xf16>
  return %y : tensor<64x1000xf16>
}
