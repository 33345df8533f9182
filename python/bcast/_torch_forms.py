"""PyTorch's spellings with keywords, and the in-place twins PyTorch has
(issue 28): `add`/`sub` with `alpha=`, `div` with `rounding_mode=`, `fmod`,
`remainder`, `clamp_min` and `clamp_max` as functions of the bcast namespace
and as Tensor methods, and the in-place methods `add_`, `sub_`, `div_`,
`fmod_`, `remainder_`, `clamp_min_`, `clamp_max_` and the comparisons `eq_`
... `ge_` (which store 1 or 0 in the tensor's own dtype).

Each records one dialect op with its attributes; the dialect checks what
PyTorch checks (alpha's kind and range, the rounding mode, canCast in
place), and its sentences reach the caller as ValueError when the kernel is
compiled. The shared trace (`_trace._Trace`) does the promotion and shapes.
"""

from ._dtypes import _check_int64, _float_literal
from ._tensor import Tensor, _check_bool_scalar_bound, _current

_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")


def _alpha_attr(alpha):
    """The `alpha` attribute (none for the int 1, PyTorch's default: a bool
    or float 1 still meets PyTorch's checks)."""
    if isinstance(alpha, bool):
        return f" {{alpha = {'true' if alpha else 'false'}}}"
    if isinstance(alpha, int):
        if alpha == 1:
            return ""
        return f" {{alpha = {_check_int64(alpha)} : i64}}"
    if isinstance(alpha, float):
        return f" {{alpha = {_float_literal(alpha)} : f64}}"
    raise TypeError(f"alpha must be a Python number, not {alpha!r}")


def _mode(rounding_mode):
    if not isinstance(rounding_mode, str) or not rounding_mode.isalnum():
        raise ValueError("div expected rounding_mode to be one of None, "
                         f"'trunc', or 'floor' but found '{rounding_mode}'")
    return rounding_mode


def add(x, y, alpha=1):
    """x + alpha * y (PyTorch's torch.add)."""
    return _current((x, y)).binary("add", x, y, attrs=_alpha_attr(alpha))


def sub(x, y, alpha=1):
    """x - alpha * y (PyTorch's torch.sub)."""
    return _current((x, y)).binary("sub", x, y, attrs=_alpha_attr(alpha))


def div(x, y, rounding_mode=None):
    """x / y, or rounded "trunc" or "floor" (PyTorch's torch.div)."""
    trace = _current((x, y))
    if rounding_mode is None:
        return trace.true_div(x, y)
    return trace.binary("div", x, y, mode=_mode(rounding_mode))


def fmod(x, y):
    """C's fmod: the remainder with the sign of x (torch.fmod)."""
    return _current((x, y)).binary("fmod", x, y)


def remainder(x, y):
    """The remainder with the sign of y, Python's % (torch.remainder)."""
    return _current((x, y)).binary("remainder", x, y)


def clamp_min(x, min):
    """max(x, min), NaN kept (torch.clamp_min)."""
    _check_bool_scalar_bound("clamp_min", x, min)
    return _current((x, min)).binary("clamp_min", x, min)


def clamp_max(x, max):
    """min(x, max), NaN kept (torch.clamp_max)."""
    _check_bool_scalar_bound("clamp_max", x, max)
    return _current((x, max)).binary("clamp_max", x, max)


FUNCTIONS = {"add": add, "sub": sub, "div": div, "fmod": fmod,
             "remainder": remainder, "clamp_min": clamp_min,
             "clamp_max": clamp_max}


def _add_(self, other, alpha=1):
    return self._trace.in_place("add", self, other, attrs=_alpha_attr(alpha))


def _sub_(self, other, alpha=1):
    return self._trace.in_place("sub", self, other, attrs=_alpha_attr(alpha))


def _div_(self, other, rounding_mode=None):
    if rounding_mode is None:
        return self._trace.in_place("div", self, other, true_division=True)
    return self._trace.in_place("div", self, other,
                                mode=_mode(rounding_mode))


def _in_place(op):
    def method(self, other):
        if op in ("clamp_min", "clamp_max"):
            _check_bool_scalar_bound(op, self, other)
        return self._trace.in_place(op, self, other)
    method.__name__ = op + "_"
    method.__doc__ = f"bcast.{op}_: {op} in place (PyTorch's method)."
    return method


def _out_of_place(op):
    def method(self, other):
        return self._trace.binary(op, self, other)
    method.__name__ = op
    method.__doc__ = f"bcast.{op} of this tensor and `other`."
    return method


for _name, _function in FUNCTIONS.items():
    setattr(Tensor, _name, lambda self, *args, _f=_function, **kwargs:
            _f(self, *args, **kwargs))
    getattr(Tensor, _name).__name__ = _name
Tensor.add_, Tensor.sub_, Tensor.div_ = _add_, _sub_, _div_
for _op in ("fmod", "remainder", "clamp_min", "clamp_max") + _COMPARISONS:
    setattr(Tensor, _op + "_", _in_place(_op))
for _op in _COMPARISONS:
    setattr(Tensor, _op, _out_of_place(_op))
