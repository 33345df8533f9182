"""Issue 28 through @bcast.jit on PyTorch CPU tensors, compared with PyTorch
1.13 at test time: integer division never kills the process (INT_MIN // -1
wraps, a zero divisor is RuntimeError: ZeroDivisionError), float -> integer
casts give PyTorch's values in short and long tensors, empty tensors with
any strides are taken, an expanded in-place target is PyTorch's error,
bfloat16 reductions work, Python bools are numbers, where takes two Python
scalars, and the in-place comparisons, clamp_min/clamp_max, one-sided
clamp_, alpha= and rounding_mode= are spelled as in PyTorch; every
reduction's result dtype for every dtype (any/all of uint8 give uint8,
sum_to_size is a sum where it sums) and dtype= of sum, mean, prod, softmax
and log_softmax are PyTorch's."""

import operator
import subprocess
import sys
import textwrap

import pytest

import bcast

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.sweep

INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]


def same(want, got):
    assert got.dtype == want.dtype, (want.dtype, got.dtype)
    assert got.shape == want.shape, (want.shape, got.shape)
    assert torch.equal(torch.nan_to_num(want.double(), 7.0, 8.0, 9.0),
                       torch.nan_to_num(got.double(), 7.0, 8.0, 9.0)) and \
        torch.equal(want.isnan(), got.isnan()), (want, got)


def wrap(value, dtype):
    bits = torch.iinfo(dtype).bits
    value &= (1 << bits) - 1
    if dtype != torch.uint8 and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


#===------------------------------------------------------------------===#
# Class 1: integer division
#===------------------------------------------------------------------===#

def tdiv(p, q):
    """Python integers divided rounding towards zero (C's `/`)."""
    quotient = abs(p) // abs(q)
    return quotient if (p < 0) == (q < 0) else -quotient


DIVISIONS = {
    "floordiv": (lambda a, b: a // b, lambda p, q: p // q),
    "mod": (lambda a, b: a % b, lambda p, q: p - q * (p // q)),
    "fmod": (lambda a, b: bcast.fmod(a, b) if isinstance(a, bcast.Tensor)
             else torch.fmod(a, b), lambda p, q: p - q * tdiv(p, q)),
    "trunc": (lambda a, b: bcast.div(a, b, rounding_mode="trunc")
              if isinstance(a, bcast.Tensor)
              else torch.div(a, b, rounding_mode="trunc"), tdiv),
}


@pytest.mark.parametrize("dtype", INTS, ids=str)
@pytest.mark.parametrize("name", list(DIVISIONS))
@pytest.mark.parametrize("n", [3, 64])
def test_extremal_division_wraps(dtype, name, n):
    info = torch.iinfo(dtype)
    signed = dtype != torch.uint8
    a = torch.tensor([info.min, info.max, -7 if signed else 7] * n,
                     dtype=dtype)[:n]
    b = torch.tensor([-1 if signed else 3, -1 if signed else 1, 2] * n,
                     dtype=dtype)[:n]
    fn, exact = DIVISIONS[name]
    got = bcast.jit(fn)(a, b)
    if info.bits <= 16:
        # PyTorch computes these widths without trapping.
        want = fn(a, b)
    else:
        # PyTorch 1.13 dies of SIGFPE here; two's complement's values.
        want = torch.tensor([wrap(exact(p, q), dtype) for p, q in
                             zip(a.tolist(), b.tolist())], dtype=dtype)
    same(want, got)


@pytest.mark.parametrize("expr", ["a // b", "a % b", "bcast.fmod(a, b)",
                                  "bcast.div(a, b, rounding_mode='trunc')",
                                  "bcast.div(a, b, rounding_mode='floor')"])
def test_zero_divisor_is_pytorchs_error(expr):
    # In a subprocess, so that a SIGFPE would fail the test, not kill it;
    # one for all integer dtypes, since starting torch is most of its cost.
    code = textwrap.dedent(f"""
        import torch, bcast
        for dtype in [{", ".join(map(str, INTS))}]:
            a = torch.full((64,), 5, dtype=dtype)
            b = torch.ones(64, dtype=dtype)
            b[40] = 0
            print(dtype, flush=True)
            f = bcast.jit(lambda a, b: {expr})
            try:
                f(a, b)
                print("no error")
            except RuntimeError as e:
                print("raised:", type(e).__name__, e)
            try:
                {expr.replace("bcast.fmod", "torch.fmod").replace(
                    "bcast.div", "torch.div")}
                print("torch: no error")
            except RuntimeError as e:
                print("torch raised:", type(e).__name__, e)
    """)
    run = subprocess.run([sys.executable, "-c", code],
                         capture_output=True, text=True)
    assert run.returncode == 0, run
    # PyTorch's own sentence is the reference: its line raises too.
    want = []
    for dtype in INTS:
        want += [str(dtype), "raised: RuntimeError ZeroDivisionError",
                 "torch raised: RuntimeError ZeroDivisionError"]
    assert run.stdout.splitlines() == want, run


@pytest.mark.parametrize("name", list(DIVISIONS))
@pytest.mark.parametrize("case", [
    (torch.uint8, torch.int16, 256), (torch.uint8, torch.int16, -32768),
    (torch.uint8, torch.int16, 257), (torch.int16, torch.int32, 65536),
    (torch.int32, torch.int64, 1 << 32), (torch.int8, torch.int64, -256)])
def test_divisor_zero_in_the_divided_type(name, case):
    """A rank-0 divisor of a wider type does not take part in the promotion:
    it is converted (wrapped) to the tensor's type, where it may be 0, and
    PyTorch raises ZeroDivisionError (fuzz seed 1071994); 257 is 1 in uint8."""
    dtype, wide, value = case
    a = torch.tensor([7, -3, 100, 0], dtype=torch.int64).to(dtype)
    b = torch.tensor(value, dtype=wide)
    fn, _ = DIVISIONS[name]
    both(fn, fn, a, b)

    def in_place(x, y):
        if name == "floordiv":
            x //= y
        elif name == "mod":
            x %= y
        elif name == "fmod":
            x.fmod_(y)
        else:
            x.div_(y, rounding_mode="trunc")
        return x

    both(in_place, in_place, a, b)


def test_in_place_zero_divisor_leaves_the_target():
    a = torch.tensor([7, 8, 9], dtype=torch.int32)
    b = torch.tensor([1, 0, 2], dtype=torch.int32)

    def f(a, b):
        a //= b
        return a

    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        bcast.jit(f)(a, b)
    assert a.tolist() == [7, 8, 9]


#===------------------------------------------------------------------===#
# Class 6: float -> integer casts
#===------------------------------------------------------------------===#

CAST_VALUES = [-500.0, float("nan"), float("inf"), float("-inf"), -3.0,
               300.0, 1e10, 3e9, 70000.5, -70000.5, 3000000001.0,
               2.0 ** 32 + 5, 2.0 ** 31 - 1, 2.0 ** 63, -0.9]


@pytest.mark.parametrize("source", [torch.float16, torch.bfloat16,
                                    torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("target", INTS + [torch.bool], ids=str)
@pytest.mark.parametrize("count", [1, 4, 9, 33])
def test_float_to_integer_casts(source, target, count):
    x = torch.tensor(CAST_VALUES, dtype=torch.float64).to(source)
    x = x.repeat_interleave(count)
    got = bcast.jit(lambda x: x.astype(target))(x)
    same(x.to(target), got)


#===------------------------------------------------------------------===#
# Class 7: the sentences of three operands
#===------------------------------------------------------------------===#

THREE = {
    "clamp": (lambda a, b, c: bcast.clamp(a, b, c), torch.clamp),
    "lerp": (bcast.lerp, torch.lerp),
    "addcmul": (bcast.addcmul, torch.addcmul),
    "addcdiv": (bcast.addcdiv, torch.addcdiv),
    "where": (lambda a, b, c: bcast.where(a > 0, b, c),
              lambda a, b, c: torch.where(a > 0, b, c)),
}


@pytest.mark.parametrize("name", list(THREE))
@pytest.mark.parametrize("shapes", [((2,), (3,), (1, 1, 1)),
                                    ((5, 2), (3,), (1, 1, 1)),
                                    ((1, 2), (3, 1), (4, 1)),
                                    ((1, 2), (3, 1), (4, 5)),
                                    ((2, 3), (4, 1), (5,)),
                                    ((7, 1, 2), (2,), (7, 4, 3))])
def test_three_operand_sentences(name, shapes):
    ours, theirs = THREE[name]
    args = [torch.ones(s) for s in shapes]
    with pytest.raises(RuntimeError) as expected:
        theirs(*args)
    with pytest.raises(ValueError) as got:
        bcast.jit(ours)(*args)
    assert str(got.value) == str(expected.value)


#===------------------------------------------------------------------===#
# Class 2: empty tensors with unusual strides, overlapping inputs
#===------------------------------------------------------------------===#


def strided_empties():
    base = torch.arange(36.0)
    yield base.as_strided((0, 1, 3), (6, 6, 2))
    yield torch.empty(6, 6)[:0, ::2]
    yield base.as_strided((3, 0), (0, 5))
    yield base.as_strided((0,), (0,))
    yield torch.empty(4, 0, 2).transpose(0, 2)


@pytest.mark.parametrize("index", range(5))
def test_empty_tensors_with_any_strides(index):
    x = list(strided_empties())[index]
    same(x + 1, bcast.jit(lambda x: x + 1)(x))
    same(x.sum(0) if x.dim() else x.sum(),
         bcast.jit(lambda x: x.sum(0) if x.ndim else x.sum())(x))
    y = x.clone()
    bcast.jit(lambda y: y.__iadd__(2))(y)
    assert y.shape == x.shape


def test_overlapping_expanded_inputs():
    a = torch.arange(3.0).expand(4, 3)
    b = torch.arange(4.0).reshape(4, 1).expand(4, 3)
    same(a * b + a, bcast.jit(lambda a, b: a * b + a)(a, b))


def test_expanded_in_place_target_is_pytorchs_error():
    x = torch.ones(3).expand(2, 3)
    with pytest.raises(RuntimeError) as expected:
        x.add_(1)

    def f(x):
        x += 1
        return x

    with pytest.raises(RuntimeError) as got:
        bcast.jit(f)(x)
    assert str(got.value) == str(expected.value)
    assert x.tolist() == [[1.0] * 3] * 2


#===------------------------------------------------------------------===#
# Class 3: bfloat16 reductions
#===------------------------------------------------------------------===#


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin", "any",
                                "all", "logsumexp", "var", "std"])
def test_bfloat16_reductions(op):
    g = torch.Generator().manual_seed(3)
    x = (torch.rand(5, 7, generator=g) * 4 - 2).to(torch.bfloat16)
    try:
        want = getattr(torch, op)(x, 1)
    except RuntimeError as e:
        # A kernel PyTorch 1.13 lacks for bf16 ("prod_cpu"): bcast computes
        # in f32 and rounds once, as for f16 (docs/Semantics.md).
        assert "not implemented for 'BFloat16'" in str(e)
        want = getattr(torch, op)(x.float(), 1).to(torch.bfloat16)
    got = bcast.jit(lambda x: getattr(bcast, op)(x, 1))(x)
    assert got.dtype == want.dtype
    # bcast accumulates in f32 and rounds once, as PyTorch's CPU does.
    assert torch.allclose(got.double(), want.double(), rtol=1e-2, atol=1e-2)


#===------------------------------------------------------------------===#
# Class 5: Python bools, where of two Python scalars
#===------------------------------------------------------------------===#

@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int32,
                                   torch.float16, torch.float32], ids=str)
@pytest.mark.parametrize("case", ["add", "mul", "eq", "where", "clamp",
                                  "addcmul"])
def test_bool_scalars(dtype, case):
    x = torch.tensor([0, 1, 1, 0]).to(dtype)
    ours, theirs = {
        "add": (lambda x: x + True, lambda x: x + True),
        "mul": (lambda x: x * False, lambda x: x * False),
        "eq": (lambda x: x == True, lambda x: x == True),  # noqa: E712
        "where": (lambda x: bcast.where(x > 0, x, False),
                  lambda x: torch.where(x > 0, x, False)),
        "clamp": (lambda x: bcast.clamp(x, min=True),
                  lambda x: torch.clamp(x, min=True)),
        "addcmul": (lambda x: bcast.addcmul(x, x, x, value=True),
                    lambda x: torch.addcmul(x, x, x, value=True)),
    }[case]
    try:
        want = theirs(x)
    except RuntimeError as e:
        if "not implemented for 'Half'" in str(e):
            # bcast computes f16 in f32 where PyTorch's CPU lacks the kernel.
            same(theirs(x.float()).half(), bcast.jit(ours)(x))
            return
        with pytest.raises((RuntimeError, TypeError, ValueError),
                           match=str(e).split("\n")[0][:30]):
            bcast.jit(ours)(x)
        return
    same(want, bcast.jit(ours)(x))


@pytest.mark.parametrize("x, y", [(1.0, 0.0), (1, 0), (True, False),
                                  (1, 0.5), (True, 2)])
def test_where_of_two_python_scalars(x, y):
    c = torch.tensor([True, False, True])
    same(torch.where(c, x, y), bcast.jit(lambda c: bcast.where(c, x, y))(c))


#===------------------------------------------------------------------===#
# Class 9: what PyTorch users write
#===------------------------------------------------------------------===#

SAMPLES = [torch.tensor([1.5, 2.0, float("nan"), -0.5, 3.0, 7.25]),
           torch.tensor([1, 2, 3, -1, 3, 7], dtype=torch.int32),
           torch.tensor([True, False, True, False, True, True]),
           torch.tensor([1, 2, 3, 255, 3, 7], dtype=torch.uint8)]


def both(ours, theirs, *args):
    """PyTorch's value and bcast's, or the same exception's message."""
    try:
        want = theirs(*[a.clone() for a in args])
    except RuntimeError as e:
        with pytest.raises((RuntimeError, TypeError, ValueError)) as got:
            bcast.jit(ours)(*[a.clone() for a in args])
        assert str(got.value) == str(e)
        return
    same(want, bcast.jit(ours)(*[a.clone() for a in args]))


@pytest.mark.parametrize("op", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_",
                                "fmod_", "clamp_min", "clamp_max",
                                "clamp_min_", "clamp_max_"])
@pytest.mark.parametrize("i", range(4))
@pytest.mark.parametrize("j", range(4))
def test_in_place_methods(op, i, j):
    def call(x, y):
        getattr(x, op)(y)
        return x

    ours = (lambda x, y: getattr(x, op)(y)) if not op.endswith("_") else call
    theirs = (lambda x, y: getattr(x, op)(y)) if not op.endswith("_") \
        else call
    both(ours, theirs, SAMPLES[i], SAMPLES[j])


@pytest.mark.parametrize("kwargs", [{"min": 2}, {"max": 2.5}, {"min": 2.0},
                                    {"max": True}])
@pytest.mark.parametrize("i", range(4))
def test_one_sided_clamp_in_place(kwargs, i):
    def call(x):
        x.clamp_(**kwargs)
        return x

    both(call, call, SAMPLES[i])
    both(lambda x: bcast.clamp_min(x, 2), lambda x: torch.clamp_min(x, 2),
         SAMPLES[i])


@pytest.mark.parametrize("bounds", [(0, 1), (0.5, 1.5), (True, 1),
                                    ("tensor", 1.5), ("tensor", "tensor")])
@pytest.mark.parametrize("i", range(4))
def test_clamp_in_place_sentences(bounds, i):
    """PyTorch's clamp_ with a Python-number bound takes its Scalar
    overload, whose failed cast names the target by its C++ type (`unsigned
    char`); with tensor bounds it says `Byte`, as every other kernel."""
    def call(x, *tensors):
        it = iter(tensors)
        x.clamp_(*[next(it) if b == "tensor" else b for b in bounds])
        return x

    tensors = [torch.tensor(0.5)] * sum(b == "tensor" for b in bounds)
    both(call, call, SAMPLES[i], *tensors)


B3 = torch.tensor([True, False, True])
I3 = torch.tensor([1, 2, 3], dtype=torch.int32)
I4 = torch.tensor([1, 2, 3, 4], dtype=torch.int32)
F4 = torch.tensor([1.5, 2.0, -1.0, 0.5])
D4 = F4.double()


@pytest.mark.parametrize("case", [
    # Checked by PyTorch before it broadcasts.
    (lambda a, b: a - b, B3, F4),
    (lambda a, b: a.sub_(b), B3, F4.expand(2, 4)),
    (lambda a, b: a.lerp(b, a), F4[:3], D4),
    (lambda a, b: b.addcdiv(a, b), I3, I4),
    (lambda a, b: a.div(b, rounding_mode="round"), I3, F4),
    # Checked by its kernels, after the shapes.
    (lambda a, b: a.lerp(b, a), I3, I4),
    (lambda a, b: a.div(b, rounding_mode="floor"), B3, I4.bool()),
    (lambda a, b: a & b, F4[:3], F4),
    (operator.ior, I3.long(), F4[:3]),
    (operator.ixor, F4[:3], I3),
])
def test_check_order(case):
    """Which sentence a call with two faults gets: PyTorch's checks before
    broadcasting come first, its kernels' after (docs/Semantics.md)."""
    fn, a, b = case
    both(fn, fn, a, b)


@pytest.mark.parametrize("alpha", [2, -1, 2.5, True, False, 300])
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("i", range(4))
@pytest.mark.parametrize("j", range(4))
def test_alpha(alpha, op, i, j):
    both(lambda x, y: getattr(bcast, op)(x, y, alpha=alpha),
         lambda x, y: getattr(torch, op)(x, y, alpha=alpha),
         SAMPLES[i], SAMPLES[j])

    def method(x, y):
        getattr(x, op + "_")(y, alpha=alpha)
        return x

    both(method, method, SAMPLES[i], SAMPLES[j])


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("i", range(4))
@pytest.mark.parametrize("j", [0, 1, 3])
def test_rounding_mode(mode, i, j):
    both(lambda x, y: bcast.div(x, y, rounding_mode=mode),
         lambda x, y: torch.div(x, y, rounding_mode=mode),
         SAMPLES[i], SAMPLES[j])

    def method(x, y):
        x.div_(y, rounding_mode=mode)
        return x

    both(method, method, SAMPLES[i], SAMPLES[j])


#===------------------------------------------------------------------===#
# Class 4: result dtypes of reductions, sum_to_size
#===------------------------------------------------------------------===#

# Every dtype PyTorch 1.13 and bcast share.
TORCH_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16,
                torch.int32, torch.int64, torch.float16, torch.bfloat16,
                torch.float32, torch.float64]
REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "any", "all",
              "logsumexp", "var", "std", "argmax", "argmin"]


def _sample(dtype, shape=(3, 4)):
    g = torch.Generator().manual_seed(28)
    values = torch.randint(-3, 4, shape, generator=g)
    if dtype == torch.uint8:
        values = values.abs()
    return values.to(dtype)


def _close(want, got):
    assert got.dtype == want.dtype, (want.dtype, got.dtype)
    assert got.shape == want.shape, (want.shape, got.shape)
    tol = 1e-2 if want.dtype in (torch.float16, torch.bfloat16) else 1e-6
    assert torch.allclose(got.double(), want.double(), rtol=tol, atol=tol,
                          equal_nan=True), (want, got)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_every_reduction_result_dtype(dtype):
    # One kernel per dtype, computing every reduction PyTorch accepts for
    # it, in three forms; where PyTorch refuses a dtype, bcast refuses it
    # with PyTorch's sentence.
    x = _sample(dtype)
    forms = [((), {}), ((1,), {}), ((0,), {"keepdim": True})]
    accepted = []
    for op in REDUCTIONS:
        for args, kwargs in forms:
            if op == "logsumexp" and not args:
                args = ((0, 1),)  # PyTorch's logsumexp needs dims
            try:
                want = getattr(torch, op)(x, *args, **kwargs)
            except RuntimeError as e:
                if any(s in str(e) for s in HALF_KERNELS):
                    # A 16-bit kernel PyTorch's CPU lacks: bcast computes
                    # in f32 (class 3, docs/Semantics.md).
                    continue
                with pytest.raises(TypeError) as got:
                    bcast.jit(lambda t: getattr(bcast, op)(
                        t, *args, **kwargs))(x)
                assert str(got.value) == str(e), (op, args)
                continue
            accepted.append((op, args, kwargs, want))
    results = bcast.jit(lambda t: tuple(
        getattr(bcast, op)(t, *args, **kwargs)
        for op, args, kwargs, _ in accepted))(x)
    for (op, args, kwargs, want), got in zip(accepted, results):
        try:
            _close(want, got)
        except AssertionError as e:
            raise AssertionError(f"{op}{args}{kwargs}: {e}") from None


@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize("form", [((), {}), ((1,), {}),
                                  ((0,), {"keepdim": True}),
                                  ((-1,), {"keepdim": False})])
def test_any_all_of_uint8_give_uint8(op, form):
    args, kwargs = form
    x = torch.tensor([[0, 2, 0], [0, 0, 0], [255, 1, 3]], dtype=torch.uint8)
    want = getattr(torch, op)(x, *args, **kwargs)
    assert want.dtype == torch.uint8
    got = bcast.jit(lambda t: getattr(bcast, op)(t, *args, **kwargs))(x)
    same(want, got)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("shape, target", [((2, 3), (1, 3)), ((2, 3), (3,)),
                                           ((2, 3), (2, 3)), ((1, 3), (1, 3)),
                                           ((2, 1), (1, 1)), ((), ()),
                                           ((0, 3), (1, 3))])
def test_sum_to_size_dtype_is_sums_where_it_sums(dtype, shape, target):
    x = _sample(dtype, shape)
    want = x.sum_to_size(target)
    got = bcast.jit(lambda t: bcast.sum_to_size(t, target))(x)
    _close(want, got)


#===------------------------------------------------------------------===#
# Class 9: dtype= of sum, mean, prod, softmax, log_softmax
#===------------------------------------------------------------------===#

HALF_KERNELS = ("not implemented for 'Half'", "not implemented for "
                "'BFloat16'")


def _torch_with_dtype(op, x, args, dtype):
    """PyTorch's op(x, *args, dtype=dtype), or its error; where its CPU
    lacks a 16-bit float kernel, the f32 result rounded once (bcast's,
    documented in docs/Semantics.md)."""
    fn = getattr(torch, op)
    try:
        return fn(x, *args, dtype=dtype), None
    except RuntimeError as e:
        if any(s in str(e) for s in HALF_KERNELS):
            return fn(x.to(dtype).float(), *args).to(dtype), None
        return None, str(e)


@pytest.mark.parametrize("source", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("op, args", [("sum", ()), ("sum", (1,)),
                                      ("mean", ()), ("mean", (0,)),
                                      ("prod", (1,)), ("softmax", (1,)),
                                      ("log_softmax", (0,))])
def test_dtype_keyword(op, args, source):
    x = _sample(source)
    accepted = []
    for dtype in TORCH_DTYPES:
        want, error = _torch_with_dtype(op, x, args, dtype)
        if error is not None:
            with pytest.raises(TypeError) as got:
                bcast.jit(lambda t: getattr(bcast, op)(
                    t, *args, dtype=dtype))(x)
            assert str(got.value) == error, (op, dtype)
            continue
        accepted.append((dtype, want))
    assert accepted
    results = bcast.jit(lambda t: tuple(
        getattr(bcast, op)(t, *args, dtype=dtype)
        for dtype, _ in accepted))(x)
    for (dtype, want), got in zip(accepted, results):
        try:
            _close(want, got)
        except AssertionError as e:
            raise AssertionError(f"dtype={dtype}: {e}") from None


def test_dtype_keyword_methods():
    x = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float16)
    got = bcast.jit(lambda t: (t.softmax(1, torch.float64),
                               t.log_softmax(1, dtype="float32")))(x)
    _close(torch.softmax(x, 1, dtype=torch.float64), got[0])
    _close(torch.log_softmax(x, 1, dtype=torch.float32), got[1])
    with pytest.raises(TypeError, match="bcast does not support dtype"):
        bcast.jit(lambda t: bcast.sum(t, dtype=torch.complex64))(x)
