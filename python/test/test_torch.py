"""PyTorch tensors in and out of @bcast.jit: CPU tensors are read and written
in place (no copy when contiguous), results are tensors when the inputs
were, bfloat16 works, non-contiguous tensors and tensors that require grad
are accepted, out= takes a tensor. CUDA tensors: test_cuda.py."""

import numpy as np
import pytest

import bcast

torch = pytest.importorskip("torch")

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
          torch.int64, torch.float16, torch.bfloat16, torch.float32,
          torch.float64]


def sample(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g) * 8 - 4).to(dtype)
    return torch.randint(0, 9, shape, generator=g).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_tensors_in_and_out(dtype):
    f = bcast.jit(lambda a, b: bcast.maximum(a, b))
    a, b = sample((4, 3), dtype, 1), sample((3,), dtype, 2)
    got = f(a, b)
    assert isinstance(got, torch.Tensor)
    assert got.dtype == dtype
    assert torch.equal(got, torch.maximum(a, b))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16,
                                   torch.float32, torch.float64], ids=str)
def test_chain_matches_pytorch(dtype):
    f = bcast.jit(lambda a, b, c, d: (a + b) * c - d)
    a, b, c = sample((5, 6), dtype, 1), sample((6,), dtype, 2), \
        sample((5, 1), dtype, 3)
    want = (a + b) * c - 0.5
    got = f(a, b, c, 0.5)
    assert got.dtype == want.dtype
    # PyTorch rounds each op; bcast fuses them and rounds each op too.
    assert torch.equal(got, want)


def test_mixed_dtypes_promote_as_pytorch():
    f = bcast.jit(lambda a, b: a * b)
    a = sample((3,), torch.bfloat16)
    b = sample((3,), torch.float32)
    got = f(a, b)
    assert got.dtype == torch.float32 and torch.equal(got, a * b)
    i = sample((3,), torch.int32)
    got = f(i, a)
    assert got.dtype == torch.bfloat16 and torch.equal(got, i * a)


def test_no_copy_in_place_on_a_tensor():
    @bcast.jit
    def f(x, y):
        x += y
        return x

    x, y = sample((4, 3), torch.float32), sample((3,), torch.float32)
    want = x + y
    pointer = x.data_ptr()
    got = f(x, y)
    assert got is x and x.data_ptr() == pointer
    assert torch.equal(x, want)


def test_out_tensor():
    f = bcast.jit(lambda a, b: a - b)
    a, b = sample((2, 3), torch.float32), sample((3,), torch.float32)
    out = torch.empty(2, 3)
    assert f(a, b, out=out) is out
    assert torch.equal(out, a - b)
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=torch.empty(3, 2))
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=torch.empty(2, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="out= array must be"):
        f(a, b, out=torch.empty(3, 2).t())


def test_non_contiguous_tensors():
    @bcast.jit
    def f(x, y):
        x *= y
        return x + 1

    base = sample((3, 4), torch.float32)
    x = base.t()  # (4, 3), not contiguous
    y = sample((3,), torch.float32)
    want_x = x * y
    got = f(x, y)
    assert torch.equal(x, want_x)  # written back into the view
    assert torch.equal(base, want_x.t())
    assert torch.equal(got, want_x + 1)


def test_requires_grad_and_numpy_mix():
    f = bcast.jit(lambda a, b: a + b)
    a = sample((3,), torch.float32).requires_grad_()
    b = np.arange(3, dtype=np.float32)
    got = f(a, b)
    assert isinstance(got, torch.Tensor)
    assert torch.equal(got, a.detach() + torch.from_numpy(b))


def test_bfloat16_needs_tensor_results():
    f = bcast.jit(lambda a: a.astype(bcast.bfloat16))
    with pytest.raises(TypeError, match="NumPy has no bfloat16"):
        f(np.ones(3, np.float32))
    got = f(torch.ones(3))
    assert got.dtype == torch.bfloat16 and torch.equal(got, torch.ones(3).bfloat16())


def test_negated_views_are_read_as_their_values():
    # The imaginary part of a conjugate is a float tensor whose negation bit
    # is set: its storage holds the negations of its values. DLPack exports
    # the storage as it is, and bcast read a contiguous one so (x + y gave
    # 0s below). With one element, the view is contiguous.
    z = torch.complex(torch.zeros(1), torch.full((1,), 3.0))
    one = z.conj().imag
    assert one.is_neg() and one.is_contiguous()
    longer = torch._neg_view(torch.arange(4.0))
    strided = torch.complex(torch.zeros(4), torch.arange(4.0)).conj().imag
    f = bcast.jit(lambda a, b: a + b)
    for neg in (one, longer, strided):
        y = torch.arange(float(neg.numel()))
        assert torch.equal(f(neg, y), neg + y)
        assert torch.equal(f(y, neg), y + neg)

    # In place: written back through the view, as PyTorch does.
    @bcast.jit
    def g(a, b):
        a += b
        return a

    y = torch.ones(1)
    want = one + y
    g(one, y)
    assert torch.equal(one, want)
    assert torch.equal(z.imag, -want)


def test_tensors_without_strided_data():
    f = bcast.jit(lambda a: a + 1)
    sparse = torch.ones(3).to_sparse()
    with pytest.raises((TypeError, RuntimeError, ValueError)):
        f(sparse)
    # A strided tensor after the refusal still takes the call path.
    assert torch.equal(f(torch.ones(3)), torch.full((3,), 2.0))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_new_results_are_fresh_tensors(dtype):
    f = bcast.jit(lambda a, b: (a * b, a + b))
    a, b = sample((2, 3), dtype, 3), sample((3,), dtype, 4)
    first = f(a, b)
    second = f(a, b)
    for got, want in zip(first, (a * b, a + b)):
        assert got.dtype == want.dtype and got.is_contiguous()
        assert torch.equal(got, want)
    assert first[0].data_ptr() != second[0].data_ptr()
    assert first[0].data_ptr() != first[1].data_ptr()
