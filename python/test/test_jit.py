"""Tests of @bcast.jit: semantics against NumPy, dtypes, scalars, in place,
dynamic sizes, errors, caching and inspection."""

import numpy as np
import pytest

import bcast

F32 = np.float32


def arange(shape, dtype=F32, start=1):
    n = int(np.prod(shape))
    return (np.arange(n) + start).astype(dtype).reshape(shape)


def test_fused_chain_matches_numpy():
    @bcast.jit
    def f(a, b, c, d):
        return (a + b) * c - d

    a, b, c = arange((4, 3)), arange((3,)), arange((4, 1))
    d = np.array(2.0, F32)
    np.testing.assert_array_equal(f(a, b, c, d), (a + b) * c - d)
    # One fused generic: the linalg stage has one generic.
    assert f.inspect(a, b, c, d)["linalg"].count("linalg.generic") == 1


def test_every_operator():
    @bcast.jit
    def f(a, b):
        return (a + b, a - b, a * b, a / b, a // b, a % b, a ** b,
                bcast.maximum(a, b), bcast.minimum(a, b), a == b, a != b,
                a < b, a <= b, a > b, a >= b, -a)

    a = np.array([[-7.5, 3.0, 2.0], [4.0, -1.0, 0.5]], F32)
    b = np.array([2.0, -2.0, 3.0], F32)
    want = (a + b, a - b, a * b, a / b, a // b, a % b, a ** b,
            np.maximum(a, b), np.minimum(a, b), a == b, a != b, a < b,
            a <= b, a > b, a >= b, -a)
    for got, expected in zip(f(a, b), want):
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_integer_and_bool_ops():
    @bcast.jit
    def f(a, b):
        return a // b, a % b, a & b, a | b, a ^ b, a ** 2

    a = np.array([[-7, 7], [9, -9]], np.int32)
    b = np.array([2, -2], np.int32)
    want = (a // b, a % b, a & b, a | b, a ^ b, a ** 2)
    for got, expected in zip(f(a, b), want):
        np.testing.assert_array_equal(got, expected)

    @bcast.jit
    def g(p, q):
        return p + q, p * q, p & q, p ^ q, p < q

    p = np.array([True, False, True])
    q = np.array([[True], [False]])
    for got, expected in zip(g(p, q), (p + q, p * q, p & q, p ^ q, p < q)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64,
                                   np.int8, np.int16, np.int32, np.int64,
                                   np.uint8, np.uint16, np.uint32, np.uint64])
def test_dtypes(dtype):
    @bcast.jit
    def f(a, b):
        return bcast.maximum(a * b, a)

    a, b = arange((3, 1), dtype), arange((4,), dtype)
    got = f(a, b)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.maximum(a * b, a))


def test_weak_python_scalars_keep_the_tensor_dtype():
    @bcast.jit
    def f(x):
        return x * 2.0 + 1, 3 - x

    x = arange((2, 3), np.float16)
    y, z = f(x)
    assert y.dtype == np.float16 and z.dtype == np.float16
    np.testing.assert_array_equal(y, x * np.float16(2) + np.float16(1))
    np.testing.assert_array_equal(z, np.float16(3) - x)

    @bcast.jit
    def g(i):
        return i * 3

    assert g(np.array([1, 2], np.int64)).dtype == np.int64


def test_type_errors():
    @bcast.jit
    def bool_sub(p, q):
        return p - q

    with pytest.raises(TypeError, match="with two bool tensors"):
        bool_sub(np.ones(2, bool), np.ones(2, bool))
    with pytest.raises(TypeError, match="with a bool tensor"):
        bool_sub(np.ones(2, bool), np.ones(2, np.int32))

    @bcast.jit
    def into_long(a, b):
        a += b
        return a

    with pytest.raises(TypeError, match="result type Float can't be cast to "
                       "the desired output type Long"):
        into_long(np.ones(2, np.int64), np.ones(2, F32))

    @bcast.jit
    def bitwise(a, b):
        return a & b

    # The dialect's sentence: PyTorch's, naming the promoted type.
    with pytest.raises(TypeError, match="^\"bitwise_and_cpu\" not "
                       "implemented for 'Float'$"):
        bitwise(np.ones(2, np.int32), np.ones(2, F32))
    np.testing.assert_array_equal(
        bitwise(np.array([6, 3], np.int32), np.array([3, 5], np.int8)),
        np.array([2, 1], np.int32))


def test_unsigned_edges():
    """Unsigned arrays compute as unsigned, at the values where signed
    semantics would differ, and wrap as NumPy's do."""
    @bcast.jit
    def arith(a, b):
        return (a + b, a - b, a * b, a // b, a % b, bcast.maximum(a, b),
                bcast.minimum(a, b), a < b, a >= b, a / b)

    u8 = (np.array([255, 0, 128, 200], np.uint8),
          np.array([1, 1, 255, 7], np.uint8))
    u32 = (np.array([2**32 - 1, 2**31, 3_000_000_000, 7], np.uint32),
           np.array([2, 2**31 + 1, 1000, 2**32 - 1], np.uint32))
    u64 = (np.array([2**64 - 1, 2**63, 2**63 + 12345, 3], np.uint64),
           np.array([3, 2**63 + 1, 2**63, 2**64 - 1], np.uint64))
    for a, b in (u8, u32, u64):
        got = arith(a, b)
        with np.errstate(over="ignore"):
            want = (a + b, a - b, a * b, a // b, a % b, np.maximum(a, b),
                    np.minimum(a, b), a < b, a >= b)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
        # True division is in float32 (torch.div), of the unsigned values.
        assert got[-1].dtype == np.float32
        np.testing.assert_array_equal(
            got[-1], a.astype(np.float32) / b.astype(np.float32))
    np.testing.assert_array_equal(arith(*u8)[0], [0, 1, 127, 207])
    np.testing.assert_array_equal(arith(*u8)[1], [254, 255, 129, 193])


def test_unsigned_mixed_and_broadcast():
    @bcast.jit
    def f(u, s, x, p):
        return u + s, u * x, bcast.maximum(u, p), bcast.where(p, u, 7)

    u = np.array([[255], [0], [128]], np.uint8)
    s = np.array([1, -1], np.int16)
    x = np.array(0.5, np.float32)
    p = np.array([True, False])
    added, scaled, maxed, chosen = f(u, s, x, p)
    assert added.dtype == np.int16  # ui8 with i8/i16 is i16, as PyTorch
    np.testing.assert_array_equal(added, u.astype(np.int16) + s)
    assert scaled.dtype == np.float32
    np.testing.assert_array_equal(scaled, u.astype(np.float32) * x)
    assert maxed.dtype == np.uint8  # a bool joins ui8
    np.testing.assert_array_equal(maxed, np.maximum(u, p.astype(np.uint8)))
    assert chosen.dtype == np.uint8
    np.testing.assert_array_equal(chosen, np.where(p, u, np.uint8(7)))


def test_unsigned_in_place_and_astype():
    @bcast.jit
    def f(a, b):
        a += b  # computed in int16, stored into the uint8 array (wrapping)
        return a

    a = np.array([[250, 3], [0, 255]], np.uint8)
    b = np.array([10, -4], np.int16)
    want = (a.astype(np.int16) + b).astype(np.uint8)
    out = f(a, b)
    assert out is a
    np.testing.assert_array_equal(a, want)

    @bcast.jit
    def casts(u, d):
        return (u.astype(np.float64), u.astype(np.int8), d.astype(np.uint64),
                u.astype(np.float16))

    u = np.array([2**64 - 1, 2**63 + 2**11, 255, 0], np.uint64)
    d = np.array([2.0**63 + 2048, 1e19, 0.75, 255.0])
    f64, i8, u64, f16 = casts(u, d)
    np.testing.assert_array_equal(f64, u.astype(np.float64))
    np.testing.assert_array_equal(i8, u.astype(np.int8))
    np.testing.assert_array_equal(u64, d.astype(np.uint64))
    with np.errstate(over="ignore"):  # above f16's range: inf
        np.testing.assert_array_equal(
            f16, u.astype(np.float32).astype(np.float16))


def test_unsigned_errors():
    @bcast.jit
    def add(a, b):
        return a + b

    # ui16..ui64 promote only with themselves, bool and floats.
    with pytest.raises(TypeError,
                       match="promotion of ui32 and i32 is not supported"):
        add(np.ones(2, np.uint32), np.ones(2, np.int32))
    with pytest.raises(TypeError,
                       match="promotion of ui16 and ui8 is not supported"):
        add(np.ones(2, np.uint16), np.ones(2, np.uint8))
    # A Python number out of the unsigned type's range wraps, as PyTorch
    # 1.13 converts it.
    np.testing.assert_array_equal(
        bcast.jit(lambda a: a + (-1))(np.ones(2, np.uint8)), [0, 0])
    np.testing.assert_array_equal(
        bcast.jit(lambda a: a - 1)(np.zeros(2, np.uint8)), [255, 255])


def test_shape_error_at_trace_time():
    @bcast.jit
    def f(a, b):
        return a + b

    with pytest.raises(ValueError) as e:
        f(np.ones((5, 2, 4, 1), F32), np.ones((3, 1, 1), F32))
    assert str(e.value) == ("The size of tensor a (2) must match the size of "
                            "tensor b (3) at non-singleton dimension 1")


def test_in_place_mutates_the_callers_array():
    @bcast.jit
    def f(x, y):
        x += y
        x *= 2.0
        return x

    x = arange((3, 4))
    before = x.copy()
    y = arange((4,))
    result = f(x, y)
    assert result is x
    np.testing.assert_array_equal(x, (before + y) * 2)


def test_in_place_without_return_and_aliasing_inputs():
    @bcast.jit
    def f(x, y):
        x -= y

    x = arange((2, 3))
    assert f(x, x[0].copy()) is None
    np.testing.assert_array_equal(x, arange((2, 3)) - arange((2, 3))[0])


def test_in_place_shape_rule():
    @bcast.jit
    def f(x, y):
        x += y
        return x

    with pytest.raises(ValueError) as e:
        f(np.ones((1, 3, 1), F32), np.ones((3, 1, 7), F32))
    assert "output with shape [1, 3, 1] doesn't match the broadcast shape " \
           "[3, 3, 7]" in str(e.value)


def test_in_place_on_a_non_contiguous_array():
    @bcast.jit
    def f(x, y):
        x += y
        return x

    base = np.zeros((4, 3), F32)
    view = base.T
    assert f(view, np.arange(4, dtype=F32)) is view
    np.testing.assert_array_equal(base.T, np.broadcast_to(np.arange(4), (3, 4)))


def test_non_contiguous_inputs():
    @bcast.jit
    def f(a, b):
        return a * b

    a = arange((6, 8))[::2, ::3]
    b = arange((3,))
    np.testing.assert_array_equal(f(a, b), a * b)


def test_where_broadcast_to():
    @bcast.jit
    def f(c, x, y):
        return bcast.where(c, x, y), bcast.broadcast_to(y, (2, 3, 4))

    c = np.array([[True], [False], [True]])
    x = arange((4,))
    y = np.array(-1.0, F32)
    w, e = f(c, x, y)
    np.testing.assert_array_equal(w, np.where(c, x, y))
    np.testing.assert_array_equal(e, np.broadcast_to(y, (2, 3, 4)))


def test_rank0_and_size0():
    @bcast.jit
    def f(a, b):
        return a + b

    np.testing.assert_array_equal(f(np.array(2.0, F32), np.array(3.0, F32)),
                                  np.array(5.0, F32))
    assert f(np.ones((0, 3), F32), np.ones(3, F32)).shape == (0, 3)


def test_dynamic_sizes_serve_many_shapes():
    @bcast.jit(dynamic=True)
    def f(a, b):
        return a * b + 1

    for shape_a, shape_b in [((2, 3), (3,)), ((4, 5), (5,)), ((4, 5), (1,)),
                             ((3, 1), (6,))]:
        a, b = arange(shape_a), arange(shape_b)
        np.testing.assert_array_equal(f(a, b), a * b + 1)
    assert len(f.cache) == 1


def test_dynamic_mismatch_raises_without_aborting():
    @bcast.jit(dynamic=True)
    def f(a, b):
        return a + b

    with pytest.raises(ValueError) as e:
        f(np.ones((2, 3), F32), np.ones(2, F32))
    assert str(e.value) == ("The size of tensor a (3) must match the size of "
                            "tensor b (2) at non-singleton dimension 1")
    # The interpreter and the kernel are still usable.
    np.testing.assert_array_equal(f(np.ones((2, 3), F32), np.ones(3, F32)),
                                  np.full((2, 3), 2, F32))


def test_static_policy():
    @bcast.jit(dynamic=True, policy="static")
    def f(a, b):
        return a + b

    np.testing.assert_array_equal(f(np.ones((2, 3), F32), np.ones(3, F32)),
                                  np.full((2, 3), 2, F32))
    with pytest.raises(ValueError, match="Incompatible vectorized shapes for "
                                         "input 1 and axis 1"):
        f(np.ones((2, 3), F32), np.ones(1, F32))


def test_specify_shape_pins_a_runtime_one():
    # The seed's second idiom: x_matrix + specify_shape(y_matrix, (None, 1))
    # broadcasts the run-time 1 under the static policy, where the plain
    # sum fails.
    @bcast.jit(dynamic=True, policy="static")
    def pinned(x, y):
        return x + bcast.specify_shape(y, (None, 1))

    @bcast.jit(dynamic=True, policy="static")
    def plain(x, y):
        return x + y

    x = np.arange(9, dtype=F32).reshape(3, 3)
    y = np.arange(3, dtype=F32).reshape(3, 1)
    np.testing.assert_array_equal(
        pinned(x, y), np.array([[0, 1, 2], [4, 5, 6], [8, 9, 10]], F32))
    np.testing.assert_array_equal(pinned(np.zeros((3, 3), F32),
                                         np.zeros((3, 1), F32)),
                                  np.zeros((3, 3), F32))
    assert "bcast.specify_shape" in pinned.inspect(x, y)["bcast"]
    with pytest.raises(ValueError, match="Incompatible vectorized shapes for "
                                         "input 1 and axis 1"):
        plain(x, y)


@pytest.mark.parametrize("dynamic", [True, False])
def test_specify_shape_wrong_size_raises(dynamic):
    # A size only known at run time is checked by the kernel, a static one
    # (dynamic=False) while tracing: the same sentence either way.
    @bcast.jit(dynamic=dynamic, policy="static")
    def f(x, y):
        return x + bcast.specify_shape(y, (None, 1))

    x, y = np.ones((3, 3), F32), np.ones((3, 1), F32)
    with pytest.raises(ValueError) as e:
        f(x, x)
    assert str(e.value) == ("SpecifyShape: dim 1 of input has shape 3, "
                            "expected 1.")
    # The kernel and the interpreter are still usable.
    np.testing.assert_array_equal(f(x, y), np.full((3, 3), 2, F32))
    # A static size that already is the one given adds no op.
    assert ("bcast.specify_shape" in f.inspect(x, y)["bcast"]) == dynamic


def test_specify_shape_rank():
    @bcast.jit(dynamic=True)
    def f(y):
        return bcast.specify_shape(y, (None, None, 1))

    with pytest.raises(ValueError, match="Input `x` is 2-dimensional and "
                                         "will never match a shape of "
                                         "length 3."):
        f(np.ones((3, 1), F32))


def test_dynamic_dims_per_argument():
    @bcast.jit(dynamic=[(0,), ()])
    def f(a, b):
        return a - b

    for rows in (1, 5):
        a, b = arange((rows, 3)), arange((3,))
        np.testing.assert_array_equal(f(a, b), a - b)
    assert len(f.cache) == 1


def test_cache_and_threads_and_inspect():
    @bcast.jit(threads=1)
    def f(a, b):
        return a + b

    a, b = arange((2, 3)), arange((3,))
    f(a, b)
    f(a, b)
    assert len(f.cache) == 1
    ir = f.inspect(a, b)
    assert "bcast.add" in ir["bcast"]
    assert "linalg.generic" in ir["linalg"]
    assert "llvm.func" in ir["llvm"] and "omp." not in ir["llvm"]
    f(arange((4, 3)), b)
    assert len(f.cache) == 2


def test_out_arrays():
    @bcast.jit
    def f(a, b):
        return a + b

    a, b = arange((2, 3)), arange((3,))
    out = np.empty((2, 3), F32)
    assert f(a, b, out=out) is out
    np.testing.assert_array_equal(out, a + b)
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=np.empty((3, 2), F32))


def test_scalar_arguments_are_run_time_operands():
    @bcast.jit
    def f(a, s):
        return a * s

    a = arange((3,))
    np.testing.assert_array_equal(f(a, 2.0), a * 2)
    np.testing.assert_array_equal(f(a, 3.0), a * 3)
    assert len(f.cache) == 1


def test_specialized_scalar_arguments_are_compiled_in():
    @bcast.jit(specialize_scalars=True)
    def f(a, s):
        return a * s

    a = arange((3,))
    np.testing.assert_array_equal(f(a, 2.0), a * 2)
    np.testing.assert_array_equal(f(a, 3.0), a * 3)
    assert len(f.cache) == 2
    assert "arith.constant dense<3.0>" in f.inspect(a, 3.0)["bcast"]
