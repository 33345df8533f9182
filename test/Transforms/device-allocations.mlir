// bcast-device-allocations: the buffers of functions that launch kernels
// move to device memory, and every deallocation of a gpu.alloc buffer (also
// the ones buffer-deallocation-pipeline inserts in driver code) frees it on
// the device.
// RUN: bcast-opt %s --bcast-device-allocations | FileCheck %s

// CHECK-LABEL: func @launches
// CHECK: %[[T:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK: gpu.launch
// CHECK: gpu.dealloc %[[T]]
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
func.func @launches(%n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  memref.dealloc %t : memref<?xf32>
  return
}

// A driver: its host buffer stays on the host, the device buffer it got
// from gpu.alloc is freed with gpu.dealloc, also through a cast.
// CHECK-LABEL: func @driver
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[H:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[C:.*]] = memref.cast %[[D]]
// CHECK: gpu.dealloc %[[C]] : memref<?xf32>
// CHECK: memref.dealloc %[[H]] : memref<4xf32>
func.func @driver() {
  %d = gpu.alloc () : memref<4xf32>
  %h = memref.alloc() : memref<4xf32>
  gpu.memcpy %h, %d : memref<4xf32>, memref<4xf32>
  %c = memref.cast %d : memref<4xf32> to memref<?xf32>
  memref.dealloc %c : memref<?xf32>
  memref.dealloc %h : memref<4xf32>
  return
}

// A constant a kernel reads is copied to a device buffer, freed before each
// return; a constant the function returns stays the host's.
// CHECK-LABEL: func @constant
// CHECK: %[[G:.*]] = memref.get_global @weights : memref<2xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<2xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]] : memref<2xf32>, memref<2xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[D]]
// CHECK: gpu.dealloc %[[D]] : memref<2xf32>
// CHECK-NEXT: return
memref.global "private" constant @weights : memref<2xf32> = dense<[1.0, 2.0]>
func.func @constant(%out: memref<2xf32>) {
  %w = memref.get_global @weights : memref<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %w[%c0] : memref<2xf32>
    memref.store %v, %out[%c0] : memref<2xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func @returned
// CHECK-NOT: gpu.memcpy
// CHECK: return %{{.*}} : memref<2xf32>
func.func @returned() -> memref<2xf32> {
  %w = memref.get_global @weights : memref<2xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return %w : memref<2xf32>
}
