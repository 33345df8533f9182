#!/usr/bin/env python3
"""Differential fuzzer: random bcast programs over every element-wise op,
`where`, `cast`, `broadcast_to`, `matmul` and the reductions (sum ... std with
dims, keepdim and correction, argmax/argmin, softmax/log_softmax,
sum_to_size), run three ways and compared with
PyTorch (the reference, computed here while the program is generated):

  ir     the program as a function called from @main on constants,
         `bcast-opt --bcast-to-llvm` and `mlir-runner` (no folding: the
         function takes its inputs as arguments);
  fold   the same program on constants inside the function, with
         `--canonicalize` first, so that the folders compute what they can;
  jit    the same program as a Python function compiled by @bcast.jit
         (skipped for ops the Python API does not spell, and for bf16).

A program has one to three inputs of random shapes that broadcast together
(rank 0 to 3, sizes 0 to 4; sometimes passed with `?` sizes) and random,
often mixed, element types, and one to five ops, each on earlier values.
Values come from edge sets (NaN, the infinities, -0, extremes of each
integer type), so integer division meets `INT_MIN // -1` and casts meet NaN
and values out of range, both PyTorch's CPU values in bcast. Ops that raise
at run time (integer division by zero: ZeroDivisionError, which
test/Integration/zero-division.mlir tests), that PyTorch 1.13 cannot compute
(`INT_MIN // -1` at 32 and 64 bits: SIGFPE) or that differ by design from
PyTorch 1.13's CPU kernels (shift amounts outside [0, width);
docs/Semantics.md) are not generated on such values. Ops PyTorch rejects
for their types are checked to be rejected by bcast's verifier too.

Results of ops that round the same way in both (IEEE add, mul, ...,
comparisons, integer ops) are compared exactly (to the 6 digits the runner
prints); results of math functions, which differ by a few ulps between
libraries, within a relative 1e-3 (1e-2 for f16 and bf16), and such a
result is not fed to another op.

    differential.py [--seed N] [--programs N] [--time SECONDS] [--batch N]
                    [--modes ir,fold,jit] [--keep DIR]

Prints "PASS: ..." with counts, or every mismatch with a reproducer written
to --keep (default: a temporary directory), and exits 1. A new op is one
entry in OPS (its PyTorch function, whether it is exact, attribute sets, the
Python spelling); docs/Robustness.md says more.
"""

import argparse
import operator
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Integration", "Inputs"))
import numeric as nm  # noqa: E402  (tensor_type, literal, printing, parsing)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

bfloat16 = nm.bfloat16

# PyTorch's dtypes that torch 1.13 and NumPy both have, and bf16.
DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
          np.float16, bfloat16, np.float32, np.float64]
FLOATS = (np.float16, bfloat16, np.float32, np.float64)

#===------------------------------------------------------------------------===#
# The op table
#===------------------------------------------------------------------------===#


class Op:
    """One bcast op (and its in-place twin `<name>_` when `twin`).

    torch:  the reference, a function of torch tensors (and attributes as
            keyword arguments);
    exact:  bcast and PyTorch round it the same way (IEEE operations,
            integer ops, comparisons): compared exactly;
    attrs:  attribute sets, one drawn per use ({} is none);
    python: the op on @bcast.jit's traced tensors (None: not spelled in the
            Python API); python_inplace likewise for the twin.
    """

    def __init__(self, name, arity, torch_fn, exact=True, twin=True,
                 attrs=({},), python=None, python_inplace=None):
        self.name = name
        self.arity = arity
        self.torch = torch_fn
        self.exact = exact
        self.twin = twin
        self.attrs = list(attrs)
        self.python = python
        self.python_inplace = python_inplace


def _bcast():
    import bcast
    return bcast


def _unary_py(name):
    return lambda x: getattr(_bcast(), name)(x)


def _unary_py_inplace(name):
    return lambda x: getattr(x, name + "_")()


def _method_inplace(name):
    return lambda x, *rest, **kw: getattr(x, name + "_")(*rest, **kw)


ROUNDING = ({}, {"rounding_mode": "trunc"}, {"rounding_mode": "floor"})
VALUES = ({}, {"value": 0.5}, {"value": -2.0}, {"value": 3.0},
          {"value": float("nan")}, {"value": float("inf")},
          {"value": float("-inf")})

OPS = [
    Op("add", 2, torch.add, python=operator.add,
       python_inplace=operator.iadd),
    Op("sub", 2, torch.sub, python=operator.sub,
       python_inplace=operator.isub),
    Op("mul", 2, torch.mul, python=operator.mul,
       python_inplace=operator.imul),
    Op("div", 2, torch.div, attrs=ROUNDING),
    Op("remainder", 2, torch.remainder, python=operator.mod,
       python_inplace=operator.imod),
    Op("fmod", 2, torch.fmod),
    Op("pow", 2, torch.pow, exact=False),
    Op("maximum", 2, torch.maximum,
       python=lambda a, b: _bcast().maximum(a, b)),
    Op("minimum", 2, torch.minimum,
       python=lambda a, b: _bcast().minimum(a, b)),
    Op("and", 2, torch.bitwise_and, python=operator.and_,
       python_inplace=operator.iand),
    Op("or", 2, torch.bitwise_or, python=operator.or_,
       python_inplace=operator.ior),
    Op("xor", 2, torch.bitwise_xor, python=operator.xor,
       python_inplace=operator.ixor),
    Op("atan2", 2, torch.atan2, exact=False),
    Op("copysign", 2, torch.copysign),
    Op("hypot", 2, torch.hypot, exact=False),
    Op("bitwise_left_shift", 2, torch.bitwise_left_shift,
       python=operator.lshift, python_inplace=operator.ilshift),
    Op("bitwise_right_shift", 2, torch.bitwise_right_shift,
       python=operator.rshift, python_inplace=operator.irshift),
    Op("logical_and", 2, torch.logical_and),
    Op("logical_or", 2, torch.logical_or),
    Op("logical_xor", 2, torch.logical_xor),
    Op("eq", 2, torch.eq, twin=False, python=operator.eq),
    Op("ne", 2, torch.ne, twin=False, python=operator.ne),
    Op("lt", 2, torch.lt, twin=False, python=operator.lt),
    Op("le", 2, torch.le, twin=False, python=operator.le),
    Op("gt", 2, torch.gt, twin=False, python=operator.gt),
    Op("ge", 2, torch.ge, twin=False, python=operator.ge),
    Op("clamp", 3, torch.clamp,
       python=lambda x, lo, hi: _bcast().clamp(x, lo, hi),
       python_inplace=lambda x, lo, hi: x.clamp_(lo, hi)),
    Op("lerp", 3, torch.lerp, exact=False,
       python=lambda s, e, w: _bcast().lerp(s, e, w),
       python_inplace=lambda s, e, w: s.lerp_(e, w)),
    Op("addcmul", 3, torch.addcmul, exact=False, attrs=VALUES),
    Op("addcdiv", 3, torch.addcdiv, exact=False, attrs=VALUES),
]
# The unary ops: float functions round as their libraries do; the others
# are exact. (name, exact, has an in-place twin)
for _name, _exact, _twin in [
        ("exp", False, True), ("exp2", False, True), ("expm1", False, True),
        ("log", False, True), ("log2", False, True), ("log10", False, True),
        ("log1p", False, True), ("sqrt", False, True), ("rsqrt", False, True),
        ("reciprocal", False, True), ("sin", False, True),
        ("cos", False, True), ("tan", False, True), ("asin", False, True),
        ("acos", False, True), ("atan", False, True), ("sinh", False, True),
        ("cosh", False, True), ("tanh", False, True), ("asinh", False, True),
        ("acosh", False, True), ("atanh", False, True),
        ("sigmoid", False, True), ("erf", False, True), ("erfc", False, True),
        ("silu", False, False), ("gelu", False, False),
        ("abs", True, True), ("neg", True, True), ("sign", True, True),
        ("floor", True, True), ("ceil", True, True), ("round", True, True),
        ("trunc", True, True), ("relu", True, True),
        ("bitwise_not", True, True), ("logical_not", True, True),
        ("isnan", True, False), ("isinf", True, False),
        ("isfinite", True, False)]:
    _fn = {"silu": F.silu, "gelu": F.gelu, "relu": torch.relu}.get(
        _name) or getattr(torch, _name)
    OPS.append(Op(_name, 1, _fn, exact=_exact, twin=_twin,
                  attrs=({}, {"approximate": "tanh"},
                         {"approximate": "none"}) if _name == "gelu" else ({},),
                  python=_unary_py(_name),
                  python_inplace=_unary_py_inplace(_name) if _twin else None))

# The binary functions the Python API spells as bcast.<name>, with in-place
# methods <name>_.
for _op in OPS:
    if _op.name in ("atan2", "copysign", "hypot", "logical_and",
                    "logical_or", "logical_xor"):
        _op.python = (lambda n: lambda a, b: getattr(_bcast(), n)(a, b))(
            _op.name)
        _op.python_inplace = _method_inplace(_op.name)

# Ops that are not element-wise functions of torch: built by hand below.
SPECIAL = ["where", "cast", "broadcast_to", "matmul"]

# The reductions (issue 14), drawn through the special "reduce": one of
# these kinds with random dims, keepdim and correction; their result types
# are PyTorch 1.13's (docs/Semantics.md, "Reductions"): any/all give bool
# (uint8 for uint8), sum_to_size is a sum where it sums anything.
REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "any", "all",
              "logsumexp", "var", "std", "argmax", "argmin", "softmax",
              "log_softmax", "sum_to_size"]
# Results that do not depend on the order of the arithmetic.
EXACT_REDUCTIONS = ("amax", "amin", "any", "all", "argmax", "argmin")

#===------------------------------------------------------------------------===#
# Values
#===------------------------------------------------------------------------===#

INT_EDGES = [-9, -3, -2, -1, 0, 1, 2, 3, 5, 7, 8, 100]
FLOAT_EDGES = [-np.inf, -7.5, -2.0, -1.0, -0.5, -0.0, 0.0, 1e-3, 0.25, 0.5,
               1.0, 2.0, 3.0, 4.5, 100.0, np.inf, np.nan]


def random_array(rng, shape, dtype):
    size = int(np.prod(shape))
    if dtype == np.bool_:
        return np.array([rng.random() < 0.5 for _ in range(size)],
                        bool).reshape(shape)
    if dtype in FLOATS:
        values = [rng.choice(FLOAT_EDGES) for _ in range(size)]
        return nm.typed(np.array(values, np.float64).reshape(shape), dtype)
    info = np.iinfo(dtype)
    edges = [v for v in INT_EDGES if info.min <= v <= info.max]
    edges += [int(info.min), int(info.max)]
    values = [rng.choice(edges) for _ in range(size)]
    return np.array(values, dtype=dtype).reshape(shape)


class Value:
    """A value of the program: its reference array and how it came about."""

    def __init__(self, index, array, exact):
        self.index = index          # %v<index>
        self.array = array
        self.exact = exact          # no inexact op on the way

    @property
    def dtype(self):
        return nm.dtype_of(self.array)


def torch_apply(op, args, attrs, in_place):
    """`op` applied by PyTorch to the arrays `args`, as bcast computes it;
    None where PyTorch rejects the types. A missing f16/bf16 CPU kernel in
    PyTorch 1.13 is not a rejection: bcast computes those in f32, and so
    does the reference (numeric.torch_reference)."""
    fn = op.torch
    call = (lambda *t: fn(*t, **attrs)) if attrs else fn

    def probe(tensors):
        if not in_place:
            call(*tensors)
            return
        tensors = [t.clone() for t in tensors]
        method = getattr(tensors[0], f"{torch_name(op)}_", None)
        if method is not None:
            method(*tensors[1:], **attrs)
            return
        # No method (maximum_, minimum_): PyTorch's in-place rule.
        result = call(*tensors)
        if result.shape != tensors[0].shape or not torch.can_cast(
                result.dtype, tensors[0].dtype):
            raise RuntimeError("in-place result does not fit")

    tensors = [nm.to_torch(a) for a in args]
    try:
        try:
            probe(tensors)
        except RuntimeError as e:
            if "'Half'" not in str(e) and "'BFloat16'" not in str(e):
                raise
            # A kernel PyTorch 1.13 lacks for f16/bf16 on the CPU: the op
            # is defined if it is for f32.
            probe([t.float() if t.dtype in (torch.float16, torch.bfloat16)
                   else t for t in tensors])
        with np.errstate(all="ignore"):
            return nm.torch_reference(call, args, in_place=in_place), None
    except (RuntimeError, TypeError) as e:
        return None, str(e)


def torch_name(op):
    """The name of the PyTorch method of `op` (for the in-place probe)."""
    return {"and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
            "maximum": "maximum", "minimum": "minimum"}.get(op.name, op.name)


def undefined(op, args, attrs):
    """Whether bcast leaves the op undefined (or differs from PyTorch by
    design) on these values."""
    with np.errstate(all="ignore"):
        dtypes = [nm.dtype_of(a) for a in args]
        integral = all(d not in FLOATS for d in dtypes)
        # The reference computes f16 and bf16 in f32 from the operands as
        # they are (numeric.torch_reference); an integer operand that f16 or
        # bf16 does not hold exactly would be rounded to the promoted type
        # first in bcast (and in PyTorch's TensorIterator) but not there.
        exact_limit = (256 if bfloat16 in dtypes else
                       2048 if np.float16 in dtypes else None)
        if exact_limit is not None:
            for a, d in zip(args, dtypes):
                if d not in FLOATS and d != np.bool_ and (
                        np.abs(np.asarray(a).astype(np.float64)) >
                        exact_limit).any():
                    return True
        try:
            np.broadcast_shapes(*[np.shape(x) for x in args])
        except ValueError:
            # Shapes that do not broadcast: the step is rejected (and the
            # rejection checked) later, nothing is computed.
            return False
        if op.name in ("div", "remainder", "fmod") and integral and (
                op.name != "div" or attrs):
            a, b = np.broadcast_arrays(*[np.asarray(x) for x in args])
            if (b == 0).any():
                # PyTorch's ZeroDivisionError, and bcast's at run time,
                # which would stop the whole batch: test/Integration/
                # zero-division.mlir tests it.
                return True
            # INT_MIN / -1 wraps in bcast at every width, as in PyTorch at
            # 8 and 16 bits; PyTorch 1.13 dies of SIGFPE at 32 and 64
            # (docs/Semantics.md), so those are not asked of it.
            promoted = torch.result_type(*[nm.to_torch(np.asarray(x))
                                           for x in args])
            if promoted in (torch.int32, torch.int64):
                low = torch.iinfo(promoted).min
                if ((b.astype(np.int64) == -1) &
                        (a.astype(np.int64) == low)).any():
                    return True
        if op.name in ("bitwise_left_shift", "bitwise_right_shift"):
            a, b = np.broadcast_arrays(*[np.asarray(x) for x in args])
            width = max((np.dtype(d).itemsize * 8 for d in dtypes
                         if d not in FLOATS), default=64)
            if ((b.astype(np.int64) < 0) |
                    (b.astype(np.int64) >= width)).any():
                return True
            # PyTorch's left shift of a negative number is UB in C++ but
            # wraps on x86, as bcast's does.
        if op.name == "pow" and integral:
            b = np.asarray(args[1])
            if (b.astype(np.int64) < 0).any():
                # PyTorch raises for negative integer powers of tensors
                # only sometimes; bcast's rule is documented
                # (Semantics.md) and tested by numeric-int.test.
                return True
    return False


#===------------------------------------------------------------------------===#
# Programs
#===------------------------------------------------------------------------===#


class Step:
    def __init__(self, op, operands, attrs, in_place, result, extra=None):
        self.op = op                # an Op, a SPECIAL name or "reduce"
        self.operands = operands    # Value indices
        self.attrs = attrs          # reduce: (kind, dims, keepdim, extra)
        self.in_place = in_place
        self.result = result        # a Value
        self.extra = extra          # cast: the dtype; broadcast_to: shape;
        #                             matmul: "transposed" (rhs read so)

    @property
    def name(self):
        if self.op == "reduce":
            return self.attrs[0]
        return self.op if isinstance(self.op, str) else self.op.name


class Program:
    def __init__(self, inputs, dynamic):
        self.inputs = inputs        # Values 0..n-1
        self.values = list(inputs)
        self.steps = []
        self.dynamic = dynamic      # function arguments with `?` sizes
        self.consumed = set()       # in-place operands (not used again)
        self.wide_rng = None        # a wide program's own stream (generate)

    def usable(self, exact_only=True):
        return [v for v in self.values if v.index not in self.consumed and
                (v.exact or not exact_only)]

    def results(self):
        return [s.result for s in self.steps
                if s.result.index not in self.consumed]


def broadcastable_shapes(rng, count, side=None):
    """`count` shapes that broadcast together; with `side`, the last two
    dims of the full shape (rank 2 or more) are that size."""
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3])
    full = [rng.choice([0, 1, 2, 2, 3, 3, 4]) if rng.random() < 0.9 else 0
            for _ in range(rank)]
    if rng.random() < 0.7:
        full = [s if s else rng.choice([1, 2, 3]) for s in full]
    if side is not None and rank >= 2:
        full = full[:-2] + [side, side]
    shapes = []
    for _ in range(count):
        drop = rng.randint(0, rank) if rng.random() < 0.4 else 0
        shapes.append(tuple(1 if rng.random() < 0.3 else s
                            for s in full[drop:]))
    return shapes


def try_step(rng, program, op, in_place):
    """Adds one use of `op` on random usable values, or returns False."""
    pool = program.usable()
    if not pool:
        return False
    if isinstance(op, str):
        return try_special(rng, program, op, pool)
    operands = [rng.choice(pool) for _ in range(op.arity)]
    if in_place:
        # The in-place operand must have the broadcast shape.
        try:
            shape = np.broadcast_shapes(*[v.array.shape for v in operands])
        except ValueError:
            return False
        wide = [v for v in pool if v.array.shape == shape]
        if not wide:
            return False
        operands[0] = rng.choice(wide)
    attrs = rng.choice(op.attrs)
    args = [v.array for v in operands]
    if undefined(op, args, attrs):
        return False
    result, _ = torch_apply(op, args, attrs, in_place)
    if result is None:
        return False
    result = np.asarray(result) if not isinstance(result, nm.BF16Array) \
        else result
    if in_place and result.shape != operands[0].array.shape:
        return False
    value = Value(len(program.values), result,
                  op.exact and all(v.exact for v in operands))
    program.values.append(value)
    program.steps.append(Step(op, [v.index for v in operands], attrs,
                              in_place, value))
    if in_place:
        program.consumed.add(operands[0].index)
    return True


def reduction_reference(kind, x, dims, keepdim, extra):
    """PyTorch's (or, for any and all, NumPy's) value of a reduction of the
    array `x`, in bcast's result type; None where PyTorch rejects it or the
    result is an error (an empty amax, argmax, ...)."""
    rank = x.ndim
    if dims is None:
        td = tuple(range(rank))
    else:
        td = (dims,) if isinstance(dims, int) else tuple(dims)
    norm = sorted({d % rank for d in td}) if rank else []
    dtype = nm.dtype_of(x)
    if kind in ("any", "all"):
        values = np.asarray(x, np.float32) if dtype is bfloat16 else x
        return np.asarray(getattr(np, kind)(
            values, axis=td if rank else None, keepdims=keepdim)).astype(
                np.uint8 if dtype is np.uint8 else np.bool_)
    if kind == "sum_to_size":
        return nm.torch_reference(lambda t: t.sum_to_size(extra), [x])
    if kind in ("amax", "amin", "argmax", "argmin") and any(
            x.shape[d] == 0 for d in norm):
        return None  # an error in both (at run time where sizes are `?`)
    if kind in ("var", "std") and rank == 0 and dims is not None and \
            dtype in (np.float16, bfloat16):
        return None  # PyTorch's meta decomposition fails here
    if kind == "logsumexp" and rank == 0 and dims is None:
        return None  # PyTorch 1.13 reduces no dim here

    def prod(t):
        if not rank:
            return torch.prod(t)
        for d in reversed(norm):
            t = torch.prod(t, d, keepdim=True)
        if not keepdim:
            t = t.reshape([s for i, s in enumerate(t.shape) if i not in norm])
        return t

    fns = {
        "sum": lambda t: torch.sum(t, td, keepdim),
        "mean": lambda t: torch.mean(t, td, keepdim),
        "prod": prod,
        "amax": lambda t: torch.amax(t, td, keepdim),
        "amin": lambda t: torch.amin(t, td, keepdim),
        "logsumexp": lambda t: torch.logsumexp(t, td, keepdim),
        "var": lambda t: torch.var(t, td, correction=extra, keepdim=keepdim),
        "std": lambda t: torch.std(t, td, correction=extra, keepdim=keepdim),
        "argmax": lambda t: (torch.argmax(t, keepdim=keepdim) if dims is None
                             else torch.argmax(t, dims, keepdim)),
        "argmin": lambda t: (torch.argmin(t, keepdim=keepdim) if dims is None
                             else torch.argmin(t, dims, keepdim)),
        "softmax": lambda t: torch.softmax(t, dims),
        "log_softmax": lambda t: torch.log_softmax(t, dims),
    }
    if kind in ("mean", "var", "std", "softmax", "log_softmax") and \
            dtype not in FLOATS:
        return None  # PyTorch's rule (and bcast's verifier)
    if kind in ("argmax", "argmin") and dtype == np.bool_:
        return None
    try:
        with np.errstate(all="ignore"):
            return nm.torch_reference(fns[kind], [x])
    except (RuntimeError, TypeError, IndexError):
        return None


def try_reduction(rng, program, pool):
    """One reduction of a random value: dims (absent, or distinct dims
    spelt positive or negative), keepdim, a correction for var and std, a
    sum_to_size target the input expands to."""
    x = rng.choice(pool)
    rank = x.array.ndim
    kind = rng.choice(REDUCTIONS)
    extent = max(rank, 1)

    def spell(d):
        return d - extent if rng.random() < 0.5 else d

    keepdim = rng.random() < 0.5
    extra = None
    if kind in ("argmax", "argmin"):
        dims = None if rng.random() < 0.3 else spell(rng.randrange(extent))
    elif kind in ("softmax", "log_softmax"):
        dims, keepdim = spell(rng.randrange(extent)), False
    elif kind == "sum_to_size":
        dims, keepdim = None, False
        shape = x.array.shape[rng.randint(0, rank):]
        extra = tuple(1 if rng.random() < 0.5 else s for s in shape)
        if extra and extra == x.array.shape:
            # PyTorch (and @bcast.jit) return the input itself, which a
            # later in-place op would update too; the reference does not
            # model aliases.
            return False
    elif rng.random() < 0.3:
        dims = None
    else:
        chosen = rng.sample(range(extent), rng.randint(1, extent))
        dims = [spell(d) for d in chosen]
    if kind in ("var", "std"):
        extra = rng.choice([0, 1, 2])
    result = reduction_reference(kind, x.array, dims, keepdim, extra)
    if result is None:
        return False
    if not isinstance(result, nm.BF16Array):
        result = np.asarray(result)
    exact = x.exact and (kind in EXACT_REDUCTIONS or (
        kind in ("sum", "prod", "sum_to_size") and x.dtype not in FLOATS))
    value = Value(len(program.values), result, exact)
    program.values.append(value)
    program.steps.append(Step("reduce", [x.index], (kind, dims, keepdim,
                                                    extra), False, value))
    return True


def reduction_attr_text(kind, dims, keepdim, extra):
    parts = []
    if dims is not None:
        if isinstance(dims, int):
            parts.append(f"dim = {dims} : i64")
        else:
            parts.append(f"dims = array<i64: {', '.join(map(str, dims))}>")
    if keepdim:
        parts.append("keepdim = true")
    if kind in ("var", "std"):
        parts.append(f"correction = {extra} : i64")
    return " {" + ", ".join(parts) + "}" if parts else ""


def try_matmul(rng, pool, wide_rng=None):
    """bcast.matmul of two values of one dtype that torch.matmul takes (1-D
    and N-D operands, broadcast batch dims, sizes 0 and 1), or None; and
    whether the rhs is read transposed (a bcast.permute of its last two dims
    between the value and the product, `a @ b.mT`: the runtime's BLAS
    transpose flag or its kernel's packing). PyTorch 1.13's CPU has no bool
    or f16 product (bcast.matmul rejects them with its sentences:
    test/Dialect/Bcast); bf16 is computed in f32 and rounded once
    (numeric.torch_reference), as bcast accumulates it."""
    pairs = [(a, b) for a in pool for b in pool
             if a.dtype == b.dtype and a.dtype not in (np.bool_, np.float16)
             and a.array.ndim and b.array.ndim]
    rng.shuffle(pairs)
    for a, b in pairs[:6]:
        # Transposed in wide programs only (from their own stream).
        for transposed in ([True, False] if wide_rng is not None and
                           b.array.ndim >= 2 and wide_rng.random() < 0.5
                           else [False]):
            rhs = np.swapaxes(b.array, -1, -2) if transposed else b.array
            try:
                want = nm.torch_reference(torch.matmul, [a.array, rhs])
            except RuntimeError:
                continue
            return [a, b], want, transposed
    return None


def try_special(rng, program, name, pool):
    if name == "reduce":
        return try_reduction(rng, program, pool)
    if name == "matmul":
        found = try_matmul(rng, pool, program.wide_rng)
        if found is None:
            return False
        operands, result, transposed = found
        if not isinstance(result, nm.BF16Array):
            result = np.asarray(result)
        # Integer products wrap the same in any order; float sums do not.
        value = Value(len(program.values), result,
                      all(v.exact for v in operands) and
                      operands[0].dtype not in FLOATS)
        program.values.append(value)
        program.steps.append(Step(name, [v.index for v in operands], {},
                                  False, value,
                                  "transposed" if transposed else None))
        return True
    if name == "where":
        conds = [v for v in pool if v.dtype == np.bool_]
        if not conds:
            return False
        cond, x, y = rng.choice(conds), rng.choice(pool), rng.choice(pool)
        try:
            want = torch.where(nm.to_torch(cond.array), nm.to_torch(x.array),
                               nm.to_torch(y.array))
        except RuntimeError:
            return False
        result = nm.from_torch(want)
        operands = [cond, x, y]
        extra = None
    elif name == "cast":
        x = rng.choice(pool)
        target = rng.choice(DTYPES)
        # Float -> integer casts of NaN, infinities and values out of range
        # are PyTorch's CPU values on every path (docs/Semantics.md), so
        # they are generated too.
        result = nm.from_torch(nm.to_torch(x.array).to(
            nm.torch_dtype(target)))
        operands = [x]
        extra = target
    else:  # broadcast_to
        x = rng.choice(pool)
        shape = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
        shape += [rng.choice([s, 2, 3]) if s == 1 else s
                  for s in x.array.shape]
        result = np.broadcast_to(x.array, tuple(shape))
        if isinstance(x.array, nm.BF16Array):
            result = np.array(result, np.float32).view(nm.BF16Array)
        else:
            result = np.array(result)
        operands = [x]
        extra = tuple(shape)
    value = Value(len(program.values), result,
                  all(v.exact for v in operands))
    program.values.append(value)
    program.steps.append(Step(name, [v.index for v in operands], {}, False,
                              value, extra))
    return True


def generate(rng, wide_rng=None):
    """A program from `rng`. `wide_rng` (its own stream, so that the
    programs of other seeds stay those of the generator before it; the
    fixed seeds of test/Robustness/differential-fuzz.test reproduce their
    findings) makes one in 16 programs of square matrices as wide as the
    matmul runtime's own kernel takes (at least 8 rows and columns; 9, 17
    and 24 leave masked registers), mostly f32, products among the ops,
    half of them reading the rhs transposed."""
    count = rng.choice([1, 2, 2, 3, 3])
    side = None
    if wide_rng is not None and wide_rng.random() < 1 / 16:
        side = wide_rng.choice([8, 9, 16, 17, 24])
    shapes = broadcastable_shapes(rng, count, side)
    wide = any(size >= 8 for shape in shapes for size in shape)
    if wide and wide_rng.random() < 0.6:
        # The runtime's kernel multiplies f32 (others go to the BLAS or
        # loops): wide matrices mostly as f32, and products among the ops.
        dtypes = [np.float32] * count
    elif rng.random() < 0.5:
        dtypes = [rng.choice(DTYPES)] * count
    else:
        dtypes = [rng.choice(DTYPES) for _ in range(count)]
    inputs = [Value(i, random_array(rng, s, d), True)
              for i, (s, d) in enumerate(zip(shapes, dtypes))]
    program = Program(inputs, dynamic=rng.random() < 0.3)
    program.wide_rng = wide_rng if wide else None
    choices = OPS + SPECIAL * 3 + ["matmul"] * (60 if wide else 6) + \
        ["reduce"] * 25
    target = rng.randint(1, 5)
    attempts = 0
    while len(program.steps) < target and attempts < 60:
        attempts += 1
        op = rng.choice(choices)
        in_place = not isinstance(op, str) and op.twin and rng.random() < 0.3
        try_step(rng, program, op, in_place)
    return program if program.steps else None


#===------------------------------------------------------------------------===#
# MLIR
#===------------------------------------------------------------------------===#


def f64_literal(value):
    """A float as MLIR writes an f64 (non-finite values as bit patterns)."""
    if not np.isfinite(value):
        return "0x%016X" % int(np.array(value, np.float64).view(np.uint64))
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if exponent and "." not in mantissa:
        text = f"{mantissa}.0e{exponent}"
    return text


def attr_text(attrs):
    if not attrs:
        return ""
    parts = []
    for key, value in attrs.items():
        if isinstance(value, str):
            parts.append(f'{key} = "{value}"')
        else:
            parts.append(f"{key} = {f64_literal(value)} : f64")
    return " {" + ", ".join(parts) + "}"


def value_type(value, dynamic=False):
    return nm.tensor_type(value.array.shape, value.dtype, dynamic)


def ir_type(program, value):
    """The type of `value` inside the program's function: static, or in a
    dynamic program every size `?` but those broadcast_to expands (a `?`
    there would keep the source's size)."""
    if not program.dynamic:
        return value_type(value)
    step = next((s for s in program.steps if s.result is value), None)
    if step is not None and step.name == "cast":
        # The operand's sizes (cast does not broadcast), its own type.
        source = ir_type(program, program.values[step.operands[0]])
        return source[:source.rindex("x") + 1] + \
            nm.MLIR_TYPE[value.dtype] + ">" if "x" in source[7:] else \
            f"tensor<{nm.MLIR_TYPE[value.dtype]}>"
    if step is not None and step.name == "sum_to_size":
        # The target shape is the result type's: a `?` would keep the
        # input's size.
        return value_type(value)
    if step is not None and (step.in_place or
                             step.name in ("softmax", "log_softmax")):
        # The operand's type, exactly (in place; softmax's result has its
        # input's type, without a `dtype`).
        return ir_type(program, program.values[step.operands[0]])
    if step is None or step.name != "broadcast_to":
        return value_type(value, True)
    source = program.values[step.operands[0]].array.shape
    shape = value.array.shape
    lead = len(shape) - len(source)
    dims = "".join(
        (str(size) if i < lead or source[i - lead] != size else "?") + "x"
        for i, size in enumerate(shape))
    return f"tensor<{dims}{nm.MLIR_TYPE[value.dtype]}>"


def step_text(step, program):
    names = ", ".join(f"%v{i}" for i in step.operands)
    operand_types = [ir_type(program, program.values[i])
                     for i in step.operands]
    result = ir_type(program, step.result)
    r = f"%v{step.result.index}"
    if step.name == "broadcast_to":
        return (f"  {r} = bcast.broadcast_to {names} : {operand_types[0]} "
                f"-> {result}\n")
    if step.name == "cast":
        return f"  {r} = bcast.cast {names} : ({operand_types[0]}) -> {result}\n"
    if step.name == "matmul" and step.extra == "transposed":
        # The rhs through a permute of its last two dims.
        rank = program.values[step.operands[1]].array.ndim
        dims = list(range(rank))
        dims[-2:] = dims[-1], dims[-2]
        sizes = operand_types[1][len("tensor<"):-1].split("x")
        sizes[-3:-1] = sizes[-2], sizes[-3]
        permuted = "tensor<" + "x".join(sizes) + ">"
        t = f"%t{step.result.index}"
        return (f"  {t} = bcast.permute %v{step.operands[1]} {{dims = "
                f"array<i64: {', '.join(map(str, dims))}>}} : "
                f"({operand_types[1]}) -> {permuted}\n"
                f"  {r} = bcast.matmul %v{step.operands[0]}, {t} : "
                f"({operand_types[0]}, {permuted}) -> {result}\n")
    if step.op == "reduce":
        return (f"  {r} = bcast.{step.name} {names}"
                f"{reduction_attr_text(*step.attrs)} : "
                f"({operand_types[0]}) -> {result}\n")
    mnemonic = step.name + ("_" if step.in_place else "")
    return (f"  {r} = bcast.{mnemonic} {names}{attr_text(step.attrs)} : "
            f"({', '.join(operand_types)}) -> {result}\n")


def function_text(program, name, folded):
    """The program as a function: of its inputs (with `?` sizes in a dynamic
    program), or, folded, of nothing, on constants."""
    results = program.results()
    if folded:
        rtypes = ", ".join(value_type(v) for v in results)
        lines = [f"func.func @{name}() -> ({rtypes}) {{\n"]
        for v in program.inputs:
            lines.append(f"  %v{v.index} = arith.constant "
                         f"{nm.literal(v.array)}\n")
        saved, program.dynamic = program.dynamic, False
        lines += [step_text(step, program) for step in program.steps]
        program.dynamic = saved
    else:
        rtypes = ", ".join(ir_type(program, v) for v in results)
        params = ", ".join(f"%v{v.index}: {ir_type(program, v)}"
                           for v in program.inputs)
        lines = [f"func.func @{name}({params}) -> ({rtypes}) {{\n"]
        lines += [step_text(step, program) for step in program.steps]
    names = ", ".join(f"%v{v.index}" for v in results)
    lines.append(f"  return {names} : {rtypes}\n}}\n")
    return "".join(lines)


def call_text(program, name, index, folded):
    """Calls the function on constants and prints every result."""
    results = program.results()
    outs = ", ".join(f"%r{index}_{k}" for k in range(len(results)))
    lines = []
    if folded:
        rtypes = [value_type(v) for v in results]
        lines.append(f"  {outs} = func.call @{name}() : () -> "
                     f"({', '.join(rtypes)})")
    else:
        rtypes = [ir_type(program, v) for v in results]
        args, types = [], []
        for v in program.inputs:
            c = f"%c{index}_{v.index}"
            lines.append(f"  {c} = arith.constant {nm.literal(v.array)}")
            if ir_type(program, v) != value_type(v):
                lines.append(f"  %d{index}_{v.index} = tensor.cast {c} : "
                             f"{value_type(v)} to {ir_type(program, v)}")
                c = f"%d{index}_{v.index}"
            args.append(c)
            types.append(ir_type(program, v))
        lines.append(f"  {outs} = func.call @{name}({', '.join(args)}) : "
                     f"({', '.join(types)}) -> ({', '.join(rtypes)})")
    for k, (v, rtype) in enumerate(zip(results, rtypes)):
        r = f"%r{index}_{k}"
        if rtype != value_type(v):
            lines.append(f"  %s{index}_{k} = tensor.cast {r} : {rtype} to "
                         f"{value_type(v)}")
            r = f"%s{index}_{k}"
        lines += nm.print_tensor(r, v.array.shape, v.dtype, False,
                                 f"{index}_{k}")
    return "\n".join(lines) + "\n"


def module_text(programs, folded):
    text = ["func.func private @printMemrefF32(memref<*xf32>)",
            "func.func private @printMemrefF64(memref<*xf64>)",
            "func.func private @printMemrefI32(memref<*xi32>)",
            "func.func private @printMemrefI64(memref<*xi64>)"]
    for i, p in enumerate(programs):
        text.append(function_text(p, f"prog{i}", folded))
    text.append("func.func @main() {")
    for i, p in enumerate(programs):
        text.append(call_text(p, f"prog{i}", i, folded))
    text.append("  return\n}")
    return "\n".join(text) + "\n"


def compare_value(value, got):
    """Whether the printed numbers `got` match the reference of `value`."""
    want = value.array
    dtype = value.dtype
    if want.size == 0:
        return got == []
    if dtype not in FLOATS or value.exact:
        try:
            return nm.matches(want, got, dtype if dtype is not bfloat16
                              else np.float32)
        except (OverflowError, ValueError):  # a float where an int belongs
            return False
    return close(np.asarray(want, np.float64).reshape(-1),
                 np.asarray(got, np.float64), dtype)


def close(want, got, dtype):
    if want.shape != got.shape:
        return False
    rtol = 1e-2 if dtype in (np.float16, bfloat16) else 1e-3
    return bool(np.allclose(got, want, rtol=rtol, atol=1e-5,
                            equal_nan=True) and
                (np.isinf(got) == np.isinf(want)).all())


#===------------------------------------------------------------------------===#
# Running
#===------------------------------------------------------------------------===#


class Runner:
    def __init__(self, args):
        self.bcast_opt = args.bcast_opt or shutil.which("bcast-opt")
        self.runner = args.mlir_runner or shutil.which(
            "mlir-runner") or "/usr/lib/llvm-22/bin/mlir-runner"
        libs = [f"{args.lib_dir}/lib{n}.so" for n in (
            "mlir_c_runner_utils", "mlir_runner_utils", "omp")]
        # bcast.matmul's BLAS calls, from the build bcast-opt belongs to.
        if self.bcast_opt:
            matmul = os.path.join(
                os.path.dirname(os.path.realpath(self.bcast_opt)), "..",
                "lib", "libbcast_matmul_runtime.so")
            if os.path.exists(matmul):
                libs.append(os.path.normpath(matmul))
        self.libs = ",".join(libs)
        self.keep = args.keep or tempfile.mkdtemp(prefix="bcast-diff-")
        os.makedirs(self.keep, exist_ok=True)
        self.failures = 0
        # check_jit_shared's calls: {refused?: count}.
        self.shared = {False: 0, True: 0}
        # Under the sanitized Python (lit's %bcast_python) the sanitizer
        # runtime is preloaded; the tools link their own.
        self.env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}

    def run(self, text, folded):
        """Compiles and runs a module; (stdout, None) or (None, error)."""
        if folded:
            r = subprocess.run([self.bcast_opt, "--canonicalize"], input=text,
                               capture_output=True, text=True, env=self.env)
            if r.returncode:
                return None, "bcast-opt --canonicalize: " + r.stderr[-3000:]
            text = r.stdout
        r = subprocess.run([self.bcast_opt, "--bcast-to-llvm"], input=text,
                           capture_output=True, text=True, env=self.env)
        if r.returncode:
            return None, "bcast-opt --bcast-to-llvm: " + r.stderr[-3000:]
        r = subprocess.run([self.runner, "-e", "main",
                            "-entry-point-result=void",
                            "-shared-libs=" + self.libs],
                           input=r.stdout, capture_output=True, text=True,
                           env=self.env)
        if r.returncode:
            return None, (f"mlir-runner exit {r.returncode}: " +
                          r.stderr[-3000:])
        return r.stdout, None

    def report(self, program, seed, mode, message):
        self.failures += 1
        path = os.path.join(self.keep, f"mismatch-{seed}-{mode}.mlir")
        with open(path, "w") as f:
            f.write(f"// differential.py --seed {seed} --programs 1: "
                    f"mode {mode}\n")
            for line in message.splitlines():
                f.write(f"// {line}\n")
            f.write(module_text([program], mode == "fold"))
        if self.failures <= 20:
            print(f"MISMATCH program {seed} ({mode}): {message}\n"
                  f"  reproducer: {path}")

    def check_batch(self, batch, mode):
        """batch: [(seed, program)]. Compiles them as one module; isolates a
        failure to its program."""
        folded = mode == "fold"
        programs = [p for _, p in batch]
        out, error = self.run(module_text(programs, folded), folded)
        if error is not None:
            if len(batch) == 1:
                self.report(batch[0][1], batch[0][0], mode, error)
                return
            for item in batch:
                self.check_batch([item], mode)
            return
        outputs = nm.parse_outputs(out)
        expected = sum(len(p.results()) for p in programs)
        if len(outputs) != expected:
            if len(batch) == 1:
                self.report(batch[0][1], batch[0][0], mode,
                            f"{expected} results expected, "
                            f"{len(outputs)} printed")
                return
            for item in batch:
                self.check_batch([item], mode)
            return
        at = 0
        for seed, program in batch:
            results = program.results()
            for value, got in zip(results, outputs[at:at + len(results)]):
                if not compare_value(value, got):
                    self.report(program, seed, mode, describe(
                        program, value, got))
                    break
            at += len(results)

    def check_jit(self, seed, program):
        """The program through @bcast.jit; False when it is not spelled in
        the Python API (skipped)."""
        import bcast
        if any(v.dtype is bfloat16 for v in program.values):
            return False
        for step in program.steps:
            if isinstance(step.op, str):
                if step.name == "cast" and step.extra is bfloat16:
                    return False
                continue
            fn = step.op.python_inplace if step.in_place else step.op.python
            if fn is None or step.attrs:
                return False

        def body(*args):
            env = {v.index: a for v, a in zip(program.inputs, args)}
            for step in program.steps:
                operands = [env[i] for i in step.operands]
                if step.name == "where":
                    r = bcast.where(*operands)
                elif step.name == "cast":
                    r = operands[0].astype(np.dtype(step.extra))
                elif step.name == "broadcast_to":
                    r = bcast.broadcast_to(operands[0], step.extra)
                elif step.name == "matmul":
                    r = operands[0] @ (np.swapaxes(operands[1], -1, -2)
                                       if step.extra == "transposed"
                                       else operands[1])
                elif step.op == "reduce":
                    r = jit_reduction(bcast, operands[0], *step.attrs)
                elif step.in_place:
                    r = step.op.python_inplace(*operands)
                else:
                    r = step.op.python(*operands)
                env[step.result.index] = r
            return tuple(env[v.index] for v in program.results())

        arrays = [np.array(v.array, copy=True) for v in program.inputs]
        try:
            got = bcast.jit(body, dynamic=program.dynamic)(*arrays)
        except Exception as e:  # noqa: BLE001 (every failure is a finding)
            self.report(program, seed, "jit", f"{type(e).__name__}: {e}")
            return True
        if not isinstance(got, tuple):
            got = (got,)
        for value, array in zip(program.results(), got):
            array = np.asarray(array)
            if array.dtype != np.dtype(value.dtype) or \
                    array.shape != value.array.shape:
                self.report(program, seed, "jit",
                            f"%v{value.index}: {array.dtype}{array.shape} "
                            f"instead of {np.dtype(value.dtype)}"
                            f"{value.array.shape}")
                return True
            want = np.asarray(value.array)
            if value.exact or value.dtype not in FLOATS:
                ok = np.array_equal(array, want, equal_nan=value.dtype in
                                    FLOATS)
            else:
                ok = close(want.astype(np.float64).reshape(-1),
                           array.astype(np.float64).reshape(-1), value.dtype)
            if not ok:
                self.report(program, seed, "jit", describe(
                    program, value, array.reshape(-1).tolist()))
                return True
        self.check_jit_shared(seed, program, body)
        return True

    def check_jit_shared(self, seed, program, body):
        """The program through @bcast.jit again, one input passed as the
        same array as an input it updates in place, or as a part of it
        (its first row, ...): NumPy's rule (the other is read as it was
        when the call began, so the results equal those of a call with a
        copy of it), or a ValueError where the function reads it after the
        update or updates it too (docs/Python.md, "Arguments sharing memory
        with one updated in place")."""
        import bcast
        pair = shared_pair(program)
        if pair is None:
            return
        written, other, lead, refused = pair
        self.shared[refused] += 1
        arrays = [np.array(v.array, copy=True) for v in program.inputs]
        copies = [np.array(a, copy=True) for a in arrays]
        shared = list(arrays)
        # The same array, or its first row, plane, ...: f(a, a[0]).
        shared[other] = shared[written][(0,) * lead + (Ellipsis,)]
        copies[other] = np.array(shared[other], copy=True)
        try:
            want = bcast.jit(body, dynamic=program.dynamic)(*copies)
        except Exception:  # noqa: BLE001 (found by the check above)
            return
        label = f"jit, argument {other} shared with {written}"
        try:
            got = bcast.jit(body, dynamic=program.dynamic)(*shared)
        except ValueError as e:
            if not refused:
                self.report(program, seed, label, f"ValueError: {e}")
            return
        except Exception as e:  # noqa: BLE001 (every failure is a finding)
            self.report(program, seed, label, f"{type(e).__name__}: {e}")
            return
        if refused:
            self.report(program, seed, label, "no ValueError")
            return
        if not isinstance(want, tuple):
            want, got = (want,), (got,)
        # The results, then the updated input itself.
        for value, w, g in zip(program.results() + [program.values[written]],
                               want + (copies[written],),
                               got + (shared[written],)):
            w, g = np.asarray(w), np.asarray(g)
            if value.exact or value.dtype not in FLOATS:
                ok = np.array_equal(w, g, equal_nan=value.dtype in FLOATS)
            else:
                ok = close(w.astype(np.float64).reshape(-1),
                           g.astype(np.float64).reshape(-1), value.dtype)
            if not ok:
                self.report(program, seed, label, describe(
                    program, value, g.reshape(-1).tolist()))
                return


def shared_pair(program):
    """(written, other, lead, refused) for check_jit_shared: the first input
    the program updates in place, another input of its dtype that no result
    returns whose shape is the written one's without `lead` leading dims
    (so that it can be a part of it), and whether the call must be refused
    (the other, not empty, is read after the update, or updated in place
    too); None when there is none."""
    inputs = {v.index for v in program.inputs}
    first = {}
    for k, step in enumerate(program.steps):
        if step.name == "cast" and np.dtype(step.extra) == np.dtype(
                program.values[step.operands[0]].dtype):
            return None  # may return its operand: a write through it
        if step.in_place and step.operands[0] in inputs:
            first.setdefault(step.operands[0], k)
    if not first:
        return None
    written = min(first, key=first.get)
    target = program.values[written]
    returned = {v.index for v in program.results()}
    for v in program.inputs:
        lead = target.array.ndim - v.array.ndim
        if v.index == written or v.index in returned or \
                v.dtype != target.dtype or lead < 0 or \
                v.array.shape != target.array.shape[lead:] or \
                0 in target.array.shape[:lead]:
            continue
        reads = [k for k, step in enumerate(program.steps)
                 if v.index in step.operands]
        # An empty part shares no memory (np.shares_memory): never refused.
        refused = v.array.size > 0 and (
            v.index in first or any(k > first[written] for k in reads))
        return written, v.index, lead, refused
    return None


def jit_reduction(bcast, x, kind, dims, keepdim, extra):
    """A reduction on @bcast.jit's traced tensor, in PyTorch's spelling
    (the bcast namespace's functions)."""
    if kind == "sum_to_size":
        return bcast.sum_to_size(x, extra)
    if kind in ("softmax", "log_softmax"):
        return getattr(bcast, kind)(x, dims)
    if kind in ("var", "std"):
        return getattr(bcast, kind)(x, dims, correction=extra,
                                    keepdim=keepdim)
    return getattr(bcast, kind)(x, dims, keepdim)


def describe(program, value, got):
    step = next(s for s in program.steps if s.result is value)
    attrs = reduction_attr_text(*step.attrs) if step.op == "reduce" else \
        attr_text(step.attrs)
    return (f"%v{value.index} = {step.name}{'_' if step.in_place else ''}"
            f"{attrs} of "
            f"{[program.values[i].array.tolist() for i in step.operands]}: "
            f"expected {np.asarray(value.array).reshape(-1).tolist()}, "
            f"got {list(got)}")


def check_rejections(rng, count):
    """Ops PyTorch rejects for their element types must not verify (the
    element-wise ops, then the reductions)."""
    import bcast
    checked = 0
    for _ in range(count):
        op = rng.choice(OPS)
        dtypes = [rng.choice(DTYPES) for _ in range(op.arity)]
        if any(d in (np.float16, bfloat16) for d in dtypes):
            continue  # bcast computes where PyTorch 1.13 lacks kernels
        args = [random_array(rng, (2,), d) for d in dtypes]
        if op.name in ("div", "remainder", "fmod", "addcdiv"):
            # The types decide a rejection, not the values; and PyTorch
            # 1.13 dies of SIGFPE on INT_MIN // -1 at 32 and 64 bits
            # (docs/Semantics.md): seed 1550000 drew it here.
            args = [np.ones_like(a) for a in args]
        in_place = op.twin and rng.random() < 0.3
        result, error = torch_apply(op, args, {}, in_place)
        if result is not None:
            continue
        if "can't be cast" in (error or "") and not in_place:
            continue
        if "ZeroDivisionError" in (error or ""):
            continue  # the values, not the types
        if "INTERNAL ASSERT" in (error or ""):
            # PyTorch 1.13's own bug (an in-place addcmul_ over mixed
            # integer types), not a rejection of the types.
            continue
        operands = ", ".join(f"%a{i}" for i in range(op.arity))
        types = ", ".join(nm.tensor_type((2,), d) for d in dtypes)
        params = ", ".join(f"%a{i}: {nm.tensor_type((2,), d)}"
                           for i, d in enumerate(dtypes))
        # Any result type: the verifier must reject the operand types first.
        rtype = nm.tensor_type((2,), dtypes[0])
        text = (f"func.func @f({params}) -> {rtype} {{\n"
                f"  %r = bcast.{op.name}{'_' if in_place else ''} {operands}"
                f" : ({types}) -> {rtype}\n  return %r : {rtype}\n}}\n")
        try:
            bcast.Module.parse(text)
        except bcast.MLIRError:
            checked += 1
            continue
        print(f"MISMATCH: bcast accepts what PyTorch rejects ({error}):\n"
              f"{text}")
        return checked, False
    # The reductions PyTorch rejects for their element types (mean, var,
    # std, softmax, log_softmax of integers and bool; argmax, argmin of
    # bool) must not verify either.
    for _ in range(count // 4):
        kind = rng.choice(REDUCTIONS)
        dtype = rng.choice([d for d in DTYPES
                            if d not in (np.float16, bfloat16)])
        dims = 0 if kind in ("argmax", "argmin", "softmax",
                             "log_softmax") else [0]
        extra = 1 if kind in ("var", "std") else (2,)
        x = random_array(rng, (2,), dtype)
        if reduction_reference(kind, x, dims, False, extra) is not None:
            continue
        try:
            probe = {"mean": torch.mean, "var": torch.var, "std": torch.std,
                     "softmax": torch.softmax,
                     "log_softmax": torch.log_softmax,
                     "argmax": torch.argmax, "argmin": torch.argmin}[kind]
        except KeyError:
            continue
        try:
            probe(nm.to_torch(x), 0)
            continue  # rejected by the reference's rules only
        except RuntimeError:
            pass
        ttype = nm.tensor_type((2,), dtype)
        # The result type the op would have for a float input, so that only
        # the element type is wrong.
        rtype = {"argmax": "tensor<i64>", "argmin": "tensor<i64>",
                 "softmax": ttype, "log_softmax": ttype}.get(kind,
                                                             "tensor<f32>")
        text = (f"func.func @f(%a: {ttype}) -> {rtype} {{\n"
                f"  %r = bcast.{kind} %a"
                f"{reduction_attr_text(kind, dims, False, extra)} : "
                f"({ttype}) -> {rtype}\n  return %r : {rtype}\n}}\n")
        try:
            bcast.Module.parse(text)
        except bcast.MLIRError:
            checked += 1
            continue
        print(f"MISMATCH: bcast accepts a reduction PyTorch rejects:\n{text}")
        return checked, False
    return checked, True


#===------------------------------------------------------------------------===#
# The edges mode: @bcast.jit on PyTorch tensors against PyTorch eagerly
#===------------------------------------------------------------------------===#

EDGE_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
               torch.int64, torch.float16, torch.bfloat16, torch.float32,
               torch.float64]
# Written the same way on torch tensors and on bcast's traced tensors.
EDGE_BINARY = [operator.add, operator.sub, operator.mul, operator.truediv,
               operator.floordiv, operator.mod, operator.and_, operator.or_,
               operator.xor, operator.eq, operator.ne, operator.lt,
               operator.ge]
EDGE_REDUCTIONS = ["sum", "mean", "any", "all"]


def edge_tensor(rng, shape, dtype):
    """A tensor of `dtype` with edge values: the extremes of 8- and 16-bit
    integers (INT_MIN // -1 is asked of them; PyTorch 1.13 dies of SIGFPE
    at 32 and 64 bits, so those stay moderate), NaN, inf and -0 for
    floats. Sometimes an empty tensor with unusual strides, or an
    expanded (stride-0) view."""
    numel = 1
    for n in shape:
        numel *= n
    if dtype == torch.bool:
        flat = torch.tensor([rng.random() < 0.5 for _ in range(numel)],
                            dtype=torch.bool)
    elif dtype.is_floating_point:
        pool = [0.0, -0.0, 1.0, -1.5, 2.5, 3.0, -7.25, float("nan"),
                float("inf"), -float("inf"), 100.0, 0.1]
        flat = torch.tensor([rng.choice(pool) for _ in range(numel)],
                            dtype=torch.float64).to(dtype)
    else:
        info = torch.iinfo(dtype)
        if info.bits <= 16:
            pool = [info.min, info.max, info.min + 1, 0, 1, -1, 2, -2, 7]
        else:
            pool = [0, 1, -1, 2, -2, 7, -9, 1000, -1000]
        pool = [v for v in pool if info.min <= v <= info.max]
        flat = torch.tensor([rng.choice(pool) for _ in range(numel)],
                            dtype=dtype)
    t = flat.reshape(shape)
    if numel == 0 and rng.random() < 0.7:
        # What slicing and as_strided give: any strides.
        strides = [rng.choice([0, 1, 2, 6]) for _ in shape]
        t = torch.empty(64, dtype=dtype).as_strided(shape, strides)
    elif rng.random() < 0.15 and len(shape) >= 1 and shape[0] > 1:
        # An expanded view: one row broadcast to all (overlapping input).
        t = t[:1].expand(shape)
    return t


def edge_scalar(rng, kinds=(bool, int, float)):
    kind = rng.choice(kinds)
    if kind is bool:
        return rng.random() < 0.5
    if kind is int:
        return rng.choice([0, 1, -1, 2, 3, -5])
    return rng.choice([0.5, -2.0, 1.0, 0.0, 3.25])


def generate_edges(rng):
    """A random function of 1 to 3 tensors (and Python scalars) of
    operators and reductions that mean the same on torch tensors and
    bcast's traced tensors, and its tensor arguments."""
    count = rng.choice([1, 2, 2, 3])
    shapes = broadcastable_shapes(rng, count)
    if rng.random() < 0.2:
        shapes[0] = tuple([0] + list(shapes[0][1:])) if shapes[0] else (0,)
        shapes = [tuple(0 if i == 0 and len(s) == len(shapes[0]) and s and
                        s[0] != 1 else n for i, n in enumerate(s))
                  for s in shapes]
    dtypes = [rng.choice(EDGE_DTYPES) for _ in range(count)]
    args = [edge_tensor(rng, s, d) for s, d in zip(shapes, dtypes)]
    steps = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.2:
            steps.append(("reduce", rng.choice(EDGE_REDUCTIONS),
                          rng.randrange(8)))
        elif kind < 0.45:
            steps.append(("scalar", rng.choice(EDGE_BINARY), edge_scalar(rng),
                          rng.random() < 0.5))
        else:
            steps.append(("binary", rng.choice(EDGE_BINARY),
                          rng.randrange(8)))

    def program(mean_rounded_once):
        def fn(*xs):
            values = list(xs)
            for step in steps:
                x = values[-1]
                if step[0] == "reduce":
                    dim = step[2] % max(x.ndim, 1) if x.ndim else None
                    call = (dim,) if dim is not None else ()
                    if mean_rounded_once and step[1] == "mean" and \
                            isinstance(x, torch.Tensor) and \
                            x.dtype == torch.float16:
                        r = x.float().mean(*call).half()
                    else:
                        r = getattr(x, step[1])(*call)
                elif step[0] == "scalar":
                    r = step[1](x, step[2]) if step[3] else \
                        step[1](step[2], x)
                else:
                    r = step[1](x, values[step[2] % len(values)])
                values.append(r)
            return values[-1]
        return fn

    fn = program(False)
    # PyTorch 1.13 rounds an f16 mean's sum to f16 before dividing (inf
    # where the sum overflows); bcast rounds once (docs/Semantics.md).
    fn.mean_rounded_once = program(True)
    return fn, args, steps


def check_edges(seed):
    """One edges program: the same outcome from PyTorch and @bcast.jit (an
    error from both with the same sentence, or equal dtype, shape and
    values). Returns (None, how it agreed), or (a description of the
    disagreement, "mismatch")."""
    import bcast
    rng = random.Random(seed)
    fn, args, steps = generate_edges(rng)
    try:
        with np.errstate(all="ignore"):
            want = fn(*[a.clone() if a.numel() else a for a in args])
        want_error = None
    except Exception as e:  # noqa: BLE001 (PyTorch's verdict)
        want, want_error = None, e
    if want is not None:
        if not isinstance(want, torch.Tensor):
            return None, "python number"  # nothing traced
    try:
        got = bcast.jit(fn)(*args)
        got_error = None
    except Exception as e:  # noqa: BLE001 (every verdict is compared)
        got, got_error = None, e
    if want_error is not None or got_error is not None:
        if want_error is not None and got_error is not None:
            if str(want_error) == str(got_error):
                return None, "errors (same sentence)"
            if str(want_error) == "ZeroDivisionError":
                # bcast verifies the whole function before running it,
                # PyTorch runs op by op (docs/Semantics.md).
                return None, "errors (PyTorch's run-time error first)"
            return (f"steps {steps} on "
                    f"{[(tuple(a.shape), a.dtype) for a in args]}: PyTorch "
                    f"{want_error!r}, bcast {got_error!r}"), "mismatch"
        if isinstance(want_error, (ZeroDivisionError,)) or (
                want_error is not None and "can only be" in str(want_error)):
            return None, "pytorch error only"
        return (f"steps {steps} on {[(tuple(a.shape), a.dtype) for a in args]}"
                f": PyTorch {want_error!r}, bcast {got_error!r}"), "mismatch"
    if got.dtype != want.dtype or tuple(got.shape) != tuple(want.shape):
        return (f"steps {steps}: PyTorch {want.dtype}{tuple(want.shape)}, "
                f"bcast {got.dtype}{tuple(got.shape)}"), "mismatch"
    if want.dtype.is_floating_point:
        w, g = want.double(), got.double()
        tol = 2e-2 if want.dtype in (torch.float16, torch.bfloat16) else 1e-5
        same = torch.equal(w.isnan(), g.isnan()) and torch.allclose(
            torch.nan_to_num(w, 0.0), torch.nan_to_num(g, 0.0), rtol=tol,
            atol=tol, equal_nan=True)
    else:
        same = torch.equal(want, got)
    if not same and any(s[:2] == ("reduce", "mean") for s in steps):
        with np.errstate(all="ignore"):
            once = fn.mean_rounded_once(*[a.clone() if a.numel() else a
                                          for a in args])
        if once.dtype == got.dtype and tuple(once.shape) == tuple(got.shape):
            w, g = once.double(), got.double()
            if torch.equal(w.isnan(), g.isnan()) and torch.allclose(
                    torch.nan_to_num(w, 0.0), torch.nan_to_num(g, 0.0),
                    rtol=2e-2, atol=2e-2, equal_nan=True):
                return None, "values (f16 mean rounded once)"
    if not same:
        return (f"steps {steps} on {[(a.tolist(), a.dtype) for a in args]}: "
                f"PyTorch {want.tolist()}, bcast {got.tolist()}"), "mismatch"
    return None, "values" if want.numel() else "empty values"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--programs", type=int, default=0,
                        help="stop after this many programs")
    parser.add_argument("--time", type=float, default=0,
                        help="stop after this many seconds")
    parser.add_argument("--batch", type=int, default=12)
    parser.add_argument("--modes", default="ir,fold,jit")
    parser.add_argument("--keep", help="directory for reproducers")
    parser.add_argument("--bcast-opt")
    parser.add_argument("--mlir-runner")
    parser.add_argument("--lib-dir", default="/usr/lib/llvm-22/lib")
    args = parser.parse_args()
    if not args.programs and not args.time:
        args.programs = 100
    modes = args.modes.split(",")
    runner = Runner(args)
    start = time.time()
    seed = args.seed
    done = jitted = ops = 0
    per_op = {}
    outcomes = {}  # edges mode: how each program agreed
    while True:
        if args.programs and done >= args.programs:
            break
        if args.time and time.time() - start >= args.time:
            break
        if modes == ["edges"]:
            count = args.batch if not args.programs else min(
                args.batch, args.programs - done)
            for s in range(seed, seed + count):
                message, how = check_edges(s)
                outcomes[how] = outcomes.get(how, 0) + 1
                if message is not None:
                    runner.failures += 1
                    if runner.failures <= 20:
                        print(f"MISMATCH edges program {s}: {message}",
                              flush=True)
            seed += count
            done += count
            continue
        batch = []
        while len(batch) < args.batch and (not args.programs or
                                           done + len(batch) < args.programs):
            program = generate(random.Random(seed),
                               random.Random(f"wide {seed}"))
            if program is not None:
                batch.append((seed, program))
            seed += 1
        for mode in ("ir", "fold"):
            if mode in modes:
                runner.check_batch(batch, mode)
        for s, program in batch:
            if "jit" in modes:
                jitted += runner.check_jit(s, program)
            for step in program.steps:
                key = step.name + ("_" if step.in_place else "")
                per_op[key] = per_op.get(key, 0) + 1
                ops += 1
        done += len(batch)
    try:
        rejected, ok = check_rejections(random.Random(args.seed), 400)
    except ImportError:
        if "jit" in modes:
            raise
        rejected, ok = 0, True  # no Python package: ir and fold only
    elapsed = time.time() - start
    all_ops = {o.name for o in OPS} | {o.name + "_" for o in OPS if o.twin} \
        | set(SPECIAL) | set(REDUCTIONS)
    if modes == ["edges"]:
        counts = ", ".join(f"{n} {how}" for how, n in sorted(outcomes.items()))
        print(f"{done} edges programs (seeds {args.seed}..{seed - 1}): "
              f"{counts}; {rejected} rejections checked, {elapsed:.0f} s")
    else:
        print(f"{done} programs (seeds {args.seed}..{seed - 1}), {ops} ops, "
              f"{len(per_op)} of {len(all_ops)} op forms, "
              f"{jitted} through @bcast.jit (again with an input sharing "
              f"memory with one updated in place: {runner.shared[False]} "
              f"as NumPy computes, {runner.shared[True]} refused), "
              f"{rejected} rejections checked, {elapsed:.0f} s")
    if runner.failures or not ok:
        print(f"FAIL: {runner.failures + (not ok)} mismatches; reproducers "
              f"in {runner.keep}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
