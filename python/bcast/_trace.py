"""Tracing: _Trace records the bcast ops of one traced call as MLIR text,
and the nodes whose shapes the extension computes when sizes are dynamic.
Every op it records is asked of the dialect first (_bcast.infer_op: the
op's own type inference and verifier), which gives the result type or the
verifier's sentence as the exception; Python numbers become constants of
the dtype PyTorch's promotion gives them.
"""

import numpy as np

from . import _bcast
from ._dtypes import (_CARRIER, _DTYPES, _ELEMENT, _KIND_OF_CARRIER,
                      _as_dtype, _check_int64,
                      _float_literal, _size, _string_literal, _tensor_type)
from ._tensor import Tensor, _NeedsConcreteScalar, _Scalar


def _identity_index(values, value):
    """The index of `value` in `values` by identity (Tensor's == is an op)."""
    for i, v in enumerate(values):
        if v is value:
            return i
    return None


# The ops whose Python-number operands PyTorch converts with its checked
# conversion (clamp's Scalar bounds, pow's exponent); `where` too.
_CHECKED_SCALAR_OPS = ("clamp", "clamp_min", "clamp_max", "pow")


def _wrap_int(value, dtype):
    """The Python int `value` in the integer dtype `dtype`, wrapped as a
    two's complement conversion does (c10's static_cast from int64)."""
    info = np.iinfo(dtype)
    bits = info.bits
    value &= (1 << bits) - 1
    if info.min < 0 and value > info.max:
        value -= 1 << bits
    return value


def _check_scalar_conversion(value, dtype):
    """PyTorch's checked conversion of an integer Scalar (c10's
    `overflows`): within the dtype's range, or for unsigned dtypes down to
    minus its maximum (which then wraps); otherwise its error, with its C++
    type name."""
    info = np.iinfo(dtype)
    low = -int(info.max) if info.min == 0 else int(info.min)
    if not low <= value <= int(info.max):
        name = "int" if dtype == np.int32 else f"{dtype}_t"
        raise ValueError(f"value cannot be converted to type {name} without "
                         "overflow")


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
        # _Scalar per scalar argument compiled as a run-time operand (an
        # integer one wraps into the dtypes it converts to, as PyTorch's
        # does, so no value is out of range).
        self.scalars = []
        self.mutated = {}  # argument index -> latest Tensor
        # argument index -> the node of its first in-place update: which
        # arguments an argument sharing its memory is read before
        # (_compiled.aliasing).
        self.first_write = {}
        self.node_ranks = []  # rank per node
        self.torch_inputs = False  # called with torch tensors (_dispatch)

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

    def _operand(self, value, dtype, bool_as_is=True, checked=False):
        """A Tensor for `value`: Tensors as they are, Python numbers as
        constants of `dtype` (the type the operation computes in), scalar
        arguments converted to it. A Python bool stays a bool (with
        `bool_as_is`): it promotes as a weak bool would (never above
        another operand), and the op's verifier sees it, as PyTorch's
        checks do (`x - True`). A Python int converted to a narrower
        integer dtype wraps (two's complement), as PyTorch 1.13 converts a
        wrapped scalar (`uint8 + -1` adds 255); with `checked` (clamp's
        bounds, where's branches, pow's exponent: PyTorch's checked
        conversion) one beyond the dtype's range is PyTorch's error first,
        so a scalar argument there is compiled in."""
        if isinstance(value, Tensor):
            return value
        if bool_as_is and self._scalar_kind(value) is bool:
            dtype = _CARRIER[bool]
        dtype = _as_dtype(dtype)
        if isinstance(value, _Scalar):
            if checked and value.kind is int and dtype.kind in "iu":
                raise _NeedsConcreteScalar("an integer bound checked against "
                                           "its dtype's range")
            return self.cast(value._view(), dtype)
        value = self._scalar(value)
        if (dtype.kind in "iu" and isinstance(value, int) and
                not isinstance(value, bool)):
            if checked:
                _check_scalar_conversion(value, dtype)
            value = _wrap_int(value, dtype)
        return self.constant(value, dtype)

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
            results = [(tuple(result[0]),
                        None if result[1] is None else str(result[1]))]
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

    def binary(self, op, lhs, rhs, mode=None, true_division=False,
               attrs=""):
        """`attrs` (' {...}'), or the rounding mode's."""
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            if isinstance(lhs, _Scalar) or isinstance(rhs, _Scalar):
                if attrs:
                    raise _NeedsConcreteScalar(f"{op} of scalar arguments "
                                               "with attributes")
                return self.scalar_binary(op, lhs, rhs, mode, true_division)
            raise TypeError("at least one operand must be a bcast.Tensor")
        compute = self._number_dtype(self._promote((lhs, rhs)),
                                     true_division)
        if op == "pow":
            self._check_integer_power(compute, rhs)
        checked = op in _CHECKED_SCALAR_OPS
        a = self._operand(lhs, compute, checked=checked)
        b = self._operand(rhs, compute, checked=checked)
        if mode:
            attrs = f' {{rounding_mode = "{mode}"}}'
        return self._emit(op, (a, b), attrs)

    def _check_integer_power(self, compute, exponent):
        """PyTorch's pow(Tensor, Scalar) refuses a negative integer
        exponent of an integer (or bool) tensor before computing."""
        if _as_dtype(compute).kind not in "biu" or isinstance(exponent,
                                                              Tensor):
            return
        if isinstance(exponent, _Scalar):
            if exponent.kind is int:
                raise _NeedsConcreteScalar("an integer exponent's sign")
            return
        exponent = self._scalar(exponent)
        if isinstance(exponent, int) and exponent < 0:
            raise ValueError("Integers to negative integer powers are not "
                             "allowed.")

    @staticmethod
    def _number_dtype(compute, true_division):
        """The dtype a Python number of a binary op becomes: the promoted
        dtype, or float32 for a true division of integers (PyTorch's
        division converts the number to the float it computes in: `uint8 /
        -1` divides by -1.0)."""
        if true_division and _as_dtype(compute).kind in "biu":
            return np.dtype(np.float32)
        return compute

    def matmul(self, lhs, rhs):
        """bcast.matmul: both operands tensors of this trace (a Python
        number has no dimensions: torch.matmul takes tensors only)."""
        for x in (lhs, rhs):
            if isinstance(x, _Scalar):
                raise _NeedsConcreteScalar("matmul of a scalar argument")
            if not isinstance(x, Tensor):
                raise TypeError("matmul takes two bcast.Tensors, not "
                                f"{type(x).__name__}")
        return self._emit("matmul", (lhs, rhs), "")

    def true_div(self, lhs, rhs, operator=False):
        """`lhs / rhs`; with `operator`, Python's `/` as PyTorch defines
        it."""
        if operator and isinstance(rhs, Tensor) and \
                not isinstance(lhs, Tensor):
            # PyTorch's `number / tensor` is `tensor.reciprocal() * number`
            # (torch/_tensor.py's __rdiv__), rounded twice: not the
            # correctly rounded quotient.
            return self.binary("mul", self.unary("reciprocal", rhs), lhs)
        return self.binary("div", lhs, rhs, true_division=True)

    def in_place(self, op, target, other, mode=None, true_division=False,
                 attrs=""):
        compute = self._number_dtype(self._promote((target, other)),
                                     true_division)
        if op == "pow":
            self._check_integer_power(compute, other)
        b = self._operand(other, compute, checked=op in _CHECKED_SCALAR_OPS)
        if mode:
            attrs = f' {{rounding_mode = "{mode}"}}'
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
            self.first_write.setdefault(index, result._node)
        return target

    def nary(self, op, values, attrs=""):
        """An element-wise op over Tensors and Python numbers that promote
        together (the binary functions and the three-operand ops)."""
        if not any(isinstance(v, Tensor) for v in values):
            if any(isinstance(v, _Scalar) for v in values):
                raise _NeedsConcreteScalar(f"{op} of scalar arguments")
            raise TypeError(f"{op} needs at least one bcast.Tensor")
        compute = self._promote(values)
        checked = op in _CHECKED_SCALAR_OPS
        operands = [self._operand(v, compute, checked=checked)
                    for v in values]
        return self._emit(op, operands, attrs)

    def nary_in_place(self, op, target, others, attrs=""):
        compute = self._promote((target,) + tuple(others))
        checked = op in _CHECKED_SCALAR_OPS
        operands = [self._operand(v, compute, checked=checked)
                    for v in others]
        result = self._emit(op + "_", [target] + operands, attrs,
                            kind_extra="in_place")
        return self._record_in_place(target, result)

    def lerp(self, start, end, weight, in_place=False):
        """bcast.lerp (lerp_ with `in_place`). A weight that is a Python
        number or a scalar argument is PyTorch's lerp.Scalar: its 64-bit
        carrier with `scalar_weight`, which the op converts straight to the
        type it computes in (f32 for f16 and bf16 tensors), so that 0.4 is
        not first rounded to the tensors' dtype (bf16's 0.400390625)."""
        if isinstance(weight, Tensor):
            if in_place:
                return self.nary_in_place("lerp", start, (end, weight))
            return self.nary("lerp", (start, end, weight))
        if not isinstance(start, Tensor) and not isinstance(end, Tensor):
            if isinstance(start, _Scalar) or isinstance(end, _Scalar):
                raise _NeedsConcreteScalar("lerp of scalar arguments")
            raise TypeError("lerp needs at least one bcast.Tensor")
        if isinstance(weight, _Scalar):
            weight = weight._view()
        else:
            value = self._scalar(weight)
            weight = self.constant(value, _CARRIER[self._scalar_kind(value)])
        compute = self._promote((start, end))
        attrs = " {scalar_weight}"
        end = self._operand(end, compute)
        if in_place:
            result = self._emit("lerp_", (start, end, weight), attrs,
                                kind_extra="in_place")
            return self._record_in_place(start, result)
        return self._emit("lerp", (self._operand(start, compute), end, weight),
                          attrs)

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
        # Two Python numbers promote as numbers (PyTorch 1.13: two floats
        # give the default dtype, float32).
        compute = self._promote((x, y))
        x = self._operand(x, compute, checked=True)
        y = self._operand(y, compute, checked=True)
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
