// bcast-lower-runtime-checks in both modes.
// RUN: bcast-opt %s --bcast-lower-runtime-checks -split-input-file | FileCheck %s --check-prefix=EXIT
// RUN: bcast-opt %s --bcast-lower-runtime-checks=report=true -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=REPORT

// EXIT-DAG: llvm.mlir.global internal constant @[[MSG:.*]]("The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 1\0A\00")
// EXIT-DAG: llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32
// EXIT-DAG: llvm.func @exit(i32)
// EXIT-LABEL: func @kernel
// EXIT-SAME: (%[[BAD:.*]]: i1, %[[M:.*]]: index, %[[N:.*]]: index
// EXIT: scf.if %[[BAD]] {
// EXIT-DAG: %[[FD:.*]] = arith.constant 2 : i32
// EXIT-DAG: %[[FMT:.*]] = llvm.mlir.addressof @[[MSG]]
// EXIT-DAG: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// EXIT-DAG: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// EXIT: llvm.call @dprintf(%[[FD]], %[[FMT]], %[[M64]], %[[N64]])
// EXIT: %[[ONE:.*]] = arith.constant 1 : i32
// EXIT: llvm.call @exit(%[[ONE]])
// EXIT: }
// EXIT: return

// REPORT-DAG: llvm.mlir.global internal constant @[[MSG:.*]]("The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 1\00")
// REPORT-DAG: llvm.func @snprintf(!llvm.ptr, i64, !llvm.ptr, ...) -> i32
// REPORT-DAG: llvm.func @bcastReportError(!llvm.ptr)
// REPORT-LABEL: func @kernel
// REPORT-SAME: (%[[BAD:.*]]: i1, %[[M:.*]]: index, %[[N:.*]]: index, %[[OUT:.*]]: memref<?x4xf32>) -> (memref<?x4xf32>, f32)
// REPORT: cf.cond_br %[[BAD]], ^[[FAIL:.*]], ^[[OK:.*]]
// REPORT: ^[[FAIL]]:
// REPORT: %[[BUF:.*]] = llvm.alloca %{{.*}} x i8
// REPORT: llvm.call @snprintf(%[[BUF]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// REPORT: llvm.call @bcastReportError(%[[BUF]])
// REPORT: %[[EMPTY:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// REPORT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// REPORT: return %[[EMPTY]], %[[ZERO]]
// REPORT: ^[[OK]]:
// REPORT: return %[[OUT]]
func.func @kernel(%bad: i1, %m: index, %n: index, %out: memref<?x4xf32>) -> (memref<?x4xf32>, f32) {
  bcast.runtime_check %bad, "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 1" (%m, %n : index, index)
  %c = arith.constant 1.0 : f32
  return %out, %c : memref<?x4xf32>, f32
}

// -----

// Inside a loop, only the exit mode can stop: reporting needs an early
// return from the function.
// EXIT-LABEL: func @nested
// EXIT: scf.for
// EXIT: scf.if
// EXIT: llvm.call @exit
func.func @nested(%bad: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{reporting a failure to the caller needs the check at the top level of a func.func body}}
    bcast.runtime_check %bad, "Vectorized input 1 has an incompatible shape in axis 0."
  }
  return
}
