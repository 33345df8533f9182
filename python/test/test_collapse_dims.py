"""Kernels whose loops bcast-collapse-dims merges (a BatchNorm's [C,1,1]
statistics over [N,C,H,W], a mean over the last two dims, contiguous
operands of any rank) compute what NumPy computes, with static and dynamic
sizes, on one thread and on all; arithmetic results are bit for bit those
of the pipeline with collapse-dims=false (a math function may differ by an
ULP: which elements fall in a vector loop's scalar tail changes)."""

import numpy as np
import pytest

import bcast
from bcast._dispatch import JitFunction


def batch_norm(x, mean, scale, weight, bias):
    return (x - mean) * scale * weight + bias


def batch_norm_silu(x, mean, scale, weight, bias):
    y = batch_norm(x, mean, scale, weight, bias)
    return y * bcast.sigmoid(y)


def without_collapse(fn, **options):
    """`fn` jitted with the pipeline option collapse-dims=false."""
    f = bcast.jit(fn, **options)
    original = f._options

    def _options(device=None):
        compile_options = original(device)
        compile_options.text += " collapse-dims=false"
        return compile_options
    f._options = _options
    return f


def channels(rng, n, c, h, w, dtype=np.float32):
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    stats = [rng.standard_normal((c, 1, 1)).astype(dtype) for _ in range(4)]
    return [x] + stats


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("threads", [1, None])
@pytest.mark.parametrize("shape", [(1, 7, 14, 14), (2, 5, 3, 17),
                                   (1, 3, 1, 33), (2, 0, 4, 4)])
def test_batch_norm_equals_uncollapsed(shape, threads, dynamic):
    args = channels(np.random.default_rng(sum(shape)), *shape)
    options = dict(threads=threads, dynamic=dynamic, grain_size=0)
    ours = bcast.jit(batch_norm, **options)(*args)
    np.testing.assert_array_equal(
        ours, without_collapse(batch_norm, **options)(*args))
    np.testing.assert_array_equal(ours, batch_norm(*args))
    x, m, s, w, b = [a.astype(np.float64) for a in args]
    y = (x - m) * s * w + b
    silu = bcast.jit(batch_norm_silu, **options)(*args)
    np.testing.assert_allclose(silu, y / (1 + np.exp(-y)), rtol=2e-6,
                               atol=1e-6)


@pytest.mark.parametrize("dynamic", [False, True])
def test_mean_over_last_two(dynamic):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 7, 9)).astype(np.float32)

    def f(x):
        m = x.mean(axis=(-1, -2), keepdims=True)
        return x - m, m

    centred, mean = bcast.jit(f, dynamic=dynamic)(x)
    want = x.astype(np.float64).mean(axis=(-1, -2), keepdims=True)
    np.testing.assert_allclose(mean, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(centred, x - want, rtol=1e-5, atol=1e-5)


def test_strided_argument():
    # A transposed view: its dims are not contiguous, so its loops stay
    # apart, and the result is NumPy's.
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 5, 4)).astype(np.float32).transpose(1, 0, 2)
    b = rng.standard_normal((5, 6, 4)).astype(np.float32)
    f = bcast.jit(lambda a, b: a * b + 1)
    np.testing.assert_array_equal(f(a, b), a * b + 1)


def test_jit_function_hook_exists():
    # without_collapse relies on JitFunction._options.
    assert hasattr(JitFunction, "_options")
