"""@bcast.jit: trace a Python function over symbolic tensors, compile it to
one fused kernel with --bcast-to-llvm, call it on NumPy arrays.

Tracing records bcast ops in a function of destination-passing style: every
argument array is a memref wrapped with bufferization.to_tensor, every
result is materialized into an output array the caller allocates, and an
argument updated in place (x += y) is materialized back into the argument's
own buffer. Shapes and dtypes are checked while tracing, with the dialect's
rules (the C++ shape module through _bcast), so a shape error raises at
trace time with PyTorch's sentence; sizes declared dynamic are checked by the
kernel at run time, which reports a mismatch to Python (report-errors=true)
as a ValueError.
"""

import ctypes.util
import functools
import os
import threading

import numpy as np

from . import _bcast

# NumPy dtype -> MLIR element type. Unsigned arrays are ui8..ui64 tensors in
# the traced IR (their ops compute as unsigned); the compiled kernel takes them
# as the signless memrefs of the same width (docs/Pipelines.md, the ABI), so
# their buffers are passed as they are.
_ELEMENT = {
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "ui8",
    np.dtype(np.uint16): "ui16",
    np.dtype(np.uint32): "ui32",
    np.dtype(np.uint64): "ui64",
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}

_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}

# Unary ops by PyTorch's dtype rule: float functions give float32 for
# integers and bools; the tests give bool; the others keep the dtype.
FLOAT_FUNCTIONS = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                   "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
                   "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                   "acosh", "atanh", "sigmoid", "erf", "erfc", "silu", "gelu")
_BOOL_UNARY = ("logical_not", "isnan", "isinf", "isfinite")
UNARY_OPS = FLOAT_FUNCTIONS + _BOOL_UNARY + (
    "abs", "neg", "sign", "floor", "ceil", "round", "trunc", "relu",
    "bitwise_not")
# PyTorch has no in-place method for these.
_NO_IN_PLACE = ("silu", "gelu", "isnan", "isinf", "isfinite")

# Two- and three-operand ops beyond the arithmetic ones, by the dtype of
# their result: float functions give float32 for integers and bools, the
# logical ops bool, the others the promoted dtype (the verifier rejects
# what PyTorch rejects, with PyTorch's sentences).
_FLOAT_BINARY = ("atan2", "copysign")
_LOGICAL = ("logical_and", "logical_or", "logical_xor")
BINARY_FUNCTIONS = _FLOAT_BINARY + _LOGICAL + (
    "hypot", "bitwise_left_shift", "bitwise_right_shift")
TERNARY_OPS = ("clamp", "lerp", "addcmul", "addcdiv")

# PyTorch's sentences for the dtypes it does not define an op on
# (BcastOps.td has the same ones).
_TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char",
                "int16": "Short", "int32": "Int", "int64": "Long",
                "float16": "Half", "float32": "Float", "float64": "Double"}
_NOT_BOOL = {
    "abs": '"abs_cpu" not implemented for \'Bool\'',
    "neg": ("Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or "
            "`logical_not()` operator instead."),
    "floor": '"floor_vml_cpu" not implemented for \'Bool\'',
    "ceil": '"ceil_vml_cpu" not implemented for \'Bool\'',
    "round": '"round_vml_cpu" not implemented for \'Bool\'',
    "trunc": '"trunc_vml_cpu" not implemented for \'Bool\'',
    "relu": "Boolean inputs not supported for relu",
}
_FLOAT_ONLY = {"silu": "silu_cpu", "gelu": "GeluKernelImpl"}

_LLVM_LIB_DIR = os.environ.get("BCAST_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib")

# glibc's vector math library: with it (and AVX2), the kernels' vector loops
# call its AVX2 functions for exp, tanh, erf, ... (--bcast-to-llvm's
# vector-math=libmvec); without, one libm call a lane.
_LIBMVEC = ctypes.util.find_library("mvec")
if _LIBMVEC and not os.path.isabs(_LIBMVEC):
    for _dir in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                 "/lib64", "/usr/lib64"):
        if os.path.exists(os.path.join(_dir, _LIBMVEC)):
            _LIBMVEC = os.path.join(_dir, _LIBMVEC)
            break
    else:
        _LIBMVEC = None


def _host_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx2" in line
                       for line in f)
    except OSError:
        return False


_VECTOR_MATH = "libmvec" if _LIBMVEC and _host_has_avx2() else "libm"


def _tensor_type(shape, dtype):
    dims = "".join(("?" if s is None else str(s)) + "x" for s in shape)
    return f"tensor<{dims}{_ELEMENT[np.dtype(dtype)]}>"


def _memref_type(shape, dtype):
    return _tensor_type(shape, dtype).replace("tensor<", "memref<", 1)


def _identity_index(values, value):
    """The index of `value` in `values` by identity (Tensor's == is an op)."""
    for i, v in enumerate(values):
        if v is value:
            return i
    return None


def _shape_text(shape):
    return "(" + ", ".join("?" if s is None else str(s) for s in shape) + ")"


class Tensor:
    """A tensor while tracing: an SSA value with a shape (None for a size
    only known at run time) and a NumPy dtype. Operators record bcast ops."""

    __array_priority__ = 1000  # NumPy scalars defer to our operators.

    def __init__(self, trace, node, shape, dtype):
        self._trace = trace
        self._node = node
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

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
    def __truediv__(self, other): return self._trace.true_div(self, other)
    def __rtruediv__(self, other): return self._trace.true_div(other, self)
    def __floordiv__(self, other):
        return self._trace.binary("div", self, other, "floor")
    def __rfloordiv__(self, other):
        return self._trace.binary("div", other, self, "floor")
    def __mod__(self, other): return self._trace.binary("remainder", self, other)
    def __rmod__(self, other): return self._trace.binary("remainder", other, self)
    def __pow__(self, other): return self._trace.binary("pow", self, other)
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
        """clamp in place (PyTorch's method)."""
        if min is None or max is None:
            raise TypeError("bcast's clamp_ takes both min and max")
        return self._trace.nary_in_place("clamp", self, (min, max))

    def lerp(self, end, weight):
        return self._trace.nary("lerp", (self, end, weight))

    def lerp_(self, end, weight):
        return self._trace.nary_in_place("lerp", self, (end, weight))

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

    # NumPy's protocols: ufuncs and functions on traced tensors become bcast
    # ops; anything bcast does not have is a TypeError naming it.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
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

    def __array_function__(self, func, types, args, kwargs):
        op = _ARRAY_FUNCTIONS.get(func.__name__)
        if op is None:
            raise TypeError(f"bcast does not support numpy.{func.__name__}")
        return op(*args, **kwargs)


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
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"value must be a Python number, not {value!r}")
    if value == 1:
        return ""
    return f" {{value = {_float_literal(float(value))} : f64}}"


def _float_literal(value):
    """A float in a form MLIR parses (1e-05 -> 1.0e-05; inf and nan by their
    f64 bit patterns)."""
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        bits = np.array(value, np.float64).view(np.uint64)
        return "0x%016X" % int(bits)
    mantissa, _, exponent = text.partition("e")
    if exponent and "." not in mantissa:
        text = f"{mantissa}.0e{exponent}"
    return text


def _clamp(x, min=None, max=None):
    trace = _current((x, min, max))
    if min is None and max is None:
        raise TypeError("clamp needs min or max")
    if min is None:
        return trace.binary("minimum", x, max)
    if max is None:
        return trace.binary("maximum", x, min)
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
    return _current((start, end, weight)).nary("lerp", (start, end, weight))


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
        if isinstance(t, Tensor):
            return t._trace
    raise TypeError("bcast functions take at least one bcast.Tensor (call "
                    "them inside a @bcast.jit function)")


def where(cond, x, y):
    """Element-wise cond ? x : y with three-way broadcasting."""
    return _current((cond, x, y)).where(cond, x, y)


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


class _Trace:
    """The bcast ops of one traced call, as MLIR text, plus what the call
    needs to allocate results: a replayable list of shape computations."""

    def __init__(self, policy):
        self.policy = policy
        self.lines = []
        self.count = 0
        # Nodes for shape replay: ("arg", i) | ("const",) | (kind, inputs,
        # extra).
        self.nodes = []
        self.value_names = []
        self.arguments = []  # Tensor per array argument, in order
        self.argument_nodes = []
        self.mutated = {}  # argument index -> latest Tensor

    def _new(self, kind, inputs, extra, shape, dtype):
        node = len(self.nodes)
        self.nodes.append((kind, inputs, extra))
        self.value_names.append(f"%v{node}")
        return Tensor(self, node, shape, dtype)

    def argument(self, index, shape, dtype):
        t = self._new("arg", (), index, shape, dtype)
        self.arguments.append(t)
        # The argument's own value, which in-place updates of `t` (whose
        # node then moves on) do not change.
        self.argument_nodes.append(t._node)
        return t

    def _scalar(self, value):
        """`value` as a Python number, or TypeError."""
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, (bool, int, float)):
            raise TypeError(f"unsupported operand {value!r}: bcast functions "
                            "take bcast.Tensors and Python scalars")
        return value

    def _promote(self, values):
        """PyTorch's result_type over Tensors and Python numbers (weak:
        bool, int64 or float32, ranked below every tensor), from the
        extension's type-rule module."""
        operands = []
        for v in values:
            if isinstance(v, Tensor):
                if v._trace is not self:
                    raise TypeError("a bcast.Tensor from another trace")
                operands.append((str(v.dtype), "zero" if v.shape == ()
                                 else "dim"))
            else:
                v = self._scalar(v)
                number = ("bool" if isinstance(v, bool) else
                          "int64" if isinstance(v, int) else "float32")
                operands.append((number, "number"))
        return np.dtype(_bcast.result_type(operands))

    def _operand(self, value, dtype):
        """A Tensor for `value`: Tensors as they are, Python numbers as
        constants of `dtype` (the type the operation computes in)."""
        if isinstance(value, Tensor):
            return value
        return self.constant(self._scalar(value), dtype)

    def constant(self, value, dtype):
        dtype = np.dtype(dtype)
        if dtype.kind == "b":
            text = "true" if value else "false"
        elif dtype.kind == "f":
            text = repr(float(value))
            mantissa, _, exponent = text.partition("e")
            if exponent and "." not in mantissa:
                # MLIR wants a digit after the point: 1e-05 -> 1.0e-05.
                text = f"{mantissa}.0e{exponent}"
            if text in ("inf", "-inf", "nan"):
                bits = np.array(value, dtype).view(f"u{dtype.itemsize}")
                text = "0x%0*X" % (2 * dtype.itemsize, int(bits))
        else:
            info = np.iinfo(dtype)
            if not info.min <= int(value) <= info.max:
                raise OverflowError(f"{value} does not fit in {dtype}")
            text = str(int(value))
        t = self._new("const", (), None, (), dtype)
        self.lines.append(f"  {self.value_names[t._node]} = arith.constant "
                          f"dense<{text}> : {_tensor_type((), dtype)}")
        return t

    def _emit(self, op, operands, attrs, shape, dtype, kind_extra=None):
        t = self._new(op, tuple(o._node for o in operands), kind_extra, shape,
                      dtype)
        names = ", ".join(self.value_names[o._node] for o in operands)
        types = ", ".join(_tensor_type(o.shape, o.dtype) for o in operands)
        self.lines.append(
            f"  {self.value_names[t._node]} = bcast.{op} {names}{attrs} : "
            f"({types}) -> {_tensor_type(shape, dtype)}")
        return t

    def _check_categories(self, op, values, compute):
        """The ops PyTorch defines only for some categories."""
        is_bool = [(v.dtype.kind == "b") if isinstance(v, Tensor)
                   else isinstance(v, bool) for v in values]
        if op == "sub" and all(is_bool):
            raise TypeError("Subtraction, the `-` operator, with two bool "
                            "tensors is not supported. Use the `^` or "
                            "`logical_xor()` operator instead.")
        if op == "sub" and any(is_bool):
            raise TypeError("Subtraction, the `-` operator, with a bool "
                            "tensor is not supported. If you are trying to "
                            "invert a mask, use the `~` or `logical_not()` "
                            "operator instead.")
        if op in ("and", "or", "xor") and compute.kind == "f":
            raise TypeError(f"bitwise {op} is not defined on {compute}")

    def binary(self, op, lhs, rhs, mode=None, true_division=False):
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            raise TypeError("at least one operand must be a bcast.Tensor")
        compute = self._promote((lhs, rhs))
        self._check_categories(op, (lhs, rhs), compute)
        a, b = self._operand(lhs, compute), self._operand(rhs, compute)
        shape = _bcast.broadcast_shapes(a.shape, b.shape)
        if true_division and compute.kind != "f":
            compute = np.dtype(np.float32)  # true division, as torch.div
        dtype = np.dtype(np.bool_) if op in _COMPARISONS else compute
        attrs = f' {{rounding_mode = "{mode}"}}' if mode else ""
        return self._emit(op, (a, b), attrs, shape, dtype)

    def true_div(self, lhs, rhs):
        return self.binary("div", lhs, rhs, true_division=True)

    def in_place(self, op, target, other, mode=None, true_division=False):
        compute = self._promote((target, other))
        if true_division and compute.kind != "f":
            compute = np.dtype(np.float32)
        self._check_categories(op, (target, other), compute)
        b = self._operand(other, compute)
        _bcast.check_in_place(target.shape, b.shape)
        _bcast.check_can_cast(str(compute), str(target.dtype))
        attrs = f' {{rounding_mode = "{mode}"}}' if mode else ""
        result = self._emit(op + "_", (target, b), attrs, target.shape,
                            target.dtype, kind_extra="in_place")
        return self._record_in_place(target, result)

    def _unary_type(self, op, x, approximate=None):
        """The result dtype of unary `op` on `x`, or TypeError with
        PyTorch's sentence."""
        if not isinstance(x, Tensor) or x._trace is not self:
            raise TypeError(f"{op} takes a bcast.Tensor of this trace")
        kind = x.dtype.kind
        if op in _NOT_BOOL and kind == "b":
            raise TypeError(_NOT_BOOL[op])
        torch_name = _TORCH_NAMES.get(str(x.dtype), str(x.dtype))
        if op in _FLOAT_ONLY and kind != "f":
            raise TypeError(f'"{_FLOAT_ONLY[op]}" not implemented for '
                            f"'{torch_name}'")
        if op == "bitwise_not" and kind == "f":
            raise TypeError(f'"bitwise_not_cpu" not implemented for '
                            f"'{torch_name}'")
        if approximate is not None and op != "gelu":
            raise TypeError(f"{op} takes no approximate argument")
        if op == "gelu" and approximate not in (None, "none", "tanh"):
            raise ValueError("approximate argument must be either none or "
                             "tanh.")
        if op in _BOOL_UNARY:
            return np.dtype(np.bool_)
        if op in FLOAT_FUNCTIONS and kind != "f":
            return np.dtype(np.float32)
        return x.dtype

    @staticmethod
    def _unary_attrs(op, approximate):
        if op == "gelu" and approximate is not None:
            return f' {{approximate = "{approximate}"}}'
        return ""

    def unary(self, op, x, approximate=None):
        dtype = self._unary_type(op, x, approximate)
        return self._emit(op, (x,), self._unary_attrs(op, approximate),
                          x.shape, dtype)

    def unary_in_place(self, op, target):
        dtype = self._unary_type(op, target)
        _bcast.check_can_cast(str(dtype), str(target.dtype))
        result = self._emit(op + "_", (target,), "", target.shape,
                            target.dtype, kind_extra="in_place")
        return self._record_in_place(target, result)

    def _record_in_place(self, target, result):
        """`target` now denotes the result, as a PyTorch tensor does after an
        in-place method (`a.clamp_(lo, hi); a.exp_()` applies both), and
        the argument it is, directly or through earlier in-place updates,
        holds it. Returns `target`."""
        index = _identity_index(self.arguments, target)
        for i, latest in list(self.mutated.items()):
            if latest is target:
                index = i
        target._node = result._node
        if index is not None:
            self.mutated[index] = target
        return target

    def _nary_dtype(self, op, compute):
        if op in _LOGICAL:
            return np.dtype(np.bool_)
        if op in _FLOAT_BINARY and compute.kind != "f":
            return np.dtype(np.float32)
        return compute

    def nary(self, op, values, attrs=""):
        """An element-wise op over Tensors and Python numbers that promote
        together (the binary functions and the three-operand ops)."""
        if not any(isinstance(v, Tensor) for v in values):
            raise TypeError(f"{op} needs at least one bcast.Tensor")
        compute = self._promote(values)
        operands = [self._operand(v, compute) for v in values]
        shape = _bcast.broadcast_shapes(*[o.shape for o in operands])
        return self._emit(op, operands, attrs, shape,
                          self._nary_dtype(op, compute))

    def nary_in_place(self, op, target, others, attrs=""):
        compute = self._promote((target,) + tuple(others))
        operands = [self._operand(v, compute) for v in others]
        for other in operands:
            _bcast.check_in_place(target.shape, other.shape)
        _bcast.check_can_cast(str(self._nary_dtype(op, compute)),
                              str(target.dtype))
        result = self._emit(op + "_", [target] + operands, attrs,
                            target.shape, target.dtype, kind_extra="in_place")
        return self._record_in_place(target, result)

    def cast(self, x, dtype):
        """x.astype(dtype): bcast.cast (PyTorch's .to(dtype))."""
        dtype = np.dtype(dtype)
        if dtype not in _ELEMENT:
            raise TypeError(f"bcast does not support dtype {dtype}")
        if dtype == x.dtype:
            return x
        t = self._new("cast", (x._node,), None, x.shape, dtype)
        self.lines.append(
            f"  {self.value_names[t._node]} = bcast.cast "
            f"{self.value_names[x._node]} : ({_tensor_type(x.shape, x.dtype)})"
            f" -> {_tensor_type(x.shape, dtype)}")
        return t

    def where(self, cond, x, y):
        like = next(v for v in (x, y, cond) if isinstance(v, Tensor))
        if not isinstance(cond, Tensor):
            cond = self.constant(bool(cond), np.bool_)
        if cond.dtype.kind != "b":
            raise TypeError(f"where's condition must be bool, not {cond.dtype}")
        like = x if isinstance(x, Tensor) else (y if isinstance(y, Tensor)
                                                else None)
        if like is None:
            raise TypeError("where needs a bcast.Tensor for x or y")
        compute = self._promote((x, y))
        x, y = self._operand(x, compute), self._operand(y, compute)
        shape = _bcast.broadcast_shapes(cond.shape, x.shape, y.shape)
        return self._emit("where", (cond, x, y), "", shape, compute)

    def _emit_unary(self, op, x, shape, parenthesized):
        """Records `op` from x to a tensor of `shape`; the op's syntax is
        `T1 -> T2`, or `(T1) -> T2` if `parenthesized`."""
        t = self._new(op, (x._node,), shape, shape, x.dtype)
        source = _tensor_type(x.shape, x.dtype)
        if parenthesized:
            source = f"({source})"
        self.lines.append(
            f"  {self.value_names[t._node]} = bcast.{op} "
            f"{self.value_names[x._node]} : {source} -> "
            f"{_tensor_type(shape, x.dtype)}")
        return t

    def broadcast_to(self, x, shape):
        shape = tuple(None if s is None else int(s) for s in shape)
        return self._emit_unary("broadcast_to", x, shape, False)

    def specify_shape(self, x, shape):
        if isinstance(shape, int):
            shape = (shape,)
        shape = tuple(None if s is None else int(s) for s in shape)
        if len(shape) == x.ndim:
            shape = tuple(xs if s is None else s
                          for xs, s in zip(x.shape, shape))
        # The dialect's rule (same rank, static sizes kept), with PyTensor's
        # sentences.
        _bcast.check_specify_shape(x.shape, shape)
        if shape == x.shape:
            return x  # nothing refined (PyTensor returns x too)
        return self._emit_unary("specify_shape", x, shape, True)

    def replay_shapes(self, arg_shapes):
        """The shape of every node for concrete argument shapes (NumPy's rule;
        the kernel checks the policy's rule at run time)."""
        shapes = []
        for kind, inputs, extra in self.nodes:
            if kind == "arg":
                shapes.append(tuple(arg_shapes[extra]))
            elif kind == "const":
                shapes.append(())
            elif kind == "broadcast_to":
                source = shapes[inputs[0]]
                offset = len(extra) - len(source)
                shapes.append(tuple(source[i - offset] if s is None else s
                                    for i, s in enumerate(extra)))
            elif kind == "specify_shape":
                # The specified sizes: a wrong one fails the kernel's check
                # before anything is computed.
                shapes.append(tuple(s if e is None else e
                                    for s, e in zip(shapes[inputs[0]], extra)))
            elif extra == "in_place":
                shapes.append(shapes[inputs[0]])
            else:
                shapes.append(tuple(_bcast.broadcast_shapes(
                    *[shapes[i] for i in inputs])))
        return shapes


class _Compiled:
    """One traced and compiled signature."""

    def __init__(self, trace, outputs, arg_specs, options, single):
        self.trace = trace
        self.outputs = outputs  # list of ("arg", index) or ("new", Tensor)
        self.single = single
        self.arg_specs = arg_specs
        self.ir = {}
        text = self._kernel_text(outputs)
        self.ir["bcast"] = text
        # The verifier's diagnostics (PyTorch's sentences) are ValueErrors.
        try:
            module = _bcast.Module.parse(text)
            module.verify()
        except _bcast.MLIRError as e:
            raise ValueError(str(e)) from None
        linalg = module.clone()
        linalg.run_pipeline(f"bcast-to-linalg{{{options}}}")
        self.ir["linalg"] = str(linalg)
        module.run_pipeline(f"bcast-to-llvm{{{options} report-errors=true}}")
        self.ir["llvm"] = str(module)
        libs = [os.path.join(_LLVM_LIB_DIR, "libomp.so")] \
            if "parallel=false" not in options else []
        if "vector-math=libmvec" in options:
            libs.append(_LIBMVEC)
        self.kernel = _bcast.Kernel(module, libs)

    def _kernel_text(self, outputs):
        trace = self.trace
        params, lines = [], []
        for i, t in enumerate(trace.arguments):
            memref = _memref_type(t.shape, t.dtype)
            params.append(f"%m{i}: {memref}")
            writable = " writable" if i in trace.mutated else ""
            lines.append(f"  {trace.value_names[trace.argument_nodes[i]]} = "
                         f"bufferization.to_tensor %m{i} restrict{writable} : "
                         f"{memref} to {_tensor_type(t.shape, t.dtype)}")
        lines += trace.lines
        for i, latest in trace.mutated.items():
            arg = trace.arguments[i]
            lines.append(
                f"  bufferization.materialize_in_destination "
                f"{trace.value_names[latest._node]} in restrict writable %m{i}"
                f" : ({_tensor_type(arg.shape, arg.dtype)}, "
                f"{_memref_type(arg.shape, arg.dtype)}) -> ()")
        for j, (kind, t) in enumerate(outputs):
            if kind != "new":
                continue
            memref = _memref_type(t.shape, t.dtype)
            params.append(f"%o{j}: {memref}")
            lines.append(
                f"  bufferization.materialize_in_destination "
                f"{trace.value_names[t._node]} in restrict writable %o{j} : "
                f"({_tensor_type(t.shape, t.dtype)}, {memref}) -> ()")
        return (f"func.func @kernel({', '.join(params)}) attributes "
                f"{{llvm.emit_c_interface}} {{\n" + "\n".join(lines) +
                "\n  return\n}\n")

    def __call__(self, arrays, out=None):
        trace = self.trace
        shapes = trace.replay_shapes([a.shape for a in arrays])
        provided = list(out) if isinstance(out, (tuple, list)) else (
            [] if out is None else [out])
        new_outputs = [v for kind, v in self.outputs if kind == "new"]
        if out is not None and len(provided) != len(new_outputs):
            raise ValueError(f"out= needs {len(new_outputs)} arrays, one per "
                             "new result")
        results, buffers = [], []
        for kind, value in self.outputs:
            if kind == "arg":
                results.append(arrays[value])
                continue
            shape = shapes[value._node]
            if provided:
                buffer = provided[len(buffers)]
                if (not isinstance(buffer, np.ndarray) or
                        buffer.shape != tuple(shape) or
                        buffer.dtype != value.dtype or
                        not buffer.flags.c_contiguous or
                        not buffer.flags.writeable):
                    raise ValueError(
                        f"out= array must be a writable C-contiguous "
                        f"{value.dtype} array of shape {tuple(shape)}")
            else:
                buffer = np.empty(shape, dtype=value.dtype)
            results.append(buffer)
            buffers.append(buffer)
        self.kernel.call("kernel", list(arrays) + buffers)
        if self.single:
            return results[0] if results else None
        return tuple(results)


class JitFunction:
    """A Python function compiled per (shapes, dtypes) signature."""

    def __init__(self, fn, policy="numpy", threads=None, dynamic=False):
        if policy not in ("numpy", "static"):
            raise ValueError("policy must be 'numpy' or 'static'")
        self.fn = fn
        self.policy = policy
        self.threads = threads
        self.dynamic = dynamic
        self.cache = {}
        self.lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def _options(self):
        options = [f"broadcast-policy={self.policy}"]
        if _VECTOR_MATH != "libm":
            options.append(f"vector-math={_VECTOR_MATH}")
        if self.threads == 1:
            options.append("parallel=false")
        elif self.threads:
            options.append(f"num-threads={int(self.threads)}")
        return " ".join(options)

    def _dynamic_dims(self, index, ndim):
        if self.dynamic is True:
            return set(range(ndim))
        if not self.dynamic:
            return set()
        spec = self.dynamic[index] if index < len(self.dynamic) else ()
        return set(spec or ())

    def _prepare(self, args):
        """Arrays (C-contiguous; a documented copy otherwise), the signature
        key, and the traced values of the arguments."""
        arrays, key, specs, inputs = [], [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, (bool, int, float, np.generic)):
                key.append(("scalar", type(arg).__name__, arg))
                specs.append(("scalar", arg))
                continue
            array = np.asarray(arg)
            if array.dtype not in _ELEMENT:
                raise TypeError(f"unsupported dtype {array.dtype}; bcast "
                                f"supports {sorted(str(d) for d in _ELEMENT)}")
            if not array.flags.c_contiguous:
                # Kernels take contiguous buffers: a non-contiguous array is
                # copied, and an in-place update of it copied back after the
                # call (JitFunction.__call__).
                array = np.ascontiguousarray(array)
            dims = self._dynamic_dims(len(arrays), array.ndim)
            shape = tuple(None if d in dims else s
                          for d, s in enumerate(array.shape))
            key.append(("array", shape, array.dtype.str))
            specs.append(("array", len(arrays), shape, array.dtype))
            arrays.append(array)
        return arrays, tuple(key), specs

    def _trace(self, specs):
        trace = _Trace(self.policy)
        values = []
        for spec in specs:
            if spec[0] == "scalar":
                values.append(spec[1])
            else:
                values.append(trace.argument(spec[1], spec[2], spec[3]))
        result = self.fn(*values)
        single = not isinstance(result, (tuple, list))
        results = [result] if single else list(result)
        if result is None:
            results = []
        outputs = []
        for r in results:
            if not isinstance(r, Tensor):
                raise TypeError(f"a @bcast.jit function must return bcast "
                                f"Tensors, not {type(r).__name__}")
            arg_index = None
            for i, latest in trace.mutated.items():
                if latest is r:
                    arg_index = i
            if arg_index is None:
                arg_index = _identity_index(trace.arguments, r)
            outputs.append(("arg", arg_index) if arg_index is not None
                           else ("new", r))
        return trace, outputs, single

    def compile(self, *args):
        """The compiled signature for these arguments (traced and compiled
        on first use)."""
        arrays, key, specs = self._prepare(args)
        with self.lock:
            compiled = self.cache.get(key)
            if compiled is None:
                trace, outputs, single = self._trace(specs)
                compiled = _Compiled(trace, outputs, specs, self._options(),
                                     single)
                self.cache[key] = compiled
        return compiled, arrays

    def __call__(self, *args, out=None):
        """Runs the kernel; `out` optionally gives the arrays that receive
        the new results (one per result that is not an argument)."""
        compiled, arrays = self.compile(*args)
        result = compiled(arrays, out)
        originals = [a for a in args
                     if not isinstance(a, (bool, int, float, np.generic))]
        for index in compiled.trace.mutated:
            original = originals[index]
            if original is not arrays[index]:
                if not isinstance(original, np.ndarray):
                    raise TypeError("an argument updated in place must be a "
                                    "NumPy array")
                np.copyto(original, arrays[index])
        def caller_array(value):
            # A result that is an argument's buffer is the caller's array.
            index = _identity_index(arrays, value)
            return originals[index] if index is not None else value

        if isinstance(result, tuple):
            return tuple(caller_array(r) for r in result)
        return caller_array(result)

    def inspect(self, *args):
        """The IR of the kernel for these arguments at each stage: 'bcast'
        (as traced), 'linalg' (--bcast-to-linalg) and 'llvm'."""
        compiled, _ = self.compile(*args)
        return dict(compiled.ir)


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


def jit(fn=None, *, policy="numpy", threads=None, dynamic=False):
    """Compiles `fn` to one fused kernel per signature.

    policy: "numpy" (a size that is 1 at run time broadcasts) or "static"
        (only sizes statically 1 broadcast; with dynamic sizes only).
    threads: None (all cores), 1 (single-threaded), or a thread count.
    dynamic: False, True (every size of every array argument is dynamic:
        one kernel serves all sizes), or a sequence with, per array
        argument, the dimensions that are dynamic.
    """
    if fn is None:
        return lambda f: JitFunction(f, policy, threads, dynamic)
    return JitFunction(fn, policy, threads, dynamic)
