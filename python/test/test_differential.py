"""Property-based differential tests: random shapes, dtypes and expressions
compiled with @bcast.jit, compared with NumPy, and with PyTorch where it is
installed. Inputs that are undefined or differ by design (integer division by
zero, NaN signs, integer overflow in pow) are kept out."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bcast

try:
    import torch
except ImportError:
    torch = None

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.data_too_large])

DTYPES = [np.float32, np.float64, np.int32, np.int64]


@st.composite
def broadcastable_shapes(draw, count):
    """`count` shapes that broadcast together, with sizes 0 to 4."""
    rank = draw(st.integers(0, 3))
    result = [draw(st.sampled_from([0, 1, 2, 3, 4])) for _ in range(rank)]
    shapes = []
    for _ in range(count):
        drop = draw(st.integers(0, rank))
        shape = [1 if draw(st.booleans()) else s for s in result[drop:]]
        shapes.append(tuple(shape))
    return shapes


def values(draw, shape, dtype, nonzero=False):
    if np.issubdtype(dtype, np.floating):
        elements = st.sampled_from([-4.5, -2.0, -1.0, -0.5, 0.25, 1.0, 3.0,
                                    7.0] + ([] if nonzero else [0.0]))
    else:
        elements = st.sampled_from([-9, -3, -1, 1, 2, 5, 8] +
                                   ([] if nonzero else [0]))
    flat = draw(st.lists(elements, min_size=int(np.prod(shape)),
                         max_size=int(np.prod(shape))))
    return np.array(flat, dtype=dtype).reshape(shape)


# name -> (bcast expression, numpy expression, needs a nonzero rhs)
BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, False),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, False),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, False),
    "floordiv": (lambda a, b: a // b, lambda a, b: a // b, True),
    "mod": (lambda a, b: a % b, lambda a, b: a % b, True),
    "max": (bcast.maximum, np.maximum, False),
    "min": (bcast.minimum, np.minimum, False),
    "lt": (lambda a, b: a < b, lambda a, b: a < b, False),
    "ne": (lambda a, b: a != b, lambda a, b: a != b, False),
}


@SETTINGS
@given(st.data())
def test_binary_against_numpy(data):
    name = data.draw(st.sampled_from(sorted(BINARY)))
    dtype = data.draw(st.sampled_from(DTYPES))
    ours, numpys, nonzero = BINARY[name]
    shape_a, shape_b = data.draw(broadcastable_shapes(2))
    a = values(data.draw, shape_a, dtype)
    b = values(data.draw, shape_b, dtype, nonzero)
    got = bcast.jit(ours)(a, b)
    with np.errstate(all="ignore"):
        want = numpys(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(st.data())
def test_expression_trees_against_numpy(data):
    """Random chains of 2 to 4 ops over 3 inputs: one fused kernel each."""
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    shapes = data.draw(broadcastable_shapes(3))
    inputs = [values(data.draw, s, dtype) for s in shapes]
    steps = data.draw(st.lists(
        st.tuples(st.sampled_from(["add", "sub", "mul", "max", "min"]),
                  st.integers(0, 2), st.booleans()), min_size=2, max_size=4))

    def build(ops):
        def f(x, y, z):
            args = (x, y, z)
            acc = x
            for name, operand, swap in steps:
                fn = ops[name]
                acc = fn(args[operand], acc) if swap else fn(acc,
                                                             args[operand])
            return acc
        return f

    ours = {k: v[0] for k, v in BINARY.items()}
    numpys = {k: v[1] for k, v in BINARY.items()}
    got = bcast.jit(build(ours))(*inputs)
    want = build(numpys)(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@SETTINGS
@given(st.data())
def test_in_place_against_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape_x, shape_y = data.draw(broadcastable_shapes(2))
    # The in-place operand has the broadcast shape.
    shape_x = tuple(np.broadcast_shapes(shape_x, shape_y))
    x = values(data.draw, shape_x, dtype)
    y = values(data.draw, shape_y, dtype)
    want = x.copy()
    want *= y
    want += y

    @bcast.jit
    def f(x, y):
        x *= y
        x += y
        return x

    got = f(x, y)
    assert got is x
    np.testing.assert_array_equal(x, want)


@SETTINGS
@given(st.data())
def test_where_against_numpy(data):
    shapes = data.draw(broadcastable_shapes(3))
    cond = np.array(data.draw(st.lists(st.booleans(),
                                       min_size=int(np.prod(shapes[0])),
                                       max_size=int(np.prod(shapes[0]))))
                    ).reshape(shapes[0]).astype(bool)
    x = values(data.draw, shapes[1], np.float32)
    y = values(data.draw, shapes[2], np.float32)
    np.testing.assert_array_equal(bcast.jit(bcast.where)(cond, x, y),
                                  np.where(cond, x, y))


@SETTINGS
@given(st.data())
def test_dynamic_kernel_against_numpy(data):
    """One dynamic kernel, random shapes of fixed ranks (runtime 1 or n)."""
    shape_a, shape_b = data.draw(broadcastable_shapes(2))
    a = values(data.draw, shape_a, np.float32)
    b = values(data.draw, shape_b, np.float32)
    got = _dynamic_add_mul(a, b)
    np.testing.assert_array_equal(got, (a + b) * b)


_dynamic_add_mul = bcast.jit(lambda a, b: (a + b) * b, dynamic=True)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@SETTINGS
@given(st.data())
def test_against_pytorch(data):
    """Verdict, shape and message of random pairs against PyTorch, and
    PyTorch's results for the valid ones."""
    shape_a = tuple(data.draw(st.lists(st.sampled_from([0, 1, 2, 3]),
                                       max_size=3)))
    shape_b = tuple(data.draw(st.lists(st.sampled_from([0, 1, 2, 3]),
                                       max_size=3)))
    a = values(data.draw, shape_a, np.float32)
    b = values(data.draw, shape_b, np.float32)
    try:
        want = (torch.from_numpy(a) * torch.from_numpy(b) -
                torch.from_numpy(a)).numpy()
        torch_error = None
    except RuntimeError as e:
        torch_error = str(e)
    f = bcast.jit(lambda x, y: x * y - x)
    if torch_error is not None:
        with pytest.raises(ValueError) as e:
            f(a, b)
        assert str(e.value) == torch_error
    else:
        np.testing.assert_array_equal(f(a, b), want)
