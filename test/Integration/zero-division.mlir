// Integer division by zero is PyTorch's `RuntimeError: ZeroDivisionError`
// (its CPU kernels check every divisor before dividing): the compiled code
// never traps (SIGFPE), it prints the sentence and exits 1, or, with
// report-errors, hands it to the embedder and returns to the caller. An
// empty result divides nothing, and raises nothing (as in PyTorch).
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e div_by_zero -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: ZeroDivisionError
// EXIT-NOT: computed
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e remainder_by_zero -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e fmod_by_zero_in_place -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e floor_by_zero_unsigned -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EXIT
// A divisor that is 0 only in the type the op divides in (an i16 256 with a
// ui8 tensor, which promotes to ui8): fuzz seed 1071994.
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e floor_by_wide_zero -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e floor_by_wide_nonzero -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: [255, 7]
//
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e empty_result -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: computed
//
// RUN: %host_cc -shared -fPIC %S/Inputs/report_error.c -o %t.so
// RUN: bcast-opt %s --bcast-to-llvm=report-errors=true | mlir-runner -e report -entry-point-result=void -shared-libs=%runner_libs,%t.so | FileCheck %s --check-prefix=REPORT
// REPORT: reported: ZeroDivisionError
// REPORT-NEXT: returned to the caller
// REPORT: [-128, 1, -1]

func.func private @printMemrefI32(memref<*xi32>)

func.func @div_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi8>
  return %r : tensor<?xi8>
}

func.func @print_i8(%r: tensor<?xi8>) {
  %w = bcast.cast %r : (tensor<?xi8>) -> tensor<?xi32>
  %m = bufferization.to_buffer %w : tensor<?xi32> to memref<?xi32>
  %u = memref.cast %m : memref<?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @div_by_zero() {
  %a = arith.constant dense<[-128, 1, 2]> : tensor<3xi8>
  %b = arith.constant dense<[-1, 0, 1]> : tensor<3xi8>
  %ad = tensor.cast %a : tensor<3xi8> to tensor<?xi8>
  %bd = tensor.cast %b : tensor<3xi8> to tensor<?xi8>
  %r = call @div_i8(%ad, %bd) : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi8>
  vector.print str "computed\n"
  return
}

func.func @remainder_i64(%a: tensor<4x?xi64>, %b: tensor<?xi64>) -> tensor<4x?xi64> {
  %r = bcast.remainder %a, %b : (tensor<4x?xi64>, tensor<?xi64>) -> tensor<4x?xi64>
  return %r : tensor<4x?xi64>
}

func.func @remainder_by_zero() {
  %a = arith.constant dense<-9223372036854775808> : tensor<4x16xi64>
  %b = arith.constant dense<[-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0]> : tensor<16xi64>
  %ad = tensor.cast %a : tensor<4x16xi64> to tensor<4x?xi64>
  %bd = tensor.cast %b : tensor<16xi64> to tensor<?xi64>
  %r = call @remainder_i64(%ad, %bd) : (tensor<4x?xi64>, tensor<?xi64>) -> tensor<4x?xi64>
  vector.print str "computed\n"
  return
}

func.func @fmod_i32(%a: tensor<64xi32>, %b: tensor<i32>) -> tensor<64xi32> {
  %r = bcast.fmod_ %a, %b : (tensor<64xi32>, tensor<i32>) -> tensor<64xi32>
  return %r : tensor<64xi32>
}

func.func @fmod_by_zero_in_place() {
  %a = arith.constant dense<-2147483648> : tensor<64xi32>
  %b = arith.constant dense<0> : tensor<i32>
  %r = call @fmod_i32(%a, %b) : (tensor<64xi32>, tensor<i32>) -> tensor<64xi32>
  vector.print str "computed\n"
  return
}

func.func @floor_u8(%a: tensor<2xui8>, %b: tensor<2xui8>) -> tensor<2xui8> {
  %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %r : tensor<2xui8>
}

func.func @floor_by_zero_unsigned() {
  %a = arith.constant dense<[255, 7]> : tensor<2xui8>
  %b = arith.constant dense<[3, 0]> : tensor<2xui8>
  %r = call @floor_u8(%a, %b) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  vector.print str "computed\n"
  return
}

func.func @floor_u8_by_i16(%a: tensor<2xui8>, %b: tensor<i16>) -> tensor<2xui8> {
  %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<2xui8>, tensor<i16>) -> tensor<2xui8>
  return %r : tensor<2xui8>
}

func.func @floor_by_wide_zero() {
  %a = arith.constant dense<[255, 7]> : tensor<2xui8>
  %b = arith.constant dense<256> : tensor<i16>
  %r = call @floor_u8_by_i16(%a, %b) : (tensor<2xui8>, tensor<i16>) -> tensor<2xui8>
  vector.print str "computed\n"
  return
}

// 257 is 1 in ui8.
func.func @floor_by_wide_nonzero() {
  %a = arith.constant dense<[255, 7]> : tensor<2xui8>
  %b = arith.constant dense<257> : tensor<i16>
  %r = call @floor_u8_by_i16(%a, %b) : (tensor<2xui8>, tensor<i16>) -> tensor<2xui8>
  %s = bcast.cast %r : (tensor<2xui8>) -> tensor<2xi32>
  %m = bufferization.to_buffer %s : tensor<2xi32> to memref<2xi32>
  %u = memref.cast %m : memref<2xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @div_empty(%a: tensor<0x3xi16>, %b: tensor<3xi16>) -> tensor<0x3xi16> {
  %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<0x3xi16>, tensor<3xi16>) -> tensor<0x3xi16>
  return %r : tensor<0x3xi16>
}

func.func @div_dynamic_empty(%a: tensor<?x3xi16>, %b: tensor<3xi16>) -> tensor<?x3xi16> {
  %r = bcast.remainder %a, %b : (tensor<?x3xi16>, tensor<3xi16>) -> tensor<?x3xi16>
  return %r : tensor<?x3xi16>
}

func.func @empty_result() {
  %a = arith.constant dense<> : tensor<0x3xi16>
  %b = arith.constant dense<[0, 1, 0]> : tensor<3xi16>
  %r = call @div_empty(%a, %b) : (tensor<0x3xi16>, tensor<3xi16>) -> tensor<0x3xi16>
  %ad = tensor.cast %a : tensor<0x3xi16> to tensor<?x3xi16>
  %s = call @div_dynamic_empty(%ad, %b) : (tensor<?x3xi16>, tensor<3xi16>) -> tensor<?x3xi16>
  vector.print str "computed\n"
  return
}

func.func @report() {
  %a = arith.constant dense<[-128, 1, 2]> : tensor<3xi8>
  %zero = arith.constant dense<[-1, 0, 1]> : tensor<3xi8>
  %ad = tensor.cast %a : tensor<3xi8> to tensor<?xi8>
  %zd = tensor.cast %zero : tensor<3xi8> to tensor<?xi8>
  %0 = call @div_i8(%ad, %zd) : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi8>
  vector.print str "returned to the caller\n"
  %good = arith.constant dense<[-1, 1, -2]> : tensor<3xi8>
  %gd = tensor.cast %good : tensor<3xi8> to tensor<?xi8>
  %1 = call @div_i8(%ad, %gd) : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi8>
  call @print_i8(%1) : (tensor<?xi8>) -> ()
  return
}
