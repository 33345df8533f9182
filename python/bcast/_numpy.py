"""NumPy interop: NumPy's ufuncs and functions on traced tensors
(__array_ufunc__, __array_function__) become bcast ops; anything bcast does
not have is a TypeError naming it. _reductions adds NumPy's reductions to
the functions.
"""

from ._tensor import (Tensor, _clamp, _current, _nary_function,
                      _unary_function, matmul, where)


def _binary(op):
    return lambda x, y: _current((x, y)).binary(op, x, y)


def _true_divide(x, y):
    return _current((x, y)).true_div(x, y)


def _floor_divide(x, y):
    return _current((x, y)).binary("div", x, y, mode="floor")


def _array_round(a, decimals=0, out=None):
    if decimals != 0 or out is not None:
        raise TypeError("bcast supports numpy.round with decimals=0 and no "
                        "out= only")
    return _current((a,)).unary("round", a)


def _array_clip(a, a_min=None, a_max=None, out=None, **kwargs):
    if out is not None or kwargs:
        raise TypeError("bcast supports numpy.clip(a, a_min, a_max) only")
    return _clamp(a, a_min, a_max)


def _array_where(condition, x=None, y=None):
    if x is None or y is None:
        raise TypeError("bcast supports numpy.where(condition, x, y) only")
    return where(condition, x, y)


# NumPy ufunc name -> bcast operation on traced tensors.
_UFUNCS = {
    "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt",
    "reciprocal": "reciprocal", "sin": "sin", "cos": "cos", "tan": "tan",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "absolute": "abs", "negative": "neg", "sign": "sign",
    "floor": "floor", "ceil": "ceil", "rint": "round", "trunc": "trunc",
    "logical_not": "logical_not", "invert": "bitwise_not", "isnan": "isnan",
    "isinf": "isinf", "isfinite": "isfinite",
}
_UFUNCS = {name: _unary_function(op) for name, op in _UFUNCS.items()}
_UFUNCS.update({
    "positive": lambda x: x,
    "add": _binary("add"), "subtract": _binary("sub"),
    "matmul": matmul,
    "multiply": _binary("mul"), "true_divide": _true_divide,
    "divide": _true_divide, "floor_divide": _floor_divide,
    "remainder": _binary("remainder"), "fmod": _binary("fmod"),
    "power": _binary("pow"), "maximum": _binary("maximum"),
    "minimum": _binary("minimum"), "bitwise_and": _binary("and"),
    "bitwise_or": _binary("or"), "bitwise_xor": _binary("xor"),
    "equal": _binary("eq"), "not_equal": _binary("ne"),
    "less": _binary("lt"), "less_equal": _binary("le"),
    "greater": _binary("gt"), "greater_equal": _binary("ge"),
})
_UFUNCS.update({
    "arctan2": _nary_function("atan2"), "copysign": _nary_function("copysign"),
    "hypot": _nary_function("hypot"),
    "left_shift": _nary_function("bitwise_left_shift"),
    "right_shift": _nary_function("bitwise_right_shift"),
    "logical_and": _nary_function("logical_and"),
    "logical_or": _nary_function("logical_or"),
    "logical_xor": _nary_function("logical_xor"),
})
_ARRAY_FUNCTIONS = {"where": _array_where, "clip": _array_clip,
                    "round": _array_round, "around": _array_round,
                    "round_": _array_round}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    name = f"numpy.{ufunc.__name__}"
    if method != "__call__":
        raise TypeError(f"bcast does not support {name}.{method}")
    if kwargs:
        raise TypeError(f"bcast does not support {name} with keyword "
                        f"arguments {sorted(kwargs)}")
    op = _UFUNCS.get(ufunc.__name__)
    if op is None:
        raise TypeError(f"bcast does not support {name}")
    return op(*inputs)


def _array_function(self, func, types, args, kwargs):
    op = _ARRAY_FUNCTIONS.get(func.__name__)
    if op is None:
        raise TypeError(f"bcast does not support numpy.{func.__name__}")
    return op(*args, **kwargs)


Tensor.__array_ufunc__ = _array_ufunc
Tensor.__array_function__ = _array_function
