"""Reductions in @bcast.jit (issue 14): NumPy's methods and functions on
traced tensors (x.sum(axis, keepdims), np.mean, np.argmax, ...), PyTorch's
in the bcast namespace (bcast.softmax, bcast.logsumexp, bcast.var with a
correction, bcast.sum_to_size), written-out softmax, LayerNorm and RMSNorm,
errors, dynamic sizes, and random reduce/broadcast expressions (Hypothesis),
against NumPy and PyTorch."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bcast

torch = pytest.importorskip("torch")
F = torch.nn.functional

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.data_too_large])

RNG = np.random.default_rng(14)
FLOATS = (np.float32, np.float64)
DTYPES = (np.float32, np.float64, np.int32, np.bool_, np.uint8)

# The result dtypes, written out (PyTorch 1.13's rule, which the dialect
# follows): sums and products of integers and bools are int64 (NumPy gives
# uint64 for uint8), any/all are bool (uint8 for uint8, PyTorch's), max/min
# keep the dtype.
SUM_DTYPE = {np.float32: np.float32, np.float64: np.float64,
             np.int32: np.int64, np.bool_: np.int64, np.uint8: np.int64}


def sample(shape, dtype):
    # An array also for shape () (a NumPy scalar would be a scalar
    # argument, compiled into the kernel).
    return np.asarray(_sample(shape, dtype), dtype=dtype)


def _sample(shape, dtype):
    if dtype in FLOATS:
        return RNG.standard_normal(shape).astype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if dtype == np.uint8:
        return RNG.integers(0, 4, shape).astype(np.uint8)
    return RNG.integers(-3, 4, shape).astype(dtype)


def close(got, want, dtype=None, rtol=None):
    want = np.asarray(want.numpy() if hasattr(want, "numpy") else want)
    if dtype is not None:
        want = want.astype(dtype)
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if got.dtype.kind == "f":
        if rtol is None:
            rtol = 2e-5 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def numpy_reference(op, x, axis, keepdims, ddof=0):
    """NumPy's value of `op` in the dialect's dtype (floats computed in
    float64 and rounded once)."""
    kind = np.dtype(x.dtype).kind
    wide = x.astype(np.float64) if kind == "f" else x
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        if op in ("sum", "prod"):
            value = getattr(np, op)(wide, axis=axis, keepdims=keepdims,
                                    dtype=None if kind == "f" else np.int64)
            return value.astype(SUM_DTYPE[x.dtype.type])
        if op in ("var", "std"):
            value = getattr(np, op)(wide, axis=axis, keepdims=keepdims,
                                    ddof=ddof)
        else:
            value = getattr(np, op)(wide, axis=axis, keepdims=keepdims)
    value = np.asarray(value)
    if op in ("any", "all"):
        return value.astype(np.uint8) if x.dtype == np.uint8 else value
    return value.astype(x.dtype)


AXES = [None, -1, (0, 2), (-1, 0, 1)]
METHODS = ["sum", "prod", "mean", "max", "min", "var", "std", "any", "all"]


def valid_ops(dtype):
    return [op for op in METHODS
            if dtype in FLOATS or op not in ("mean", "var", "std")]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_methods_match_numpy(dtype, axis, keepdims):
    x = sample((3, 4, 5), dtype)
    ops = valid_ops(dtype)

    @bcast.jit
    def f(t):
        return tuple(getattr(t, op)(axis=axis, keepdims=keepdims)
                     for op in ops)

    for op, got in zip(ops, f(x)):
        close(got, numpy_reference(op, x, axis, keepdims))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 1, (-2, 2)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_numpy_functions_match_numpy(dtype, axis, keepdims):
    x = sample((2, 3, 4), dtype)
    functions = {"sum": np.sum, "prod": np.prod, "max": np.max,
                 "amax": np.amax, "min": np.min, "amin": np.amin,
                 "any": np.any, "all": np.all}
    if dtype in FLOATS:
        functions.update(mean=np.mean, var=np.var, std=np.std)

    @bcast.jit
    def f(t):
        return tuple(fn(t, axis, keepdims=keepdims)
                     for fn in functions.values())

    for (name, _), got in zip(functions.items(), f(x)):
        op = {"amax": "max", "amin": "min"}.get(name, name)
        close(got, numpy_reference(op, x, axis, keepdims))


def test_sum_dtypes_match_torch():
    # Independently of the table above: PyTorch's sum/prod/logsumexp dtypes.
    for dtype in DTYPES:
        x = sample((3, 2), dtype)
        got = bcast.jit(lambda t: (t.sum(), t.prod(axis=0), t.any()))(x)
        tx = torch.from_numpy(x)
        close(got[0], torch.sum(tx))
        close(got[1], torch.prod(tx, 0))
        close(got[2], torch.any(tx))  # uint8 for uint8, PyTorch's
        got = bcast.jit(lambda t: bcast.logsumexp(t, 1))(x)
        want = torch.logsumexp(tx if dtype in FLOATS else tx.float(), 1)
        close(got, want, rtol=1e-6 if dtype != np.float64 else 1e-12)


@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std_ddof_and_correction(ddof):
    x = sample((4, 6), np.float64)

    @bcast.jit
    def f(t):
        return (t.var(ddof=ddof), np.std(t, axis=1, ddof=ddof),
                bcast.var(t, 0, correction=ddof, keepdim=True),
                bcast.std(t, (0, 1), ddof))

    got = f(x)
    tx = torch.from_numpy(x)
    close(got[0], np.var(x, ddof=ddof))
    close(got[1], np.std(x, axis=1, ddof=ddof))
    close(got[2], torch.var(tx, 0, correction=ddof, keepdim=True))
    close(got[3], torch.std(tx, (0, 1), correction=ddof))
    # PyTorch's default correction is 1, NumPy's ddof 0.
    close(bcast.jit(lambda t: bcast.var(t, 1))(x), torch.var(tx, 1))
    close(bcast.jit(lambda t: t.var(axis=1))(x), np.var(x, axis=1))


def test_rank_zero():
    x = np.array(2.5, np.float32)

    @bcast.jit
    def f(t):
        return (t.sum(), t.max(axis=0), t.mean(axis=-1, keepdims=True),
                np.prod(t), t.argmax(), bcast.softmax(t, 0),
                bcast.logsumexp(t, 0), t.any())

    got = f(x)
    tx = torch.from_numpy(x)
    for g in got:
        assert g.shape == (), g.shape
    close(got[0], torch.sum(tx))
    close(got[1], torch.amax(tx, 0))
    close(got[2], torch.mean(tx, -1, keepdim=True))
    close(got[3], torch.prod(tx))
    close(got[4], torch.argmax(tx))
    close(got[5], torch.softmax(tx, 0))
    close(got[6], torch.logsumexp(tx, 0))
    close(got[7], np.array(True))


def test_size_zero():
    x = np.zeros((0, 3), np.float32)

    @bcast.jit
    def f(t):
        return (t.sum(axis=0), t.prod(axis=0), t.mean(axis=0), t.any(axis=0),
                t.all(axis=0), t.max(axis=1), t.sum(), t.argmax(axis=1),
                bcast.logsumexp(t, 0), t.var(axis=0))

    got = f(x)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        want = (np.zeros(3, np.float32), np.ones(3, np.float32),
                np.full(3, np.nan, np.float32), np.zeros(3, bool),
                np.ones(3, bool), np.zeros(0, np.float32),
                np.array(0, np.float32), np.zeros(0, np.int64),
                np.full(3, -np.inf, np.float32),
                np.var(x, axis=0))
    for g, w in zip(got, want):
        close(g, w)
    # One element with correction 1 is NaN, as PyTorch.
    one = np.array([[3.0]], np.float32)
    close(bcast.jit(lambda t: bcast.var(t, 1))(one),
          torch.var(torch.from_numpy(one), 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.uint8])
def test_argmax_argmin_match_numpy(dtype):
    x = sample((4, 5), dtype)
    if dtype in FLOATS:
        x[2, 3] = np.nan  # the first NaN wins, as NumPy and PyTorch
    x[0, 4] = x[0, 1]  # ties give the first index

    # One kernel each: test_argmax_and_argmin_in_one_kernel.
    functions = [lambda t: t.argmax(), lambda t: np.argmin(t),
                 lambda t: t.argmax(axis=1), lambda t: np.argmin(t, axis=0),
                 lambda t: t.argmax(axis=-1, keepdims=True),
                 lambda t: np.argmin(t, -2, keepdims=True),
                 lambda t: bcast.argmax(t, 0, True)]
    want = (np.argmax(x), np.argmin(x), np.argmax(x, axis=1),
            np.argmin(x, axis=0), np.argmax(x, axis=-1, keepdims=True),
            np.argmin(x, -2, keepdims=True),
            torch.argmax(torch.from_numpy(x), 0, True))
    for fn, w in zip(functions, want):
        close(bcast.jit(fn)(x), w, dtype=np.int64)
    # PyTorch's keepdim without a dim: all ones.
    got = bcast.jit(lambda t: bcast.argmin(t, keepdim=True))(x)
    close(got, torch.argmin(torch.from_numpy(x), keepdim=True))


def test_argmax_and_argmin_in_one_kernel():
    # Their identical index accumulators, merged by CSE, once shared one
    # output buffer (bcast-unshare-inits); sums and maxima of the same rows
    # share their fills too.
    x = sample((4, 5), np.float32)
    got = bcast.jit(lambda t: (np.argmin(t, 0), t.argmax(axis=0)))(x)
    close(got[0], np.argmin(x, 0), dtype=np.int64)
    close(got[1], np.argmax(x, 0), dtype=np.int64)
    got = bcast.jit(lambda t: (t.argmax(axis=1, keepdims=True),
                               np.argmin(t, 1, keepdims=True),
                               t.sum(axis=1), t.mean(axis=1), t.max(axis=1),
                               t.min(axis=1), np.prod(t, axis=1)))(x)
    close(got[0], np.argmax(x, 1, keepdims=True), dtype=np.int64)
    close(got[1], np.argmin(x, 1, keepdims=True), dtype=np.int64)
    close(got[2], x.sum(axis=1), rtol=1e-6)
    close(got[3], x.mean(axis=1), rtol=1e-6)
    close(got[4], x.max(axis=1))
    close(got[5], x.min(axis=1))
    close(got[6], np.prod(x, axis=1), rtol=1e-6)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_softmax_log_softmax_logsumexp_match_torch(dtype, dim):
    x = (sample((3, 4, 5), dtype) * 10).astype(dtype)
    x[0, 0, 0] = 80.0  # large: the maximum must be subtracted

    @bcast.jit
    def f(t):
        return (bcast.softmax(t, dim), bcast.log_softmax(t, dim),
                t.softmax(dim), bcast.logsumexp(t, dim),
                bcast.logsumexp(t, (dim, (dim + 1) % 3), keepdim=True))

    got = f(x)
    tx = torch.from_numpy(x)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    close(got[0], torch.softmax(tx, dim), rtol=rtol)
    close(got[1], torch.log_softmax(tx, dim), rtol=rtol)
    close(got[2], torch.softmax(tx, dim), rtol=rtol)
    close(got[3], torch.logsumexp(tx, dim), rtol=rtol)
    close(got[4], torch.logsumexp(tx, (dim, (dim + 1) % 3), keepdim=True),
          rtol=rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("size", [(1, 4, 1), (4, 5), (5,), (1, 1), (),
                                  (2, 4, 5)], ids=str)
def test_sum_to_size_matches_torch(dtype, size):
    x = sample((2, 4, 5), dtype)
    got = bcast.jit(lambda t: bcast.sum_to_size(t, size))(x)
    # PyTorch's dtype too: a sum (int64 for bools and integers) where it
    # sums anything, x's own where it sums nothing.
    want = torch.from_numpy(x).sum_to_size(size)
    close(got, want)
    got = bcast.jit(lambda t: t.sum_to_size(*size))(x)
    close(got, want)


def test_sum_to_size_aliases_as_torch():
    # PyTorch returns the input itself when nothing is summed (an in-place
    # op on it shows through), but sums a rank-0 target into a new tensor
    # (found by fuzz/differential.py, seed 5976).
    def f(t):
        same = bcast.sum_to_size(t, t.shape)
        t += 1
        return same

    for shape in [(), (3,), (2, 3)]:
        x = sample(shape, np.float32)
        tx = torch.from_numpy(x.copy())
        want = tx.sum_to_size(shape)
        tx += 1
        close(bcast.jit(f)(x.copy()), want)


def test_broadcast_backward_is_sum_to_size():
    # The gradient of a + b with respect to b (shape (4, 1)).
    grad = sample((3, 4, 5), np.float32)
    b = torch.zeros((4, 1), requires_grad=True)
    (torch.zeros(3, 4, 5) + b).backward(torch.from_numpy(grad))
    got = bcast.jit(lambda g: bcast.sum_to_size(g, (4, 1)))(grad)
    close(got, b.grad)


# --- written-out normalizations, against PyTorch ------------------------

def test_written_out_softmax_layernorm_rmsnorm():
    x = (sample((16, 64), np.float32) * 4).astype(np.float32)
    w = sample((64,), np.float32)
    b = sample((64,), np.float32)
    eps = 1e-5

    @bcast.jit
    def softmax(t):
        e = np.exp(t - t.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    @bcast.jit
    def softmax_dim0(t):
        e = np.exp(t - np.max(t, axis=0, keepdims=True))
        return e / np.sum(e, axis=0, keepdims=True)

    @bcast.jit
    def layer_norm(t, weight, bias):
        mu = t.mean(axis=-1, keepdims=True)
        centred = t - mu
        var = (centred * centred).mean(axis=-1, keepdims=True)
        return centred * bcast.rsqrt(var + eps) * weight + bias

    @bcast.jit
    def layer_norm_var(t, weight, bias):
        return ((t - np.mean(t, -1, keepdims=True)) /
                np.sqrt(np.var(t, -1, keepdims=True) + eps) * weight + bias)

    @bcast.jit
    def rms_norm(t, weight):
        return t * bcast.rsqrt((t * t).mean(axis=-1, keepdims=True) + eps) \
            * weight

    tx, tw, tb = (torch.from_numpy(a) for a in (x, w, b))
    close(softmax(x), torch.softmax(tx, -1), rtol=1e-5)
    close(softmax_dim0(x), torch.softmax(tx, 0), rtol=1e-5)
    want = F.layer_norm(tx, (64,), tw, tb, eps)
    close(layer_norm(x, w, b), want, rtol=1e-4)
    close(layer_norm_var(x, w, b), want, rtol=1e-4)
    tx64 = tx.double()
    want = (tx64 * torch.rsqrt(tx64.pow(2).mean(-1, keepdim=True) + eps) *
            tw.double()).float()
    close(rms_norm(x, w), want, rtol=1e-5)
    # The whole softmax is one kernel of the traced ops.
    text = softmax.inspect(x)["bcast"]
    assert "bcast.amax" in text and "bcast.sum" in text


# Full reductions of more elements than the grain size (32,768) split the
# reduced range among the threads (bcast-vectorize-reductions); smaller
# ones stay on one thread. Sizes on both sides, a tail that is not whole
# vectors, a NaN in one chunk, exact integer and power-of-two products.
@pytest.mark.parametrize("n", [1000, 40_003, (1 << 20) + 5])
@pytest.mark.parametrize("dynamic", [False, True])
def test_full_reductions_split_match_torch(n, dynamic):
    @bcast.jit(dynamic=dynamic)
    def f(t, i, b):
        return (t.sum(), t.max(), t.min(), np.prod(t), i.sum(), i.max(),
                b.any(), b.all(), np.any(i))

    x = RNG.choice(np.array([1.0, -1.0], np.float32), n)
    x[RNG.choice(n, 16, replace=False)] = 2.0
    x[RNG.choice(n, 16, replace=False)] = 0.5
    i = RNG.integers(-1000, 1000, n).astype(np.int32)
    b = np.ones(n, np.bool_)
    for bools in (b, RNG.random(n) < 0.001):
        got = f(x, i, bools)
        tx, ti, tb = (torch.from_numpy(a) for a in (x, i, bools))
        close(got[0], torch.sum(tx.double()).float(), rtol=1e-6)
        close(got[1], torch.amax(tx))
        close(got[2], torch.amin(tx))
        close(got[3], torch.prod(tx.double()).float(), rtol=0)
        close(got[4], torch.sum(ti))
        close(got[5], torch.amax(ti))
        close(got[6], torch.any(tb))
        close(got[7], torch.all(tb))
        close(got[8], torch.any(ti != 0))
    # A NaN in one chunk (near the end) propagates through max and min.
    y = RNG.standard_normal(n).astype(np.float32)
    y[n - n // 7] = np.nan
    got = f(y, i, b)
    assert np.isnan(got[1]) and np.isnan(got[2]) and np.isnan(got[0])


def ieee_max_min(rows):
    """Row maxima and minima by IEEE 754's maximum and minimum, computed
    here: NaN if a row holds one, -0 below +0 (NumPy and PyTorch give
    whichever zero comes first or last, so they are not the reference)."""
    rows = np.atleast_2d(rows)
    nan = np.isnan(rows).any(axis=-1)
    with np.errstate(invalid="ignore"):
        big, small = rows.max(axis=-1), rows.min(axis=-1)
    positive_zero = ((rows == 0) & ~np.signbit(rows)).any(axis=-1)
    negative_zero = ((rows == 0) & np.signbit(rows)).any(axis=-1)
    big = np.where(big == 0, np.where(positive_zero, 0.0, -0.0), big)
    small = np.where(small == 0, np.where(negative_zero, -0.0, 0.0), small)
    return (np.where(nan, np.nan, big).astype(rows.dtype),
            np.where(nan, np.nan, small).astype(rows.dtype))


# Row max and min take the ordered maximum in their vector loop and reduce
# a row again with maximumf/minimumf when it saw a NaN or its result is a
# zero (bcast-vectorize-reductions): NaNs in the 4-vector groups, in the
# vectors after them and in the scalar tail, zeros of both signs in either
# order, rows of -0 only, of infinities only, and rows that are not special.
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("length", [1024, 8 * 16 + 37, 7])
@pytest.mark.parametrize("dynamic", [False, True])
def test_row_max_min_nan_and_signed_zeros(dtype, length, dynamic):
    rows = [RNG.standard_normal(length)]
    for at in {0, length // 2, length - 37 % length, length - 1}:
        row = RNG.standard_normal(length)
        row[at] = np.nan
        rows.append(row)
    for first in (0.0, -0.0):
        row = np.full(length, -1.0)
        row[RNG.choice(length, min(length, 5), replace=False)] = first
        row[RNG.integers(length)] = -first
        rows.append(row)
        rows.append(-row)
    for at in {1, length // 2 + 1, length - 2}:
        row = np.full(length, -0.0)
        row[at] = 0.0
        rows.append(row)
        rows.append(-row)
    rows.append(np.full(length, -0.0))
    rows.append(np.full(length, 0.0))
    rows.append(np.full(length, -np.inf))
    rows.append(np.full(length, np.inf))
    x = np.array(rows, dtype)

    @bcast.jit(dynamic=dynamic)
    def f(t):
        return t.max(axis=-1), t.min(axis=-1, keepdims=True)

    got_max, got_min = f(x)
    want_max, want_min = ieee_max_min(x)
    np.testing.assert_array_equal(got_max, want_max)
    np.testing.assert_array_equal(np.signbit(got_max), np.signbit(want_max))
    np.testing.assert_array_equal(got_min[:, 0], want_min)
    np.testing.assert_array_equal(np.signbit(got_min[:, 0]),
                                  np.signbit(want_min))


# The split of a full reduction among the threads reduces each chunk the
# same way: a zero maximum of mixed zeros is +0 wherever the +0 is.
@pytest.mark.parametrize("at", [3, 40_000, (1 << 20) - 2])
def test_full_max_min_signed_zeros_split(at):
    x = np.full((1 << 20) + 5, -0.0, np.float32)
    x[RNG.choice(x.size, 1000, replace=False)] = -3.0
    x[at] = 0.0

    @bcast.jit
    def f(t):
        return t.max(), t.min(), (-t).min()

    big, small, negated = f(x)
    assert big == 0 and not np.signbit(big)
    assert small == -3.0
    assert negated == -0.0 and np.signbit(negated)


@pytest.mark.parametrize("dynamic", [False, True])
def test_full_reductions_2d_split_match_torch(dynamic):
    # All dims reduced (chunks cross rows), and a row sum whose one kept
    # row is known only at run time.
    @bcast.jit(dynamic=dynamic)
    def f(t):
        return t.sum(), t.max(), t.sum(axis=1, keepdims=True)

    for shape in [(333, 301), (1, 70_001), (3, 70_001)]:
        x = RNG.standard_normal(shape).astype(np.float32)
        tx = torch.from_numpy(x)
        got = f(x)
        close(got[0], torch.sum(tx.double()).float(), rtol=1e-5)
        close(got[1], torch.amax(tx))
        close(got[2], torch.sum(tx.double(), 1, keepdim=True).float(),
              rtol=1e-5)


def test_full_sum_accuracy_16m():
    # 16M float32 values summed in chunks, each a cascade: within 2e-7 of
    # the float64 sum (a naive running float32 sum is off by about 1e-3).
    x = (RNG.random(1 << 24) + 0.5).astype(np.float32)
    got = bcast.jit(lambda t: t.sum())(x)
    want = x.astype(np.float64).sum()
    assert abs(float(got) - want) <= 2e-7 * want, (float(got), want)


@pytest.mark.parametrize("shape", [(2, 96, 112, 112), (65536, 2, 16)])
def test_shared_output_rows_accuracy(shape):
    # BatchNorm's statistics: the rows of W that share an output element (N
    # and H here) are cascaded too. A running float32 sum of the row sums
    # was 1.7e-6 and 1.5e-5 off (PyTorch 1.13: 1.0e-7 and 4.2e-6).
    x = (RNG.random(shape) + 0.5).astype(np.float32)
    dims = (0, 2, 3) if len(shape) == 4 else (0, 2)
    got = bcast.jit(lambda t: bcast.sum(t, dims))(x)
    want = x.astype(np.float64).sum(axis=dims)
    assert np.max(np.abs(got - want) / want) <= 4e-7


def test_dynamic_sizes():
    @bcast.jit(dynamic=True)
    def f(t):
        centred = t - t.mean(axis=1, keepdims=True)
        return centred, t.sum(axis=0), t.argmax(axis=1), t.max()

    for shape in [(3, 4), (5, 1), (1, 7)]:
        x = sample(shape, np.float32)
        got = f(x)
        close(got[0], x - x.mean(axis=1, keepdims=True))
        close(got[1], x.sum(axis=0))
        close(got[2], np.argmax(x, axis=1).astype(np.int64))
        close(got[3], x.max())
    assert len(f.cache) == 1
    # A size 0 found at run time: the kernel's check, a ValueError.
    with pytest.raises(ValueError, match="non-zero size"):
        bcast.jit(lambda t: t.max(axis=1), dynamic=True)(
            np.zeros((2, 0), np.float32))
    g = bcast.jit(lambda t: bcast.sum_to_size(t, (4, 1)), dynamic=True)
    close(g(np.ones((3, 4, 6), np.float32)), np.full((4, 1), 18, np.float32))
    with pytest.raises(ValueError, match=r"is not expandable to size"):
        g(np.ones((3, 5, 6), np.float32))


# --- errors ---------------------------------------------------------------

def test_axis_errors_have_pytorch_sentences():
    x = np.ones((2, 3), np.float32)
    message = (r"Dimension out of range \(expected to be in range of "
               r"\[-2, 1\], but got 2\)")
    for fn in (lambda t: t.sum(axis=2), lambda t: np.mean(t, axis=(0, 2)),
               lambda t: t.argmax(axis=2), lambda t: bcast.softmax(t, 2),
               lambda t: bcast.var(t, 2)):
        with pytest.raises(IndexError, match=message):
            bcast.jit(fn)(x)
        with pytest.raises(ValueError, match=message):  # AxisError is both
            bcast.jit(fn)(x)
    with pytest.raises(ValueError, match="dim 1 appears multiple times in "
                       "the list of dims"):
        bcast.jit(lambda t: t.sum(axis=(1, -1)))(x)
    with pytest.raises(ValueError, match=r"`dims` is empty: omit it to reduce "
                       "every dimension"):
        bcast.jit(lambda t: t.sum(axis=()))(x)
    with pytest.raises(TypeError, match="axis must be None, an int or a "
                       "tuple of ints"):
        bcast.jit(lambda t: t.sum(axis=1.5))(x)
    with pytest.raises(TypeError, match="argmax's axis must be None or an "
                       "int"):
        bcast.jit(lambda t: t.argmax(axis=(0, 1)))(x)


def test_errors_are_the_verifiers_sentences():
    # Tracing asks the dialect (_bcast.infer_op): the exception carries the
    # sentence the verifier gives the same op in IR.
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError) as traced:
        bcast.jit(lambda t: t.sum(axis=(1, -1)))(x)
    with pytest.raises(bcast.MLIRError) as parsed:
        bcast.Module.parse(
            "func.func @f(%x: tensor<2x3xf32>) -> tensor<2xf32> {\n"
            "  %s = bcast.sum %x {dims = array<i64: 1, -1>} : "
            "(tensor<2x3xf32>) -> tensor<2xf32>\n"
            "  return %s : tensor<2xf32>\n}\n").verify()
    assert str(traced.value) == "dim 1 appears multiple times in the list " \
        "of dims"
    assert "'bcast.sum' op " + str(traced.value) + "\n" in str(parsed.value)


def test_unsupported_arguments_are_named():
    x = np.ones((2, 3), np.float32)
    for fn, names in [
            (lambda t: t.sum(dtype=np.float64), "argument dtype"),
            (lambda t: np.sum(t, out=t), "argument out"),
            (lambda t: np.max(t, initial=0.0), "argument initial"),
            (lambda t: t.mean(where=t > 0), "argument where"),
            (lambda t: np.prod(t, dtype=np.int64, initial=1),
             "arguments dtype, initial"),
            (lambda t: np.argmax(t, out=t), "argument out")]:
        with pytest.raises(TypeError, match=names):
            bcast.jit(fn)(x)
    with pytest.raises(TypeError, match="bcast does not support "
                       "numpy.nansum"):
        bcast.jit(lambda t: np.nansum(t))(x)


def test_dtype_errors_have_pytorch_sentences():
    i = np.ones((2, 3), np.int32)
    with pytest.raises(TypeError, match=r"mean\(\): could not infer output "
                       "dtype. Input dtype must be either a floating point "
                       "or complex dtype. Got: Int"):
        bcast.jit(lambda t: t.mean())(i)
    with pytest.raises(TypeError, match="std and var only support floating "
                       "point and complex dtypes"):
        bcast.jit(lambda t: np.var(t, axis=0))(i)
    with pytest.raises(TypeError, match="\"argmax_cpu\" not implemented for "
                       "'Bool'"):
        bcast.jit(lambda t: t.argmax())(i > 0)
    with pytest.raises(TypeError, match="\"softmax_lastdim_kernel_impl\" not "
                       "implemented for 'Int'"):
        bcast.jit(lambda t: bcast.softmax(t, -1))(i)
    # Over another dim than the last, PyTorch 1.13 names softmax's kernel
    # for log_softmax too.
    with pytest.raises(TypeError, match="^\"softmax_kernel_impl\" not "
                       "implemented for 'Int'"):
        bcast.jit(lambda t: bcast.log_softmax(t, 0))(i)


def test_empty_and_shape_errors():
    x = np.zeros((0, 3), np.float32)
    with pytest.raises(ValueError, match=r"amax\(\): Expected reduction dim "
                       "0 to have non-zero size."):
        bcast.jit(lambda t: t.max(axis=0))(x)
    with pytest.raises(ValueError, match=r"argmin\(\): Expected reduction "
                       r"dim to be specified for input.numel\(\) == 0."):
        bcast.jit(lambda t: np.argmin(t))(x)
    y = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"size \{\[2, 3\]\} is not "
                       r"expandable to size \{\[4, 3\]\}."):
        bcast.jit(lambda t: bcast.sum_to_size(t, (2, 3)))(y)
    # The same sentence from PyTorch.
    with pytest.raises(RuntimeError, match=r"size \{\[2, 3\]\} is not "
                       r"expandable to size \{\[4, 3\]\}."):
        torch.ones(4, 3).sum_to_size(2, 3)


# --- random reduce/broadcast expressions (Hypothesis) -------------------

def resolve_axis(spec, ndim):
    """An axis for a tensor of rank `ndim` from a drawn spec: the same for a
    Tensor and a NumPy array."""
    kind, seed, negative = spec
    if ndim == 0 or kind == "none":
        return None
    if kind == "int":
        axis = seed % ndim
        return axis - ndim if negative else axis
    chosen = tuple(d for d in range(ndim) if seed >> d & 1) or (seed % ndim,)
    return tuple(d - ndim for d in chosen) if negative else chosen


STEPS = {
    # name -> function of (t, axis, keepdims), the same for both sides
    "center": lambda t, a, k: t - t.mean(axis=a, keepdims=True),
    "scale_max": lambda t, a, k: t / (abs(t).max(axis=a, keepdims=True) + 1),
    "softmax": lambda t, a, k: np.exp(t - t.max(axis=a, keepdims=True)) /
    np.exp(t - t.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True),
    "sum": lambda t, a, k: t.sum(axis=a, keepdims=k),
    "mean": lambda t, a, k: np.mean(t, axis=a, keepdims=k),
    "max": lambda t, a, k: np.max(t, axis=a, keepdims=k),
    "min": lambda t, a, k: t.min(axis=a, keepdims=k),
    "std": lambda t, a, k: t.std(axis=a, keepdims=k),
    "any_pos": lambda t, a, k: np.where((t > 0).any(axis=a, keepdims=True),
                                        t, -t),
    "sq_norm": lambda t, a, k: t * (t * t).sum(axis=a, keepdims=True),
}


@st.composite
def expressions(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    drop = draw(st.integers(0, rank))
    other = tuple(1 if draw(st.booleans()) else s for s in shape[drop:])
    combine = draw(st.sampled_from(["add", "mul", "sub"]))
    steps = draw(st.lists(st.tuples(
        st.sampled_from(sorted(STEPS)),
        st.tuples(st.sampled_from(["none", "int", "tuple"]),
                  st.integers(0, 7), st.booleans()),
        st.booleans()), min_size=1, max_size=4))
    return shape, other, combine, steps


def build(combine, steps):
    def f(x, y):
        t = {"add": x + y, "mul": x * y, "sub": x - y}[combine]
        for name, spec, keepdims in steps:
            t = STEPS[name](t, resolve_axis(spec, t.ndim), keepdims)
        return t
    return f


@SETTINGS
@given(expressions(), st.sampled_from(FLOATS))
def test_random_reduce_broadcast_expressions(expression, dtype):
    shape, other, combine, steps = expression
    x = sample(shape, dtype)
    y = sample(other, dtype)
    f = build(combine, steps)
    got = bcast.jit(f)(x, y)
    # NumPy in float64 on the same expression, rounded once.
    want = np.asarray(f(x.astype(np.float64), y.astype(np.float64)))
    assert got.shape == want.shape, (got.shape, want.shape, steps)
    assert got.dtype == dtype
    rtol = 2e-4 if dtype == np.float32 else 1e-10
    # Absolute error relative to the largest magnitude: centring leaves
    # rounding residues that later steps scale.
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(got, want.astype(dtype), rtol=rtol,
                               atol=rtol * scale)


@SETTINGS
@given(st.data())
def test_random_reductions_dtypes_axes(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    rank = data.draw(st.integers(0, 3))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(rank))
    op = data.draw(st.sampled_from(valid_ops(dtype)))
    spec = data.draw(st.tuples(st.sampled_from(["none", "int", "tuple"]),
                               st.integers(0, 7), st.booleans()))
    keepdims = data.draw(st.booleans())
    axis = resolve_axis(spec, rank)
    x = sample(shape, dtype)
    got = bcast.jit(lambda t: getattr(t, op)(axis=axis, keepdims=keepdims))(x)
    close(got, numpy_reference(op, x, axis, keepdims))


# Bool inputs are read as byte vectors (docs/Pipelines.md): one True (or
# one False) anywhere, in the vector body, its four accumulators, the
# vector tail, the scalar tail or another task's chunk, decides the result.
@pytest.mark.parametrize("n", [1, 31, 32, 33, 127, 128, 129, 4095, 100_003,
                               1 << 20])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_bool_reductions_find_one_element(n, dynamic):
    f_any = bcast.jit(lambda x: x.any(), dynamic=dynamic)
    f_all = bcast.jit(lambda x: x.all(), dynamic=dynamic)
    f_count = bcast.jit(lambda x: x.sum(), dynamic=dynamic)
    rng = np.random.default_rng(n)
    for position in sorted({0, n // 2, n - 1, int(rng.integers(n))}):
        x = np.zeros(n, bool)
        x[position] = True
        assert f_any(x) == np.True_ and f_all(~x) == np.False_
        assert f_count(x) == 1 and f_count(~x) == n - 1
    assert f_any(np.zeros(n, bool)) == np.False_
    assert f_all(np.ones(n, bool)) == np.True_
    x = rng.random(n) < 0.3
    assert f_count(x) == np.count_nonzero(x)


@pytest.mark.parametrize("shape", [(37, 1000), (5, 33), (3, 70000)])
def test_bool_row_and_column_reductions(shape):
    rng = np.random.default_rng(shape[1])
    x = np.zeros(shape, bool)
    rows = rng.choice(shape[0], size=shape[0] // 2, replace=False)
    x[rows, rng.integers(shape[1], size=rows.size)] = True
    y = rng.random(shape).astype(np.float32) - 0.999
    for fn in (lambda a: a.any(axis=1), lambda a: a.all(axis=1),
               lambda a: a.any(axis=0, keepdims=True),
               lambda a: np.all(a, axis=0)):
        np.testing.assert_array_equal(bcast.jit(fn)(x), fn(x))
        np.testing.assert_array_equal(bcast.jit(fn)(~x), fn(~x))
    # A comparison's bools, never stored, reduced in the same loop.
    f = bcast.jit(lambda a: (a > 0).any(axis=1, keepdims=True))
    np.testing.assert_array_equal(f(y), (y > 0).any(axis=1, keepdims=True))
    np.testing.assert_array_equal(bcast.jit(lambda a: a.sum(axis=1))(x),
                                  x.sum(axis=1))
