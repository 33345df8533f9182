"""Layout: the ops that read a traced tensor in another order of its dims,
all recorded as one bcast.permute. PyTorch's `x.permute(*dims)`,
`x.transpose(d0, d1)`, `x.mT`, `x.T`; NumPy's `np.transpose(x, axes)` and
`np.swapaxes(x, a, b)`; `bcast.permute(x, dims)`. The dims are checked by
the dialect (PyTorch 1.13's sentences: a DimensionError, both ValueError and
IndexError, for a dim out of range; ValueError for a wrong length or a
repeated dim, which PyTorch raises as RuntimeError). NumPy's own checks
(its AxisError and "axes don't match array") are made here for the NumPy
functions, before the op is recorded.
"""

import operator
import warnings

from . import _numpy
from ._tensor import Tensor
from ._trace import _Reduction


def _index(value, what):
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int, not "
                        f"{type(value).__name__}") from None


def permute(x, dims):
    """PyTorch's `x.permute(dims)`: result dim i is dim `dims[i]` of `x`
    (negative dims count from the end). Never copied where an element-wise
    op or a matmul reads it (docs/Semantics.md)."""
    if not isinstance(x, Tensor):
        raise TypeError("permute takes a bcast.Tensor (call it inside a "
                        "@bcast.jit function)")
    dims = tuple(_index(d, "a permute dim") for d in dims)
    text = f" {{dims = array<i64{': ' if dims else ''}" \
           f"{', '.join(map(str, dims))}>}}"
    return x._trace._emit("permute", (x,), text, kind_extra=_Reduction(text))


def _permute_method(self, *dims):
    # x.permute(0, 2, 1) and x.permute((0, 2, 1)), as PyTorch takes both;
    # x.permute() is PyTorch's TypeError (a rank-0 tensor takes `()`).
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: '
                        '"dims"')
    if len(dims) == 1 and not isinstance(dims[0], int) and \
            hasattr(dims[0], "__iter__"):
        dims = tuple(dims[0])
    return permute(self, dims)


def _wrap(dim, rank):
    """PyTorch's maybe_wrap_dim for one dim (a rank-0 tensor wraps as rank
    1), with its IndexError."""
    wrap = max(rank, 1)
    if not -wrap <= dim < wrap:
        raise IndexError("Dimension out of range (expected to be in range of "
                         f"[{-wrap}, {wrap - 1}], but got {dim})")
    return dim + wrap if dim < 0 else dim


def _swap(x, d0, d1):
    """The permutation that swaps d0 and d1 (wrapped), as a permute."""
    dims = list(range(x.ndim))
    if x.ndim:
        dims[d0], dims[d1] = dims[d1], dims[d0]
    return permute(x, dims)


def transpose(x, dim0, dim1):
    """PyTorch's `x.transpose(dim0, dim1)`: swaps two dims (negative ones
    count from the end; IndexError out of range). Not NumPy's
    `ndarray.transpose(*axes)`, which is `np.transpose` here."""
    d0 = _wrap(_index(dim0, "dim0"), x.ndim)
    d1 = _wrap(_index(dim1, "dim1"), x.ndim)
    return _swap(x, d0, d1)


def _mT(self):
    """PyTorch's `x.mT`: the last two dims swapped (at least 2-D)."""
    if self.ndim < 2:
        raise ValueError("tensor.mT is only supported on matrices or batches "
                         f"of matrices. Got {self.ndim}-D tensor.")
    return _swap(self, self.ndim - 2, self.ndim - 1)


# PyTorch 1.13's UserWarning for `x.T` on a tensor that is not 2-D (NumPy's
# `.T` reverses the dims silently).
_T_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to "
              "reverse their shape is deprecated and it will throw an error "
              "in a future release. Consider `x.mT` to transpose batches of "
              "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
              "reverse the dimensions of a tensor.")


def _T(self):
    """`x.T`: every dim reversed, as both PyTorch 1.13 and NumPy do for any
    rank; PyTorch's deprecation warning for a rank other than 2 where the
    function was called with a torch tensor."""
    if self.ndim != 2 and self._trace.torch_inputs:
        warnings.warn(_T_WARNING, UserWarning, stacklevel=2)
    return permute(self, tuple(range(self.ndim - 1, -1, -1)))


def _np_axis(axis, rank, name=None):
    axis = _index(axis, "an axis")
    if not -rank <= axis < rank:
        prefix = f"{name}: " if name else ""
        raise _AxisError(f"{prefix}axis {axis} is out of bounds for array of "
                         f"dimension {rank}")
    return axis + rank if axis < 0 else axis


class _AxisError(ValueError, IndexError):
    """NumPy's AxisError (a ValueError and an IndexError)."""


def np_transpose(a, axes=None):
    """NumPy's transpose: every axis reversed, or `axes` (a permutation;
    NumPy's ValueError "axes don't match array" for a wrong length,
    "repeated axis in transpose" for a repeat, AxisError out of range)."""
    if axes is None:
        return permute(a, tuple(range(a.ndim - 1, -1, -1)))
    axes = tuple(axes)
    if len(axes) != a.ndim:
        raise ValueError("axes don't match array")
    wrapped = [_np_axis(axis, a.ndim) for axis in axes]
    if len(set(wrapped)) != len(wrapped):
        raise ValueError("repeated axis in transpose")
    return permute(a, wrapped)


def np_swapaxes(a, axis1, axis2):
    """NumPy's swapaxes (AxisError naming axis1 or axis2 out of range)."""
    d0 = _np_axis(axis1, a.ndim, "axis1")
    d1 = _np_axis(axis2, a.ndim, "axis2")
    return _swap(a, d0, d1)


def _install():
    Tensor.permute = _permute_method
    Tensor.transpose = transpose
    Tensor.mT = property(_mT)
    Tensor.T = property(_T)
    _numpy._ARRAY_FUNCTIONS.update({"transpose": np_transpose,
                                    "swapaxes": np_swapaxes})


_install()
