// bcast-vectorize-reductions on full reductions (a row reduction whose
// kept extent is 1): above grain-size elements, the reduced range is split
// among parallel tasks into a buffer of partials, combined in task order
// after the parallel loop.
// RUN: bcast-opt %s --bcast-vectorize-reductions --canonicalize --cse -split-input-file | FileCheck %s
// RUN: bcast-opt %s --bcast-vectorize-reductions=parallel=false --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=SEQ
// RUN: bcast-opt %s --bcast-vectorize-reductions=grain-size=0 --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=GRAIN0

// A full sum of 16M f32 values (kept extent 1, above the grain size): a
// stack buffer of 256 partials at the start of the function; an
// scf.parallel over 256 chunks of 65,536 elements, each reduced with the
// cascade (blocks of 4096 and 64 vectors) and a horizontal reduce from the
// identity into its partial; then, after the parallel loop, the partials
// added in task order in blocks of 16 (a cascade) and the sum added to the
// output's value.
// CHECK-LABEL: func @full_sum_static
// CHECK-SAME: (%[[X:.*]]: memref<16777216xf32>, %[[S:.*]]: memref<f32>)
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[CHUNK:.*]] = arith.constant 65536 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = memref.alloca() : memref<256xf32>
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C256]])
// CHECK: scf.for %[[T:.*]] =
// CHECK: %[[START:.*]] = arith.muli %[[T]], %[[CHUNK]]
// CHECK: scf.for %{{.*}} = %[[START]] to %{{.*}} step %c32768 iter_args
// CHECK: scf.for {{.*}} step %c512 iter_args
// CHECK: scf.for {{.*}} step %c8 iter_args
// CHECK: vector.load %[[X]]
// CHECK: %[[H:.*]] = vector.reduction <add>, %{{.*}}, %[[ZERO]] : vector<8xf32> into f32
// CHECK: %[[TAIL:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[H]]) -> (f32)
// CHECK: memref.store %[[TAIL]], %[[P]][%[[T]]] : memref<256xf32>
// CHECK: scf.reduce
// CHECK: %[[INIT:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK: %[[ALL:.*]] = scf.for %[[B:.*]] = %{{.*}} to %[[C256]] step %c16 iter_args(%[[A:.*]] = %[[ZERO]]) -> (f32)
// CHECK: %[[BLOCK:.*]] = scf.for %[[I:.*]] = %[[B]] to %{{.*}} step %{{.*}} iter_args(%[[AB:.*]] = %[[ZERO]]) -> (f32)
// CHECK: %[[PI:.*]] = memref.load %[[P]][%[[I]]] : memref<256xf32>
// CHECK: %[[N:.*]] = arith.addf %[[AB]], %[[PI]] : f32
// CHECK: scf.yield %[[N]]
// CHECK: %[[NB:.*]] = arith.addf %[[A]], %[[BLOCK]] : f32
// CHECK: scf.yield %[[NB]]
// CHECK: %[[OUT:.*]] = arith.addf %[[INIT]], %[[ALL]] : f32
// CHECK: memref.store %[[OUT]], %[[S]][] : memref<f32>
// CHECK-NOT: linalg.generic
// SEQ-LABEL: func @full_sum_static
// SEQ-NOT: scf.parallel
// SEQ-NOT: memref.alloca
// SEQ: vector.reduction <add>
// SEQ-NOT: scf.parallel
func.func @full_sum_static(%x: memref<16777216xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<16777216xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// Below the grain size (1000 elements): one task, as before, with no
// partials; grain-size=0 splits it too (125 chunks of 8).
// CHECK-LABEL: func @full_max_small
// CHECK-NOT: scf.parallel
// CHECK-NOT: memref.alloca
// CHECK: vector.reduction <maximumf>
// CHECK-NOT: scf.parallel
// GRAIN0-LABEL: func @full_max_small
// GRAIN0: memref.alloca() : memref<256xf32>
// GRAIN0: scf.parallel
// GRAIN0: vector.reduction <maximumf>
func.func @full_max_small(%x: memref<1000xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<1000xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A dynamic size: one branch at run time on the grain size, the split
// (max keeps NaN: maximumf in the chunks and in the combine) or one task.
// CHECK-LABEL: func @full_max_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[S:.*]]: memref<f32>)
// CHECK: %[[P:.*]] = memref.alloca() : memref<256xf32>
// CHECK: %[[N:.*]] = memref.dim %[[X]]
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %[[N]], %c32768 : index
// CHECK: scf.if %[[LARGE]] {
// CHECK: scf.parallel
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: scf.reduce
// CHECK: memref.load %[[P]]
// CHECK: arith.maximumf {{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[S]][]
// CHECK: } else {
// CHECK-NOT: scf.parallel
// CHECK: vector.reduction <maximumf>
// CHECK: memref.store %{{.*}}, %[[S]][]
// CHECK-NEXT: }
// SEQ-LABEL: func @full_max_dynamic
// SEQ-NOT: scf.if
// SEQ-NOT: scf.parallel
// SEQ: vector.reduction <maximumf>
func.func @full_max_dynamic(%x: memref<?xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<?xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// Every dim reduced ([4096, 4096] to [1, 1]): the chunks of the flattened
// range cross rows; a task walks the rows its chunk touches, each from
// max(chunk start, row start) to min(chunk end, row end), a floating sum
// in blocks of 64 x 64 rows and of 64 rows.
// CHECK-LABEL: func @full_sum_2d
// CHECK-SAME: (%[[X:.*]]: memref<4096x4096xf32>, %[[S:.*]]: memref<1x1xf32>)
// CHECK: %[[P:.*]] = memref.alloca() : memref<256xf32>
// CHECK: scf.parallel
// CHECK: %[[FIRST:.*]] = arith.divui %{{.*}}, %c4096
// CHECK: %[[LAST:.*]] = arith.ceildivui %{{.*}}, %c4096
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %c4096 iter_args
// CHECK: scf.for %{{.*}} step %c64 iter_args
// CHECK: scf.for %[[R:.*]] = %{{.*}} step %c1 iter_args
// CHECK: vector.load %[[X]][%[[R]], %{{.*}}]
// CHECK: vector.reduction <add>
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: memref.load %[[S]][%c0, %c0]
// CHECK: memref.store %{{.*}}, %[[S]][%c0, %c0]
func.func @full_sum_2d(%x: memref<4096x4096xf32>, %s: memref<1x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<4096x4096xf32>) outs(%s : memref<1x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A row sum whose kept extent is dynamic: split when it is 1 and the row
// holds at least the grain size, else the rows shared among the tasks.
// CHECK-LABEL: func @row_sum_dynamic_kept
// CHECK: %[[P:.*]] = memref.alloca() : memref<256xf32>
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %{{.*}}, %c32768 : index
// CHECK: %[[SPLIT:.*]] = arith.andi %[[ONE]], %[[LARGE]] : i1
// CHECK: scf.if %[[SPLIT]] {
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: } else {
// CHECK: scf.parallel
// CHECK-NOT: %[[P]]
// CHECK: vector.reduction <add>
func.func @row_sum_dynamic_kept(%x: memref<?x?xf32>, %s: memref<?x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%s : memref<?x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A static kept extent above 1 is not split: rows are the tasks.
// CHECK-LABEL: func @row_sum_static_kept
// CHECK-NOT: memref.alloca
// CHECK-NOT: scf.if
// CHECK: scf.parallel
// CHECK-NOT: memref.alloca
func.func @row_sum_static_kept(%x: memref<4x70000xf32>, %s: memref<4x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x70000xf32>) outs(%s : memref<4x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// Inside a parallel loop (bcast-fuse-rows' row blocks) a full reduction
// above the grain size stays one sequential task: no second scf.parallel,
// no partials.
// CHECK-LABEL: func @full_sum_in_parallel_loop
// CHECK-NOT: memref.alloca
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK-NOT: memref.alloca
// CHECK: vector.reduction <add>
// GRAIN0-LABEL: func @full_sum_in_parallel_loop
// GRAIN0-NOT: memref.alloca
// GRAIN0: scf.parallel
// GRAIN0-NOT: scf.parallel
// GRAIN0-NOT: memref.alloca
func.func @full_sum_in_parallel_loop(%x: memref<4x70000xf32>, %s: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %xs = memref.subview %x[%i, 0] [1, 70000] [1, 1] : memref<4x70000xf32> to memref<70000xf32, strided<[1], offset: ?>>
    %ss = memref.subview %s[%i] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%xs : memref<70000xf32, strided<[1], offset: ?>>) outs(%ss : memref<f32, strided<[], offset: ?>>) {
    ^bb0(%in: f32, %acc: f32):
      %c = arith.addf %acc, %in : f32
      linalg.yield %c : f32
    }
    scf.reduce
  }
  return
}

// -----

// Integer combiners split too: an ori over i8 (identity 0), partials of
// i8, combined with ori.
// CHECK-LABEL: func @full_any_i8
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[P:.*]] = memref.alloca() : memref<256xi8>
// CHECK: scf.parallel
// CHECK: arith.ori {{.*}} : vector<32xi8>
// CHECK: vector.reduction <or>, %{{.*}}, %[[ZERO]] : vector<32xi8> into i8
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: scf.reduce
// CHECK: memref.load %[[P]]
// CHECK: arith.ori {{.*}} : i8
// GRAIN0-LABEL: func @full_any_i8
// GRAIN0: scf.parallel
func.func @full_any_i8(%x: memref<100000xi8>, %s: memref<i8>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<100000xi8>) outs(%s : memref<i8>) {
  ^bb0(%in: i8, %acc: i8):
    %c = arith.ori %acc, %in : i8
    linalg.yield %c : i8
  }
  return
}

// -----

// i1 (any over bools): buffers hold a byte per element while vectors pack
// bits, so the chunks read the bools as byte vectors through the aligned
// pointer (vector.load would read packed bits) and truncate them; the tail
// of a chunk loads single bools.
// CHECK-LABEL: func @full_any_i1
// CHECK-SAME: (%[[X:.*]]: memref<100000xi1>, %[[S:.*]]: memref<i1>)
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[NONE:.*]] = arith.constant dense<false> : vector<32xi1>
// CHECK: %[[P:.*]] = memref.alloca() : memref<256xi1>
// CHECK: scf.parallel
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c128 iter_args(%[[A:[^ ]*]] = %[[NONE]], {{.*}}) -> (vector<32xi1>, vector<32xi1>, vector<32xi1>, vector<32xi1>)
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[X]] : memref<100000xi1> -> index
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %[[J]] : index
// CHECK: %[[AT64:.*]] = arith.index_castui %[[AT]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[AT64]] : i64 to !llvm.ptr
// CHECK: %[[BYTES:.*]] = llvm.load %[[PTR]] {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
// CHECK: %[[BOOLS:.*]] = arith.trunci %[[BYTES]] : vector<32xi8> to vector<32xi1>
// CHECK: arith.ori %[[A]], %[[BOOLS]] : vector<32xi1>
// CHECK: vector.reduction <or>, %{{.*}}, %[[FALSE]] : vector<32xi1> into i1
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c1 iter_args(%{{.*}} = %{{.*}}) -> (i1)
// CHECK: memref.load %[[X]][%[[K]]] : memref<100000xi1>
// CHECK: memref.store %[[ACC]], %[[P]]
// CHECK: scf.reduce
// CHECK: memref.load %[[S]][]
// CHECK: arith.ori {{.*}} : i1
// CHECK-NOT: vector.load
// SEQ-LABEL: func @full_any_i1
// SEQ: llvm.load %{{.*}} : !llvm.ptr -> vector<32xi8>
// SEQ-NOT: scf.parallel
func.func @full_any_i1(%x: memref<100000xi1>, %s: memref<i1>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<100000xi1>) outs(%s : memref<i1>) {
  ^bb0(%in: i1, %acc: i1):
    %c = arith.ori %acc, %in : i1
    linalg.yield %c : i1
  }
  return
}

// -----

// i1 below the grain size is one task with byte vectors; rows of bools
// (any over dim 1) likewise; a bool counted as an integer (mask.sum())
// reads byte vectors of the i64 accumulator's lanes and widens them; a bool
// result of an outer reduction (any over dim 0) is read and written as byte
// vectors too (extui to i8, llvm.store).
// CHECK-LABEL: func @small_all_i1
// CHECK-NOT: scf.parallel
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<32xi8>
// CHECK: arith.andi %{{.*}} : vector<32xi1>
// CHECK: vector.reduction <and>
// CHECK-LABEL: func @row_any_i1
// CHECK: scf.parallel
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<32xi8>
// CHECK: vector.reduction <or>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %c0] : memref<8x1xi1>
// CHECK-LABEL: func @count_i1
// CHECK: %[[BYTES:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xi8>
// CHECK: %[[BOOLS:.*]] = arith.trunci %[[BYTES]] : vector<4xi8> to vector<4xi1>
// CHECK: arith.extui %[[BOOLS]] : vector<4xi1> to vector<4xi64>
// CHECK: vector.reduction <add>
// CHECK-LABEL: func @column_any_i1
// CHECK-SAME: (%[[CX:.*]]: memref<100000x64xi1>, %[[CS:.*]]: memref<1x64xi1>)
// CHECK: %[[OUT:.*]] = memref.extract_aligned_pointer_as_index %[[CS]]
// CHECK: %[[OUTPTR:.*]] = llvm.inttoptr
// CHECK: %[[OLD:.*]] = llvm.load %[[OUTPTR]] {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
// CHECK: %[[OLDB:.*]] = arith.trunci %[[OLD]] : vector<32xi8> to vector<32xi1>
// CHECK: memref.extract_aligned_pointer_as_index %[[CX]]
// CHECK: %[[IN:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<32xi8>
// CHECK: %[[INB:.*]] = arith.trunci %[[IN]] : vector<32xi8> to vector<32xi1>
// CHECK: %[[NEW:.*]] = arith.ori %[[OLDB]], %[[INB]] : vector<32xi1>
// CHECK: %[[NEWBYTES:.*]] = arith.extui %[[NEW]] : vector<32xi1> to vector<32xi8>
// CHECK: llvm.store %[[NEWBYTES]], %[[OUTPTR]] {alignment = 1 : i64} : vector<32xi8>, !llvm.ptr
// CHECK-NOT: linalg.generic
func.func @small_all_i1(%x: memref<1000xi1>, %s: memref<i1>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<1000xi1>) outs(%s : memref<i1>) {
  ^bb0(%in: i1, %acc: i1):
    %c = arith.andi %acc, %in : i1
    linalg.yield %c : i1
  }
  return
}
func.func @row_any_i1(%x: memref<8x100000xi1>, %s: memref<8x1xi1>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x100000xi1>) outs(%s : memref<8x1xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %c = arith.ori %acc, %in : i1
    linalg.yield %c : i1
  }
  return
}
func.func @count_i1(%x: memref<100000xi1>, %s: memref<i64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<100000xi1>) outs(%s : memref<i64>) {
  ^bb0(%in: i1, %acc: i64):
    %w = arith.extui %in : i1 to i64
    %c = arith.addi %acc, %w : i64
    linalg.yield %c : i64
  }
  return
}
func.func @column_any_i1(%x: memref<100000x64xi1>, %s: memref<1x64xi1>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<100000x64xi1>) outs(%s : memref<1x64xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %c = arith.ori %acc, %in : i1
    linalg.yield %c : i1
  }
  return
}
