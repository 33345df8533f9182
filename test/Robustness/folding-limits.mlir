// Constant operands the folders must leave alone, in well under a minute:
// results over the folding bound (1024 elements; folding never
// materializes a big tensor in the compiler), and integer division and
// remainder by zero (a ZeroDivisionError at run time), while INT_MIN / -1
// and INT_MIN % -1 fold to wrapped values (i8, i32 and i64, both rounding
// modes). One zero divisor keeps the whole op unfolded. A fold at the bound
// still happens. All cases also compile through --bcast-to-llvm (exit
// status 0).
// RUN: timeout 60 bcast-opt %s --split-input-file --canonicalize | FileCheck %s
// RUN: timeout 60 bcast-opt %s --split-input-file --bcast-to-llvm -o /dev/null

// CHECK-LABEL: func.func @over_the_bound
// CHECK: bcast.add {{.*}} -> tensor<2x1025xi32>
// CHECK: bcast.broadcast_to {{.*}} -> tensor<2048x2x1025xi32>
// CHECK: bcast.mul {{.*}} -> tensor<1025x2xf32>
func.func @over_the_bound() -> (tensor<2x1025xi32>, tensor<2048x2x1025xi32>, tensor<1025x2xf32>) {
  %col = arith.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %row = arith.constant dense<7> : tensor<1x1025xi32>
  %sum = bcast.add %col, %row : (tensor<2x1xi32>, tensor<1x1025xi32>) -> tensor<2x1025xi32>
  %big = bcast.broadcast_to %sum : tensor<2x1025xi32> -> tensor<2048x2x1025xi32>
  %x = arith.constant dense<1.5> : tensor<1025x1xf32>
  %y = arith.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %prod = bcast.mul %x, %y : (tensor<1025x1xf32>, tensor<2xf32>) -> tensor<1025x2xf32>
  return %sum, %big, %prod : tensor<2x1025xi32>, tensor<2048x2x1025xi32>, tensor<1025x2xf32>
}

// -----

// CHECK-LABEL: func.func @at_the_bound
// CHECK-NOT: bcast.
// CHECK: arith.constant dense<{{.*}}> : tensor<2x512xi32>
func.func @at_the_bound() -> tensor<2x512xi32> {
  %col = arith.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %row = arith.constant dense<7> : tensor<512xi32>
  %sum = bcast.add %col, %row : (tensor<2x1xi32>, tensor<512xi32>) -> tensor<2x512xi32>
  return %sum : tensor<2x512xi32>
}

// -----

// Division by zero is left for run time (its ZeroDivisionError); INT_MIN / -1
// and INT_MIN % -1 fold to the wrapped values PyTorch gives at 8 and 16 bits
// (two's complement at 32 and 64, where PyTorch 1.13 traps: docs/Semantics.md).
// CHECK-LABEL: func.func @undefined_division
// CHECK-DAG: %[[W64:.*]] = arith.constant dense<[-9223372036854775808, -1]> : tensor<2xi64>
// CHECK-DAG: %[[W32:.*]] = arith.constant dense<[-2147483648, -1, -2]> : tensor<3xi32>
// CHECK-DAG: %[[W8:.*]] = arith.constant dense<[-128, -5]> : tensor<2xi8>
// CHECK: %[[DIV0:.*]] = bcast.div {{.*}}rounding_mode = "trunc"{{.*}} : (tensor<3xi32>, tensor<3xi32>)
// CHECK: %[[REM0:.*]] = bcast.remainder {{.*}} : (tensor<3xi32>, tensor<3xi32>)
// CHECK-NOT: bcast.
// CHECK: return %[[DIV0]], %[[W8]], %[[W8]], %[[W32]], %[[REM0]], %{{.*}}, %[[W64]], %{{.*}} :
func.func @undefined_division() -> (tensor<3xi32>, tensor<2xi8>, tensor<2xi8>, tensor<3xi32>, tensor<3xi32>, tensor<2xi8>, tensor<2xi64>, tensor<2xi64>) {
  // 7 / 0 (defined elements beside it do not make the op foldable).
  %a = arith.constant dense<[7, 8, 9]> : tensor<3xi32>
  %z = arith.constant dense<[0, 2, 3]> : tensor<3xi32>
  %0 = bcast.div %a, %z {rounding_mode = "trunc"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  // INT8_MIN / -1.
  %m8 = arith.constant dense<[-128, 5]> : tensor<2xi8>
  %n8 = arith.constant dense<-1> : tensor<i8>
  %1 = bcast.div %m8, %n8 {rounding_mode = "trunc"} : (tensor<2xi8>, tensor<i8>) -> tensor<2xi8>
  %2 = bcast.div %m8, %n8 {rounding_mode = "floor"} : (tensor<2xi8>, tensor<i8>) -> tensor<2xi8>
  // INT32_MIN / -1 (floor), 7 % 0 and INT32_MIN % -1.
  %m32 = arith.constant dense<[-2147483648, 1, 2]> : tensor<3xi32>
  %n32 = arith.constant dense<-1> : tensor<1xi32>
  %3 = bcast.div %m32, %n32 {rounding_mode = "floor"} : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
  %4 = bcast.remainder %a, %z : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %5 = bcast.remainder %m8, %n8 : (tensor<2xi8>, tensor<i8>) -> tensor<2xi8>
  // INT64_MIN / -1 and INT64_MIN % -1.
  %m64 = arith.constant dense<[-9223372036854775808, 1]> : tensor<2xi64>
  %n64 = arith.constant dense<-1> : tensor<i64>
  %6 = bcast.div %m64, %n64 {rounding_mode = "trunc"} : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %7 = bcast.remainder %m64, %n64 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  // Bool division and remainder by false.
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xi32>, tensor<2xi8>, tensor<2xi8>, tensor<3xi32>, tensor<3xi32>, tensor<2xi8>, tensor<2xi64>, tensor<2xi64>
}

// -----

// The in-place forms fold the same way.
// CHECK-LABEL: func.func @undefined_in_place
// CHECK-NOT: bcast.
// CHECK: arith.constant dense<[-2147483648, -4]> : tensor<2xi32>
// CHECK-NOT: bcast.
// CHECK: return
func.func @undefined_in_place() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = arith.constant dense<[-2147483648, 4]> : tensor<2xi32>
  %n = arith.constant dense<-1> : tensor<i32>
  %0 = bcast.div_ %a, %n {rounding_mode = "trunc"} : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %1 = bcast.remainder_ %a, %n : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}
