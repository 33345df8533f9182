"""@bcast.jit: trace a Python function over symbolic tensors, compile it to
one fused kernel with --bcast-to-llvm, call it on NumPy arrays and PyTorch
CPU tensors.

Tracing records bcast ops in a function of destination-passing style: every
argument array is a memref wrapped with bufferization.to_tensor, every
result is materialized into an output array the caller allocates, and an
argument updated in place (x += y) is materialized back into the argument's
own buffer. A Python scalar argument is a 0-d memref of its 64-bit carrier
(f64, i64 or i1), converted in the kernel to the dtype it computes in, so a
new value needs no new kernel. Shapes and dtypes are checked while tracing,
with the dialect's rules (the C++ shape module through _bcast), so a shape
error raises at trace time with PyTorch's sentence; sizes declared dynamic
are checked by the kernel at run time, which reports a mismatch to Python
(report-errors=true) as a ValueError.

Calls run in the extension (_bcast.Dispatcher, JitFunction's base class):
this module traces and compiles on a miss (JitFunction._miss), hands the
extension the plan of the compiled signature, and converts the arguments the
extension does not take as they are (JitFunction._slow_call). Compiled
kernels can be kept on disk (cache=True; _DiskCache).
"""

import ctypes.util
import functools
import hashlib
import json
import math
import operator
import os
import struct
import sys as _sys
import tempfile
import threading

import numpy as np

from . import _bcast

# NumPy dtype -> MLIR element type. Unsigned arrays are ui8..ui64 tensors in
# the traced IR (their ops compute as unsigned); the compiled kernel takes them
# as the signless memrefs of the same width (docs/Pipelines.md, the ABI), so
# their buffers are passed as they are.
class _BFloat16:
    """PyTorch's bfloat16, which NumPy has no dtype for: the dtype of traced
    tensors that come from bfloat16 tensors (the attributes the tracer reads
    of a NumPy dtype)."""

    kind = "f"
    itemsize = 2
    name = "bfloat16"

    def __str__(self):
        return "bfloat16"

    __repr__ = __str__


bfloat16 = _BFloat16()


def _as_dtype(dtype):
    """A NumPy dtype, or bfloat16 (also from "bfloat16" and PyTorch's
    dtypes)."""
    if dtype is bfloat16 or (isinstance(dtype, str) and dtype == "bfloat16"):
        return bfloat16
    text = str(dtype)
    if text.startswith("torch."):
        return _as_dtype(text[len("torch."):])
    return np.dtype(dtype)


# NumPy dtype name -> MLIR element type, from the dialect (_bcast's
# ELEMENT_TYPES): the dtypes bcast supports.
_ELEMENT = {_as_dtype(name): element
            for name, element in _bcast.ELEMENT_TYPES.items()}
_DTYPES = {name: _as_dtype(name) for name in _bcast.ELEMENT_TYPES}

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

_LLVM_LIB_DIR = os.environ.get("BCAST_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib")

# glibc's vector math library: with it (and AVX2), the kernels' vector loops
# call its AVX2 functions for exp, tanh, erf, ... (--bcast-to-llvm's
# vector-math=libmvec), or with AVX-512F its AVX-512 ones, which compute
# twice the lanes in much less than twice the time (vector-math=
# libmvec-avx512); without, one libm call a lane.
_LIBMVEC = ctypes.util.find_library("mvec")
if _LIBMVEC and not os.path.isabs(_LIBMVEC):
    for _dir in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                 "/lib64", "/usr/lib64"):
        if os.path.exists(os.path.join(_dir, _LIBMVEC)):
            _LIBMVEC = os.path.join(_dir, _LIBMVEC)
            break
    else:
        _LIBMVEC = None


def _cuda_runtime_path():
    """libbcast_cuda_runtime.so: BCAST_CUDA_RUNTIME, else <root>/lib beside
    <root>/python/bcast (the build tree and an installed prefix alike)."""
    return os.environ.get("BCAST_CUDA_RUNTIME") or os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "lib", "libbcast_cuda_runtime.so"))


def _tensor_device(tensor):
    """"cpu" or "cuda:N" for a tensor bcast takes; TypeError otherwise."""
    device = tensor.device
    if device.type == "cuda":
        return f"cuda:{device.index}"
    if device.type != "cpu":
        raise TypeError("bcast.jit takes CPU and CUDA tensors, not "
                        f"{device.type} tensors")
    return "cpu"


def _cuda_ready():
    """Loads the CUDA runtime and probes the driver for a GPU (once it
    succeeds); RuntimeError with the reason otherwise."""
    _bcast.load_cuda_runtime(_cuda_runtime_path())


# The PTX ISA version each architecture needs first (PTX ISA notes); older
# architectures take 8.0, which --bcast-to-nvvm targets by default.
_PTX_FOR_SM = {100: 86, 101: 86, 120: 87, 103: 88, 121: 88, 110: 90}


def _cuda_target(index):
    """--bcast-to-nvvm's chip and features for CUDA device `index`."""
    major, minor = _sys.modules["torch"].cuda.get_device_capability(index)
    sm = 10 * major + minor
    ptx = 80 if sm <= 90 else _PTX_FOR_SM.get(sm, 90)
    return f"chip=sm_{sm} features=+ptx{ptx}"


def _host_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _libmvec_has(symbol):
    try:
        getattr(ctypes.CDLL(_LIBMVEC), symbol)
        return True
    except (OSError, AttributeError):
        return False


def _vector_math():
    flags = _host_flags()
    if not _LIBMVEC or "avx2" not in flags:
        return "libm"
    if "avx512f" in flags and _libmvec_has("_ZGVeN16v_expf"):
        return "libmvec-avx512"
    return "libmvec"


def _chosen_vector_math():
    """BCAST_VECTOR_MATH overrides the choice (benchmarks/accuracy.py
    measures each route with it)."""
    chosen = os.environ.get("BCAST_VECTOR_MATH")
    if not chosen:
        return _vector_math()
    if chosen not in ("libm", "libmvec", "libmvec-avx512"):
        raise ValueError(f"BCAST_VECTOR_MATH must be libm, libmvec or "
                         f"libmvec-avx512, not {chosen!r}")
    if chosen != "libm" and not _LIBMVEC:
        raise ValueError(f"BCAST_VECTOR_MATH={chosen} needs glibc's "
                         f"libmvec, which was not found")
    return chosen


_VECTOR_MATH = _chosen_vector_math()


def _tensor_type(shape, dtype):
    dims = "".join(("?" if s is None else str(s)) + "x" for s in shape)
    element = _ELEMENT.get(dtype) or _ELEMENT[_as_dtype(dtype)]
    return f"tensor<{dims}{element}>"


def _memref_type(shape, dtype):
    return _tensor_type(shape, dtype).replace("tensor<", "memref<", 1)


def _identity_index(values, value):
    """The index of `value` in `values` by identity (Tensor's == is an op)."""
    for i, v in enumerate(values):
        if v is value:
            return i
    return None


def _size(s):
    """A size given from Python: None (`?`) or an int in [0, 2**63); a
    float, a negative size or one beyond int64 is an error (int() would
    truncate 3.5 to 3; issue 17's hostile inputs)."""
    if s is None:
        return None
    s = operator.index(s)  # TypeError for 3.5, as NumPy's and PyTorch's
    if s < 0:
        raise ValueError(f"sizes must be non-negative or None, got {s}")
    if s >= 2**63:
        raise ValueError(f"size {s} does not fit in a signed 64-bit integer")
    return s


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


class _NeedsConcreteScalar(TypeError):
    """A scalar argument was used where tracing needs its value (bool(),
    int(), float(), a shape, an attribute such as addcmul's value, a NumPy
    function of scalars): JitFunction traces the function again with the
    values of scalar arguments compiled in (specialize_scalars)."""


# Python's scalar types, in the order of Python's arithmetic promotion, and
# the 64-bit carrier of each in the kernel's signature.
_SCALAR_KINDS = (bool, int, float)
_CARRIER = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
            float: np.dtype(np.float64)}
_KIND_OF_CARRIER = {dtype: kind for kind, dtype in _CARRIER.items()}


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
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"value must be a Python number, not {value!r}")
    if value == 1:
        return ""
    return f" {{value = {_float_literal(float(value))} : f64}}"


def _float_literal(value, dtype=np.float64):
    """A float in a form MLIR parses as an element of `dtype`: Python's
    repr with a digit after the point (1e-05 -> 1.0e-05, 1e+16 -> 1.0e+16,
    -0.0 as it is), and inf and nan, which MLIR has no words for, as the bit
    patterns of `dtype` (0x7F800000 is f32's inf)."""
    dtype = _as_dtype(dtype)
    value = _round_to(float(value), dtype)
    if math.isfinite(value):
        # Exactly representable in `dtype` now: the literal is exact.
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if exponent and "." not in mantissa:
            text = f"{mantissa}.0e{exponent}"
        return text
    if dtype is bfloat16:
        # bfloat16 is the top half of float32; inf and nan are exact there.
        bits = int(np.array(value, np.float32).view(np.uint32)) >> 16
    else:
        bits = int(np.array(value, dtype).view(f"u{dtype.itemsize}"))
    return "0x%0*X" % (2 * dtype.itemsize, bits)


def _string_literal(text):
    """`text` as an MLIR string literal (quotes, backslashes and control
    characters escaped as two hex digits)."""
    escaped = "".join(
        c if c.isprintable() and c not in '"\\' and ord(c) < 128
        else "".join(f"\\{b:02X}" for b in c.encode()) for c in text)
    return f'"{escaped}"'


def _round_to(value, dtype):
    """`value` rounded to the float dtype `dtype` (to nearest even; inf
    beyond its range, as PyTorch converts a scalar), as a Python float."""
    if dtype is bfloat16:
        with np.errstate(over="ignore"):
            bits = int(np.array(value, np.float32).view(np.uint32))
        if (bits & 0x7F800000) != 0x7F800000:  # finite: round the low half
            bits += 0x7FFF + ((bits >> 16) & 1)
        return float(np.array((bits >> 16) << 16, np.uint32).view(np.float32))
    with np.errstate(over="ignore"):
        return float(np.array(value, dtype))


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _check_int64(value):
    """Python integers are int64 scalars (PyTorch's rule): OverflowError
    for one beyond."""
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError(f"Python integer {value} does not fit in int64: "
                            "bcast, as PyTorch, takes integer scalars of 64 "
                            "bits")
    return value


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
        if isinstance(t, (Tensor, _Scalar)):
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
    needs to allocate results: the nodes whose shapes the extension
    computes when sizes are dynamic (Dispatch.cpp's shape nodes)."""

    def __init__(self, policy):
        self.policy = policy
        self.lines = []
        self.count = 0
        # Nodes for the plan's shape nodes: ("arg", (), i) | ("const", (),
        # None) | (kind, inputs, extra).
        self.nodes = []
        self.value_names = []
        self.arguments = []  # Tensor per array argument, in order
        self.argument_nodes = []
        self.argument_positions = []  # positional index per array argument
        # _Scalar per scalar argument compiled as a run-time operand, and the
        # range its value must be in (the integer dtypes it converts to).
        self.scalars = []
        self.scalar_ranges = {}  # position -> (min, max, dtype name)
        self.mutated = {}  # argument index -> latest Tensor
        self.node_ranks = []  # rank per node

    def _new(self, kind, inputs, extra, shape, dtype):
        node = len(self.nodes)
        self.nodes.append((kind, inputs, extra))
        self.node_ranks.append(len(shape))
        self.value_names.append(f"%v{node}")
        return Tensor(self, node, shape, dtype)

    def scalar_argument(self, position, kind):
        """A scalar argument known at run time only: a 0-d argument of the
        kernel (its carrier dtype)."""
        t = self._new("scalar", (), position, (), _CARRIER[kind])
        scalar = _Scalar(self, t._node, kind, position)
        self.scalars.append(scalar)
        return scalar

    def argument(self, index, shape, dtype, position=None):
        t = self._new("arg", (), index, shape, dtype)
        self.argument_positions.append(index if position is None
                                       else position)
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
        if isinstance(value, int) and not isinstance(value, bool):
            _check_int64(value)
        return value

    @staticmethod
    def _scalar_kind(value):
        """bool, int or float for a Python number or _Scalar."""
        if isinstance(value, _Scalar):
            return value.kind
        return bool if isinstance(value, bool) else (
            int if isinstance(value, int) else float)

    def _promote(self, values):
        """PyTorch's result_type over Tensors and Python numbers (weak:
        bool, int64 or float32, ranked below every tensor), from the
        extension's type-rule module: the dtype Python numbers become
        constants of."""
        operands = []
        for v in values:
            if isinstance(v, Tensor):
                if v._trace is not self:
                    raise TypeError("a bcast.Tensor from another trace")
                operands.append((str(v.dtype), "zero" if v.shape == ()
                                 else "dim"))
            else:
                if not isinstance(v, _Scalar):
                    v = self._scalar(v)
                kind = self._scalar_kind(v)
                number = ("bool" if kind is bool else
                          "int64" if kind is int else "float32")
                operands.append((number, "number"))
        try:
            return _DTYPES[_bcast.result_type(operands)]
        except TypeError:
            # Tensors that do not promote: the op's verifier says so, with
            # its sentence; numbers take the first tensor's dtype meanwhile.
            return next(v.dtype for v in values if isinstance(v, Tensor))

    def _operand(self, value, dtype, bool_as_is=True):
        """A Tensor for `value`: Tensors as they are, Python numbers as
        constants of `dtype` (the type the operation computes in), scalar
        arguments converted to it. A Python bool stays a bool (with
        `bool_as_is`): it promotes as a weak bool would (never above
        another operand), and the op's verifier sees it, as PyTorch's
        checks do (`x - True`)."""
        if isinstance(value, Tensor):
            return value
        if bool_as_is and self._scalar_kind(value) is bool:
            dtype = _CARRIER[bool]
        if isinstance(value, _Scalar):
            dtype = _as_dtype(dtype)
            if (value.position is not None and value.kind is not bool and
                    dtype.kind in "iu"):
                # The value must fit `dtype` (checked at each call).
                info = np.iinfo(dtype)
                low, high, name = self.scalar_ranges.get(
                    value.position, (_INT64_MIN, _INT64_MAX, "int64"))
                if info.min > low or info.max < high:
                    name = str(dtype)
                self.scalar_ranges[value.position] = (
                    max(low, int(info.min)), min(high, int(info.max)), name)
            return self.cast(value._view(), dtype)
        return self.constant(self._scalar(value), dtype)

    def scalar_binary(self, op, lhs, rhs, mode=None, true_division=False):
        """`op` between scalar arguments and Python numbers, with Python's
        types (bool, int, float), computed in the kernel on their 64-bit
        carriers; another _Scalar."""
        kinds = [self._scalar_kind(v) for v in (lhs, rhs)]
        if op in ("and", "or", "xor") and kinds == [bool, bool]:
            kind = bool
        elif true_division or float in kinds:
            kind = float
        else:
            kind = int
        if op in ("pow", "div", "remainder", "fmod") and kind is int:
            # Python's int ** (negative), // and % by zero depend on values.
            raise _NeedsConcreteScalar("integer scalar arguments in ** // %")
        carrier = _CARRIER[kind]
        a = self._operand(lhs, carrier, bool_as_is=False)
        b = self._operand(rhs, carrier, bool_as_is=False)
        attrs = f' {{rounding_mode = "{mode}"}}' if mode else ""
        t = self._emit(op, (a, b), attrs)
        return _Scalar(self, t._node, _KIND_OF_CARRIER[t.dtype])

    def scalar_unary(self, op, x):
        t = self._emit(op, (x._view(),), "")
        return _Scalar(self, t._node, _KIND_OF_CARRIER[t.dtype])

    def constant(self, value, dtype):
        dtype = _as_dtype(dtype)
        if dtype.kind == "b":
            text = "true" if value else "false"
        elif dtype.kind == "f":
            text = _float_literal(value, dtype)
        else:
            info = np.iinfo(dtype)
            if not info.min <= int(value) <= info.max:
                raise OverflowError(f"{value} does not fit in {dtype}")
            text = str(int(value))
        t = self._new("const", (), None, (), dtype)
        self.lines.append(f"  {self.value_names[t._node]} = arith.constant "
                          f"dense<{text}> : {t._type}")
        return t

    def _emit(self, op, operands, attrs, kind_extra=None, result=None,
              syntax="functional"):
        """Records bcast.`op` of `operands` with `attrs` (' {...}' or '')
        and returns its Tensor. The dialect says what it gives or why it is
        refused (_bcast.infer_op: the op's own inference and verifier, the
        sentence `bcast-opt` prints); `result`, a (shape, dtype), is the
        result type of the ops whose result type is chosen (cast,
        broadcast_to, specify_shape, sum_to_size). `syntax`: "functional"
        `(T1, T2) -> T`, or "arrow" `T1 -> T` (broadcast_to)."""
        for o in operands:
            if o._trace is not self:
                raise TypeError("a bcast.Tensor from another trace")
        types = [o._type for o in operands]
        results = None
        if result is not None:
            results = [(tuple(result[0]), str(result[1]))]
        (shape, dtype), = _bcast.infer_op(f"bcast.{op}", types,
                                          attrs.strip(), results)
        t = self._new(op, tuple(o._node for o in operands), kind_extra,
                      shape, _DTYPES[dtype])
        names = ", ".join(self.value_names[o._node] for o in operands)
        source = types[0] if syntax == "arrow" else f"({', '.join(types)})"
        self.lines.append(
            f"  {self.value_names[t._node]} = bcast.{op} {names}{attrs} : "
            f"{source} -> {t._type}")
        return t

    def _check_tensor(self, op, x):
        if isinstance(x, _Scalar):
            raise _NeedsConcreteScalar(f"{op} of a scalar argument")
        if not isinstance(x, Tensor) or x._trace is not self:
            raise TypeError(f"{op} takes a bcast.Tensor of this trace")

    def binary(self, op, lhs, rhs, mode=None, true_division=False):
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            if isinstance(lhs, _Scalar) or isinstance(rhs, _Scalar):
                return self.scalar_binary(op, lhs, rhs, mode, true_division)
            raise TypeError("at least one operand must be a bcast.Tensor")
        compute = self._promote((lhs, rhs))
        a, b = self._operand(lhs, compute), self._operand(rhs, compute)
        attrs = f' {{rounding_mode = "{mode}"}}' if mode else ""
        return self._emit(op, (a, b), attrs)

    def true_div(self, lhs, rhs):
        return self.binary("div", lhs, rhs, true_division=True)

    def in_place(self, op, target, other, mode=None, true_division=False):
        compute = self._promote((target, other))
        b = self._operand(other, compute)
        attrs = f' {{rounding_mode = "{mode}"}}' if mode else ""
        result = self._emit(op + "_", (target, b), attrs,
                            kind_extra="in_place")
        return self._record_in_place(target, result)

    def unary(self, op, x, approximate=None):
        self._check_tensor(op, x)
        attrs = ""
        if approximate is not None:
            if op != "gelu":
                raise TypeError(f"{op} takes no approximate argument")
            if not isinstance(approximate, str):
                raise TypeError("approximate must be a str, not "
                                f"{type(approximate).__name__}")
            attrs = f" {{approximate = {_string_literal(approximate)}}}"
        return self._emit(op, (x,), attrs)

    def unary_in_place(self, op, target):
        self._check_tensor(op, target)
        result = self._emit(op + "_", (target,), "", kind_extra="in_place")
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

    def nary(self, op, values, attrs=""):
        """An element-wise op over Tensors and Python numbers that promote
        together (the binary functions and the three-operand ops)."""
        if not any(isinstance(v, Tensor) for v in values):
            if any(isinstance(v, _Scalar) for v in values):
                raise _NeedsConcreteScalar(f"{op} of scalar arguments")
            raise TypeError(f"{op} needs at least one bcast.Tensor")
        compute = self._promote(values)
        operands = [self._operand(v, compute) for v in values]
        return self._emit(op, operands, attrs)

    def nary_in_place(self, op, target, others, attrs=""):
        compute = self._promote((target,) + tuple(others))
        operands = [self._operand(v, compute) for v in others]
        result = self._emit(op + "_", [target] + operands, attrs,
                            kind_extra="in_place")
        return self._record_in_place(target, result)

    def cast(self, x, dtype):
        """x.astype(dtype): bcast.cast (PyTorch's .to(dtype))."""
        dtype = _as_dtype(dtype)
        if dtype not in _ELEMENT:
            raise TypeError(f"bcast does not support dtype {dtype}")
        if dtype == x.dtype:
            # A new Tensor of the same value, as NumPy's astype copies: an
            # in-place method on `x` later must not change it (fuzz seed
            # 7062: `y = x.astype(x.dtype); x.atan2_(z)` changed `y`).
            return Tensor(self, x._node, x.shape, x.dtype)
        return self._emit("cast", (x,), "", result=(x.shape, dtype))

    def where(self, cond, x, y):
        if isinstance(cond, _Scalar):
            cond = self._operand(cond, np.bool_)
        elif not isinstance(cond, Tensor):
            cond = self.constant(bool(cond), np.bool_)
        like = x if isinstance(x, Tensor) else (y if isinstance(y, Tensor)
                                                else None)
        if like is None:
            raise TypeError("where needs a bcast.Tensor for x or y")
        compute = self._promote((x, y))
        x, y = self._operand(x, compute), self._operand(y, compute)
        return self._emit("where", (cond, x, y), "")

    def broadcast_to(self, x, shape):
        self._check_tensor("broadcast_to", x)
        shape = tuple(_size(s) for s in shape)
        return self._emit("broadcast_to", (x,), "", kind_extra=shape,
                          result=(shape, x.dtype), syntax="arrow")

    def specify_shape(self, x, shape):
        self._check_tensor("specify_shape", x)
        if isinstance(shape, int):
            shape = (shape,)
        shape = tuple(_size(s) for s in shape)
        if len(shape) == x.ndim:
            shape = tuple(xs if s is None else s
                          for xs, s in zip(x.shape, shape))
        # The dialect's rule (same rank, static sizes kept), with PyTensor's
        # sentences.
        _bcast.infer_op("bcast.specify_shape", [x._type], "",
                        [_tensor_type(shape, x.dtype)])
        if shape == x.shape:
            return x  # nothing refined (PyTensor returns x too)
        return self._emit("specify_shape", (x,), "", kind_extra=shape,
                          result=(shape, x.dtype))


# The version in the disk cache's key: a kernel compiled by another version,
# or by another build of the extension, is never loaded.
_VERSION = "0.1.0"


def _cache_version():
    try:
        stat = os.stat(_bcast.__file__)
        build = f"{stat.st_size}-{stat.st_mtime_ns}"
    except OSError:
        build = "unknown"
    return f"bcast {_VERSION} extension {build}"


class _DiskCache:
    """Compiled kernels on disk: one file per key (the sha256 of the traced
    IR, the pipeline options, the shared libraries, bcast's version and the
    host CPU), holding a header line (key, size and sha256 of the object
    code) and the object code. A file that does not match its header, or
    does not link, is ignored and rewritten."""

    MAGIC = b"BCASTOBJ1\n"

    def __init__(self, directory=None):
        self.directory = (directory or os.environ.get("BCAST_CACHE_DIR") or
                          os.path.join(os.path.expanduser("~"), ".cache",
                                       "bcast"))

    @staticmethod
    def key(text, options, libs):
        material = "\n".join([_cache_version(), _bcast.host_cpu(), options,
                              ";".join(libs), text])
        return hashlib.sha256(material.encode()).hexdigest()

    def path(self, key):
        return os.path.join(self.directory, key + ".bcastobj")

    def load(self, key, libs):
        """The kernel stored under `key`, or None."""
        try:
            with open(self.path(key), "rb") as f:
                data = f.read()
        except OSError:
            return None
        if not data.startswith(self.MAGIC):
            return None
        header, newline, payload = data[len(self.MAGIC):].partition(b"\n")
        try:
            header = json.loads(header)
        except ValueError:
            return None
        if (not newline or not isinstance(header, dict) or
                header.get("key") != key or
                header.get("size") != len(payload) or
                header.get("sha256") != hashlib.sha256(payload).hexdigest()):
            return None
        try:
            return _bcast.Kernel.from_object(payload, libs)
        except _bcast.MLIRError:
            return None

    def store(self, key, kernel):
        """Writes `kernel`'s object code under `key` (atomically: a reader
        sees the old file or the new one). A cache that cannot be written is
        no error: the kernel is simply not kept."""
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd, object_path = tempfile.mkstemp(dir=self.directory,
                                               suffix=".o.tmp")
            os.close(fd)
            try:
                kernel.save_object(object_path)
                with open(object_path, "rb") as f:
                    payload = f.read()
            finally:
                os.unlink(object_path)
            header = json.dumps({"key": key, "size": len(payload),
                                 "sha256": hashlib.sha256(payload).hexdigest()})
            fd, temporary = tempfile.mkstemp(dir=self.directory,
                                             suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(self.MAGIC + header.encode() + b"\n" + payload)
            os.replace(temporary, self.path(key))
        except OSError:
            pass


class _Compiled:
    """One traced and compiled signature, and its plan for the extension's
    call path (Dispatcher._register)."""

    def __init__(self, trace, outputs, specs, options, single, disk=None,
                 device=None):
        self.trace = trace
        self.outputs = outputs  # list of ("arg", index) or ("new", Tensor)
        self.single = single
        self.specs = specs
        self.options = options
        # device: the CUDA device of CUDA tensor arguments, or None.
        self.device = device
        self.pipeline = "bcast-to-llvm" if device is None else "bcast-to-nvvm"
        text = self._kernel_text(outputs)
        self.ir = {"bcast": text}
        # The C runner utilities give memrefCopy, which the lowering calls
        # to copy a strided view, e.g. when an in-place operand with `?`
        # sizes is also read through its broadcast view (found by
        # fuzz/differential.py: "Symbols not found: [ memrefCopy ]").
        self.libs = [os.path.join(_LLVM_LIB_DIR, "libmlir_c_runner_utils.so")]
        if device is not None:
            self.libs.append(_cuda_runtime_path())
            # Linking a cached object would not run the constructor that
            # loads its GPU module: CUDA kernels are compiled per process.
            disk = None
        elif "parallel=false" not in options:
            self.libs.append(os.path.join(_LLVM_LIB_DIR, "libomp.so"))
        if "vector-math=libmvec" in options:
            self.libs.append(_LIBMVEC)
        self.source = "compiled"
        self.kernel = None
        key = None
        if disk is not None:
            key = disk.key(text, options, self.libs)
            self.kernel = disk.load(key, self.libs)
            if self.kernel is not None:
                self.source = "disk"
        if self.kernel is None:
            module = self._parse()
            # The input is verified and the pipeline is bcast-opt's, tested
            # with verification: not verifying after each pass saves time.
            module.run_pipeline(f"{self.pipeline}{{{options} "
                                "report-errors=true}", verify_each=False)
            # Linking runs the constructor that loads the GPU module, into
            # the device's context.
            if device is not None:
                _bcast.cuda_use_device(device)
            try:
                self.kernel = _bcast.Kernel(module, self.libs,
                                            keep_object=disk is not None)
            finally:
                if device is not None:
                    _bcast.cuda_use_device(-1)
            if disk is not None:
                disk.store(key, self.kernel)
        self._plan()

    def _parse(self):
        # The verifier's diagnostics (PyTorch's sentences) are ValueErrors.
        try:
            module = _bcast.Module.parse(self.ir["bcast"])
            module.verify()
        except _bcast.MLIRError as e:
            raise ValueError(str(e)) from None
        return module

    def stage(self, name):
        """The kernel's IR at a stage: 'bcast' (as traced), 'linalg' (after
        --bcast-to-linalg) or 'llvm' (after --bcast-to-llvm, or
        --bcast-to-nvvm for CUDA tensors), computed when first asked for."""
        if name not in self.ir:
            module = self._parse()
            if name == "linalg":
                module.run_pipeline(
                    f"bcast-to-linalg{{{self.options}}}")
            else:
                module.run_pipeline(f"{self.pipeline}{{{self.options} "
                                    "report-errors=true}")
            self.ir[name] = str(module)
        return self.ir[name]

    def _params(self):
        """Kernel parameters in positional order: (position, name, memref
        type, traced node)."""
        trace = self.trace
        params = []
        for i, t in enumerate(trace.arguments):
            params.append((trace.argument_positions[i], f"%m{i}",
                           _memref_type(t.shape, t.dtype),
                           _tensor_type(t.shape, t.dtype),
                           trace.argument_nodes[i],
                           " writable" if i in trace.mutated else ""))
        for k, scalar in enumerate(trace.scalars):
            carrier = _CARRIER[scalar.kind]
            params.append((scalar.position, f"%s{k}",
                           _memref_type((), carrier),
                           _tensor_type((), carrier), scalar._node, ""))
        return sorted(params, key=lambda p: p[0])

    def _kernel_text(self, outputs):
        trace = self.trace
        params, lines = [], []
        for _, name, memref, tensor, node, writable in self._params():
            params.append(f"{name}: {memref}")
            lines.append(f"  {trace.value_names[node]} = "
                         f"bufferization.to_tensor {name} restrict{writable} "
                         f": {memref} to {tensor}")
        lines += trace.lines
        # New results first, arguments updated in place last: a result that
        # is an argument's old value itself (after folding, `x | x` or an
        # identity broadcast_to is `x`) is read from the argument's buffer
        # when it is materialized, so it must be copied out before that
        # buffer is overwritten (found by fuzz/differential.py).
        write_backs = []
        for i, latest in trace.mutated.items():
            arg = trace.arguments[i]
            write_backs.append(
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
        lines += write_backs
        return (f"func.func @kernel({', '.join(params)}) attributes "
                f"{{llvm.emit_c_interface}} {{\n" + "\n".join(lines) +
                "\n  return\n}\n")

    def _plan(self):
        """What Dispatcher._register takes: how each positional argument
        reaches the kernel, the results, the shape nodes (dynamic sizes
        only) and the positions updated in place."""
        trace = self.trace
        param_of = {p[0]: i for i, p in enumerate(self._params())}
        scalar_positions = {s.position for s in trace.scalars}
        self.plan_args = []
        for position, spec in enumerate(self.specs):
            if spec[0] == "array":
                self.plan_args.append(("buffer", param_of[position]))
            elif position in scalar_positions:
                self.plan_args.append(("scalar", param_of[position],
                                       trace.scalar_ranges.get(position)))
            else:
                self.plan_args.append(("constant",))
        dynamic = any(s is None for t in trace.arguments for s in t.shape)
        self.plan_outputs = []
        for kind, value in self.outputs:
            if kind == "arg":
                self.plan_outputs.append(
                    ("arg", trace.argument_positions[value]))
            else:
                self.plan_outputs.append(
                    ("new", str(value.dtype),
                     value._node if dynamic else tuple(value.shape)))
        self.plan_nodes = []
        if dynamic:
            for kind, inputs, extra in trace.nodes:
                if kind == "arg":
                    self.plan_nodes.append(
                        ("arg", (), trace.argument_positions[extra]))
                elif kind in ("const", "scalar"):
                    self.plan_nodes.append(("zero", (), None))
                elif kind in ("broadcast_to", "specify_shape"):
                    self.plan_nodes.append((kind, inputs, extra))
                elif isinstance(extra, _Reduction):
                    self.plan_nodes.append(
                        ("reduce", inputs[:1],
                         extra.codes(kind, trace.node_ranks[inputs[0]])))
                elif extra == "in_place":
                    self.plan_nodes.append(("in_place", inputs, None))
                else:
                    self.plan_nodes.append(("broadcast", inputs, None))
        self.tensor_results = any(spec[0] == "array" and spec[4] != "numpy"
                                  for spec in self.specs)
        self.plan_device = -1 if self.device is None else self.device
        self.mutated_positions = tuple(trace.argument_positions[i]
                                       for i in trace.mutated)


class _Reduction:
    """The shape rule of a reduction node (kind_extra of _Trace._emit): its
    attributes, or the static result shape of a sum_to_size."""

    def __init__(self, attrs, target=None):
        self.attrs = attrs
        self.target = target

    def codes(self, op, rank):
        """The rule as the extension's shape codes: per result dimension a
        static size, or -(i + 2) for the size of input dimension i. The
        dialect infers the op's result on a probe shape of distinct large
        sizes, which no static size equals."""
        if self.target is not None:
            return tuple(self.target)
        probe = tuple(1_000_003 + 2 * i for i in range(rank))
        (shape, _), = _bcast.infer_op(f"bcast.{op}", [(probe, "float32")],
                                      self.attrs.strip())
        return tuple(-(probe.index(size) + 2) if size in probe else size
                     for size in shape)


def _is_tensor(value):
    """Whether `value` is a torch.Tensor (without importing torch)."""
    torch = _sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


class JitFunction(_bcast.Dispatcher):
    """A Python function compiled per signature (shapes and dtypes of array
    arguments, kinds of scalar arguments). Calls run in the base class, in
    C++; this class traces and compiles on a miss and converts arguments
    the call path does not take as they are."""

    def __init__(self, fn, policy="numpy", threads=None, dynamic=False,
                 specialize_scalars=False, cache=False, grain_size=None):
        if policy not in ("numpy", "static"):
            raise ValueError("policy must be 'numpy' or 'static'")
        if grain_size is not None and (isinstance(grain_size, bool) or
                                       not isinstance(grain_size, int) or
                                       grain_size < 0):
            raise ValueError("grain_size must be a non-negative integer")
        self.fn = fn
        self.policy = policy
        self.threads = threads
        self.dynamic = dynamic
        self.specialize_scalars = bool(specialize_scalars)
        self.grain_size = grain_size
        self.disk_cache = _DiskCache() if cache else None
        self.cache = {}
        self.lock = threading.RLock()
        functools.update_wrapper(self, fn)
        self._configure_dispatcher()

    def _configure_dispatcher(self):
        if self.dynamic is True or not self.dynamic:
            dims = []
        else:
            dims = [sorted(spec or ()) for spec in self.dynamic]
        self._configure(self.dynamic is True, dims, self.specialize_scalars)

    def _options(self, device=None):
        if device is not None:
            return f"broadcast-policy={self.policy} {_cuda_target(device)}"
        options = [f"broadcast-policy={self.policy}"]
        if _VECTOR_MATH != "libm":
            options.append(f"vector-math={_VECTOR_MATH}")
        if self.threads == 1:
            options.append("parallel=false")
        elif self.threads:
            options.append(f"num-threads={int(self.threads)}")
        if self.grain_size is not None:
            options.append(f"grain-size={self.grain_size}")
        return " ".join(options)

    def _dynamic_dims(self, index, ndim):
        if self.dynamic is True:
            return set(range(ndim))
        if not self.dynamic:
            return set()
        spec = self.dynamic[index] if index < len(self.dynamic) else ()
        return set(spec or ())

    def _specs(self, args):
        """The signature key (f.cache's) and the traced form of arguments
        the call path takes as they are: C-contiguous NumPy arrays and
        tensors, Python scalars; and the CUDA device of CUDA tensors, or
        None."""
        key, specs = [], []
        arrays = 0
        devices = []
        for arg in args:
            if isinstance(arg, (bool, int, float)):
                kind = (bool if isinstance(arg, bool) else
                        int if isinstance(arg, int) else float)
                if kind is int:
                    _check_int64(arg)
                if self.specialize_scalars:
                    value = struct.pack("<d", arg) if kind is float else arg
                    key.append(("scalar", kind.__name__, value))
                else:
                    key.append(("scalar", kind.__name__))
                specs.append(("scalar", kind, kind(arg)))
                continue
            if _is_tensor(arg):
                container, dtype = "torch", _as_dtype(arg.dtype)
                shape = tuple(arg.shape)
                device = _tensor_device(arg)
                if device != "cpu":
                    container = device
            else:
                container, dtype, shape = "numpy", arg.dtype, arg.shape
            device = container if container.startswith("cuda") else "cpu"
            if device not in devices:
                devices.append(device)
            if dtype not in _ELEMENT:
                raise TypeError(f"unsupported dtype {dtype}; bcast supports "
                                f"{sorted(str(d) for d in _ELEMENT)}")
            dims = self._dynamic_dims(arrays, len(shape))
            shape = tuple(None if d in dims else s
                          for d, s in enumerate(shape))
            key.append(("array", shape, str(dtype), container))
            specs.append(("array", arrays, shape, dtype, container))
            arrays += 1
        if len(devices) > 1:
            raise RuntimeError("Expected all tensors to be on the same "
                               "device, but found at least two devices, "
                               f"{devices[0]} and {devices[1]}!")
        if devices and devices[0] != "cpu":
            _cuda_ready()
            return tuple(key), specs, int(devices[0][5:])
        return tuple(key), specs, None

    def _trace(self, specs):
        trace = _Trace(self.policy)
        values = []
        for position, spec in enumerate(specs):
            if spec[0] == "scalar":
                values.append(spec[2] if self.specialize_scalars else
                              trace.scalar_argument(position, spec[1]))
            else:
                values.append(trace.argument(spec[1], spec[2], spec[3],
                                             position))
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

    def _compiled_for(self, args):
        key, specs, device = self._specs(args)
        compiled = self.cache.get(key)
        if compiled is None:
            trace, outputs, single = self._trace(specs)
            compiled = _Compiled(trace, outputs, specs, self._options(device),
                                 single, self.disk_cache, device)
            self.cache[key] = compiled
        return compiled

    def _miss(self, args, signature):
        """Called by the call path for a signature it has no kernel for:
        traces and compiles (or finds it in f.cache or on disk) and
        registers its plan. A function that needs the values of its scalar
        arguments while tracing is switched to specialize_scalars."""
        with self.lock:
            try:
                compiled = self._compiled_for(args)
            except _NeedsConcreteScalar:
                self.specialize_scalars = True
                self.cache.clear()
                self._configure_dispatcher()
                return
            self._register(signature, compiled.kernel, compiled.plan_args,
                           compiled.plan_outputs, compiled.single,
                           compiled.tensor_results, compiled.plan_nodes,
                           compiled.mutated_positions, compiled.plan_device)

    @staticmethod
    def _convert(args):
        """Arguments the call path takes, and {position: (original,
        replacement)} for the ones replaced: NumPy scalars become Python
        numbers, other array-likes NumPy arrays, non-contiguous (or
        misaligned, or byte-swapped) arrays and tensors contiguous copies,
        tensors that require grad their detached views."""
        converted, replaced = [], {}
        for position, arg in enumerate(args):
            new = arg
            if isinstance(arg, np.generic):
                new = arg.item()
            elif isinstance(arg, (bool, int, float)):
                pass
            elif _is_tensor(arg):
                if _tensor_device(arg) != "cpu":
                    _cuda_ready()
                if arg.requires_grad:
                    new = arg.detach()
                if not new.is_contiguous():
                    new = new.contiguous()
            else:
                new = np.asarray(arg)
                if new.dtype not in _ELEMENT and new.dtype.newbyteorder(
                        "=") not in _ELEMENT:
                    raise TypeError(f"unsupported dtype {new.dtype}; bcast "
                                    "supports "
                                    f"{sorted(str(d) for d in _ELEMENT)}")
                if not (new.flags.c_contiguous and new.flags.aligned and
                        new.dtype.isnative):
                    new = np.ascontiguousarray(
                        new, dtype=new.dtype.newbyteorder("="))
            converted.append(new)
            if new is not arg:
                replaced[position] = (arg, new)
        return tuple(converted), replaced

    def _slow_call(self, args, out):
        """Calls with arguments the call path does not take as they are
        (_convert), then copies in-place results back into the caller's
        arrays and tensors."""
        converted, replaced = self._convert(args)
        result, mutated = self._fast_call(converted, out)
        for position in mutated:
            if position not in replaced:
                continue
            original, copy = replaced[position]
            if isinstance(original, np.ndarray):
                np.copyto(original, copy)
            elif _is_tensor(original):
                if copy.data_ptr() != original.data_ptr():
                    with _sys.modules["torch"].no_grad():
                        original.copy_(copy)
            else:
                raise TypeError("an argument updated in place must be a "
                                "NumPy array or a PyTorch tensor")

        def caller_object(value):
            for original, copy in replaced.values():
                if value is copy:
                    return original
            return value

        if isinstance(result, tuple):
            return tuple(caller_object(r) for r in result)
        return caller_object(result)

    @staticmethod
    def _new_tensor(shape, dtype, device=-1):
        """A new result tensor (called by the call path), on CUDA device
        `device` unless it is -1."""
        torch = _sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, dtype),
                           device="cpu" if device < 0 else f"cuda:{device}")

    def compile(self, *args):
        """The compiled signature for these arguments (traced and compiled
        on first use)."""
        converted, _ = self._convert(args)
        with self.lock:
            try:
                return self._compiled_for(converted)
            except _NeedsConcreteScalar:
                self.specialize_scalars = True
                self.cache.clear()
                self._configure_dispatcher()
                return self._compiled_for(converted)

    def inspect(self, *args):
        """The IR of the kernel for these arguments at each stage: 'bcast'
        (as traced), 'linalg' (--bcast-to-linalg) and 'llvm'."""
        compiled = self.compile(*args)
        return {name: compiled.stage(name)
                for name in ("bcast", "linalg", "llvm")}


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


def jit(fn=None, *, policy="numpy", threads=None, dynamic=False,
        specialize_scalars=False, cache=False, grain_size=None):
    """Compiles `fn` to one fused kernel per signature: for the CPU, or
    with --bcast-to-nvvm for CUDA tensors, run on PyTorch's current stream.

    policy: "numpy" (a size that is 1 at run time broadcasts) or "static"
        (only sizes statically 1 broadcast; with dynamic sizes only).
    threads: None (all cores), 1 (single-threaded), or a thread count.
    dynamic: False, True (every size of every array argument is dynamic:
        one kernel serves all sizes), or a sequence with, per array
        argument, the dimensions that are dynamic.
    specialize_scalars: compile the values of Python scalar arguments into
        the kernel (a new value compiles a new kernel); by default they are
        run-time operands.
    cache: keep compiled kernels on disk (BCAST_CACHE_DIR, default
        ~/.cache/bcast), for this and later processes (CPU kernels; those
        for CUDA tensors are compiled once per process).
    grain_size: results of fewer elements run on one thread (default: the
        pipeline's, docs/Benchmarks.md); 0 always uses all threads.
    """
    options = dict(policy=policy, threads=threads, dynamic=dynamic,
                   specialize_scalars=specialize_scalars, cache=cache,
                   grain_size=grain_size)
    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)
