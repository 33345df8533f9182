// bcast-map-reductions-to-gpu: a row group with a reduction becomes one
// kernel, a block per row, the members in turn with barriers between them;
// a reduction along the innermost dimension is shared by the block (strided
// loads, a butterfly of shuffles, the warps' results through workgroup
// memory); an outer reduction gives lanes columns and warps rows; an
// element-wise generic with several results gets a flat kernel; leftover
// fills become generics; argmax's two accumulators are rejected.
// RUN: bcast-opt %s --bcast-map-reductions-to-gpu -split-input-file -verify-diagnostics | FileCheck %s
// RUN: bcast-opt %s --bcast-map-reductions-to-gpu=block-size=100 -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=ROUND

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// A written-out softmax after fusion and bufferization: one launch, rows
// in a grid-stride loop over block x, five members with a barrier after
// each; the maximum and the sum each reduce the row with five xor shuffles
// and eight warps' results.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: memref<64x1000xf32>, %[[Y:.*]]: memref<64x1000xf32>)
// CHECK:         %[[GRID:.*]] = arith.maxui
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %[[GRID]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}} workgroup(%[[W0:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[W1:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for %[[ROW:.*]] = %[[BX]] to %c64{{.*}} step %[[GX]] {
// The fill of the maximum, thread 0 of the row.
// CHECK:             scf.for %[[I:.*]] = %[[TX]] to
// CHECK:               memref.store %{{.*}}, %[[M:.*]][%[[ROW]], %[[I]]] : memref<64x1xf32>
// CHECK:             gpu.barrier
// CHECK:             scf.for
// CHECK:               %[[P:.*]] = scf.for %[[J:.*]] = %[[TX]] to %{{.*}} step %c256{{.*}} iter_args(%[[ACC:.*]] = %cst{{.*}}) -> (f32) {
// CHECK:                 %[[XV:.*]] = memref.load %[[X]][%[[ROW]], %[[J]]]
// CHECK:                 arith.maximumf %[[ACC]], %[[XV]] : f32
// CHECK-COUNT-5:       gpu.shuffle  xor
// CHECK:               memref.store %{{.*}}, %[[W0]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:               gpu.barrier
// CHECK-COUNT-8:       memref.load %[[W0]]
// CHECK:               gpu.barrier
// CHECK:               scf.if
// CHECK:                 memref.load %[[M]][%[[ROW]], %c0{{.*}}]
// CHECK:                 arith.maximumf
// CHECK:                 memref.store %{{.*}}, %[[M]][%[[ROW]], %c0{{.*}}]
// CHECK:             gpu.barrier
// CHECK:             math.exp
// CHECK:             memref.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}]
// CHECK:             gpu.barrier
// CHECK:             gpu.barrier
// CHECK-COUNT-5:     gpu.shuffle  xor
// CHECK:             memref.load %[[W1]]
// CHECK:             gpu.barrier
// CHECK:             arith.divf
// CHECK:             gpu.barrier
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.
// CHECK:         memref.dealloc %[[M]]
// CHECK:         memref.dealloc
// CHECK-NEXT:    return
// ROUND-LABEL: func.func @softmax(
// ROUND:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128
// ROUND-COUNT-4: memref.load %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
// ROUND-NOT:     memref.load %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
// ROUND:         gpu.barrier
func.func @softmax(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<64x1xf32>
  linalg.fill ins(%lowest : f32) outs(%m : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x1000xf32>) outs(%m : memref<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<64x1000xf32>, memref<64x1xf32>) outs(%y : memref<64x1000xf32>) {
  ^bb0(%in: f32, %max: f32, %out: f32):
    %0 = arith.subf %in, %max : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  %s = memref.alloc() : memref<64x1xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%y : memref<64x1000xf32>) outs(%s : memref<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %m : memref<64x1xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %s : memref<64x1000xf32>, memref<64x1xf32>) outs(%y : memref<64x1000xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %0 = arith.divf %in, %sum : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %s : memref<64x1xf32>
  return
}

// -----

// A sum over dim 0 (sum_to_size to [1,N]): lane l of block b takes column
// 32 * b + l, warp w the rows w, w + 8, ...; the 256 partials meet in
// workgroup memory and warp 0 adds them, in warp order, to the output.
// CHECK-LABEL: func.func @column_sum(
// CHECK-SAME:    %[[X:.*]]: memref<?x?xf32>, %[[O:.*]]: memref<1x?xf32>)
// CHECK-DAG:     memref.dim %[[X]], %c0
// CHECK-DAG:     memref.dim %[[X]], %c1
// CHECK:         arith.ceildivui %{{.*}}, %c32
// CHECK:         gpu.launch {{.*}} workgroup(%[[W:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[LANE:.*]] = arith.remui %[[TX:.*]], %c32
// CHECK:           %[[WARP:.*]] = arith.divui %[[TX]], %c32
// CHECK:           scf.for %[[BASE:.*]] =
// CHECK:             %[[COL:.*]] = arith.addi %[[BASE]], %[[LANE]]
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %[[COL]], %{{.*}}
// CHECK:             %[[P:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:               scf.for %[[R:.*]] = %[[WARP]] to %{{.*}} step %c8
// CHECK:                 memref.load %[[X]][%[[R]], %[[COL]]]
// CHECK:             memref.store %[[P]], %[[W]][%[[TX]]]
// CHECK:             gpu.barrier
// CHECK-COUNT-8:     memref.load %[[W]]
// CHECK:             memref.store %{{.*}}, %[[O]][%c0{{.*}}, %[[COL]]]
// CHECK:             gpu.barrier
// CHECK-NOT:     linalg.generic
func.func @column_sum(%x: memref<?x?xf32>, %o: memref<1x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<?x?xf32>) outs(%o : memref<1x?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A full sum of f64 over more than a block's share (8000 elements, 4 per
// thread of a 256-thread block): two kernels. The first gives each of
// ceil(8000 / 1024) blocks a grid-strided share (thread t of block b starts
// at 256 b + t), shuffles 64-bit elements in two halves and stores the
// block's partial; the second, one block, reduces the partials in block
// order and adds them to the output. The partials' buffer is freed after
// it; the leftover fill becomes an element-wise generic.
// CHECK-LABEL: func.func @full_sum(
// CHECK:         linalg.generic {{.*}} outs(%[[O:.*]] : memref<f64>)
// CHECK:         %[[UNITS:.*]] = arith.ceildivui %{{.*}}, %c1024 : index
// CHECK:         %[[GRID:.*]] = arith.maxui %{{.*}}, %{{.*}} : index
// CHECK:         %[[P:.*]] = memref.alloc(%[[GRID]]) : memref<?xf64>
// CHECK:         gpu.launch blocks(%[[BID:[^,]*]], {{.*}} in (%[[GX:[^ ]*]] = {{.*}} threads(%[[TID:[^,]*]], {{.*}} workgroup(%{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>)
// CHECK:           %[[B256:.*]] = arith.muli %[[BID]], %c256 : index
// CHECK:           %[[START:.*]] = arith.addi %[[B256]], %[[TID]] : index
// CHECK:           %[[STRIDE:.*]] = arith.muli %[[GX]], %c256 : index
// CHECK:           scf.for %{{.*}} = %[[START]] to %{{.*}} step %[[STRIDE]]
// CHECK:             arith.addf
// CHECK:           arith.bitcast %{{.*}} : f64 to i64
// CHECK:           arith.shrui
// CHECK:           gpu.shuffle  xor %{{.*}} : i32
// CHECK:           gpu.shuffle  xor %{{.*}} : i32
// CHECK:           arith.bitcast %{{.*}} : i64 to f64
// CHECK:           memref.store %{{.*}}, %[[P]][%[[BID]]] : memref<?xf64>
// CHECK:         %[[ONE:.*]] = arith.minui %c1{{.*}}, %c2112{{.*}} : index
// CHECK:         %[[GRID2:.*]] = arith.maxui %c1{{.*}}, %[[ONE]] : index
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID2]], {{.*}} threads(%[[TID2:[^,]*]],
// CHECK:           scf.for %{{.*}} = %[[TID2]] to %[[GRID]] step %c256
// CHECK:             memref.load %[[P]]
// CHECK:           memref.load %[[O]][] : memref<f64>
// CHECK:           memref.store %{{.*}}, %[[O]][] : memref<f64>
// CHECK:         memref.dealloc %[[P]] : memref<?xf64>
func.func @full_sum(%x: memref<8x1000xf64>, %o: memref<f64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%o : memref<f64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<8x1000xf64>) outs(%o : memref<f64>) {
  ^bb0(%in: f64, %acc: f64):
    %0 = arith.addf %acc, %in : f64
    linalg.yield %0 : f64
  }
  return
}

// -----

// A full reduction of at most a block's share (1000 elements) stays one
// block; so does one kept element of an outer reduction's shape ([N,1] to
// [1,1]) when small.
// CHECK-LABEL: func.func @small_full_max(
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT:     gpu.launch
// CHECK-NOT:     memref.alloc
func.func @small_full_max(%x: memref<1000xf32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<1000xf32>) outs(%o : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// One kept element over a dynamic count, with the innermost dimension kept
// (size 1): two kernels, whatever the count turns out to be.
// CHECK-LABEL: func.func @dynamic_column_sum(
// CHECK:         memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-COUNT-2: gpu.launch
// CHECK:         memref.dealloc
func.func @dynamic_column_sum(%x: memref<?x1xi64>, %o: memref<1x1xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<?x1xi64>) outs(%o : memref<1x1xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %0 = arith.addi %acc, %in : i64
    linalg.yield %0 : i64
  }
  return
}

// -----

// i1 (any) along rows: widened to 32 bits for the shuffle.
// CHECK-LABEL: func.func @any_rows(
// CHECK:         gpu.launch {{.*}} workgroup(%{{.*}} : memref<32xi1, #gpu.address_space<workgroup>>)
// CHECK:           arith.extui %{{.*}} : i1 to i32
// CHECK:           gpu.shuffle  xor %{{.*}} : i32
// CHECK:           arith.trunci %{{.*}} : i32 to i1
// CHECK:           arith.ori
func.func @any_rows(%x: memref<4x100xi1>, %o: memref<4x1xi1>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x100xi1>) outs(%o : memref<4x1xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %0 = arith.ori %acc, %in : i1
    linalg.yield %0 : i1
  }
  return
}

// -----

// A reduction that keeps the innermost dimension within a row: a thread
// per kept element, the reduced dimension in order.
// CHECK-LABEL: func.func @middle_sum(
// CHECK:         gpu.launch
// CHECK:           scf.for %[[ROW:.*]] = %{{.*}} to %c4
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c256
// CHECK:               %[[INIT:.*]] = memref.load %{{.*}}[%[[ROW]], %c0{{.*}}, %[[K]]]
// CHECK:               scf.for %[[J:.*]] = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK:                 memref.load %{{.*}}[%[[ROW]], %[[J]], %[[K]]]
// CHECK-NOT:       gpu.shuffle
func.func @middle_sum(%x: memref<4x3x5xf32>, %o: memref<4x1x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<4x3x5xf32>) outs(%o : memref<4x1x5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Several results (a rank-0 reduction fused with its consumer): one flat
// kernel that stores both.
// CHECK-LABEL: func.func @two_results(
// CHECK-SAME:    %[[X:.*]]: memref<f32>, %[[A:.*]]: memref<f32>, %[[B:.*]]: memref<i32>)
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[A]][]
// CHECK:           memref.store %{{.*}}, %[[B]][]
// CHECK-NOT:     linalg.generic
func.func @two_results(%x: memref<f32>, %a: memref<f32>, %b: memref<i32>) {
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%x : memref<f32>) outs(%a, %b : memref<f32>, memref<i32>) {
  ^bb0(%in: f32, %o: f32, %p: i32):
    %0 = arith.addf %o, %in : f32
    %1 = arith.fptosi %0 : f32 to i32
    linalg.yield %0, %1 : f32, i32
  }
  return
}

// -----

// argmax: the value and its index, two accumulators.
func.func @argmax(%x: memref<4x3xf32>, %v: memref<4xf32>, %i: memref<4xi64>) {
  // expected-error @+1 {{cannot be mapped to the GPU: bcast's GPU lowering handles reductions with one result that a combiner such as arith.addf or arith.maximumf accumulates}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x3xf32>) outs(%v, %i : memref<4xf32>, memref<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %k = arith.index_cast %j : index to i64
    %better = arith.cmpf ogt, %in, %best : f32
    %0 = arith.select %better, %in, %best : f32
    %1 = arith.select %better, %k, %at : i64
    linalg.yield %0, %1 : f32, i64
  }
  return
}

// -----

// Block sizes outside [1, 1024] are refused.
// RUN: not bcast-opt %s --bcast-map-reductions-to-gpu=block-size=2000 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: block-size must be in [1, 1024]
