"""Arguments updated in place that share memory with other arguments: the
kernel reads every argument as it was when the call began, so a shared
argument the function reads only before the update is read from a copy
(NumPy's rule for an operand overlapping an output; PyTorch refuses a
partial overlap with the updating op's own operand), and one read after the
update, or updated too, is refused. Expected numbers come from NumPy and
PyTorch running the same statements."""

import numpy as np
import pytest

import bcast

F32 = np.float32

READ_AFTER = ("argument 1 shares memory with argument 0, which is updated "
              "in place before argument 1 is read: pass a copy of argument 1")
BOTH = ("arguments 0 and 1 share memory and are both updated in place: "
        "pass arrays that do not")
PARTIAL = ("unsupported operation: some elements of the input tensor and "
           "the written-to tensor refer to a single memory location. Please "
           "clone() the tensor before performing the operation.")


@bcast.jit
def add_into(x, y):
    x += y


@bcast.jit
def add_doubled_into(x, y):
    z = y * 2.0
    x += z


@bcast.jit
def subtract_column_sums(x, y):
    x -= y.sum(0)


@bcast.jit
def add_product(x, y, w):
    x += y @ w


@bcast.jit
def read_after(x, y):
    x += 1.0
    return y * 2.0


@bcast.jit
def both_updated(x, y):
    x += 1.0
    y += 1.0


@bcast.jit
def other_unread(x, y):
    x += 1.0


def grid():
    return np.arange(20, dtype=F32).reshape(4, 5)


def test_numpy_operands_read_as_numpy_reads_them():
    cases = (
        ("row", lambda a: (a, a[0])),
        ("shifted rows", lambda a: (a[1:], a[:-1])),
        ("the same array", lambda a: (a, a)),
    )
    for name, pick in cases:
        expected = grid()
        x, y = pick(expected)
        x += y
        a = grid()
        add_into(*pick(a))
        np.testing.assert_array_equal(a, expected, err_msg=name)


def test_reductions_and_products_read_the_old_values():
    expected = grid()
    expected -= expected.sum(0)
    a = grid()
    subtract_column_sums(a, a)
    np.testing.assert_array_equal(a, expected)

    w = (np.arange(25, dtype=F32).reshape(5, 5) % 3 - 1) / 4
    expected = grid()
    expected[1:] += expected[:-1] @ w
    a = grid()
    add_product(a[1:], a[:-1], w)
    np.testing.assert_allclose(a, expected, rtol=1e-6)


def test_a_shared_argument_read_after_the_update_is_refused():
    a = grid()
    with pytest.raises(ValueError) as e:
        read_after(a, a[1])
    assert str(e.value) == READ_AFTER
    # Refused before anything is written.
    np.testing.assert_array_equal(a, grid())
    # Separate arrays: the function's values.
    a, b = grid(), grid()[1]
    np.testing.assert_array_equal(read_after(a, b), b * 2)
    np.testing.assert_array_equal(a, grid() + 1)


def test_two_shared_arguments_updated_in_place_are_refused():
    a = grid()
    with pytest.raises(ValueError) as e:
        both_updated(a, a[2])
    assert str(e.value) == BOTH
    np.testing.assert_array_equal(a, grid())
    a, b = grid(), grid()[2].copy()
    both_updated(a, b)
    np.testing.assert_array_equal(a, grid() + 1)
    np.testing.assert_array_equal(b, grid()[2] + 1)


def test_an_unread_shared_argument_is_not_checked():
    a = grid()
    other_unread(a, a)
    np.testing.assert_array_equal(a, grid() + 1)


def test_converted_arguments_are_checked_as_the_caller_passed_them():
    # Strided views reach the kernel as contiguous copies; the refusal is
    # decided on the caller's arrays, the values as NumPy computes them.
    base = np.arange(40, dtype=F32).reshape(4, 10)
    with pytest.raises(ValueError) as e:
        read_after(base[:, ::2], base[1, ::2])
    assert str(e.value) == READ_AFTER
    expected = base.copy()
    view = expected[:, ::2]
    view += view[0]
    add_into(base[:, ::2], base[0, ::2])
    np.testing.assert_array_equal(base, expected)


def test_torch_refuses_a_partly_shared_operand_as_eager_does():
    torch = pytest.importorskip("torch")

    def grid_t():
        return torch.arange(20, dtype=torch.float32).reshape(4, 5)

    t = grid_t()
    with pytest.raises(RuntimeError) as eager:
        t.add_(t[0])
    t = grid_t()
    with pytest.raises(RuntimeError) as e:
        add_into(t, t[0])
    assert str(e.value) == str(eager.value) == PARTIAL
    assert torch.equal(t, grid_t())
    # A transposed view, converted to a contiguous copy: the same refusal.
    t = torch.arange(16, dtype=torch.float32).reshape(4, 4)
    with pytest.raises(RuntimeError) as e:
        add_into(t.T, t[0])
    assert str(e.value) == PARTIAL
    # Views that do not fill their span (ATen's "too hard" to tell): eager
    # neither refuses nor reads old values (its result follows its loop
    # order); bcast reads the old values, as NumPy does.
    t = torch.arange(40, dtype=torch.float32).reshape(4, 10)
    expected = t[:, ::2] + t[0, ::2]
    add_into(t[:, ::2], t[0, ::2])
    assert torch.equal(t[:, ::2], expected)
    # The same tensor twice: eager's x.add_(x).
    t, expected = grid_t(), grid_t()
    expected.add_(expected)
    add_into(t, t)
    assert torch.equal(t, expected)
    # Read by another op before the update: eager computes it without
    # complaint, from the old values.
    t, expected = grid_t(), grid_t()
    expected.add_(expected[0] * 2.0)
    add_doubled_into(t, t[0])
    assert torch.equal(t, expected)
    with pytest.raises(ValueError) as e:
        read_after(t, t[1])
    assert str(e.value) == READ_AFTER


def test_a_new_signature_with_converted_arguments_is_checked():
    # The first call compiles (the check is made where the kernel is
    # registered), the second finds the kernel (checked before the call).
    @bcast.jit
    def f(x, y):
        x += 1.0
        return y * 2.0

    base = np.arange(40, dtype=F32).reshape(4, 10)
    for _ in range(2):
        with pytest.raises(ValueError) as e:
            f(base[:, ::2], base[1, ::2])
        assert str(e.value) == READ_AFTER
    np.testing.assert_array_equal(base, np.arange(40, dtype=F32).reshape(4, 10))
