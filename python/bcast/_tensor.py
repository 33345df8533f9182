"""The traced tensor: bcast.Tensor, the value a @bcast.jit function computes
with while it is traced, and _Scalar, a Python scalar argument known at run
time only; their operators and methods, and the element-wise functions of
the bcast namespace (bcast.exp, bcast.where, bcast.clamp, ...). Each records
one op through the tensor's trace (_trace._Trace).
"""

from ._dtypes import (_CARRIER, _as_dtype, _float_literal, _shape_text,
                      _tensor_type)


# The element-wise functions on traced tensors (methods, bcast.<name>, NumPy
# ufuncs): what each accepts and gives is the dialect's to say (_emit).
UNARY_OPS = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
             "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "asin",
             "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
             "atanh", "sigmoid", "erf", "erfc", "silu", "gelu",
             "logical_not", "isnan", "isinf", "isfinite", "abs", "neg",
             "sign", "floor", "ceil", "round", "trunc", "relu",
             "bitwise_not")
# PyTorch has no in-place method for these.
_NO_IN_PLACE = ("silu", "gelu", "isnan", "isinf", "isfinite")
BINARY_FUNCTIONS = ("atan2", "copysign", "logical_and", "logical_or",
                    "logical_xor", "hypot", "bitwise_left_shift",
                    "bitwise_right_shift")
TERNARY_OPS = ("clamp", "lerp", "addcmul", "addcdiv")


class Tensor:
    """A tensor while tracing: an SSA value with a shape (None for a size
    only known at run time) and a NumPy dtype. Operators record bcast ops."""

    __array_priority__ = 1000  # NumPy scalars defer to our operators.

    def __init__(self, trace, node, shape, dtype):
        self._trace = trace
        self._node = node
        self.shape = tuple(shape)
        self.dtype = _as_dtype(dtype)
        self._type = _tensor_type(self.shape, self.dtype)  # as MLIR writes it

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"bcast.Tensor(shape={_shape_text(self.shape)}, dtype={self.dtype})"

    def __bool__(self):
        raise TypeError("a traced bcast.Tensor has no truth value; use "
                        "bcast.where for element-wise choices")

    __hash__ = object.__hash__

    def astype(self, dtype):
        """Converts the elements (bcast.cast, PyTorch's .to(dtype))."""
        return self._trace.cast(self, dtype)

    # Binary operators (and their reflected forms for scalars on the left).
    def __add__(self, other): return self._trace.binary("add", self, other)
    def __radd__(self, other): return self._trace.binary("add", other, self)
    def __sub__(self, other): return self._trace.binary("sub", self, other)
    def __rsub__(self, other): return self._trace.binary("sub", other, self)
    def __mul__(self, other): return self._trace.binary("mul", self, other)
    def __rmul__(self, other): return self._trace.binary("mul", other, self)
    def __truediv__(self, other):
        return self._trace.true_div(self, other, operator=True)
    def __rtruediv__(self, other):
        return self._trace.true_div(other, self, operator=True)
    def __floordiv__(self, other):
        return self._trace.binary("div", self, other, "floor")
    def __rfloordiv__(self, other):
        return self._trace.binary("div", other, self, "floor")
    def __mod__(self, other): return self._trace.binary("remainder", self, other)
    def __rmod__(self, other): return self._trace.binary("remainder", other, self)
    def __pow__(self, other): return self._trace.binary("pow", self, other)
    def __matmul__(self, other): return self._trace.matmul(self, other)
    def __rmatmul__(self, other): return self._trace.matmul(other, self)
    def __rpow__(self, other): return self._trace.binary("pow", other, self)
    def __and__(self, other): return self._trace.binary("and", self, other)
    def __rand__(self, other): return self._trace.binary("and", other, self)
    def __or__(self, other): return self._trace.binary("or", self, other)
    def __ror__(self, other): return self._trace.binary("or", other, self)
    def __xor__(self, other): return self._trace.binary("xor", self, other)
    def __rxor__(self, other): return self._trace.binary("xor", other, self)
    def __neg__(self): return self._trace.unary("neg", self)
    def __pos__(self): return self
    def __abs__(self): return self._trace.unary("abs", self)
    def __invert__(self): return self._trace.unary("bitwise_not", self)
    def __eq__(self, other): return self._trace.binary("eq", self, other)
    def __ne__(self, other): return self._trace.binary("ne", self, other)
    def __lt__(self, other): return self._trace.binary("lt", self, other)
    def __le__(self, other): return self._trace.binary("le", self, other)
    def __gt__(self, other): return self._trace.binary("gt", self, other)
    def __ge__(self, other): return self._trace.binary("ge", self, other)

    # In-place operators: PyTorch's trailing-underscore ops.
    def __iadd__(self, other): return self._trace.in_place("add", self, other)
    def __isub__(self, other): return self._trace.in_place("sub", self, other)
    def __imul__(self, other): return self._trace.in_place("mul", self, other)
    def __itruediv__(self, other):
        return self._trace.in_place("div", self, other, true_division=True)
    def __ifloordiv__(self, other):
        return self._trace.in_place("div", self, other, "floor")
    def __imod__(self, other):
        return self._trace.in_place("remainder", self, other)
    def __ipow__(self, other): return self._trace.in_place("pow", self, other)
    def __iand__(self, other): return self._trace.in_place("and", self, other)
    def __ior__(self, other): return self._trace.in_place("or", self, other)
    def __ixor__(self, other): return self._trace.in_place("xor", self, other)


    def __lshift__(self, other):
        return self._trace.nary("bitwise_left_shift", (self, other))

    def __rlshift__(self, other):
        return self._trace.nary("bitwise_left_shift", (other, self))

    def __rshift__(self, other):
        return self._trace.nary("bitwise_right_shift", (self, other))

    def __rrshift__(self, other):
        return self._trace.nary("bitwise_right_shift", (other, self))

    def __ilshift__(self, other):
        return self._trace.nary_in_place("bitwise_left_shift", self, (other,))

    def __irshift__(self, other):
        return self._trace.nary_in_place("bitwise_right_shift", self, (other,))

    def clamp(self, min=None, max=None):
        """PyTorch's clamp (NumPy's clip): bcast.clamp, or maximum/minimum
        with one bound; NaN if any operand is NaN."""
        return _clamp(self, min, max)

    clip = clamp

    def clamp_(self, min=None, max=None):
        """clamp in place (PyTorch's method); with one bound, clamp_min_ or
        clamp_max_."""
        if min is None and max is None:
            raise TypeError("clamp needs min or max")
        try:
            if min is None or max is None:
                op, bound = ("clamp_max", max) if min is None else \
                    ("clamp_min", min)
                _check_bool_scalar_bound(op, self, bound)
                return self._trace.in_place(op, self, bound)
            return self._trace.nary_in_place("clamp", self, (min, max))
        except TypeError as e:
            if not any(isinstance(b, (bool, int, float, _Scalar))
                       for b in (min, max)):
                raise
            raise _scalar_kernel_sentence(e) from None

    def lerp(self, end, weight):
        return self._trace.lerp(self, end, weight)

    def lerp_(self, end, weight):
        return self._trace.lerp(self, end, weight, in_place=True)

    def addcmul(self, tensor1, tensor2, value=1):
        return self._trace.nary("addcmul", (self, tensor1, tensor2),
                                _value_attr(value))

    def addcmul_(self, tensor1, tensor2, value=1):
        return self._trace.nary_in_place("addcmul", self, (tensor1, tensor2),
                                         _value_attr(value))

    def addcdiv(self, tensor1, tensor2, value=1):
        return self._trace.nary("addcdiv", (self, tensor1, tensor2),
                                _value_attr(value))

    def addcdiv_(self, tensor1, tensor2, value=1):
        return self._trace.nary_in_place("addcdiv", self, (tensor1, tensor2),
                                         _value_attr(value))


class _NeedsConcreteScalar(TypeError):
    """A scalar argument was used where tracing needs its value (bool(),
    int(), float(), a shape, an attribute such as addcmul's value, a NumPy
    function of scalars): JitFunction traces the function again with the
    values of scalar arguments compiled in (specialize_scalars)."""


class _Scalar:
    """A Python scalar argument while tracing: a value known at run time
    only, passed to the kernel as a 0-d memref of its carrier (bool: i1,
    int: i64, float: f64), converted to the dtype an op computes in where
    it meets a tensor (PyTorch's weak rule: it promotes as a Python number).
    Arithmetic between scalars and Python numbers follows Python's types
    and gives another _Scalar; anything that needs the value raises
    _NeedsConcreteScalar."""

    __array_priority__ = 1000

    def __init__(self, trace, node, kind, position=None):
        self._trace = trace
        self._node = node
        self.kind = kind
        self.position = position  # the positional argument, if it is one

    def __repr__(self):
        return f"bcast scalar argument ({self.kind.__name__})"

    def _concrete(self, *args, **kwargs):
        raise _NeedsConcreteScalar(
            "the value of a scalar argument is needed while tracing")

    __bool__ = __int__ = __float__ = __index__ = __complex__ = _concrete
    __round__ = __trunc__ = __floor__ = __ceil__ = _concrete
    __array__ = __array_ufunc__ = __array_function__ = _concrete
    __hash__ = object.__hash__

    def _view(self):
        """The scalar as a 0-d Tensor of its carrier."""
        return Tensor(self._trace, self._node, (), _CARRIER[self.kind])

    def __pos__(self):
        return self

    def __neg__(self):
        if self.kind is bool:
            self._concrete()
        return self._trace.scalar_unary("neg", self)

    def __abs__(self):
        if self.kind is bool:
            self._concrete()
        return self._trace.scalar_unary("abs", self)


def _scalar_operator(method):
    def scalar_method(self, *args):
        return getattr(Tensor, method)(self, *args)
    scalar_method.__name__ = method
    return scalar_method


# Binary operators: as Tensor's (the trace handles scalar operands).
for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv",
              "rtruediv", "floordiv", "rfloordiv", "mod", "rmod", "pow",
              "rpow", "and", "rand", "or", "ror", "xor", "rxor", "eq", "ne",
              "lt", "le", "gt", "ge", "lshift", "rlshift", "rshift",
              "rrshift"):
    setattr(_Scalar, f"__{_name}__", _scalar_operator(f"__{_name}__"))


def _make_unary_method(op):
    def method(self, *args, **kwargs):
        return self._trace.unary(op, self, *args, **kwargs)
    method.__name__ = op
    method.__doc__ = f"bcast.{op} of this tensor."
    return method


def _make_in_place_method(op):
    def method(self):
        return self._trace.unary_in_place(op, self)
    method.__name__ = op + "_"
    method.__doc__ = f"bcast.{op}_: {op} in place (PyTorch's method)."
    return method


for _op in UNARY_OPS:
    setattr(Tensor, _op, _make_unary_method(_op))
    if _op not in _NO_IN_PLACE:
        setattr(Tensor, _op + "_", _make_in_place_method(_op))


def _make_binary_method(op):
    def method(self, other):
        return self._trace.nary(op, (self, other))
    method.__name__ = op
    method.__doc__ = f"bcast.{op} of this tensor and `other`."
    return method


def _make_binary_in_place_method(op):
    def method(self, other):
        return self._trace.nary_in_place(op, self, (other,))
    method.__name__ = op + "_"
    method.__doc__ = f"bcast.{op}_: {op} in place (PyTorch's method)."
    return method


for _op in BINARY_FUNCTIONS:
    setattr(Tensor, _op, _make_binary_method(_op))
    setattr(Tensor, _op + "_", _make_binary_in_place_method(_op))


def _value_attr(value):
    """addcmul's and addcdiv's `value` as an f64 attribute (omitted when
    1, the default)."""
    if isinstance(value, _Scalar):
        raise _NeedsConcreteScalar("addcmul's and addcdiv's value is an "
                                   "attribute")
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"value must be a Python number, not {value!r}")
    if value == 1:
        return ""
    return f" {{value = {_float_literal(float(value))} : f64}}"


# The C++ names PyTorch's scalar clamp kernels print for an in-place
# target's dtype (c10's `Bool`, `Byte`, ... elsewhere); the cast to it fails
# only for bools and integers.
_CPP_TYPE_NAMES = {"Bool": "bool", "Byte": "unsigned char",
                   "Char": "signed char", "Short": "short int", "Int": "int",
                   "Long": "long int"}


def _scalar_kernel_sentence(error):
    """`error` from the dialect's in-place cast check, as PyTorch's clamp_
    with Python-number bounds says it: its Scalar overload's kernel checks
    the cast itself and names the target by its C++ type."""
    message = str(error)
    head, sep, target = message.rpartition(" the desired output type ")
    if not sep or target not in _CPP_TYPE_NAMES:
        return error
    return TypeError(head + sep + _CPP_TYPE_NAMES[target])


def _check_bool_scalar_bound(op, x, bound):
    """PyTorch's one-sided clamp with a Python bool bound on a bool tensor
    takes its scalar kernel, which lacks bools (a tensor bound does not)."""
    if isinstance(x, Tensor) and x.dtype.kind == "b" and \
            isinstance(bound, bool):
        # PyTorch's kernel names: clamp_min's and clamp_max_scalar's.
        kernel = "clamp_max_scalar" if op == "clamp_max" else op
        raise TypeError(f'"{kernel}_cpu" not implemented for \'Bool\'')


def _clamp(x, min=None, max=None):
    trace = _current((x, min, max))
    if min is None and max is None:
        raise TypeError("clamp needs min or max")
    if min is None or max is None:
        op, bound = ("clamp_max", max) if min is None else ("clamp_min", min)
        _check_bool_scalar_bound(op, x, bound)
        return trace.binary(op, x, bound)
    return trace.nary("clamp", (x, min, max))


def _nary_function(op):
    def function(*args):
        return _current(args).nary(op, args)
    function.__name__ = op
    function.__qualname__ = op
    function.__doc__ = f"Element-wise {op} (bcast.{op}; docs/Semantics.md)."
    return function


def clamp(x, min=None, max=None):
    """Element-wise min(max(x, min), max), NaN kept (bcast.clamp)."""
    return _clamp(x, min, max)


def lerp(start, end, weight):
    """start + weight * (end - start) (bcast.lerp)."""
    return _current((start, end, weight)).lerp(start, end, weight)


def addcmul(x, tensor1, tensor2, value=1):
    """x + value * tensor1 * tensor2 (bcast.addcmul)."""
    return _current((x, tensor1, tensor2)).nary(
        "addcmul", (x, tensor1, tensor2), _value_attr(value))


def addcdiv(x, tensor1, tensor2, value=1):
    """x + value * tensor1 / tensor2 (bcast.addcdiv)."""
    return _current((x, tensor1, tensor2)).nary(
        "addcdiv", (x, tensor1, tensor2), _value_attr(value))


def _unary_function(op):
    def function(x, *args, **kwargs):
        return _current((x,)).unary(op, x, *args, **kwargs)
    function.__name__ = op
    function.__qualname__ = op
    function.__doc__ = f"Element-wise {op} (bcast.{op}; docs/Semantics.md)."
    return function


def _current(tensors):
    for t in tensors:
        if isinstance(t, (Tensor, _Scalar)):
            return t._trace
    raise TypeError("bcast functions take at least one bcast.Tensor (call "
                    "them inside a @bcast.jit function)")


def where(cond, x, y):
    """Element-wise cond ? x : y with three-way broadcasting."""
    return _current((cond, x, y)).where(cond, x, y)


def matmul(a, b):
    """torch.matmul (bcast.matmul): 1-D, 2-D and N-D operands, batch dims
    that broadcast (never copied), one element type. ValueError for shapes
    that cannot be multiplied, TypeError for element types, with the
    dialect's sentences (docs/Semantics.md)."""
    return _current((a, b)).matmul(a, b)


def maximum(x, y):
    """Element-wise maximum; NaN if either is NaN."""
    return _current((x, y)).binary("maximum", x, y)


def minimum(x, y):
    """Element-wise minimum; NaN if either is NaN."""
    return _current((x, y)).binary("minimum", x, y)


def broadcast_to(x, shape):
    """PyTorch's expand: x broadcast to `shape` (no copy once fused)."""
    return _current((x,)).broadcast_to(x, shape)


def specify_shape(x, shape):
    """PyTensor's specify_shape: `x` with the sizes given in `shape` made
    static (None keeps x's size), so that a size that is 1 at run time
    broadcasts under policy="static". A size known while tracing must already
    be the one given (ValueError otherwise); a size only known at run time is
    checked by the kernel: ValueError "SpecifyShape: dim 1 of input has shape
    3, expected 1." on a wrong one."""
    return _current((x,)).specify_shape(x, shape)
