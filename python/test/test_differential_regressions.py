"""Programs on which the differential fuzzer (fuzz/differential.py) once
found @bcast.jit disagreeing with PyTorch or failing; each stays as a test
(docs/Robustness.md lists the findings)."""

import numpy as np

import bcast


def test_in_place_dynamic_operand_read_through_its_view():
    """Finding 8: with `?` sizes, an in-place op whose operand is also read
    through its broadcast view is bufferized with a copy of a strided view
    (memrefCopy); the JIT did not load the C runner utilities that define
    it, so the kernel failed to link ("Symbols not found: [ memrefCopy ]").
    differential.py --seed 149."""
    def f(x):
        y = x.logical_and_(x)
        return y, bcast.asin(y)

    x = np.array([True, False])
    y, z = bcast.jit(f, dynamic=True)(x.copy())
    np.testing.assert_array_equal(y, [True, False])
    np.testing.assert_allclose(z, np.arcsin([1.0, 0.0]).astype(np.float32))

    def g(a, b):
        a *= b
        return a, a + b

    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = np.array([2.0, -1.0], np.float32)
    got = bcast.jit(g, dynamic=True)(a.copy(), b)
    np.testing.assert_array_equal(got[0], a * b)
    np.testing.assert_array_equal(got[1], a * b + b)


def test_result_aliasing_an_argument_updated_in_place():
    """Finding 11: a result that folding makes the old value of an argument
    (`x | x`, `floor` of an integer, an identity `broadcast_to`) was
    materialized after the argument's buffer had been overwritten by an
    in-place op, and so returned the new values. differential.py seeds
    2570, 2441 and 2692."""
    def f(x):
        y = x | x
        x += y
        return y, x

    x = np.array(5, np.int8)
    y, z = bcast.jit(f)(x.copy())
    assert int(y) == 5 and int(z) == 10

    def g(v, w):
        f = bcast.floor(w)
        w -= v
        return f, w

    v = np.array([1, 2], np.int64)
    w = np.array([[0, 3], [-1, 9]], np.int64)
    got = bcast.jit(g)(v, w.copy())
    np.testing.assert_array_equal(got[0], w)
    np.testing.assert_array_equal(got[1], w - v)

    def h(a):
        b = bcast.broadcast_to(a, a.shape)
        a.sign_()
        return b, a

    a = np.array([[1, 0, -9], [2, 0, 7]], np.int64)
    got = bcast.jit(h)(a.copy())
    np.testing.assert_array_equal(got[0], a)
    np.testing.assert_array_equal(got[1], np.sign(a))


def test_astype_to_its_own_dtype_is_a_copy():
    """Finding 16: `x.astype(x.dtype)` returned `x` itself, so an in-place
    method on `x` later changed it too; NumPy's astype copies, and the IR
    path (a `bcast.cast`, a value) was right. differential.py --seed 7062."""
    def f(x, z):
        y = x.astype(x.dtype)
        x.atan2_(z)
        return y, x

    x = np.array(-0.5, np.float16)
    z = np.array(-0.5, np.float64)
    arg = x.copy()
    y, w = bcast.jit(f)(arg, z)
    assert float(y) == -0.5
    want = np.arctan2(np.float64(-0.5), z).astype(np.float16)
    assert float(w) == float(want) and float(arg) == float(want)

    def g(a):
        b = a.astype(np.int32)
        a += 1
        return b, a

    a = np.array([[1, 2], [3, 4]], np.int32)
    got = bcast.jit(g)(a.copy())
    np.testing.assert_array_equal(got[0], a)
    np.testing.assert_array_equal(got[1], a + 1)
