// The ops bcast's lowering creates: round trip and verifier errors.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @ok
// CHECK: bcast.expand_view %{{.*}}[%{{.*}}] : tensor<?x4xf32>
// CHECK: bcast.runtime_check %{{.*}}, "sizes %ld and %ld"(%{{.*}}, %{{.*}} : index, i32)
func.func @ok(%x: tensor<?x4xf32>, %n: index, %b: i1, %i: i32) -> tensor<?x4xf32> {
  %v = bcast.expand_view %x [%n] : tensor<?x4xf32>
  bcast.runtime_check %b, "sizes %ld and %ld" (%n, %i : index, i32)
  return %v : tensor<?x4xf32>
}

// -----

func.func @expand_view_sizes(%x: tensor<?x?xf32>, %n: index) {
  // expected-error @+1 {{expects one size per dynamic dimension (2), but got 1}}
  %v = bcast.expand_view %x [%n] : tensor<?x?xf32>
  return
}

// -----

func.func @check_format(%b: i1, %n: index) {
  // expected-error @+1 {{format may only contain %ld conversions}}
  bcast.runtime_check %b, "size %s" (%n : index)
  return
}

// -----

func.func @check_values(%b: i1, %n: index) {
  // expected-error @+1 {{format has 2 conversions but 1 values are given}}
  bcast.runtime_check %b, "sizes %ld and %ld" (%n : index)
  return
}
