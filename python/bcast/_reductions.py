"""Reductions on traced tensors (issue 14): NumPy's methods and functions
(`x.sum(axis=None, keepdims=False)`, `np.mean(x, axis)`, ...) and PyTorch's
functions in the bcast namespace (`bcast.softmax(x, dim)`,
`bcast.var(x, dim, correction=1)`, `bcast.sum_to_size(x, shape)`, ...).

Every one records one bcast op: `sum mean prod amax amin any all logsumexp
var std` (with `dims` and `keepdim`), `argmax argmin` (with `dim`), `softmax
log_softmax` and `sum_to_size`. This module parses NumPy's and PyTorch's
arguments into the op's attributes; the dialect gives the result type, or
refuses the op with PyTorch's sentence (the trace's _emit asks it): the
result dtype, the dims as PyTorch wraps them, the reduced shape.

NumPy's surface follows the dialect's (PyTorch's) dtype rules, not NumPy's:
`sum`/`prod` of integers and bools give int64 (uint16..uint64: uint64;
NumPy gives uint64 for uint8 too), `mean`/`var`/`std` need floats (a
TypeError with PyTorch's sentence; NumPy would give float64), `any`/`all`
give bool (uint8 for uint8, as PyTorch). A rank-0 tensor accepts axis 0 and -1 (PyTorch). `axis=()`
(NumPy's "reduce nothing") is a ValueError: the dialect has no empty dims
list, since PyTorch and NumPy disagree on its meaning.
"""

import operator

import numpy as np

from . import _numpy
from ._dtypes import _ELEMENT, _as_dtype
from ._tensor import Tensor, _current
from ._trace import _Reduction


def _axis_list(axis, name="axis"):
    """None, or the list of ints an int or a sequence of ints gives (an
    empty one is the dialect's to refuse)."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return [operator.index(a) for a in axis]
    try:
        return [operator.index(axis)]
    except TypeError:
        raise TypeError(f"{name} must be None, an int or a tuple of ints, "
                        f"not {type(axis).__name__}") from None


def _keepdim(keepdim):
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TypeError(f"keepdims must be a bool, not {keepdim!r}")
    return bool(keepdim)


def _tensor_arg(x, op):
    trace = _current((x,))
    if not isinstance(x, Tensor) or x._trace is not trace:
        raise TypeError(f"{op} takes a bcast.Tensor of this trace")
    return trace


def _attributes(attrs):
    return f" {{{', '.join(attrs)}}}" if attrs else ""


def _dtype_attribute(dtype):
    """The op's `dtype` attribute (PyTorch's `dtype=`: the input converted
    to it first), from a NumPy, PyTorch or bcast dtype or its name; what it
    allows is the dialect's to say."""
    dtype = _as_dtype(dtype)
    if dtype not in _ELEMENT:
        raise TypeError(f"bcast does not support dtype {dtype}")
    return f"dtype = {_ELEMENT[dtype]}"


def reduce(op, x, dims=None, keepdim=False, correction=None, dtype=None):
    """Records reduction `op` of `x` over `dims` (None: every dim, else a
    list of ints) and returns its Tensor; `dtype` (sum, mean, prod):
    PyTorch's, the element type x is converted to first."""
    trace = _tensor_arg(x, op)
    keepdim = _keepdim(keepdim)
    attrs = []
    if dtype is not None:
        attrs.append(_dtype_attribute(dtype))
    if correction is not None:
        correction = operator.index(correction)
        attrs.append(f"correction = {correction} : i64")
    if dims:
        attrs.append(f"dims = array<i64: {', '.join(map(str, dims))}>")
    elif dims is not None:
        attrs.append("dims = array<i64>")
    if keepdim:
        attrs.append("keepdim = true")
    text = _attributes(attrs)
    return trace._emit(op, (x,), text, kind_extra=_Reduction(text))


def arg_reduce(op, x, dim=None, keepdim=False):
    """argmax or argmin of `x` along `dim` (None: the index into the
    flattened tensor)."""
    trace = _tensor_arg(x, op)
    keepdim = _keepdim(keepdim)
    attrs = []
    if dim is not None:
        try:
            dim = operator.index(dim)
        except TypeError:
            raise TypeError(f"{op}'s axis must be None or an int, not "
                            f"{type(dim).__name__}") from None
        attrs.append(f"dim = {dim} : i64")
    if keepdim:
        attrs.append("keepdim = true")
    text = _attributes(attrs)
    return trace._emit(op, (x,), text, kind_extra=_Reduction(text))


def _softmax(op, x, dim, dtype=None):
    trace = _tensor_arg(x, op)
    if dim is None:
        raise TypeError(f"{op} needs a dim")
    attrs = [f"dim = {operator.index(dim)} : i64"]
    if dtype is not None:
        attrs.append(_dtype_attribute(dtype))
    text = _attributes(attrs)
    return trace._emit(op, (x,), text, kind_extra=_Reduction(text))


def sum_to_size(x, *size):
    """PyTorch's Tensor.sum_to_size: `x` summed down to `size` (a tuple, or
    the sizes as arguments), which must expand to x's shape. Where it sums
    anything it is a sum, with sum's dtype (int64 for bools and integers);
    where it sums nothing it is x itself. A static size that does not
    expand is PyTorch's ValueError `size {[2, 3]} is not expandable to size
    {[4, 3]}.`; a dynamic one is checked by the kernel, with the same
    sentence."""
    trace = _tensor_arg(x, "sum_to_size")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    target = tuple(operator.index(s) for s in size)
    # PyTorch's sum_to returns the tensor itself when nothing is summed,
    # an alias that in-place ops then update too, except for a rank-0
    # target, which it always sums into a new tensor.
    if target == x.shape and target:
        return x
    # The dtype is the dialect's (None: its rule for this target).
    return trace._emit("sum_to_size", (x,), "", result=(target, None),
                       kind_extra=_Reduction("", target))


# --- NumPy's signatures (methods and __array_function__) ----------------

class _NoValue:
    """NumPy's 'argument not given'."""

    def __repr__(self):
        return "<no value>"


_NO_VALUE = _NoValue()


def _reject(name, **given):
    """TypeError naming the unsupported arguments that were given (None and
    NumPy's defaults count as not given)."""
    bad = [key for key, value in given.items()
           if value is not None and value is not _NO_VALUE and
           not (key == "where" and value is True)]
    if bad:
        raise TypeError(f"bcast's {name} does not support the argument"
                        f"{'s' if len(bad) > 1 else ''} {', '.join(bad)}")


def np_sum(a, axis=None, dtype=None, out=None, keepdims=False,
           initial=_NO_VALUE, where=_NO_VALUE):
    """NumPy's sum: bcast.sum (int64 for integers and bools)."""
    _reject("sum", dtype=dtype, out=out, initial=initial, where=where)
    return reduce("sum", a, _axis_list(axis), keepdims)


def np_prod(a, axis=None, dtype=None, out=None, keepdims=False,
            initial=_NO_VALUE, where=_NO_VALUE):
    """NumPy's prod: bcast.prod (int64 for integers and bools)."""
    _reject("prod", dtype=dtype, out=out, initial=initial, where=where)
    return reduce("prod", a, _axis_list(axis), keepdims)


def np_mean(a, axis=None, dtype=None, out=None, keepdims=False, *,
            where=_NO_VALUE):
    """NumPy's mean: bcast.mean (floats only)."""
    _reject("mean", dtype=dtype, out=out, where=where)
    return reduce("mean", a, _axis_list(axis), keepdims)


def _np_var(op):
    def function(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
                 *, where=_NO_VALUE):
        _reject(op, dtype=dtype, out=out, where=where)
        return reduce(op, a, _axis_list(axis), keepdims, correction=ddof)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = (f"NumPy's {op}: bcast.{op} with correction = ddof "
                        "(default 0, NumPy's).")
    return function


np_var = _np_var("var")
np_std = _np_var("std")


def _np_extremum(name, op):
    def function(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE,
                 where=_NO_VALUE):
        _reject(name, out=out, initial=initial, where=where)
        return reduce(op, a, _axis_list(axis), keepdims)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"NumPy's {name}: bcast.{op} (NaN propagates)."
    return function


np_max = _np_extremum("max", "amax")
np_min = _np_extremum("min", "amin")


def _np_logical(op):
    def function(a, axis=None, out=None, keepdims=False, *,
                 where=_NO_VALUE):
        _reject(op, out=out, where=where)
        return reduce(op, a, _axis_list(axis), keepdims)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = f"NumPy's {op}: bcast.{op} (a bool result)."
    return function


np_any = _np_logical("any")
np_all = _np_logical("all")


def _np_arg(op):
    def function(a, axis=None, out=None, *, keepdims=False):
        _reject(op, out=out)
        return arg_reduce(op, a, axis, keepdims)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = (f"NumPy's {op}: bcast.{op} (int64; no axis: the "
                        "index into the flattened tensor).")
    return function


np_argmax = _np_arg("argmax")
np_argmin = _np_arg("argmin")

_NUMPY_FUNCTIONS = {
    "sum": np_sum, "prod": np_prod, "product": np_prod, "mean": np_mean,
    "var": np_var, "std": np_std, "max": np_max, "amax": np_max,
    "min": np_min, "amin": np_min, "any": np_any, "all": np_all,
    "argmax": np_argmax, "argmin": np_argmin,
}
_METHODS = {
    "sum": np_sum, "prod": np_prod, "mean": np_mean, "var": np_var,
    "std": np_std, "max": np_max, "min": np_min, "any": np_any,
    "all": np_all, "argmax": np_argmax, "argmin": np_argmin,
}


# --- PyTorch's signatures, in the bcast namespace ------------------------

def _torch_reduction(op, doc, takes_dtype=False):
    if takes_dtype:
        def function(x, dim=None, keepdim=False, *, dtype=None):
            return reduce(op, x, _axis_list(dim, "dim"), keepdim,
                          dtype=dtype)
    else:
        def function(x, dim=None, keepdim=False):
            return reduce(op, x, _axis_list(dim, "dim"), keepdim)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = doc
    return function


def softmax(x, dim, dtype=None):
    """PyTorch's softmax along `dim` (floats only; stable: the maximum is
    subtracted first); `dtype`: x converted to it first."""
    return _softmax("softmax", x, dim, dtype)


def log_softmax(x, dim, dtype=None):
    """PyTorch's log_softmax along `dim` (floats only); `dtype`: x
    converted to it first."""
    return _softmax("log_softmax", x, dim, dtype)


def var(x, dim=None, correction=1, keepdim=False):
    """PyTorch's var: the sum of squared deviations over `dim` divided by
    max(0, N - correction) (default 1, Bessel's correction)."""
    return reduce("var", x, _axis_list(dim, "dim"), keepdim,
                  correction=correction)


def std(x, dim=None, correction=1, keepdim=False):
    """PyTorch's std: the square root of var (correction default 1)."""
    return reduce("std", x, _axis_list(dim, "dim"), keepdim,
                  correction=correction)


def argmax(x, dim=None, keepdim=False):
    """PyTorch's argmax (int64; no dim: the index into the flattened
    tensor; ties give the first index)."""
    return arg_reduce("argmax", x, dim, keepdim)


def argmin(x, dim=None, keepdim=False):
    """PyTorch's argmin (as argmax)."""
    return arg_reduce("argmin", x, dim, keepdim)


# bcast.sum, bcast.any, bcast.all, ... (PyTorch's names; inside the bcast
# namespace only, where sum, any and all shadow Python's builtins as torch's
# do).
TORCH_FUNCTIONS = {
    "softmax": softmax, "log_softmax": log_softmax,
    "sum_to_size": sum_to_size, "var": var, "std": std, "argmax": argmax,
    "argmin": argmin,
    "logsumexp": _torch_reduction(
        "logsumexp", "PyTorch's logsumexp over `dim` (stable; float32 for "
        "integers and bools)."),
    "amax": _torch_reduction("amax", "PyTorch's amax over `dim` (NaN "
                             "propagates)."),
    "amin": _torch_reduction("amin", "PyTorch's amin over `dim` (NaN "
                             "propagates)."),
    "mean": _torch_reduction("mean", "PyTorch's mean over `dim` (floats "
                             "only; `dtype`, a float: x converted to it "
                             "first).", takes_dtype=True),
    "prod": _torch_reduction("prod", "PyTorch's prod over `dim` (int64 for "
                             "integers and bools; `dtype`: x converted to "
                             "it first, and the result's).",
                             takes_dtype=True),
    "sum": _torch_reduction("sum", "PyTorch's sum over `dim` (int64 for "
                            "integers and bools; `dtype`: x converted to it "
                            "first, and the result's).", takes_dtype=True),
    "any": _torch_reduction("any", "PyTorch's any over `dim` (a bool "
                            "result; uint8 for uint8)."),
    "all": _torch_reduction("all", "PyTorch's all over `dim` (a bool "
                            "result; uint8 for uint8)."),
}


def _install():
    """NumPy's methods on Tensor, PyTorch's softmax, log_softmax, logsumexp
    and sum_to_size methods, and NumPy's functions in __array_function__."""
    for name, function in _METHODS.items():
        setattr(Tensor, name, function)
    Tensor.softmax = softmax
    Tensor.log_softmax = log_softmax
    for name in ("logsumexp", "sum_to_size", "amax", "amin"):
        setattr(Tensor, name, TORCH_FUNCTIONS[name])
    _numpy._ARRAY_FUNCTIONS.update(_NUMPY_FUNCTIONS)


_install()
