"""PyTorch's type promotion in @bcast.jit: random pairs of dtypes, ranks and
Python scalars (weak numbers) compiled and compared with PyTorch's result
dtype (torch.result_type) and values; casts with astype; float literals in
forms MLIR parses."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bcast

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.float16,
          np.float32, np.float64]
OPS = {
    "add": (lambda a, b: a + b, torch.add),
    "mul": (lambda a, b: a * b, torch.mul),
    "truediv": (lambda a, b: a / b, torch.div),
    "lt": (lambda a, b: a < b, torch.lt),
    "maximum": (bcast.maximum, torch.maximum),
}


def array(rng, shape, dtype):
    """An array (a 0-d array for shape (): a zero-dim tensor, not a
    scalar)."""
    if dtype == np.bool_:
        values = rng.random(shape) < 0.5
    elif np.issubdtype(dtype, np.floating):
        values = rng.choice([-3.0, -1.5, 0.5, 1.0, 2.0, 7.25], shape)
    else:
        values = rng.integers(1, 6, shape)
    return np.asarray(values, dtype)


def same(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if np.issubdtype(got.dtype, np.floating):
        np.testing.assert_allclose(got.astype(np.float64),
                                   want.astype(np.float64), rtol=1e-3)
    else:
        np.testing.assert_array_equal(got, want)


@SETTINGS
@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       st.sampled_from([((2, 3), (3,)), ((3,), ()), ((), (2, 1)), ((), ())]),
       st.sampled_from(sorted(OPS)), st.integers(0, 2**31))
def test_tensor_pairs_match_torch(da, db, shapes, op, seed):
    rng = np.random.default_rng(seed)
    a, b = array(rng, shapes[0], da), array(rng, shapes[1], db)
    ours, theirs = OPS[op]
    if op == "truediv":
        b = np.where(b == 0, np.ones_like(b), b)
    want = theirs(torch.from_numpy(np.asarray(a)),
                  torch.from_numpy(np.asarray(b))).numpy()
    f = bcast.jit(lambda x, y: ours(x, y))
    same(np.asarray(f(a, b)), want)


@SETTINGS
@given(st.sampled_from(DTYPES),
       st.sampled_from([True, 3, -2, 2.5, 1e-05, 1e+16]),
       st.booleans(), st.integers(0, 2**31))
def test_python_scalars_are_weak(dtype, scalar, zero_dim, seed):
    rng = np.random.default_rng(seed)
    a = array(rng, () if zero_dim else (2, 3), dtype)
    # bool + True is a logical or in both; keep to arithmetic.
    assume(not (dtype == np.bool_ and isinstance(scalar, bool)))
    want = torch.add(torch.from_numpy(np.asarray(a)), scalar).numpy()
    f = bcast.jit(lambda x: x + scalar)
    same(np.asarray(f(a)), want)


def test_documented_examples():
    int8 = np.array([1, 2, 3], np.int8)
    assert bcast.jit(lambda x: x * 5)(int8).dtype == np.int8
    assert bcast.jit(lambda x: x * 2.5)(int8).dtype == np.float32
    i32 = np.array([7, -5], np.int32)
    np.testing.assert_array_equal(bcast.jit(lambda x, y: x / y)(
        i32, np.array(2, np.int32)), np.array([3.5, -2.5], np.float32))
    eps = bcast.jit(lambda x: x + 1e-05)(np.zeros(2, np.float32))
    np.testing.assert_allclose(eps, np.full(2, 1e-05, np.float32))


def test_astype_matches_torch():
    x = np.array([-2.7, -0.5, 0.0, 3.9, 300.5], np.float32)
    for dtype in DTYPES:
        want = torch.from_numpy(x).to(
            torch.from_numpy(np.zeros(1, dtype)).dtype).numpy()
        if dtype in (np.int8,):
            continue  # 300.5 is out of int8's range: undefined, as in C.
        got = bcast.jit(lambda v: v.astype(dtype))(x)
        same(np.asarray(got), want)


def test_in_place_keeps_the_dtype():
    a = np.ones(3, np.float32)
    b = np.array([0.1, 0.2, 0.3], np.float64)

    @bcast.jit
    def f(x, y):
        x += y
        return x

    out = f(a, b)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (torch.ones(3).add_(
        torch.from_numpy(b))).numpy())
