"""In-place updates of several arrays in one @bcast.jit function (issue 31):
an Adam step as users write it, and other chains whose intermediate
results are also written out, compute NumPy's values (bcast-fuse-elementwise
fuses them into one loop nest with several results; the IR is checked in
test/Pipelines/inplace-fusion.mlir)."""

import numpy as np
import pytest

import bcast

LR, B1, B2, BC, EPS = 1e-3, 0.9, 0.999, 0.3, 1e-8


def adam(p, m, v, g, lr, b1, b2, bc, eps):
    m *= b1
    m += (1 - b1) * g
    v *= b2
    v += (1 - b2) * g * g
    p -= lr * m / (np.sqrt(v) / bc + eps)


def adam_reference(p, m, v, g):
    """In float32 as NumPy computes it with float32 scalars."""
    f = np.float32
    m = m * f(B1) + f(1 - B1) * g
    v = v * f(B2) + f(1 - B2) * g * g
    p = p - f(LR) * m / (np.sqrt(v) / f(BC) + f(EPS))
    return p, m, v


@pytest.mark.parametrize("n", [1, 7, 16, 1000, 65536 + 3])
@pytest.mark.parametrize("threads", [1, None])
def test_adam_in_place(n, threads):
    rng = np.random.default_rng(n)
    p = rng.standard_normal(n, np.float32)
    m = rng.standard_normal(n, np.float32)
    v = rng.random(n, np.float32)
    g = rng.standard_normal(n, np.float32)
    want = adam_reference(p, m, v, g)
    f = bcast.jit(adam, threads=threads)
    assert f(p, m, v, g, LR, B1, B2, BC, EPS) is None
    for got, expected in zip((p, m, v), want):
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-7)
    # A second step with other scalars: the same kernel, new values.
    want = adam_reference(p, m, v, g)
    f(p, m, v, g, LR, B1, B2, BC, EPS)
    for got, expected in zip((p, m, v), want):
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-7)
    assert len(f.cache) == 1


def test_intermediate_also_returned():
    # y is returned and read by the second result: one loop, two results.
    f = bcast.jit(lambda x, b: (x + b, (x + b) * 2 - x))
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    b = np.linspace(-1, 1, 6, dtype=np.float32)
    y, z = f(x, b)
    np.testing.assert_array_equal(y, x + b)
    np.testing.assert_array_equal(z, (x + b) * 2 - x)


def test_in_place_then_read_by_another_update():
    # a is updated twice, b reads a's new value, and a's old value is not
    # read after its first update.
    def step(a, b, c):
        a *= 2
        a += c
        b -= a * c

    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal((3, 5)).astype(np.float32)
               for _ in range(3))
    a2 = a * 2 + c
    b2 = b - a2 * c
    bcast.jit(step)(a, b, c)
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)


def test_broadcast_operand_updated_in_place():
    # The row vector is updated from the matrix's old values: the updates
    # may not fuse into one loop over the matrix's shape.
    def step(x, r):
        r += 1
        x += r

    x = np.ones((4, 3), np.float32)
    r = np.arange(3, dtype=np.float32)
    bcast.jit(step)(x, r)
    np.testing.assert_array_equal(r, np.arange(3) + 1)
    np.testing.assert_array_equal(
        x, np.broadcast_to(1 + np.arange(3) + 1, (4, 3)))
