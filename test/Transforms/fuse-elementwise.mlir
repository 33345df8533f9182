// bcast-fuse-elementwise on hand-written linalg.generic chains: a producer
// with a single use is fused into its consumer, an in-place `outs` operand
// the body does not read stays (linalg-fuse-elementwise-ops would replace
// it by a tensor.empty), a producer whose result is also returned is left
// alone, producers fuse into reductions, and a producer whose uses are all
// generics is recomputed in each (at most four uses), but for a costly one
// (an exponential) read by a row reduction and then by a map of its shape,
// which writes over it instead. A producer broadcast along outer loops and
// read along the innermost one is not fused unless it only casts.
// RUN: bcast-opt %s --bcast-fuse-elementwise -split-input-file -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @fuse_single_use_producer(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x1xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]], %[[B]], %[[C]] : tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32>)
// CHECK-SAME:      outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK:         ^bb0(%[[IA:.*]]: f32, %[[IB:.*]]: f32, %[[IC:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[SUM:.*]] = arith.addf %[[IA]], %[[IB]] : f32
// CHECK:           %[[PROD:.*]] = arith.mulf %[[SUM]], %[[IC]] : f32
// CHECK:           linalg.yield %[[PROD]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<4x8xf32>
func.func @fuse_single_use_producer(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %c : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The consumer is the lowering of an in-place op: it reads %x as an input
// and writes %x as its `outs`, whose block argument the body does not read.
// (The producer is per row: a per-column one stays unfused, below.)
// CHECK-LABEL: func.func @keep_in_place_outs(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[B]], %[[C]] : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME:      outs(%[[X]] : tensor<4x8xf32>)
// CHECK:         ^bb0(%[[IX:.*]]: f32, %[[IB:.*]]: f32, %[[IC:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[DIFF:.*]] = arith.subf %[[IB]], %[[IC]] : f32
// CHECK:           %[[SUM:.*]] = arith.addf %[[IX]], %[[DIFF]] : f32
// CHECK:           linalg.yield %[[SUM]] : f32
// CHECK-NOT:     tensor.empty
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<4x8xf32>
func.func @keep_in_place_outs(%x: tensor<4x8xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.subf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %p : tensor<4x8xf32>, tensor<4xf32>) outs(%x : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The producer's result is also returned: fusing would compute it twice.
// CHECK-LABEL: func.func @no_fusion_producer_with_two_uses(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           arith.addf
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[P]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:       arith.addf
// CHECK:         return %[[R]], %[[P]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @no_fusion_producer_with_two_uses(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r, %p : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An element-wise producer fuses into a reduction consumer: sum(x * y)
// never materializes x * y.
// CHECK-LABEL: func.func @fuse_into_reduction(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>)
// CHECK:         %[[FILL:.*]] = linalg.fill
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[FILL]] : tensor<4x1xf32>)
// CHECK:           %[[P:.*]] = arith.mulf
// CHECK:           arith.addf %{{.*}}, %[[P]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @fuse_into_reduction(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x1xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<4x8xf32>) outs(%i : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0, 0)>

// A written-out softmax: exp(x - m) has two uses, the sum over each row and
// the divide. The exponential is costly, so it is computed once: the divide
// writes over it (its outs is the exponentials' tensor, which bufferizes to
// one buffer, the result), as PyTorch's softmax kernel does; no [M,N]
// intermediate is left.
// CHECK-LABEL: func.func @softmax_store_exp(
// CHECK-SAME:    %[[X:.*]]: tensor<64x1000xf32>)
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<64x1000xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[M]] : tensor<64x1000xf32>, tensor<64x1xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<64x1000xf32>)
// CHECK-NOT:       math.exp
// CHECK:           arith.addf
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[S]] : tensor<64x1000xf32>, tensor<64x1xf32>) outs(%[[E]] : tensor<64x1000xf32>)
// CHECK-NOT:       math.exp
// CHECK:           arith.divf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @softmax_store_exp(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x1xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<64x1xf32>) -> tensor<64x1xf32>
  %m = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%i0 : tensor<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<64x1xf32>
  %e1 = tensor.empty() : tensor<64x1000xf32>
  %d = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<64x1000xf32>, tensor<64x1xf32>) outs(%e1 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  %e4 = tensor.empty() : tensor<64x1000xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<64x1000xf32>) outs(%e4 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  %e2 = tensor.empty() : tensor<64x1xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x1xf32>) -> tensor<64x1xf32>
  %s = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<64x1000xf32>) outs(%i2 : tensor<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<64x1xf32>
  %e3 = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<64x1000xf32>, tensor<64x1xf32>) outs(%e3 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.divf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (0, d1)>

// Over dim 0 (an outer-dimension reduction, which bcast-fuse-rows does not
// keep in cache), the exponentials are recomputed in the sum and the
// divide rather than stored and read back from memory.
// CHECK-LABEL: func.func @softmax_dim0_recompute_exp(
// CHECK-SAME:    %[[X:.*]]: tensor<64x1000xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<64x1000xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[X]], %{{.*}} : tensor<64x1000xf32>, tensor<1x1000xf32>)
// CHECK:           math.exp
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %{{.*}}, %[[S]] : tensor<64x1000xf32>, tensor<1x1000xf32>, tensor<1x1000xf32>) outs(%{{.*}} : tensor<64x1000xf32>)
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @softmax_dim0_recompute_exp(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x1000xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<64x1000xf32>) outs(%i0 : tensor<1x1000xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<1x1000xf32>
  %e1 = tensor.empty() : tensor<64x1000xf32>
  %ex = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<64x1000xf32>, tensor<1x1000xf32>) outs(%e1 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    %u = math.exp %t : f32
    linalg.yield %u : f32
  } -> tensor<64x1000xf32>
  %e2 = tensor.empty() : tensor<1x1000xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%ex : tensor<64x1000xf32>) outs(%i2 : tensor<1x1000xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<1x1000xf32>
  %e3 = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<64x1000xf32>, tensor<1x1000xf32>) outs(%e3 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.divf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0, 0)>

// The exponentials' second use is the `outs` of an in-place consumer with no
// inputs (it scales them where they are): nothing to store or recompute,
// the chain stays as written.
// CHECK-LABEL: func.func @exp_then_in_place(
// CHECK:         %[[E:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : tensor<4x8xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NOT:       math.exp
// CHECK:           arith.addf
func.func @exp_then_in_place(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x1xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %s = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x8xf32>) outs(%i1 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%ex : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %t = arith.addf %o, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %s, %y : tensor<4x1xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// The guard: a producer with five uses (more than four) is not recomputed;
// it stays one generic whose result the five consumers read.
// CHECK-LABEL: func.func @no_recompute_five_uses(
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK-COUNT-5: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK-NOT:     math.exp
func.func @no_recompute_five_uses(%x: tensor<8xf32>, %a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.mulf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.divf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.maximumf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A matrix product (marked bcast.matmul) takes no producer: the GELU-like
// costly producer stays its own generic, computed once per element, and the
// product keeps its multiply-add body for bcast-matmul-to-blas. Without the
// marker the same generic takes it (the test's other half).
// CHECK-LABEL: func.func @matmul_takes_no_producer(
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK:           math.erf
// CHECK:         %[[M:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[P]], %{{.*}} : tensor<4x8xf32>, tensor<8x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT:      %[[MUL:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[O]], %[[MUL]] : f32
// CHECK-NEXT:      linalg.yield %[[ADD]] : f32
// CHECK-NEXT:    } -> tensor<4x3xf32>
// CHECK:         return %[[M]]
func.func @matmul_takes_no_producer(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.erf %x : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f : tensor<4x3xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %mul = arith.mulf %x, %y : f32
    %add = arith.addf %o, %mul : f32
    linalg.yield %add : f32
  } -> tensor<4x3xf32>
  return %m : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @unmarked_product_takes_the_producer(
// CHECK:         %[[M:.*]] = linalg.generic
// CHECK:           math.erf
// CHECK:           arith.mulf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[M]]
func.func @unmarked_product_takes_the_producer(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.erf %x : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f : tensor<4x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %mul = arith.mulf %x, %y : f32
    %add = arith.addf %o, %mul : f32
    linalg.yield %add : f32
  } -> tensor<4x3xf32>
  return %m : tensor<4x3xf32>
}

// -----

// A producer read along the consumer's innermost loop and broadcast along
// another loop (a per-channel scale of a channels-last BatchNorm) is not
// fused: fused, its body would run once per consumer element. It is when
// it only casts, and when the other loop has one iteration.
// CHECK-LABEL: func.func @no_fusion_of_broadcast_along_outer_loops(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[V:.*]]: tensor<8xf32>)
// CHECK:         %[[S:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[W]], %[[V]] : tensor<8xf32>, tensor<8xf32>)
// CHECK:           math.rsqrt
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[S]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NOT:       math.rsqrt
// CHECK:           arith.mulf
// CHECK:         return %[[R]]
func.func @no_fusion_of_broadcast_along_outer_loops(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w, %v : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = math.rsqrt %b : f32
    %m = arith.mulf %a, %r : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @fuse_broadcast_cast_or_along_unit_loop(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<8xf16>, %[[Y:.*]]: tensor<1x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[H]] : tensor<4x8xf32>, tensor<8xf16>)
// CHECK:           arith.extf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[Y]], %[[W]] : tensor<1x8xf32>, tensor<8xf32>)
// CHECK:           math.rsqrt
// CHECK-NOT:     linalg.generic
func.func @fuse_broadcast_cast_or_along_unit_loop(%x: tensor<4x8xf32>, %h: tensor<8xf16>, %y: tensor<1x8xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%h : tensor<8xf16>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f16, %o: f32):
    %f = arith.extf %a : f16 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %c : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = math.rsqrt %a : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<1x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y, %s : tensor<1x8xf32>, tensor<8xf32>) outs(%e3 : tensor<1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x8xf32>
  return %r, %t : tensor<4x8xf32>, tensor<1x8xf32>
}
