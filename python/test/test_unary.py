"""The unary ops in @bcast.jit (issue 13): bcast.exp and friends, Tensor
methods and their in-place forms, NumPy's ufuncs and functions on traced
tensors, PyTorch's dtype rules and sentences, and random expression trees
that mix them with the binary ops, against PyTorch."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bcast

torch = pytest.importorskip("torch")
F = torch.nn.functional

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

FLOAT_FUNCTIONS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                   "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "asin",
                   "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
                   "atanh", "sigmoid", "erf", "erfc"]
EXACT = ["abs", "neg", "sign", "floor", "ceil", "round", "trunc", "relu"]
TESTS = ["logical_not", "isnan", "isinf", "isfinite"]

FLOATS = np.array([-np.inf, -3.5, -1.0, -0.25, -0.0, 0.0, 0.5, 0.75, 2.5,
                   np.inf, np.nan, 1e-3])
INTS = np.array([-100, -7, -1, 0, 1, 2, 7, 100])


def torch_unary(op, x, **kwargs):
    fn = {"relu": torch.relu, "silu": F.silu, "gelu": F.gelu}.get(op) or \
        getattr(torch, op)
    return fn(torch.from_numpy(x), **kwargs).numpy()


def close(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if np.issubdtype(got.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", FLOAT_FUNCTIONS + EXACT + TESTS +
                         ["bitwise_not"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_,
                                   np.uint8])
def test_unary_matches_torch(op, dtype):
    if op == "bitwise_not" and dtype in (np.float32, np.float64):
        pytest.skip("integers only")
    if dtype == np.bool_ and op in ("abs", "neg", "floor", "ceil", "round",
                                    "trunc", "relu"):
        pytest.skip("an error (test_bool_sentences)")
    x = (FLOATS if dtype in (np.float32, np.float64) else
         np.array([True, False]) if dtype == np.bool_ else
         np.array([0, 1, 7, 128, 255]) if dtype == np.uint8 else
         INTS).astype(dtype)
    fn = bcast.jit(lambda t: getattr(bcast, op)(t))
    close(fn(x), torch_unary(op, x))


@pytest.mark.parametrize("approximate", [None, "none", "tanh"])
def test_activations(approximate):
    x = np.linspace(-6, 6, 101).astype(np.float32)
    kwargs = {} if approximate is None else {"approximate": approximate}
    got = bcast.jit(lambda t: bcast.gelu(t, **kwargs))(x)
    # PyTorch in f64, rounded once: bcast's gelu is within an ULP or two.
    want = torch_unary("gelu", x.astype(np.float64), **kwargs).astype(
        np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-37)
    got = bcast.jit(lambda t: bcast.silu(t) + t.sigmoid())(x)
    want = (F.silu(torch.from_numpy(x).double()) +
            torch.sigmoid(torch.from_numpy(x).double())).float().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30)


def test_methods_and_operators():
    x = np.array([[-2.5, 0.5], [1.5, 4.0]], np.float32)

    @bcast.jit
    def f(t):
        return t.exp(), abs(t), -t, +t, t.round(), t.clip(-1.0, 2.0)

    exp, absolute, neg, pos, rounded, clipped = f(x)
    close(exp, np.exp(x))
    close(absolute, np.abs(x))
    close(neg, -x)
    close(pos, x)
    close(rounded, np.round(x))  # halves to even, as np.round and PyTorch
    close(clipped, np.clip(x, -1.0, 2.0))
    i = np.array([0, 5, -6], np.int32)
    close(bcast.jit(lambda t: ~t)(i), ~i)


def test_in_place_methods():
    x = np.array([0.0, 1.0, 4.0], np.float32)

    @bcast.jit
    def g(t, u):
        t.sqrt_()
        u.logical_not_()

    y = np.array([0.0, 2.0, -0.0], np.float64)
    g(x, y)
    close(x, np.sqrt(np.array([0.0, 1.0, 4.0], np.float32)))
    close(y, np.array([1.0, 0.0, 1.0]))


def test_numpy_ufuncs_and_functions():
    x = np.array([[0.25, 4.0], [9.0, 1.0]], np.float32)
    y = np.array([1.0, -2.0], np.float32)

    @bcast.jit
    def f(a, b):
        return (np.sqrt(a) + np.exp(b), np.maximum(a, b), np.where(a > 1, a, b),
                np.clip(a, 0.5, 5.0), np.round(a), np.negative(np.abs(b)),
                np.add(a, 1.0), np.true_divide(a, b), np.arctanh(b / 4))

    got = f(x, y)
    want = (np.sqrt(x) + np.exp(y), np.maximum(x, y), np.where(x > 1, x, y),
            np.clip(x, 0.5, 5.0), np.round(x), np.negative(np.abs(y)),
            np.add(x, 1.0), np.true_divide(x, y), np.arctanh(y / 4))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_unsupported_numpy_raises_type_error_naming_it():
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="numpy.cbrt"):
        bcast.jit(lambda t: np.cbrt(t))(x)
    with pytest.raises(TypeError, match="numpy.add.reduce"):
        bcast.jit(lambda t: np.add.reduce(t))(x)
    # np.sum is a reduction now (test_reductions.py); np.cumsum is not.
    with pytest.raises(TypeError, match="numpy.cumsum"):
        bcast.jit(lambda t: np.cumsum(t))(x)


def test_dtype_rules():
    i = np.array([1, 4], np.int32)
    assert bcast.jit(lambda t: t.sqrt())(i).dtype == np.float32
    assert bcast.jit(lambda t: t.abs())(i).dtype == np.int32
    assert bcast.jit(lambda t: t.isnan())(i).dtype == np.bool_
    h = np.array([1.0, 2.0], np.float16)
    got = bcast.jit(lambda t: t.exp())(h)
    assert got.dtype == np.float16
    # Computed in f32, rounded once.
    close(got, np.exp(h.astype(np.float32)).astype(np.float16))


def test_bool_sentences():
    b = np.array([True, False])
    with pytest.raises(TypeError, match="Negation, the `-` operator, on a "
                       "bool tensor is not supported"):
        bcast.jit(lambda t: -t)(b)
    with pytest.raises(TypeError, match="Boolean inputs not supported for "
                       "relu"):
        bcast.jit(lambda t: t.relu())(b)
    with pytest.raises(TypeError, match="\"abs_cpu\" not implemented for "
                       "'Bool'"):
        bcast.jit(lambda t: abs(t))(b)
    with pytest.raises(TypeError, match="\"silu_cpu\" not implemented for "
                       "'Int'"):
        bcast.jit(lambda t: bcast.silu(t))(np.ones(2, np.int32))
    with pytest.raises(TypeError, match="\"bitwise_not_cpu\" not implemented "
                       "for 'Float'"):
        bcast.jit(lambda t: ~t)(np.ones(2, np.float32))
    with pytest.raises(ValueError, match="approximate argument must be "
                       "either none or tanh."):
        bcast.jit(lambda t: bcast.gelu(t, approximate="erf"))(
            np.ones(2, np.float32))
    with pytest.raises(TypeError, match="result type Float can't be cast to "
                       "the desired output type Int"):
        bcast.jit(lambda t: t.exp_())(np.ones(2, np.int32))


# Random expression trees over old and new ops, compared with PyTorch.
UNARY_TREE = {
    "exp": (lambda t: t.exp(), torch.exp),
    "tanh": (lambda t: np.tanh(t), torch.tanh),
    "sigmoid": (lambda t: bcast.sigmoid(t), torch.sigmoid),
    "abs": (lambda t: abs(t), torch.abs),
    "neg": (lambda t: -t, torch.neg),
    "relu": (lambda t: t.relu(), torch.relu),
    "erf": (lambda t: bcast.erf(t), torch.erf),
    "silu": (lambda t: bcast.silu(t), F.silu),
    "gelu": (lambda t: bcast.gelu(t), F.gelu),
    "floor": (lambda t: t.floor(), torch.floor),
    "sin": (lambda t: t.sin(), torch.sin),
}
BINARY_TREE = {
    "add": (lambda a, b: a + b, torch.add),
    "mul": (lambda a, b: a * b, torch.mul),
    "sub": (lambda a, b: a - b, torch.sub),
    "maximum": (bcast.maximum, torch.maximum),
}


@st.composite
def trees(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return ("leaf", draw(st.integers(0, 2)))
    if draw(st.booleans()):
        return ("unary", draw(st.sampled_from(sorted(UNARY_TREE))),
                draw(trees(depth - 1)))
    return ("binary", draw(st.sampled_from(sorted(BINARY_TREE))),
            draw(trees(depth - 1)), draw(trees(depth - 1)))


def evaluate(tree, leaves, ours):
    if tree[0] == "leaf":
        return leaves[tree[1]]
    if tree[0] == "unary":
        fn = UNARY_TREE[tree[1]][0 if ours else 1]
        return fn(evaluate(tree[2], leaves, ours))
    fn = BINARY_TREE[tree[1]][0 if ours else 1]
    return fn(evaluate(tree[2], leaves, ours), evaluate(tree[3], leaves, ours))


@SETTINGS
@given(trees(), st.integers(0, 2**31))
def test_random_trees_match_torch(tree, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-3, 3, shape).astype(np.float32)
              for shape in [(4, 3), (3,), (4, 1)]]
    got = bcast.jit(lambda a, b, c: evaluate(tree, [a, b, c], True) + 0 * a)(
        *arrays)
    leaves = [torch.from_numpy(a).double() for a in arrays]
    want = (evaluate(tree, leaves, False) + 0 * leaves[0]).float().numpy()
    # Compiled in f32 against PyTorch in f64: a few f32 roundings per op.
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
