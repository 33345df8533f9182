"""Hostile inputs from Python (issue 17): scalars beyond int64, NaN and
infinite scalars and `value`s, absurd shapes and sizes, every cast. Each
must give a Python exception with a message (never a crash, a hang or a
wrong answer), or, where PyTorch defines the result, that result. The
sanitizer build runs these with the ASan runtime preloaded
(test/Python/pytest.test)."""

import itertools

import numpy as np
import pytest

import bcast

try:
    import torch
except ImportError:
    torch = None

HUGE_INTS = [2**63, 2**64, -2**63 - 1, 2**70, -2**200, 10**30]


@pytest.mark.parametrize("value", HUGE_INTS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8,
                                   np.uint64, np.bool_])
def test_int_scalar_beyond_int64_is_an_error(value, dtype):
    """A Python int beyond int64 is OverflowError with the value, whatever
    the array's dtype (uint64 included): Python integers are int64 scalars,
    PyTorch's rule (docs/Python.md); nothing is computed with a wrapped
    value."""
    x = np.array([1, 0, 1], dtype)
    with pytest.raises(OverflowError, match="does not fit in"):
        bcast.jit(lambda a: a + value)(x)


@pytest.mark.parametrize("value", HUGE_INTS)
def test_int_scalar_beyond_int64_with_floats_is_an_error(value):
    """With a float tensor too: PyTorch 1.13 raises ("Overflow when
    unpacking long") rather than rounding the int to a float."""
    x = np.array([1.0, -2.0], np.float64)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        bcast.jit(lambda a: a * value)(x)
    if torch is not None:
        with pytest.raises(RuntimeError, match="Overflow"):
            torch.from_numpy(x) * value


@pytest.mark.parametrize("value", HUGE_INTS)
def test_int_scalar_argument_beyond_int64(value):
    """The same scalar passed as an argument rather than captured."""
    x = np.array([3, 4], np.int64)
    with pytest.raises(OverflowError, match="does not fit in"):
        bcast.jit(lambda a, s: a - s)(x, value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"),
                                   float("-inf"), 1e308, -0.0, 5e-324])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_special_float_scalars(value, dtype):
    """NaN, the infinities, the largest double (inf in f32 and f16, as in
    PyTorch) and -0 as scalars compute as IEEE says."""
    x = np.array([1.0, -0.0, np.inf], dtype)
    got = bcast.jit(lambda a: a * value)(x)
    with np.errstate(all="ignore"):
        want = x * np.asarray(value).astype(dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("value", [float("nan"), float("inf"),
                                   float("-inf"), 1e308, 2**70])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_non_finite_value_of_integer_addcmul_is_an_error(value, dtype):
    """addcmul's `value` that an integer compute type cannot hold is
    PyTorch's error (raised while tracing, a ValueError from the
    verifier), never a value wrapped or truncated from NaN."""
    x = np.array([1, 2], dtype)
    f = bcast.jit(lambda a, b, c: bcast.addcmul(a, b, c, value=value))
    with pytest.raises(ValueError, match="value cannot be converted to type"):
        f(x, x, x)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("value", [float("nan"), float("inf"),
                                   float("-inf"), -0.0])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_non_finite_value_of_float_addcmul_against_pytorch(value, op):
    """With a float compute type NaN and the infinities are values like any
    other: the result is PyTorch's."""
    a = np.array([1.0, -2.0, 0.0, np.inf], np.float32)
    b = np.array([2.0, 0.5, -1.0, 3.0], np.float32)
    c = np.array([4.0, -1.0, 2.0, 0.25], np.float32)
    got = bcast.jit(lambda x, y, z: getattr(bcast, op)(x, y, z, value=value))(
        a, b, c)
    want = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b),
                              torch.from_numpy(c), value=value).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(-1,), (2, -3), (2**63,), (2**64,),
                                   (2**70, 1), (1.5,), ("3",)])
def test_absurd_sizes_in_broadcast_shapes(shape):
    """Negative, huge and non-integral sizes are errors with a message."""
    with pytest.raises((ValueError, TypeError, OverflowError)) as error:
        bcast.broadcast_shapes(shape, (3,))
    assert str(error.value)


@pytest.mark.parametrize("shape,error,message", [
    ((-1, 3), ValueError, "sizes must be non-negative or None, got -1"),
    ((2**63, 3), ValueError, "does not fit in a signed 64-bit integer"),
    ((2**70,), ValueError, "does not fit in a signed 64-bit integer"),
    ((3.5,), TypeError, "float"),
    (("3",), TypeError, "str"),
    ((2**40, 2**40), ValueError, "The expanded size of the tensor"),
    # Static sizes whose product overflows: the pipeline's diagnostic.
    ((2**31, 2**31, 3), bcast.MLIRError, "does not fit in a signed 64-bit"),
])
def test_absurd_sizes_in_broadcast_to(shape, error, message):
    """broadcast_to a negative, huge or non-integral size, or a shape whose
    element count overflows: an exception that says so (3.5 was truncated
    to 3 and -1 reached the MLIR parser before issue 17)."""
    x = np.ones(3, np.float32)
    with pytest.raises(error, match=message):
        bcast.jit(lambda a: bcast.broadcast_to(a, shape))(x)


def test_non_integral_size_in_specify_shape():
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError):
        bcast.jit(lambda a: bcast.specify_shape(a, (2.5,)), dynamic=True)(x)


def test_rank_1000_shapes_broadcast():
    """A rank of 1000 is only long: the rule applies as to any rank."""
    a = (1,) * 999 + (3,)
    b = (2,) + (1,) * 999
    assert bcast.broadcast_shapes(a, b) == (2,) + (1,) * 998 + (3,)


ALL_DTYPES = [np.bool_, np.uint8, np.uint16, np.uint32, np.uint64, np.int8,
              np.int16, np.int32, np.int64, np.float16, np.float32,
              np.float64]


@pytest.mark.parametrize("src,dst", list(itertools.product(ALL_DTYPES,
                                                           repeat=2)))
def test_every_cast(src, dst):
    """astype between every pair of dtypes through @bcast.jit: defined
    values give NumPy's results (PyTorch's, where they are defined the same
    way); a float NaN, infinity or out-of-range value cast to an integer is
    undefined (docs/Semantics.md) and only has to run."""
    defined = np.array([0, 1, 3, 100, 127], src)
    got = bcast.jit(lambda a: a.astype(dst))(defined)
    assert got.dtype == np.dtype(dst)
    if np.dtype(dst) == np.float16 and np.dtype(src).kind in "iu":
        want = defined.astype(np.float32).astype(np.float16)
    else:
        want = defined.astype(dst)
    np.testing.assert_array_equal(got, want)
    if np.dtype(src).kind == "f":
        hostile = np.array([np.nan, np.inf, -np.inf, -0.0, 1e4,
                            -3e4], src)
        got = bcast.jit(lambda a: a.astype(dst))(hostile)
        assert got.shape == hostile.shape and got.dtype == np.dtype(dst)
        if np.dtype(dst).kind in "fb":
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(got, hostile.astype(dst))
