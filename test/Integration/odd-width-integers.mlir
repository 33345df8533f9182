// Integers whose width is not 8, 16, 32 or 64 bits take one byte (i4) or
// more (i12: 2, i24: 4) per element in a buffer, while vector loads pack
// their bits: the vector loops must leave them to scalar loops. Rows of 40
// elements would otherwise take the vector path. Expected values computed
// with NumPy when the test was written (a + b, no wrap-around: every value
// fits the type) and checked by hand at a few places.
//
// RUN: bcast-opt %s --bcast-to-llvm | %runner | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm=vector-bytes=16 | %runner | FileCheck %s
// CHECK: [-5, -3, -1, 1, 3, 0, 2, -3, -1, 1, -2, 0, 2, 4, -1, -4, -2, 0, 2, 4, 1, -4, -2, 0, 2, -1, 1, 3, -2, 0, -3, -1, 1, 3, 5, -5, -3, -1, 1, 3]
// CHECK-NEXT: [-1, -1, -1, -1, -1, 1, 1, 1, 1, 1, -4, -4, 3, 3, 3, -2, -2, -2, -2, 5, 0, 0, 0, 0, 0, -5, 2, 2, 2, 2, -3, -3, -3, 4, 4, -1, -1, -1, -1, -1]
// CHECK: [-1000, -949, -898, -847, -796, -745, -694, -643, -592, -541, -490, -439, -388, -337, -286, -235, -184, -133, -82, -31, 20, 71, 122, 173, 224, 275, 326, 377, 428, 479, 530, 581, 632, 683, 734, 785, 836, 887, 938, 989]
// CHECK-NEXT: [950, 901, 852, 803, 754, 705, 656, 607, 558, 509, 460, 411, 362, 313, 264, 215, 166, 117, 68, 19, -30, -79, -128, -177, -226, -275, -324, -373, -422, -471, -520, -569, -618, -667, -716, -765, -814, -863, -912, -961]
// CHECK: [-2000000, -1900007, -1800014, -1700021, -1600028, -1500035, -1400042, -1300049, -1200056, -1100063, -1000070, -900077, -800084, -700091, -600098, -500105, -400112, -300119, -200126, -100133, -140, 99853, 199846, 299839, 399832, 499825, 599818, 699811, 799804, 899797, 999790, 1099783, 1199776, 1299769, 1399762, 1499755, 1599748, 1699741, 1799734, 1899727]
// CHECK-NEXT: [1900000, 1799993, 1699986, 1599979, 1499972, 1399965, 1299958, 1199951, 1099944, 999937, 899930, 799923, 699916, 599909, 499902, 399895, 299888, 199881, 99874, -133, -100140, -200147, -300154, -400161, -500168, -600175, -700182, -800189, -900196, -1000203, -1100210, -1200217, -1300224, -1400231, -1500238, -1600245, -1700252, -1800259, -1900266, -2000273]

func.func private @printMemrefI32(memref<*xi32>)

func.func @add_i4(%a: tensor<2x40xi4>, %b: tensor<40xi4>) -> tensor<2x40xi4> {
  %r = bcast.add %a, %b : (tensor<2x40xi4>, tensor<40xi4>) -> tensor<2x40xi4>
  return %r : tensor<2x40xi4>
}

func.func @add_i12(%a: tensor<2x40xi12>, %b: tensor<40xi12>) -> tensor<2x40xi12> {
  %r = bcast.add %a, %b : (tensor<2x40xi12>, tensor<40xi12>) -> tensor<2x40xi12>
  return %r : tensor<2x40xi12>
}

func.func @add_i24(%a: tensor<2x40xi24>, %b: tensor<40xi24>) -> tensor<2x40xi24> {
  %r = bcast.add %a, %b : (tensor<2x40xi24>, tensor<40xi24>) -> tensor<2x40xi24>
  return %r : tensor<2x40xi24>
}

func.func @main() {
  %a_i4 = arith.constant dense<[[-3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1], [1, 0, -1, -2, -3, 3, 2, 1, 0, -1, -2, -3, 3, 2, 1, 0, -1, -2, -3, 3, 2, 1, 0, -1, -2, -3, 3, 2, 1, 0, -1, -2, -3, 3, 2, 1, 0, -1, -2, -3]]> : tensor<2x40xi4>
  %b_i4 = arith.constant dense<[-2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2]> : tensor<40xi4>
  %r_i4 = call @add_i4(%a_i4, %b_i4) : (tensor<2x40xi4>, tensor<40xi4>) -> tensor<2x40xi4>
  %e_i4 = tensor.empty() : tensor<2x40xi32>
  %w_i4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r_i4 : tensor<2x40xi4>) outs(%e_i4 : tensor<2x40xi32>) {
  ^bb0(%x: i4, %o: i32):
    %y = arith.extsi %x : i4 to i32
    linalg.yield %y : i32
  } -> tensor<2x40xi32>
  %m_i4 = bufferization.to_buffer %w_i4 : tensor<2x40xi32> to memref<2x40xi32>
  %u_i4 = memref.cast %m_i4 : memref<2x40xi32> to memref<*xi32>
  call @printMemrefI32(%u_i4) : (memref<*xi32>) -> ()
  %a_i12 = arith.constant dense<[[-1000, -950, -900, -850, -800, -750, -700, -650, -600, -550, -500, -450, -400, -350, -300, -250, -200, -150, -100, -50, 0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800, 850, 900, 950], [950, 900, 850, 800, 750, 700, 650, 600, 550, 500, 450, 400, 350, 300, 250, 200, 150, 100, 50, 0, -50, -100, -150, -200, -250, -300, -350, -400, -450, -500, -550, -600, -650, -700, -750, -800, -850, -900, -950, -1000]]> : tensor<2x40xi12>
  %b_i12 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]> : tensor<40xi12>
  %r_i12 = call @add_i12(%a_i12, %b_i12) : (tensor<2x40xi12>, tensor<40xi12>) -> tensor<2x40xi12>
  %e_i12 = tensor.empty() : tensor<2x40xi32>
  %w_i12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r_i12 : tensor<2x40xi12>) outs(%e_i12 : tensor<2x40xi32>) {
  ^bb0(%x: i12, %o: i32):
    %y = arith.extsi %x : i12 to i32
    linalg.yield %y : i32
  } -> tensor<2x40xi32>
  %m_i12 = bufferization.to_buffer %w_i12 : tensor<2x40xi32> to memref<2x40xi32>
  %u_i12 = memref.cast %m_i12 : memref<2x40xi32> to memref<*xi32>
  call @printMemrefI32(%u_i12) : (memref<*xi32>) -> ()
  %a_i24 = arith.constant dense<[[-2000000, -1900000, -1800000, -1700000, -1600000, -1500000, -1400000, -1300000, -1200000, -1100000, -1000000, -900000, -800000, -700000, -600000, -500000, -400000, -300000, -200000, -100000, 0, 100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000, 900000, 1000000, 1100000, 1200000, 1300000, 1400000, 1500000, 1600000, 1700000, 1800000, 1900000], [1900000, 1800000, 1700000, 1600000, 1500000, 1400000, 1300000, 1200000, 1100000, 1000000, 900000, 800000, 700000, 600000, 500000, 400000, 300000, 200000, 100000, 0, -100000, -200000, -300000, -400000, -500000, -600000, -700000, -800000, -900000, -1000000, -1100000, -1200000, -1300000, -1400000, -1500000, -1600000, -1700000, -1800000, -1900000, -2000000]]> : tensor<2x40xi24>
  %b_i24 = arith.constant dense<[0, -7, -14, -21, -28, -35, -42, -49, -56, -63, -70, -77, -84, -91, -98, -105, -112, -119, -126, -133, -140, -147, -154, -161, -168, -175, -182, -189, -196, -203, -210, -217, -224, -231, -238, -245, -252, -259, -266, -273]> : tensor<40xi24>
  %r_i24 = call @add_i24(%a_i24, %b_i24) : (tensor<2x40xi24>, tensor<40xi24>) -> tensor<2x40xi24>
  %e_i24 = tensor.empty() : tensor<2x40xi32>
  %w_i24 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r_i24 : tensor<2x40xi24>) outs(%e_i24 : tensor<2x40xi32>) {
  ^bb0(%x: i24, %o: i32):
    %y = arith.extsi %x : i24 to i32
    linalg.yield %y : i32
  } -> tensor<2x40xi32>
  %m_i24 = bufferization.to_buffer %w_i24 : tensor<2x40xi32> to memref<2x40xi32>
  %u_i24 = memref.cast %m_i24 : memref<2x40xi32> to memref<*xi32>
  call @printMemrefI32(%u_i24) : (memref<*xi32>) -> ()
  return
}
