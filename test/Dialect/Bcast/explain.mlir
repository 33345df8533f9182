// bcast-explain: one remark per op, in the words of PyTorch's notes.
// RUN: bcast-opt %s --bcast-explain -verify-diagnostics -o /dev/null

func.func @notes(%x: tensor<5x1x4x1xf32>, %y: tensor<3x1x1xf32>, %s: tensor<f32>, %one: tensor<1xf32>, %z: tensor<3x1x7xf32>) {
  // expected-remark @+1 {{broadcast of a [5, 1, 4, 1] and b [3, 1, 1] to [5, 3, 4, 1]: 1st trailing dimension: both have size 1; 2nd: b has size 1 and is expanded to 4; 3rd: a has size 1 and is expanded to 3; 4th: b's dimension doesn't exist}}
  %0 = bcast.add %x, %y : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // expected-remark @+1 {{broadcast of a [1] and b [3, 1, 7] to [3, 1, 7]: 1st trailing dimension: a has size 1 and is expanded to 7; 2nd: a's dimension doesn't exist; 3rd: a's dimension doesn't exist}}
  %1 = bcast.mul %one, %z : (tensor<1xf32>, tensor<3x1x7xf32>) -> tensor<3x1x7xf32>
  // expected-remark @+1 {{broadcast of a [] and b [] to []: all operands are scalars (rank 0)}}
  %2 = bcast.sub %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

func.func @where_dynamic_broadcast_to(%c: tensor<4x1xi1>, %x: tensor<?xf32>, %y: tensor<f32>, %v: tensor<3x1xf32>) {
  // expected-remark @+1 {{broadcast of a [4, 1] and b [?] and c [] to [4, ?]: 1st trailing dimension: a has size 1 and is expanded to the run-time size, b has size ? (known at run time), c's dimension doesn't exist; 2nd: b's dimension doesn't exist, c's dimension doesn't exist}}
  %0 = bcast.where %c, %x, %y : (tensor<4x1xi1>, tensor<?xf32>, tensor<f32>) -> tensor<4x?xf32>
  // expected-remark @+1 {{broadcast of a [3, 1] to [4, 3, 5]: 1st trailing dimension: a has size 1 and is expanded to 5; 2nd: both have size 3; 3rd: a's dimension doesn't exist}}
  %1 = bcast.broadcast_to %v : tensor<3x1xf32> -> tensor<4x3x5xf32>
  return
}
