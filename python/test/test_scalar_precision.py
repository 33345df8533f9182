"""Issue 28's class 8, compared with PyTorch 1.13 at test time: a Python
number enters an op in the type the op computes in, as PyTorch's kernels
take it. lerp's weight is PyTorch's lerp.Scalar (converted to opmath_t,
float32 for float16 and bfloat16 tensors), not a tensor of the tensors'
dtype (0.4 would first become bf16's 0.400390625); addcmul's and addcdiv's
`value` likewise; the element-wise operators round the number to the
tensor's dtype, as PyTorch does. Also the differential fuzzer's seed
101927: the mean of a rank-0 tensor broadcast into a division."""

import numpy as np
import pytest

import bcast

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.sweep

# The same exact comparison as the other class tests of issue 28.
from test_torch_edges import same  # noqa: E402

HALVES = [torch.bfloat16, torch.float16]
WEIGHTS = [0.4, 0.1, 1 / 3, 0.7, -0.3, 1e-3, 1.7, 3, True, 0, 1]


def values(dtype, n=512, seed=3, low=-8.0, high=8.0):
    rng = np.random.RandomState(seed)
    return torch.tensor(rng.uniform(low, high, n)).to(dtype)


def torch_lerp(x, y, w):
    """PyTorch's lerp with a Python weight; float16, which its CPU lacks,
    as its CUDA kernel computes it (in float32, rounded once)."""
    if x.dtype == torch.float16:
        return torch.lerp(x.float(), y.float(), w).half()
    return torch.lerp(x, y, w)


def test_lerp_issue_example():
    x = torch.tensor([4.375], dtype=torch.bfloat16)
    y = torch.tensor([-7.375], dtype=torch.bfloat16)
    got = bcast.jit(lambda a, b: bcast.lerp(a, b, 0.4))(x, y)
    assert got.item() == -0.32421875 == torch.lerp(x, y, 0.4).item()


@pytest.mark.parametrize("dtype", HALVES + [torch.float32, torch.float64],
                         ids=str)
@pytest.mark.parametrize("weight", WEIGHTS, ids=repr)
@pytest.mark.parametrize("form", ["function", "method", "in_place",
                                  "argument"])
@pytest.mark.parametrize("n", [3, 512])
def test_lerp_python_weight(dtype, weight, form, n):
    x, y = values(dtype, n, 3), values(dtype, n, 4)
    want = torch_lerp(x, y, weight)
    if form == "function":
        got = bcast.jit(lambda a, b: bcast.lerp(a, b, weight))(x, y)
    elif form == "method":
        got = bcast.jit(lambda a, b: a.lerp(b, weight))(x, y)
    elif form == "in_place":
        got = x.clone()
        bcast.jit(lambda a, b: a.lerp_(b, weight))(got, y)
    else:
        # A run-time scalar argument: its 64-bit carrier is the weight.
        got = bcast.jit(lambda a, b, w: bcast.lerp(a, b, w))(x, y, weight)
    agree_but_for_fma(x, y, weight, want, got)


def lerp_in_float32(x, y, w, fused):
    """PyTorch 1.13's lerp formulas in float32 with a float32 weight,
    rounding each operation or contracting the multiply-add to an fma (an
    exact product of two floats fits a double; rounded once from it)."""
    x, y = x.double().float().double(), y.double().float().double()
    w = float(np.float32(w))
    diff = (y - x).float().double()
    if w < 0.5:
        product = w * diff if fused else (w * diff).float().double()
        result = x + product
    else:
        complement = float(np.float32(1.0 - w))
        product = diff * complement if fused else \
            (diff * complement).float().double()
        result = y - product
    return result.float()


def agree_but_for_fma(x, y, w, want, got):
    """`got` is PyTorch's `want` bit for bit, but where PyTorch's fma
    (docs/Semantics.md: bcast rounds each operation) is the whole
    difference."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if x.dtype == torch.float64:
        torch.testing.assert_close(got, want)  # fma or not, in float64
        return
    differ = ~((got == want) | (got.isnan() & want.isnan()))
    if differ.any():
        separate = lerp_in_float32(x, y, w, False).to(x.dtype)
        fused = lerp_in_float32(x, y, w, True).to(x.dtype)
        assert torch.equal(got[differ], separate[differ]), (x, y, w)
        assert torch.equal(want[differ], fused[differ]), (x, y, w)
    if x.dtype in HALVES:  # rounding to 8 or 11 bits hides most of it
        assert differ.sum() <= max(2, got.numel() // 50)


@pytest.mark.parametrize("dtype", HALVES, ids=str)
def test_lerp_weight_not_rounded_to_the_tensor_dtype(dtype):
    """The test above can fail: a weight rounded to the tensors' dtype
    first gives other values on these inputs."""
    x, y = values(dtype, 512, 3), values(dtype, 512, 4)
    rounded = float(torch.tensor(0.4).to(dtype))
    assert not torch.equal(torch_lerp(x, y, 0.4), torch_lerp(x, y, rounded))
    f = bcast.jit(lambda a, b, w: bcast.lerp(a, b, w))
    for w in (0.4, 0.7):
        agree_but_for_fma(x, y, w, torch_lerp(x, y, w), f(x, y, w))
    assert len(f.cache) == 1


def test_lerp_scalar_weight_keeps_rank0_dtype():
    # The weight takes no part in the promotion: rank-0 bf16 stays bf16.
    x = torch.tensor(4.375, dtype=torch.bfloat16)
    y = torch.tensor(-7.375, dtype=torch.bfloat16)
    same(torch.lerp(x, y, 0.4),
         bcast.jit(lambda a, b: bcast.lerp(a, b, 0.4))(x, y))


def test_lerp_tensor_weight_keeps_pytorch_dtype_rule():
    x = torch.ones(3, dtype=torch.bfloat16)
    w = torch.tensor(0.4)
    with pytest.raises(RuntimeError) as expected:
        torch.lerp(x, x, w)
    with pytest.raises(TypeError) as got:
        bcast.jit(lambda a, w: bcast.lerp(a, a, w))(x, w)
    assert str(got.value) == str(expected.value)


def test_lerp_python_weight_on_integers_is_pytorch_error():
    x = torch.arange(3)
    with pytest.raises(RuntimeError) as expected:
        torch.lerp(x, x, 0.5)
    with pytest.raises(ValueError) as got:
        bcast.jit(lambda a: bcast.lerp(a, a, 0.5))(x)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("value", [0.4, 0.1, 1 / 3, -0.3, 3])
def test_addcdiv_value_bf16(value):
    x, y = values(torch.bfloat16, 512, 3), values(torch.bfloat16, 512, 4)
    z = values(torch.bfloat16, 512, 5, 0.25, 8.0)
    same(torch.addcdiv(x, y, z, value=value),
         bcast.jit(lambda a, b, c: bcast.addcdiv(a, b, c, value=value))(
             x, y, z))


@pytest.mark.parametrize("value", [0.4, 0.1, 1 / 3, -0.3])
def test_addcmul_value_bf16_in_float32(value):
    """addcmul's `value` enters as float32, as PyTorch's opmath_t; each
    operation is rounded in float32 (PyTorch's own loops may contract the
    last two to an fma: docs/Semantics.md), so the reference is computed
    operation by operation."""
    x, y = values(torch.bfloat16, 512, 3), values(torch.bfloat16, 512, 4)
    z = values(torch.bfloat16, 512, 5)
    v = torch.tensor(value, dtype=torch.float32)
    want = (x.float() + (v * y.float()) * z.float()).bfloat16()
    rounded = v.bfloat16().float()
    assert not torch.equal(
        want, (x.float() + (rounded * y.float()) * z.float()).bfloat16())
    same(want, bcast.jit(lambda a, b, c: bcast.addcmul(a, b, c, value=value))(
        x, y, z))


OPERATORS = {
    "add": lambda a, s: a + s, "rsub": lambda a, s: s - a,
    "mul": lambda a, s: a * s, "div": lambda a, s: a / s,
    "pow": lambda a, s: abs(a) ** s,
    "lt": lambda a, s: a < s, "eq": lambda a, s: a == s,
}


@pytest.mark.parametrize("name", list(OPERATORS))
@pytest.mark.parametrize("scalar", [0.4, 0.1, 1 / 3, 2.7])
def test_operators_round_the_number_as_pytorch(name, scalar):
    """PyTorch's element-wise operators take the number in the tensor's
    dtype (its bf16 kernels round it first): bcast does the same."""
    x = values(torch.bfloat16)
    op = OPERATORS[name]
    same(op(x, scalar), bcast.jit(lambda a: op(a, scalar))(x))


@pytest.mark.parametrize("dtype", HALVES + [torch.float32], ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_rank0_reduction_broadcast_into_division(dtype, reduction):
    """Differential fuzzer seed 101927: the reduction of a rank-0 tensor
    (no loops) fused into a consumer that broadcasts it accumulated once per
    element (100 / 3 gave 100)."""
    x = torch.tensor([[-0.0, -0.0, 3.0]], dtype=dtype)
    y = torch.tensor(100.0, dtype=dtype)

    def f(x, y):
        return getattr(y, reduction)() / x

    same(f(x, y), bcast.jit(f)(x, y))


#===------------------------------------------------------------------===#
# Python ints beyond an integer tensor's dtype: PyTorch 1.13 wraps them
# (two's complement) where it converts a wrapped scalar, and checks them
# where its kernel takes a Scalar (clamp's bounds, where's branches, pow's
# exponent: `value cannot be converted to type uint8_t without overflow`,
# unsigned types accepting down to minus their maximum).
#===------------------------------------------------------------------===#

INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32,
              torch.int64, torch.bool]
BEYOND = [-1, 256, 300, -129, -256, 128, 2 ** 31, -2 ** 63]


def _clamp_(x, s):
    return x.clamp_(s, 200)


INT_FORMS = {
    "add": lambda x, s: x + s, "sub": lambda x, s: x - s,
    "rsub": lambda x, s: s - x, "mul": lambda x, s: x * s,
    "floordiv": lambda x, s: x // s, "mod": lambda x, s: x % s,
    "and": lambda x, s: x & s, "or": lambda x, s: x | s,
    "xor": lambda x, s: x ^ s, "eq": lambda x, s: x == s,
    "ne": lambda x, s: x != s, "lt": lambda x, s: x < s,
    "ge": lambda x, s: x >= s, "truediv": lambda x, s: x / s,
    "iadd": lambda x, s: x.__iadd__(s), "imul": lambda x, s: x.__imul__(s),
    "iand": lambda x, s: x.__iand__(s),
    "ifloordiv": lambda x, s: x.__ifloordiv__(s),
    "clamp": lambda x, s: x.clamp(s, 200),
    "clamp_min": lambda x, s: x.clamp(min=s),
    "clamp_max": lambda x, s: x.clamp(max=s),
    "clamp_": _clamp_,
    "pow": lambda x, s: x ** abs(s),
}


def outcome(f, *args):
    try:
        return f(*args), None
    except Exception as e:  # noqa: BLE001 (every verdict is compared)
        return None, e


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(INT_FORMS))
def test_python_int_beyond_the_dtype_as_pytorch(dtype, name):
    form = INT_FORMS[name]
    x = torch.tensor([0, 1, 2, 3, 100, -7]).to(dtype)
    constant = {}
    for s in BEYOND:
        want, want_error = outcome(form, x.clone(), s)
        f = constant.setdefault(s, bcast.jit(lambda a, s=s: form(a, s)))
        got, got_error = outcome(f, x.clone())
        if want_error is not None or got_error is not None:
            assert want_error is not None and got_error is not None, (
                s, want_error, got_error)
            if "without overflow" in str(want_error):
                assert str(got_error) == str(want_error)
            continue
        same(want, got)
        # The same value as a run-time scalar argument.
        g = bcast.jit(form)
        got, got_error = outcome(g, x.clone(), s)
        assert got_error is None or "ZeroDivision" in str(got_error), s
        if got_error is None:
            same(want, got)


def test_where_and_clamp_check_the_bound():
    x = torch.arange(4, dtype=torch.uint8)
    for f in (lambda a: torch.where(a > 1, a, 300) if
              isinstance(a, torch.Tensor) else bcast.where(a > 1, a, 300),
              lambda a: a.clamp(min=-256)):
        with pytest.raises(RuntimeError) as expected:
            f(x)
        with pytest.raises(ValueError) as got:
            bcast.jit(f)(x)
        assert str(got.value) == str(expected.value) == (
            "value cannot be converted to type uint8_t without overflow")
    # -255 is accepted for uint8 (and wraps to 1).
    same(torch.where(x > 1, x, -255),
         bcast.jit(lambda a: bcast.where(a > 1, a, -255))(x))
    # A run-time scalar bound is compiled in, so that it is checked.
    f = bcast.jit(lambda a, s: a.clamp(min=s))
    same(x.clamp(min=-1), f(x, -1))
    with pytest.raises(ValueError, match="uint8_t without overflow"):
        f(x, 256)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64,
                                   torch.bfloat16, torch.float16,
                                   torch.int32, torch.uint8, torch.bool],
                         ids=str)
@pytest.mark.parametrize("number", [0.4, 1 / 3, 3, -7, True])
def test_number_divided_by_tensor_is_reciprocal_times_number(dtype, number):
    """PyTorch's `number / tensor` is `tensor.reciprocal() * number`, which
    differs from the correctly rounded quotient on about a quarter of these
    elements; a run-time scalar divides the same way."""
    x = values(torch.float64, 512, 6).to(dtype)
    if not dtype.is_floating_point:
        x = torch.tensor(np.random.RandomState(6).randint(-9, 300, 64)
                         ).to(dtype)
    want = number / x
    same(want, bcast.jit(lambda a: number / a)(x))
    same(want, bcast.jit(lambda a, s: s / a)(x, number))
    if dtype == torch.float32 and number == 0.4:
        exact = (number / x.double()).float()
        assert not torch.equal(want, exact)  # the test can fail


@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.bool],
                         ids=str)
def test_negative_integer_power_of_integers_is_pytorch_error(dtype):
    x = torch.arange(3).to(dtype)
    for f in (lambda a: a ** -2, lambda a: a.__ipow__(-1)):
        with pytest.raises(RuntimeError) as expected:
            f(x.clone())
        with pytest.raises(ValueError) as got:
            bcast.jit(f)(x.clone())
        assert str(got.value) == str(expected.value)
    # A run-time exponent is compiled in, so that its sign is known.
    g = bcast.jit(lambda a, n: a ** n)
    same(x ** 2, g(x, 2))
    with pytest.raises(ValueError, match="negative integer powers"):
        g(x, -1)
    same(x.float() ** -1, bcast.jit(lambda a: a ** -1)(x.float()))
