"""Python scalars in @bcast.jit: run-time 0-d operands by default (a new
value runs the same kernel), PyTorch's weak promotion rule, the range checks
of integer scalars, scalar arithmetic inside the function, specialized
scalars, and float literals in every form Python prints."""

import math

import numpy as np
import pytest

import bcast

F32 = np.float32

try:
    import torch
except ImportError:
    torch = None


@pytest.mark.parametrize("value", [0.0, -0.0, 1.5, -2.25, 1e-05, 1e+16,
                                   1e300, 5e-324, math.inf, -math.inf,
                                   math.nan])
def test_float_scalar_values_share_one_kernel(value):
    @bcast.jit
    def f(a, s):
        return a + s

    a = np.array([1.0, -1.0, 0.0], F32)
    for v in (value, 2.0, value):
        got = f(a, v)
        with np.errstate(over="ignore"):
            want = a + F32(v)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == F32
    assert len(f.cache) == 1


def test_f32_plus_huge_python_float_is_inf():
    # The weak rule: the scalar is converted to float32 (inf), not the
    # tensor to float64.
    @bcast.jit
    def f(a, s):
        return a + s

    got = f(np.array([1.0], F32), 1.7976931348623157e308)
    assert got.dtype == F32 and np.isinf(got[0])
    # The same as a constant in the function body.
    g = bcast.jit(lambda a: a + 1.7976931348623157e308)
    assert np.isinf(g(np.array([1.0], F32))[0])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64,
                                   np.uint8, np.float16, np.float32,
                                   np.float64])
def test_int_scalar_keeps_the_array_dtype(dtype):
    @bcast.jit
    def f(a, s):
        return a * s + s

    a = np.arange(5).astype(dtype)
    for s in (2, 3, 0):
        got = f(a, s)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, (a * dtype(s) + dtype(s)))
    assert len(f.cache) == 1


def test_int_scalar_out_of_range_wraps_at_each_call():
    # PyTorch 1.13's conversion of an integer scalar: two's complement
    # (test_scalar_precision.py compares every op with PyTorch).
    @bcast.jit
    def f(a, s):
        return a + s

    a = np.arange(4, dtype=np.uint8)
    np.testing.assert_array_equal(f(a, 255), a + np.uint8(255))
    np.testing.assert_array_equal(f(a, -1), a + np.uint8(255))
    np.testing.assert_array_equal(f(a, 300), a + np.uint8(44))
    b = np.arange(4, dtype=np.int8)
    np.testing.assert_array_equal(f(b, 128), b + np.int8(-128))
    np.testing.assert_array_equal(f(b, -128), b + np.int8(-128))
    assert len(f.cache) == 2


@pytest.mark.parametrize("value", [2 ** 63, -(2 ** 63) - 1, 2 ** 100])
def test_integers_beyond_int64_are_rejected(value):
    f = bcast.jit(lambda a, s: a + s)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        f(np.ones(2, F32), value)
    g = bcast.jit(lambda a, s: a + s, specialize_scalars=True)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        g(np.ones(2, F32), value)
    h = bcast.jit(lambda a: a + value)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        h(np.ones(2, F32))


def test_int64_limits_are_accepted():
    f = bcast.jit(lambda a, s: a + s)
    a = np.zeros(2, np.int64)
    for v in (2 ** 63 - 1, -(2 ** 63)):
        np.testing.assert_array_equal(f(a, v), a + np.int64(v))


def test_bool_and_float_promotion():
    @bcast.jit
    def f(a, s):
        return a + s

    i = np.arange(3, dtype=np.int32)
    got = f(i, 2.5)  # int32 array, float scalar: float32
    assert got.dtype == F32
    np.testing.assert_array_equal(got, i.astype(F32) + F32(2.5))
    b = np.array([True, False])
    got = f(b, 1)  # bool array, int scalar: int64
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, b.astype(np.int64) + 1)
    got = f(b, True)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, b | True)


def test_scalar_arithmetic_in_the_function():
    @bcast.jit
    def step(p, g, lr, beta):
        scale = lr / (1 - beta) * 2
        return p - scale * g, p * (beta + 1)

    p, g = np.linspace(0, 1, 8, dtype=F32), np.linspace(1, 2, 8, dtype=F32)
    for lr, beta in ((0.1, 0.9), (0.01, 0.5), (1.0, 0.0)):
        scale = lr / (1 - beta) * 2
        a, b = step(p, g, lr, beta)
        np.testing.assert_allclose(a, p - F32(scale) * g, rtol=1e-6)
        np.testing.assert_allclose(b, p * F32(beta + 1), rtol=1e-6)
    assert len(step.cache) == 1


def test_function_needing_a_scalar_value_is_specialized():
    @bcast.jit
    def f(a, n):
        if n > 2:  # needs the value: traced again with values compiled in
            return a * 2
        return a + math.sqrt(n)

    a = np.ones(3, F32)
    np.testing.assert_array_equal(f(a, 3), a * 2)
    np.testing.assert_allclose(f(a, 1), a + 1)
    assert f.specialize_scalars
    assert len(f.cache) == 2


def test_numpy_scalars_and_zero_dim_arrays():
    f = bcast.jit(lambda a, s: a * s)
    a = np.arange(3, dtype=F32)
    np.testing.assert_array_equal(f(a, np.float32(2)), a * 2)
    np.testing.assert_array_equal(f(a, np.int64(3)), a * 3)
    np.testing.assert_array_equal(f(a, np.bool_(True)), a)
    got = f(a, np.array(4.0, np.float64))  # a 0-d array is a tensor
    assert got.dtype == F32


def test_specialized_scalars_fold_constants():
    f = bcast.jit(lambda a, s: a * s, specialize_scalars=True)
    a = np.arange(3, dtype=F32)
    f(a, 2.0)
    f(a, 2.0)
    f(a, 3.0)
    assert len(f.cache) == 2
    assert "arith.constant" in f.inspect(a, 2.0)["bcast"]
    assert "memref<f64>" not in f.inspect(a, 2.0)["bcast"]
    # Run-time scalars: a memref<f64> argument.
    g = bcast.jit(lambda a, s: a * s)
    assert "memref<f64>" in g.inspect(a, 2.0)["bcast"]


@pytest.mark.parametrize("literal, value", [
    ("1e-05", 1e-05), ("1e+16", 1e+16), ("-0.0", -0.0), ("1e-300", 1e-300),
    ("float('inf')", math.inf), ("float('-inf')", -math.inf),
    ("float('nan')", math.nan), ("0.1", 0.1), ("123456789.0", 123456789.0)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_literals_in_the_body(literal, value, dtype):
    f = bcast.jit(eval(f"lambda x: x * 0 + {literal}"))
    g = bcast.jit(lambda x, s: x * 0 + s, specialize_scalars=True)
    x = np.ones(3, dtype)
    want = x * 0 + dtype(value)
    for got in (f(x), g(x, value)):
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
        assert np.signbit(got[0]) == np.signbit(want[0])


def test_epsilon_literal_compiles():
    f = bcast.jit(lambda x: x + 1e-05)
    np.testing.assert_array_equal(f(np.ones(2, F32)), np.ones(2, F32) +
                                  F32(1e-05))


@pytest.mark.skipif(torch is None, reason="needs python3-torch")
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_reduced_float_with_scalar_matches_pytorch(dtype, op):
    # PyTorch 1.13 rounds the scalar to the tensor's dtype, computes in
    # float32 and rounds once; so does bcast.
    t = torch.linspace(-3, 3, 101, dtype=getattr(torch, dtype))
    fn = {"add": lambda a, s: a + s, "sub": lambda a, s: a - s,
          "mul": lambda a, s: a * s, "div": lambda a, s: a / s}[op]
    f = bcast.jit(fn)
    for s in (0.1, 1.0009765625, 3.3):
        got = f(t, s)
        want = fn(t, s)
        assert got.dtype == want.dtype
        assert torch.equal(got, want), (s, got - want)
