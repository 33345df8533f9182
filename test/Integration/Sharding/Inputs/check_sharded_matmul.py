"""Compares the outputs of sharded_matmul_driver.c on every rank with NumPy.

Usage: check_sharded_matmul.py <prefix> <ranks>. Each rank wrote
<prefix>.<rank>; the expected local block of each result follows
docs/Sharding.md (equal contiguous blocks; rank r at the row-major
coordinates of r). The products are computed here in float64 from the
same formulas as the driver, independently of the sharded program.
"""

import sys

import numpy as np

prefix, ranks = sys.argv[1], int(sys.argv[2])
f32 = np.float32


def grid(shape, value):
    return np.fromfunction(lambda *i: value(*i), shape).astype(f32)


X = grid((4, 8), lambda i, j: ((i * 8 + j) % 7) * 0.5 - 1.5)
W1 = grid((8, 16), lambda i, j: ((i * 16 + j) % 11) * 0.125 - 0.5)
B1 = grid((16,), lambda j: j * 0.25 - 2.0)
W2 = grid((16, 8), lambda i, j: ((i * 8 + j) % 5) * 0.25 - 0.5)
B2 = grid((8,), lambda j: j * 0.5)
A3 = grid((4, 3, 8), lambda i, j, k: ((i * 24 + j * 8 + k) % 13) * 0.25 - 1.5)
B3 = grid((1, 8, 5), lambda b, k, n: ((k * 5 + n) % 7) * 0.5 - 1.0)
A4 = grid((4, 2, 8), lambda i, j, k: ((i * 16 + j * 8 + k) % 9) * 0.5 - 2.0)
BK = grid((8, 3), lambda k, n: ((k * 3 + n) % 5) * 0.75 - 1.0)
V8 = np.array([(k * 37) % 256 - 128 for k in range(16)], dtype=np.int8)
U8 = np.array([(k * 11) % 100 + 20 for k in range(16)], dtype=np.int8)


def f64(x):
    return x.astype(np.float64)


# The unsharded results, in float64 (the f32 inputs are exact in it).
mlp = np.maximum(f64(X) @ f64(W1) + f64(B1), 0.0) @ f64(W2) + f64(B2)
batch_bcast = f64(A3) @ f64(B3)
batch_and_k = f64(A4) @ f64(BK)
# torch.matmul's int8 dot wraps: the exact sum modulo 256, as int8.
dot_i8 = np.array((V8.astype(np.int64) * U8.astype(np.int64)).sum()
                  ).astype(np.uint8).astype(np.int8)

half = ranks // 2
checks = 0
for rank in range(ranks):
    with open("%s.%d" % (prefix, rank)) as f:
        got = {line.split()[0]: line.split()[1:] for line in f}
    row2 = rank // half
    n = 4 // ranks
    expected = {
        "mlp": mlp,
        "batch_bcast": batch_bcast[rank * n:(rank + 1) * n],
        "batch_and_k": batch_and_k[row2 * 2:(row2 + 1) * 2],
    }
    for name, want in expected.items():
        if name not in got:
            sys.exit("rank %d: no output for %s" % (rank, name))
        have = np.array(got[name], dtype=np.float64)
        want = want.reshape(-1)
        if have.shape != want.shape or not np.allclose(have, want,
                                                       rtol=1e-5, atol=1e-5):
            sys.exit("rank %d: %s differs:\n got %s\nwant %s"
                     % (rank, name, have, want))
        checks += 1
    if got.get("dot_i8") != [str(int(dot_i8))]:
        sys.exit("rank %d: dot_i8 is %s, want %d"
                 % (rank, got.get("dot_i8"), dot_i8))
    checks += 1
print("%d results checked on %d ranks (dot_i8 = %d)" % (checks, ranks, dot_i8))
