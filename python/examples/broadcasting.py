"""A first tour of the bcast Python package. Run it from the repository root
after building:

    PYTHONPATH=build/python /usr/bin/python3 python/examples/broadcasting.py
"""

import numpy as np

import bcast

# The broadcasting rule, with PyTorch's error sentence.
print("broadcast_shapes((5, 1, 4, 1), (3, 1, 1)) =",
      bcast.broadcast_shapes((5, 1, 4, 1), (3, 1, 1)))
try:
    bcast.broadcast_shapes((5, 2, 4, 1), (3, 1, 1))
except ValueError as error:
    print("ValueError:", error)


# A broadcasting expression compiled into one fused native kernel.
@bcast.jit
def scale_and_shift(a, row, column, offset):
    return (a + row) * column - offset


a = np.random.rand(1000, 512).astype(np.float32)
row = np.random.rand(512).astype(np.float32)
column = np.random.rand(1000, 1).astype(np.float32)
result = scale_and_shift(a, row, column, 0.5)
print("fused kernel matches NumPy:",
      np.allclose(result, (a + row) * column - 0.5))
print("linalg.generic ops after fusion:",
      scale_and_shift.inspect(a, row, column, 0.5)["linalg"].count(
          "linalg.generic"))


# In place, as PyTorch's x.add_(y): the caller's array changes.
@bcast.jit
def accumulate(x, y):
    x += y
    return x


x = np.zeros((2, 3), np.float32)
accumulate(x, np.array([11, 22, 33], np.float32))
print("x after x += row:", x[0])


# Dynamic sizes: one kernel for every shape; a mismatch raises at run time.
@bcast.jit(dynamic=True)
def add(p, q):
    return p + q


print("dynamic:", add(np.ones((2, 3), np.float32), np.ones(1, np.float32))[0])
try:
    add(np.ones((2, 3), np.float32), np.ones(2, np.float32))
except ValueError as error:
    print("run-time error:", error)
