"""The binary functions and three-operand ops in @bcast.jit (issue 13):
functions, methods, in-place methods, shift operators and NumPy's ufuncs,
against PyTorch."""

import numpy as np
import pytest

import bcast

torch = pytest.importorskip("torch")


def close(got, want):
    want = want.numpy() if hasattr(want, "numpy") else want
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if np.issubdtype(got.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30)
    else:
        np.testing.assert_array_equal(got, want)


X = np.array([[-2.5, -0.0, 0.5], [1.5, np.inf, np.nan]], np.float32)
Y = np.array([1.0, -3.0, 2.0], np.float32)
I = np.array([[-7, 0, 5], [100, -1, 3]], np.int32)
S = np.array([0, 1, 31], np.int32)


@pytest.mark.parametrize("op", ["atan2", "copysign", "hypot",
                                "logical_and", "logical_or", "logical_xor"])
def test_binary_functions_match_torch(op):
    got = bcast.jit(lambda a, b: getattr(bcast, op)(a, b))(X, Y)
    close(got, getattr(torch, op)(torch.from_numpy(X), torch.from_numpy(Y)))
    # Methods, and integers (float functions give float32).
    if op != "hypot":
        got = bcast.jit(lambda a, b: getattr(a, op)(b))(I, S)
        close(got, getattr(torch, op)(torch.from_numpy(I),
                                      torch.from_numpy(S)))


def test_shifts_and_operators():
    close(bcast.jit(lambda a, b: a << b)(I, S),
          torch.from_numpy(I) << torch.from_numpy(S))
    close(bcast.jit(lambda a, b: a >> b)(I, S),
          torch.from_numpy(I) >> torch.from_numpy(S))
    close(bcast.jit(lambda a, b: np.left_shift(a, b))(I, S),
          np.left_shift(I, S))


def test_ternary_match_torch():
    lo = np.array([-1.0, 0.0, 0.25], np.float32)
    hi = np.float32(1.0)
    tx, tlo = torch.from_numpy(X), torch.from_numpy(lo)
    close(bcast.jit(lambda a, b: bcast.clamp(a, b, 1.0))(X, lo),
          torch.clamp(tx, tlo, torch.tensor(hi)))
    close(bcast.jit(lambda a, b: a.clip(b, 1.0))(X, lo),
          torch.clamp(tx, tlo, torch.tensor(hi)))
    close(bcast.jit(lambda a, b: np.clip(a, b, 1.0))(X, lo),
          torch.clamp(tx, tlo, torch.tensor(hi)))
    w = np.array([0.25, 0.75, 1.5], np.float32)
    close(bcast.jit(lambda a, b, c: bcast.lerp(a, b, c))(X, Y, w),
          torch.lerp(tx, torch.from_numpy(Y), torch.from_numpy(w)))
    close(bcast.jit(lambda a, b, c: bcast.addcmul(a, b, c, value=0.5))(
        X, Y, w), torch.addcmul(tx, torch.from_numpy(Y), torch.from_numpy(w),
                                value=0.5))
    close(bcast.jit(lambda a, b, c: a.addcdiv(b, c, value=-2))(X, Y, w),
          torch.addcdiv(tx, torch.from_numpy(Y), torch.from_numpy(w),
                        value=-2))


def test_in_place():
    # In-place methods chain on the same tensor, as in PyTorch. (No -0 at a
    # clamp bound: bcast orders -0 below +0, PyTorch keeps x on the tie.)
    start = np.where(X == 0, np.float32(-0.25), X)
    x = start.copy()
    lo = np.array([-1.0, 0.0, 0.25], np.float32)

    @bcast.jit
    def f(a, b, c):
        a.clamp_(b, 2.0)
        a.addcmul_(b, c, value=3.0)
        a.atan2_(c)

    c = np.array([0.5, -1.0, 2.0], np.float32)
    f(x, lo, c)
    t = torch.from_numpy(start.copy())
    t.clamp_(torch.from_numpy(lo), torch.tensor(2.0))
    t.addcmul_(torch.from_numpy(lo), torch.from_numpy(c), value=3.0)
    t.atan2_(torch.from_numpy(c))
    close(x, t)


def test_numpy_binary_ufuncs():
    close(bcast.jit(lambda a, b: np.arctan2(a, b))(X, Y), np.arctan2(X, Y))
    close(bcast.jit(lambda a, b: np.hypot(a, b))(X, Y), np.hypot(X, Y))
    close(bcast.jit(lambda a, b: np.logical_xor(a, b))(X, Y),
          np.logical_xor(X, Y))


def test_errors():
    with pytest.raises(TypeError, match="Integer division with addcdiv is "
                       "no longer supported"):
        bcast.jit(lambda a, b, c: bcast.addcdiv(a, b, c))(I, I, I)
    with pytest.raises(TypeError, match="\"lshift_cpu\" not implemented for "
                       "'Float'"):
        bcast.jit(lambda a, b: a << b)(X, Y)
    with pytest.raises(ValueError, match="output with shape \\[3\\] doesn't "
                       "match the broadcast shape \\[2, 3\\]"):
        bcast.jit(lambda a, b: a.clamp_(b, 1.0))(Y.copy(), X)
