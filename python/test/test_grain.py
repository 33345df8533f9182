"""The grain size: results smaller than it run on one thread (static sizes
decide at compile time, dynamic ones by one branch in the kernel); results
agree on both sides of the threshold."""

import numpy as np
import pytest

import bcast


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("n", [1, 99, 100, 101, 1000])
def test_results_equal_on_both_sides(dynamic, n):
    @bcast.jit(grain_size=100, dynamic=dynamic)
    def f(a, b, c, d):
        return (a + b) * c - d

    rng = np.random.default_rng(n)
    a = rng.random((n, 3), np.float32)
    b = rng.random(3, np.float32)
    c = rng.random((n, 1), np.float32)
    np.testing.assert_array_equal(f(a, b, c, 0.5), (a + b) * c - 0.5)


def test_default_grain_both_sides_dynamic():
    f = bcast.jit(lambda a, b: a * b + 1, dynamic=True)
    g = bcast.jit(lambda a, b: a * b + 1, dynamic=True, threads=1)
    for rows in (8, 32767 // 64, 32768 // 64, 3000):
        a = np.random.default_rng(rows).random((rows, 64), np.float32)
        b = np.arange(64, dtype=np.float32)
        np.testing.assert_array_equal(f(a, b), a * b + 1)
        np.testing.assert_array_equal(f(a, b), g(a, b))
    assert len(f.cache) == 1


def test_grain_size_in_the_kernel():
    small = np.ones((4, 16), np.float32)
    f = bcast.jit(lambda a: a + 1)
    assert "omp.parallel" not in f.inspect(small)["llvm"]
    g = bcast.jit(lambda a: a + 1, grain_size=0)
    assert "omp.parallel" in g.inspect(small)["llvm"]
    h = bcast.jit(lambda a: a + 1, dynamic=True)
    llvm = h.inspect(small)["llvm"]
    assert "omp.parallel" in llvm or "__kmpc_fork_call" in llvm
    with pytest.raises(ValueError, match="grain_size"):
        bcast.jit(lambda a: a, grain_size=-1)
