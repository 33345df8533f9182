"""The call path of @bcast.jit (the extension's Dispatcher): arguments it
takes as they are, the ones it converts, out=, keyword arguments, errors,
and several signatures of one function."""

import numpy as np
import pytest

import bcast

F32 = np.float32


def test_many_signatures_alternate():
    f = bcast.jit(lambda a, b: a + b)
    shapes = [((2, 3), (3,)), ((4,), (4,)), ((2, 1), (1, 5))]
    for _ in range(3):
        for sa, sb in shapes:
            a = np.ones(sa, F32)
            b = np.full(sb, 2, F32)
            np.testing.assert_array_equal(f(a, b), a + b)
    assert len(f.cache) == 3


def test_converted_arguments():
    f = bcast.jit(lambda a, b: a * b)
    base = np.arange(12, dtype=F32).reshape(3, 4)
    np.testing.assert_array_equal(f(base.T, np.ones(3, F32)), base.T)
    np.testing.assert_array_equal(f([1.0, 2.0], np.ones(2)), [1.0, 2.0])
    swapped = np.arange(4, dtype=">f4")
    np.testing.assert_array_equal(f(swapped, np.ones(4, F32)),
                                  np.arange(4, dtype=F32))


def test_in_place_on_a_non_contiguous_array_is_copied_back():
    @bcast.jit
    def f(x, y):
        x += y
        return x

    base = np.zeros((4, 6), F32)
    view = base[:, ::2]
    got = f(view, np.ones(3, F32))
    assert got is view
    np.testing.assert_array_equal(base[:, ::2], 1)
    np.testing.assert_array_equal(base[:, 1::2], 0)


def test_out_forms_and_errors():
    f = bcast.jit(lambda a, b: (a + b, a - b))
    a, b = np.ones((2, 3), F32), np.ones(3, F32)
    o1, o2 = np.empty((2, 3), F32), np.empty((2, 3), F32)
    r1, r2 = f(a, b, out=(o1, o2))
    assert r1 is o1 and r2 is o2
    np.testing.assert_array_equal(o1, 2)
    with pytest.raises(ValueError, match="out= needs 2 arrays"):
        f(a, b, out=o1)
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=(o1, np.empty((2, 3), np.float64)))
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=(o1, np.empty((3, 2), F32).T))
    read_only = np.empty((2, 3), F32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=(o1, read_only))
    with pytest.raises(TypeError, match="only out="):
        f(a, b, output=o1)
    with pytest.raises(TypeError, match="unsupported"):
        f(a, "text")


def test_out_sharing_memory_with_an_argument():
    # The result is as if computed before it is stored (NumPy's rule): a
    # product, a product with its epilogue and a reduction read elements
    # that out= would already hold. Numbers derived by NumPy beforehand.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 8)).astype(F32)
    b = rng.standard_normal((8, 8)).astype(F32)
    for fn, expected_of in (
            (lambda x, y: x @ y, lambda x, y: x @ y),
            (lambda x, y: (x @ y) * 2.0, lambda x, y: (x @ y) * 2),
            (lambda x, y: x - x.sum(0, keepdims=True) + y,
             lambda x, y: x - x.sum(0, keepdims=True) + y)):
        f = bcast.jit(fn)
        for out_of in (lambda x, y: x, lambda x, y: y):
            x, y = a.copy(), b.copy()
            expected = expected_of(x, y)
            out = out_of(x, y)
            assert f(x, y, out=out) is out
            np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # Partly shared: out= is the second half of the buffer whose first
    # rows are the lhs.
    f = bcast.jit(lambda x, y: x @ y)
    base = np.zeros((12, 8), F32)
    base[:8] = a
    lhs, out = base[:8], base[4:]
    expected = a @ b
    f(lhs, b, out=out)
    np.testing.assert_allclose(base[4:], expected, rtol=1e-5, atol=1e-5)
    # Element-wise in place stays exact.
    g = bcast.jit(lambda x, y: x + y)
    x = a.copy()
    g(x, b, out=x)
    np.testing.assert_array_equal(x, a + b)


def test_out_tensor_sharing_memory_with_an_argument():
    torch = pytest.importorskip("torch")
    f = bcast.jit(lambda x, y: x @ y)
    t, u = torch.randn(8, 8), torch.randn(8, 8)
    expected = (t @ u).numpy()
    assert f(t, u, out=t) is t
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_wrong_argument_count_and_kinds_recompile():
    f = bcast.jit(lambda a, s: a + s)
    a = np.ones(3, F32)
    np.testing.assert_array_equal(f(a, 1), a + 1)
    np.testing.assert_array_equal(f(a, 1.5), a + 1.5)
    np.testing.assert_array_equal(f(a, True), a + 1)
    np.testing.assert_array_equal(f(a, np.ones(3, F32)), a + 1)
    assert len(f.cache) == 4
    with pytest.raises(TypeError):
        f(a)


def test_runtime_shape_error_is_a_value_error():
    f = bcast.jit(lambda a, b: a + b, dynamic=True)
    with pytest.raises(ValueError, match="must match"):
        f(np.ones((2, 3), F32), np.ones(4, F32))
    np.testing.assert_array_equal(f(np.ones((2, 3), F32), np.ones(3, F32)),
                                  2)


def test_function_attributes():
    def add(a, b):
        """Adds."""
        return a + b

    f = bcast.jit(add)
    assert f.__name__ == "add" and f.__doc__ == "Adds."
    assert isinstance(f, bcast.JitFunction)


def test_in_place_on_a_read_only_array_raises():
    @bcast.jit
    def f(x, y):
        x += y
        return x

    x = np.zeros(3, F32)
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(x, np.ones(3, F32))
    np.testing.assert_array_equal(x, 0)


def test_threads_compile_and_call_at_once():
    # Large results release the GIL while the kernel runs; other threads
    # compile and register signatures meanwhile.
    import threading

    f = bcast.jit(lambda a, b: a * b + 1)
    errors = []

    def work(rows):
        try:
            a = np.full((rows, 1024), 2, F32)
            b = np.arange(1024, dtype=F32)
            for _ in range(5):
                np.testing.assert_array_equal(f(a, b), a * b + 1)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(rows,))
               for rows in (40, 41, 42, 43)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(f.cache) == 4


def test_call_in_order_matches_the_permuted_call():
    # Dispatcher._call_in_order (bcast.torch's regions computed in memory
    # order): operands of logical shapes dense in `order`, some of lower
    # rank or broadcast, give the result of the call on their permuted
    # views, laid out in the order; an operand not dense in it is declined.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    f = bcast.jit(lambda a, b, c: a * b + c)
    declined = taken = 0
    for _ in range(60):
        rank = int(rng.integers(1, 5))
        order = tuple(int(d) for d in rng.permutation(rank))
        inverse = tuple(order.index(d) for d in range(rank))
        shape = tuple(int(s) for s in rng.integers(1, 5, rank))

        def laid_out(logical):
            padded = (1,) * (rank - len(logical)) + logical
            placed = tuple(padded[d] for d in order)
            return torch.randn(placed).permute(inverse).reshape(logical)

        b_shape = tuple(s if rng.random() < 0.6 else 1 for s in shape)
        b_shape = b_shape[int(rng.integers(0, rank + 1)):]
        a, b, c = laid_out(shape), laid_out(b_shape), laid_out(shape[1:])

        def views(*tensors):
            return [t.reshape((1,) * (rank - t.dim()) + tuple(t.shape))
                    .permute(order) for t in tensors]

        want = f(*views(a, b, c)).permute(inverse)
        got = f._call_in_order(order, (a, b, c))
        assert got is not NotImplemented
        taken += 1
        (result,) = got
        assert result.shape == want.shape
        assert torch.equal(result, want)
        assert result.permute(order).is_contiguous()
        # The contiguous copy of `a` is dense in the order only where the
        # dims larger than 1 keep their order.
        moved = a.contiguous()
        dense = moved.permute(order).is_contiguous()
        again = f._call_in_order(order, (moved, b, c))
        assert (again is NotImplemented) == (not dense), (shape, order)
        if again is NotImplemented:
            declined += 1
        else:
            assert torch.equal(again[0], want)
    assert taken == 60 and declined > 10
    # A rank the order does not cover, and arguments that are not tensors.
    x = torch.randn(2, 3, 4)
    assert f._call_in_order((1, 0), (x, x, x)) is NotImplemented
    assert f._call_in_order((0,), (np.ones(2, F32),) * 3) is NotImplemented
