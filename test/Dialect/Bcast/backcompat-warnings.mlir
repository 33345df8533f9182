// bcast-backcompat-warnings: PyTorch's warning where broadcasting changed the
// old "view both as 1-d" behaviour.
// RUN: bcast-opt %s --bcast-backcompat-warnings -verify-diagnostics -o /dev/null

func.func @warn(%a: tensor<4x1xf32>, %b: tensor<4xf32>, %c: tensor<4x4xf32>, %d: tensor<1x4xf32>, %e: tensor<?x1xf32>) {
  // PyTorch's example: [4, 1] + [4] was [4, 1] and is now [4, 4].
  // expected-warning @+1 {{self and other do not have the same shape, but are broadcastable, and have the same number of elements.}}
  %0 = bcast.add %a, %b : (tensor<4x1xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  // Same shape: no warning.
  %1 = bcast.add %b, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // Different numbers of elements: no warning.
  %2 = bcast.add %c, %b : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  // Dynamic sizes: the element count is unknown, no warning.
  %3 = bcast.add %e, %b : (tensor<?x1xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // In place, [1, 4] with [4]: the full warning text.
  // expected-warning @+1 {{self and other do not have the same shape, but are broadcastable, and have the same number of elements. Changing behavior in a backwards incompatible manner to broadcasting rather than viewing as 1-dimensional.}}
  %4 = bcast.mul_ %d, %b : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return
}
