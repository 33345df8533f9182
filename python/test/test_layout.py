"""Permuted dims in @bcast.jit (bcast.permute): `x.permute(*dims)`,
`x.transpose(d0, d1)`, `x.mT`, `x.T`, `np.transpose`, `np.swapaxes` and
`bcast.permute`, against PyTorch 1.13 and NumPy computed at test time: every
rank from 0, negative dims, every dtype family, `?` sizes, a permute read by
an element-wise op and by a matmul on both routes (f32/f64 through the
BLAS, integers through the loops, broadcast batch dims), the attention
written out; and the errors PyTorch and NumPy raise, with their
sentences."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import bcast

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)


def sample(shape, dtype):
    if dtype == np.bool_:
        return np.asarray(RNG.random(shape) < 0.5)
    if np.issubdtype(dtype, np.floating):
        return RNG.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


def torch_error(fn, *args):
    """The exception PyTorch raises for fn(*args), as (type, message)."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - whatever torch raises
        return type(e), str(e)
    raise AssertionError("torch accepted it")


@pytest.mark.parametrize("shape,dims", [
    ((), ()), ((5,), (0,)), ((5,), (-1,)), ((2, 3), (1, 0)),
    ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (-1, 0, -2)),
    ((2, 1, 3, 4), (0, 1, 3, 2)), ((2, 0, 3), (2, 1, 0))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8,
                                   np.uint8, np.bool_])
def test_permute_as_torch(shape, dims, dtype):
    x = sample(shape, dtype)
    got = bcast.jit(lambda a: a.permute(dims))(x)
    want = torch.from_numpy(np.array(x)).permute(dims).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    got = bcast.jit(lambda a: bcast.permute(a, dims))(x)
    np.testing.assert_array_equal(got, want)


def test_permute_without_dims_is_torch_type_error():
    kind, message = torch_error(lambda: torch.zeros(2, 3).permute())
    assert kind is TypeError
    with pytest.raises(TypeError) as e:
        bcast.jit(lambda a: a.permute())(np.zeros((2, 3), np.float32))
    assert str(e.value) == message


def test_permute_takes_a_tuple_and_torch_tensors():
    x = torch.randn(2, 3, 4)
    got = bcast.jit(lambda a: a.permute((2, 0, 1)))(x)
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, x.permute(2, 0, 1), rtol=0, atol=0)


@pytest.mark.parametrize("shape,d0,d1", [
    ((2, 3), 0, 1), ((2, 3, 4), -1, -2), ((2, 3, 4), 0, 2), ((2, 3), 1, 1),
    ((), 0, -1), ((4,), 0, -1)])
def test_transpose_as_torch(shape, d0, d1):
    x = sample(shape, np.float32)
    got = bcast.jit(lambda a: a.transpose(d0, d1))(x)
    want = torch.from_numpy(x).transpose(d0, d1).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (2, 1, 3, 5)])
def test_mT_as_torch(shape):
    x = sample(shape, np.int64)
    got = bcast.jit(lambda a: a.mT)(x)
    np.testing.assert_array_equal(got, torch.from_numpy(x).mT.numpy())


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_T_reverses_every_dim_as_both(shape):
    x = sample(shape, np.float32)
    np.testing.assert_array_equal(bcast.jit(lambda a: a.T)(x), x.T)
    t = torch.from_numpy(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = t.T.numpy()
    np.testing.assert_array_equal(bcast.jit(lambda a: a.T)(t).numpy(), want)


def test_T_warns_as_torch_for_torch_tensors_not_2d():
    # PyTorch warns once per process: ask a fresh one for its sentence.
    torch_message = subprocess.run(
        [sys.executable, "-c",
         "import warnings, torch\n"
         "with warnings.catch_warnings(record=True) as w:\n"
         "    warnings.simplefilter('always')\n"
         "    torch.zeros(2, 3, 4).T\n"
         "print(w[0].message)"],
        capture_output=True, text=True, check=True).stdout.strip()
    t = torch.randn(2, 3, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bcast.jit(lambda a: a.T)(t)
    messages = [str(w.message) for w in caught
                if issubclass(w.category, UserWarning)]
    assert len(messages) == 1
    # PyTorch appends where in its C++ it was triggered.
    assert torch_message.startswith(messages[0])
    # NumPy's .T and a 2-D tensor's: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bcast.jit(lambda a: a.T)(np.ones((2, 3, 4), np.float32))
        bcast.jit(lambda a: a.T)(torch.ones(2, 3))


@pytest.mark.parametrize("shape,axes", [
    ((2, 3, 4), None), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4), (-1, 0, 1)),
    ((5,), None), ((), None)])
def test_np_transpose(shape, axes):
    x = sample(shape, np.float64)
    got = bcast.jit(lambda a: np.transpose(a, axes))(x)
    np.testing.assert_array_equal(got, np.transpose(x, axes))


@pytest.mark.parametrize("a1,a2", [(0, 2), (-1, 0), (1, 1)])
def test_np_swapaxes(a1, a2):
    x = sample((2, 3, 4), np.int16)
    got = bcast.jit(lambda a: np.swapaxes(a, a1, a2))(x)
    np.testing.assert_array_equal(got, np.swapaxes(x, a1, a2))


def test_dynamic_sizes():
    f = bcast.jit(lambda a: a.permute(2, 0, 1) * 2, dynamic=True)
    for shape in [(2, 3, 4), (1, 5, 2), (3, 0, 1)]:
        x = sample(shape, np.float32)
        np.testing.assert_array_equal(f(x), np.transpose(x, (2, 0, 1)) * 2)


def test_elementwise_consumer():
    x, y = sample((4, 3), np.float32), sample((3, 4), np.float32)
    got = bcast.jit(lambda a, b: a.T + b)(x, y)
    np.testing.assert_array_equal(got, x.T + y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_matmul_with_transposed_operands(dtype):
    # f32 and f64 go to the BLAS through a transposed view, int32 to the
    # loops; both operands, broadcast batch dims.
    q = sample((2, 1, 5, 4), dtype)
    k = sample((3, 6, 4), dtype)
    w = sample((7, 4), dtype)
    f = bcast.jit(lambda a, b, c: (a @ b.transpose(-1, -2), b @ c.T,
                                   a.mT @ a))
    got = f(q, k, w)
    tq, tk, tw = (torch.from_numpy(x) for x in (q, k, w))
    wants = (tq @ tk.transpose(-1, -2), tk @ tw.T, tq.mT @ tq)
    for g, want in zip(got, wants):
        want = want.numpy()
        assert g.shape == want.shape and g.dtype == want.dtype
        if dtype == np.int32:
            np.testing.assert_array_equal(g, want)
        else:
            tol = 1e-5 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(g, want, rtol=tol, atol=tol)


def test_matmul_with_transposed_operand_dynamic_sizes():
    f = bcast.jit(lambda a, b: a @ b.transpose(-1, -2), dynamic=True)
    for qs, ks in [((2, 3, 5, 4), (2, 3, 6, 4)), ((2, 1, 5, 4), (1, 3, 6, 4)),
                   ((1, 1, 1, 2), (2, 2, 3, 2))]:
        q, k = sample(qs, np.float32), sample(ks, np.float32)
        want = (torch.from_numpy(q) @ torch.from_numpy(k).transpose(-1, -2))
        np.testing.assert_allclose(f(q, k), want.numpy(), rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("mask_shape", [(2, 1, 1, 16), (1, 1, 8, 16)])
def test_attention_written_out(mask_shape):
    q = sample((2, 3, 8, 4), np.float32)
    k = sample((2, 3, 16, 4), np.float32)
    v = sample((2, 3, 16, 4), np.float32)
    mask = np.where(RNG.random(mask_shape) < 0.3, -1e4, 0).astype(np.float32)

    @bcast.jit
    def attention(q, k, v, mask):
        return bcast.softmax(q @ k.transpose(-1, -2) * 0.5 + mask, -1) @ v

    tq, tk, tv, tm = (torch.from_numpy(x) for x in (q, k, v, mask))
    want = torch.softmax(tq @ tk.transpose(-1, -2) * 0.5 + tm, -1) @ tv
    np.testing.assert_allclose(attention(q, k, v, mask), want.numpy(),
                               rtol=1e-5, atol=1e-5)


# The errors: PyTorch's sentences; a dim out of range is an IndexError (a
# DimensionError, also a ValueError), PyTorch's RuntimeErrors ValueErrors.
@pytest.mark.parametrize("shape,dims", [
    ((2, 3, 4), (0, 1)), ((2, 3, 4), (5,)), ((2, 3, 4), (0, 1, 3)),
    ((2, 3, 4), (0, 1, -4)), ((2, 3, 4), (0, 1, 1)), ((2, 3, 4), (1, 1, 5)),
    ((2, 3, 4), (1, 5, 1)), ((), (0,))])
def test_permute_errors_as_torch(shape, dims):
    kind, message = torch_error(lambda: torch.zeros(shape).permute(*dims))
    with pytest.raises(IndexError if kind is IndexError else ValueError) as e:
        bcast.jit(lambda a: a.permute(*dims))(np.zeros(shape, np.float32))
    assert str(e.value) == message
    if "len(dims)" in message:
        # Whatever the dims, a wrong length is not a dim out of range.
        assert not isinstance(e.value, IndexError)


@pytest.mark.parametrize("shape,d0,d1", [((2, 3), 0, 2), ((2, 3), -3, 0),
                                          ((), 0, 1)])
def test_transpose_errors_as_torch(shape, d0, d1):
    kind, message = torch_error(lambda: torch.zeros(shape).transpose(d0, d1))
    assert kind is IndexError
    with pytest.raises(IndexError) as e:
        bcast.jit(lambda a: a.transpose(d0, d1))(np.zeros(shape, np.float32))
    assert str(e.value) == message


def test_mT_error_as_torch():
    kind, message = torch_error(lambda: torch.zeros(3).mT)
    with pytest.raises(ValueError) as e:
        bcast.jit(lambda a: a.mT)(np.zeros(3, np.float32))
    assert str(e.value) == message


@pytest.mark.parametrize("axes", [(0, 1), (0, 1, 1), (0, 1, 3)])
def test_np_transpose_errors_as_numpy(axes):
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(Exception) as want:
        np.transpose(x, axes)
    with pytest.raises(ValueError) as e:
        bcast.jit(lambda a: np.transpose(a, axes))(x)
    assert str(e.value) == str(want.value)
    assert isinstance(e.value, IndexError) == isinstance(want.value,
                                                         IndexError)


def test_np_swapaxes_error_as_numpy():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(Exception) as want:
        np.swapaxes(x, 0, 3)
    with pytest.raises(ValueError) as e:
        bcast.jit(lambda a: np.swapaxes(a, 0, 3))(x)
    assert str(e.value) == str(want.value)
