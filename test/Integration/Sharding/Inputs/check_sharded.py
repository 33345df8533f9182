"""Compares the outputs of sharded_driver.c on every rank with NumPy.

Usage: check_sharded.py <prefix> <ranks>. Each rank wrote <prefix>.<rank>;
the expected local block of each result follows docs/Sharding.md (equal
contiguous blocks; rank r at the row-major coordinates of r).
"""

import sys

import numpy as np

prefix, ranks = sys.argv[1], int(sys.argv[2])
f32 = np.float32
A = np.array([[((i * 16 + j) % 23) * 0.25 - 2.0 for j in range(16)]
              for i in range(8)], dtype=f32)
B = np.arange(16, dtype=f32) * f32(0.5) - f32(3.0)
C = (np.arange(8, dtype=f32) - f32(2.5)).reshape(8, 1)
D = (np.arange(16, dtype=f32) * f32(0.125)).reshape(1, 16)


def rows(x, parts, index):
    n = x.shape[0] // parts
    return x[index * n:(index + 1) * n]


def cols(x, parts, index):
    n = x.shape[1] // parts
    return x[:, index * n:(index + 1) * n]


checks = 0
for rank in range(ranks):
    with open("%s.%d" % (prefix, rank)) as f:
        got = {line.split()[0]: np.array(line.split()[1:], dtype=f32)
               for line in f}
    expected = {
        "row": rows(A + B, ranks, rank),
        "gather": A + B,
        "reduce": A.sum(axis=0, dtype=f32),
        "amax": A.max(axis=0, keepdims=True),
        "grad": A.sum(axis=0, keepdims=True, dtype=f32),
        "chain": rows((A + B) * C - D, ranks, rank),
        "col": cols(C * A, ranks, rank),
        "slice": cols(A - B, ranks, rank),
        "loop_reduce": A.sum(axis=0, dtype=f32),
        "grid2": A * B,
        "pin": rows(A + B, ranks, rank),
        "view": rows(A - C, ranks, rank),
    }
    for name, want in expected.items():
        if name not in got:
            sys.exit("rank %d: no output for %s" % (rank, name))
        have = got[name]
        want = want.reshape(-1)
        if have.shape != want.shape or not np.allclose(have, want,
                                                       rtol=1e-6, atol=1e-6):
            sys.exit("rank %d: %s differs:\n got %s\nwant %s"
                     % (rank, name, have, want))
        checks += 1
print("%d results checked on %d ranks" % (checks, ranks))
