"""Python and the dialect agree (issue 27): every op that tracing records,
over every dtype and a set of shapes (broadcasting and not, rank 0, size 0),
either gives the result type that `bcast-opt` verifies for the same op
written as MLIR, or raises with the very sentence `bcast-opt` prints after
"error: 'bcast.x' op " for it. The Python package keeps no copy of the
dialect's rules (it asks _bcast.infer_op), so this holds by construction;
the test keeps it so.

Each op's cases go to one `bcast-opt -split-input-file` run, one function
per case, the op located at loc("caseN"): the cases Python accepts in one
chunk, each one it refuses in a chunk of its own. A case that Python
refuses is written with the result type the op infers (_bcast.infer_types; some
verifiers check the declared result type before an operand rule), or,
where the op infers none, its first operand's type (of bools for the ops
whose result is bool).
"""

import itertools
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import bcast
from bcast import _bcast
from bcast._trace import _Trace

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "float16", "bfloat16", "float32", "float64")
ELEMENT = _bcast.ELEMENT_TYPES


def _bcast_opt():
    candidates = [os.environ.get("BCAST_OPT"),
                  os.path.join(os.path.dirname(bcast.__file__), "..", "..",
                               "bin", "bcast-opt"),
                  shutil.which("bcast-opt")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return os.path.normpath(path)
    return None


BCAST_OPT = _bcast_opt()
# The sanitizer CI stage preloads the shared ASan runtime into Python; the
# sanitized bcast-opt links ASan statically and refuses to start beside it
# ("incompatible ASan runtimes"), so it runs without the preload.
_OPT_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def run_bcast_opt(args, text):
    return subprocess.run([BCAST_OPT] + args, input=text,
                          capture_output=True, text=True, timeout=120,
                          env=_OPT_ENV)

pytestmark = [pytest.mark.skipif(BCAST_OPT is None,
                                 reason="bcast-opt not found (BCAST_OPT)"),
              pytest.mark.sweep]


def tensor_type(shape, dtype):
    dims = "".join(f"{s}x" for s in shape)
    return f"tensor<{dims}{ELEMENT[dtype]}>"


class Case:
    """One op over operands of the given (shape, dtype)s: `call` records it
    on traced tensors; `result` the chosen result type of cast,
    broadcast_to, specify_shape and sum_to_size."""

    def __init__(self, op, operands, call, attrs="", result=None):
        self.op = op
        self.operands = operands
        self.call = call
        self.attrs = attrs
        self.result = result
        self.error = None  # the Python exception
        self.got = None  # the Python result (shape, dtype)

    def trace(self):
        trace = _Trace("numpy")
        args = [trace.argument(i, shape, bcast.bfloat16 if dtype ==
                               "bfloat16" else dtype)
                for i, (shape, dtype) in enumerate(self.operands)]
        try:
            out = self.call(*args)
        except (TypeError, ValueError) as e:
            self.error = e
            return
        self.got = (tuple(out.shape), str(out.dtype))
        # The op recorded is the one this case writes as MLIR.
        assert trace.lines, f"{self.op}: nothing recorded"
        assert f"= bcast.{self.op} " in trace.lines[-1], trace.lines[-1]

    def mlir(self, index):
        types = [tensor_type(s, d) for s, d in self.operands]
        if self.got is not None:
            result = tensor_type(*self.got)
        elif self.result is not None:
            result = tensor_type(*self.result)
        else:
            inferred = _bcast.infer_types(f"bcast.{self.op}",
                                          list(self.operands),
                                          self.attrs)
            if inferred:
                result = tensor_type(*inferred[0])
            elif self.op in BOOL_RESULT:
                result = tensor_type(self.operands[0][0], "bool")
            else:
                result = types[0]
        params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
        names = ", ".join(f"%a{i}" for i in range(len(types)))
        attrs = f" {self.attrs}" if self.attrs else ""
        source = (types[0] if self.op == "broadcast_to"
                  else f"({', '.join(types)})")
        return (f"func.func @case{index}({params}) {{\n"
                f"  %r = bcast.{self.op} {names}{attrs} : {source} -> "
                f"{result} loc(\"case{index}\")\n"
                f"  return\n}}\n")


# The ops whose result is bool whatever their operands: a frontend writes
# them so.
BOOL_RESULT = ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
               "logical_xor", "logical_not", "isnan", "isinf", "isfinite")

_DIAGNOSTIC = re.compile(
    r"error: loc\(\"case(\d+)\"\): '(bcast\.\w+)' op (.*)$")


def check_agreement(cases):
    """Traces every case, verifies the same ops with bcast-opt and compares."""
    for case in cases:
        case.trace()
    # The ops Python accepts verify in one module (a chunk costs bcast-opt
    # a context); each one it refuses is a chunk of its own, since the
    # verifier stops at a module's first error.
    accepted = "".join(c.mlir(i) for i, c in enumerate(cases)
                       if c.error is None)
    refused = [c.mlir(i) for i, c in enumerate(cases) if c.error is not None]
    text = "\n// -----\n".join([accepted] + refused)
    run = run_bcast_opt(["-split-input-file", "-o", os.devnull], text)
    diagnostics = {}
    for line in run.stderr.splitlines():
        match = _DIAGNOSTIC.search(line)
        if match:
            diagnostics[int(match.group(1))] = (match.group(2),
                                                match.group(3))
        elif "error:" in line:
            pytest.fail(f"bcast-opt: {line}")
    # A bcast-opt that did not get to verify (it crashed, or refused to
    # start) must not read as one that verified every case.
    if run.returncode not in (0, 1) or (run.returncode and not diagnostics):
        pytest.fail(f"bcast-opt exited {run.returncode}: {run.stderr}")
    mismatches = []
    for i, case in enumerate(cases):
        said = diagnostics.get(i)
        what = f"bcast.{case.op} {case.operands} {case.attrs}"
        if case.error is not None:
            if said is None:
                mismatches.append(f"{what}: Python raised "
                                  f"{case.error!r}, bcast-opt verifies it")
            elif said[1] != str(case.error):
                mismatches.append(f"{what}: Python {str(case.error)!r}, "
                                  f"bcast-opt {said[1]!r}")
        elif said is not None:
            mismatches.append(f"{what}: Python gives {case.got}, bcast-opt "
                              f"says {said[1]!r}")
    assert not mismatches, (f"{len(mismatches)} of {len(cases)} disagree:\n"
                            + "\n".join(mismatches[:20]))
    return cases


# --- the ops, as Python records them ---------------------------------------

BINARY_OPERATORS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "remainder": lambda a, b: a % b, "fmod": np.fmod,
    "pow": lambda a, b: a ** b, "maximum": bcast.maximum,
    "minimum": bcast.minimum, "and": lambda a, b: a & b,
    "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}
IN_PLACE_OPERATORS = {
    "add": "__iadd__", "sub": "__isub__", "mul": "__imul__",
    "div": "__itruediv__", "remainder": "__imod__", "pow": "__ipow__",
    "and": "__iand__", "or": "__ior__", "xor": "__ixor__",
}

BINARY_SHAPES = [((3, 4), (4,)), ((2, 3), (4, 3)), ((), (3,)),
                 ((0, 3), (1, 3)), ((2, 1), (1, 2)), ((0,), (2,))]
IN_PLACE_SHAPES = [((3, 4), (4,)), ((4,), (3, 4)), ((), ()), ((0, 3), (3,)),
                   ((2, 3), (4, 3))]
UNARY_SHAPES = [(2, 3), (), (0, 4)]


def binary_cases(op, call, shapes):
    """Every pair of dtypes on the first shapes, one dtype on the others."""
    cases = [Case(op, [(shapes[0][0], a), (shapes[0][1], b)], call)
             for a, b in itertools.product(DTYPES, DTYPES)]
    cases += [Case(op, [(s, d), (t, d)], call)
              for s, t in shapes[1:] for d in DTYPES]
    return cases


@pytest.mark.parametrize("op", sorted(BINARY_OPERATORS))
def test_binary_operators(op):
    check_agreement(binary_cases(op, BINARY_OPERATORS[op], BINARY_SHAPES))


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounding_division(mode):
    def call(a, b):
        return a._trace.binary("div", a, b, mode)

    cases = binary_cases("div", call, BINARY_SHAPES)
    for case in cases:
        case.attrs = f'{{rounding_mode = "{mode}"}}'
    check_agreement(cases)


@pytest.mark.parametrize("op", sorted(IN_PLACE_OPERATORS))
def test_in_place_operators(op):
    method = IN_PLACE_OPERATORS[op]
    check_agreement(binary_cases(op + "_",
                                 lambda a, b: getattr(a, method)(b),
                                 IN_PLACE_SHAPES))


@pytest.mark.parametrize("op", bcast.BINARY_FUNCTIONS)
def test_binary_functions(op):
    check_agreement(binary_cases(op, getattr(bcast, op), BINARY_SHAPES) +
                    binary_cases(op + "_",
                                 lambda a, b: getattr(a, op + "_")(b),
                                 IN_PLACE_SHAPES))


@pytest.mark.parametrize("op", bcast.UNARY_OPS)
def test_unary(op):
    cases = [Case(op, [(s, d)], getattr(bcast, op))
             for s in UNARY_SHAPES for d in DTYPES]
    if hasattr(bcast.Tensor, op + "_"):
        cases += [Case(op + "_", [(s, d)], lambda a: getattr(a, op + "_")())
                  for s in UNARY_SHAPES for d in DTYPES]
    if op == "gelu":
        for approximate in ("tanh", "none", "erf"):
            cases += [Case(op, [((3,), d)],
                           lambda a, m=approximate: bcast.gelu(
                               a, approximate=m),
                           attrs=f'{{approximate = "{approximate}"}}')
                      for d in DTYPES]
    cases = check_agreement(cases)
    if op == "silu":
        # The drift issue 27 found: PyTorch's name of the dtype, as the
        # verifier prints it.
        silu = [c for c in cases if c.operands == [((2, 3), "uint16")]][0]
        assert str(silu.error) == "\"silu_cpu\" not implemented for 'UInt16'"


TERNARY = {
    "clamp": (bcast.clamp, lambda a, b, c: a.clamp_(b, c), ""),
    "lerp": (bcast.lerp, lambda a, b, c: a.lerp_(b, c), ""),
    "addcmul": (lambda a, b, c: bcast.addcmul(a, b, c, value=2),
                lambda a, b, c: a.addcmul_(b, c, value=2),
                "{value = 2.0 : f64}"),
    "addcdiv": (lambda a, b, c: bcast.addcdiv(a, b, c, value=-0.5),
                lambda a, b, c: a.addcdiv_(b, c, value=-0.5),
                "{value = -5.0e-01 : f64}"),
}
TERNARY_SHAPES = [((3, 4), (4,), ()), ((2, 3), (3,), (4, 3)),
                  ((0, 1), (3,), (1, 3)), ((), (), ())]
TERNARY_IN_PLACE_SHAPES = [((3, 4), (4,), ()), ((4,), (3, 4), (4,)),
                           ((0, 3), (3,), (1, 3))]


def ternary_cases(op, call, shapes, attrs):
    dtypes = ([(d, d, d) for d in DTYPES] +
              [(a, b, b) for a, b in itertools.product(DTYPES, DTYPES)
               if a != b] +
              [(a, a, b) for a, b in itertools.product(DTYPES, DTYPES)
               if a != b])
    cases = [Case(op, list(zip(shapes[0], ds)), call, attrs) for ds in dtypes]
    cases += [Case(op, list(zip(s, (d, d, d))), call, attrs)
              for s in shapes[1:] for d in DTYPES]
    return cases


@pytest.mark.parametrize("op", sorted(TERNARY))
def test_ternary(op):
    call, in_place, attrs = TERNARY[op]
    check_agreement(
        ternary_cases(op, call, TERNARY_SHAPES, attrs) +
        ternary_cases(op + "_", in_place, TERNARY_IN_PLACE_SHAPES, attrs))


def test_where():
    cases = [Case("where", [((3, 1), c), ((4,), x), ((), y)], bcast.where)
             for c in ("bool", "int8", "float32")
             for x, y in itertools.product(DTYPES, DTYPES)]
    cases += [Case("where", [(s, "bool"), (t, d), (u, d)], bcast.where)
              for s, t, u in [((2, 3), (4, 3), ()), ((0, 1), (3,), ()),
                              ((), (), ())]
              for d in DTYPES]
    check_agreement(cases)


def test_cast():
    check_agreement([
        Case("cast", [(s, a)],
             lambda x, b=b: x.astype(bcast.bfloat16 if b == "bfloat16"
                                     else b), result=(s, b))
        for s in ((2, 3), (), (0,))
        for a, b in itertools.product(DTYPES, DTYPES) if a != b])


REDUCTIONS = ("sum", "mean", "prod", "amax", "amin", "any", "all",
              "logsumexp", "var", "std")
REDUCTION_SHAPES = [(2, 3), (), (0, 3), (4, 0, 2)]


def _dims_attrs(dims, keepdim, extra=()):
    attrs = list(extra)
    if dims:
        attrs.append(f"dims = array<i64: {', '.join(map(str, dims))}>")
    elif dims is not None:
        attrs.append("dims = array<i64>")
    if keepdim:
        attrs.append("keepdim = true")
    return f"{{{', '.join(attrs)}}}" if attrs else ""


@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions(op):
    cases = []
    for shape, dtype in itertools.product(REDUCTION_SHAPES, DTYPES):
        for dims, keepdim in [(None, False), ((1,), True), ((-1,), False),
                              ((0, 1), False), ((1, -1), False), ((2,), True),
                              ((0,), False), ((), False)]:
            extra = ()
            if op in ("var", "std"):
                extra = ("correction = 1 : i64",)

                def call(x, dims=dims, keepdim=keepdim, op=op):
                    return getattr(bcast, op)(x, dims, 1, keepdim)
            else:
                def call(x, dims=dims, keepdim=keepdim, op=op):
                    return getattr(bcast, op)(x, dims, keepdim)
            cases.append(Case(op, [(shape, dtype)], call,
                              _dims_attrs(dims, keepdim, extra)))
    check_agreement(cases)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reductions(op):
    cases = []
    for shape, dtype in itertools.product(REDUCTION_SHAPES, DTYPES):
        for dim, keepdim in [(None, False), (None, True), (1, True),
                             (-1, False), (2, False), (0, False)]:
            attrs = []
            if dim is not None:
                attrs.append(f"dim = {dim} : i64")
            if keepdim:
                attrs.append("keepdim = true")
            cases.append(Case(
                op, [(shape, dtype)],
                lambda x, dim=dim, keepdim=keepdim: getattr(bcast, op)(
                    x, dim, keepdim),
                f"{{{', '.join(attrs)}}}" if attrs else ""))
    check_agreement(cases)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax(op):
    check_agreement([
        Case(op, [(shape, dtype)],
             lambda x, dim=dim: getattr(bcast, op)(x, dim),
             f"{{dim = {dim} : i64}}")
        for shape, dtype in itertools.product(REDUCTION_SHAPES, DTYPES)
        for dim in (0, 1, -1, 3)])


def test_sum_to_size():
    cases = []
    for (shape, target), dtype in itertools.product(
            [((2, 3), (1, 3)), ((2, 3), (3,)), ((4, 2, 3), (2, 1)),
             ((2, 3), (2, 2)), ((3,), (2, 3)), ((0, 3), (1, 3)),
             ((2, 3), ())], DTYPES):
        cases.append(Case("sum_to_size", [(shape, dtype)],
                          lambda x, t=target: bcast.sum_to_size(x, t),
                          result=(target, dtype)))
    check_agreement(cases)


def test_broadcast_to_and_specify_shape():
    cases = []
    for (shape, target), dtype in itertools.product(
            [((3,), (2, 3)), ((1, 3), (4, 3)), ((2, 3), (3, 3)),
             ((), (0, 2)), ((3,), (3, 0))], DTYPES):
        cases.append(Case("broadcast_to", [(shape, dtype)],
                          lambda x, t=target: bcast.broadcast_to(x, t),
                          result=(target, dtype)))
    check_agreement(cases)
    # specify_shape refines `?` sizes: its static cases are checked on
    # traced arguments with a dynamic size.
    trace = _Trace("numpy")
    x = trace.argument(0, (None, 3), np.float32)
    y = bcast.specify_shape(x, (2, None))
    assert y.shape == (2, 3)
    with pytest.raises(ValueError) as error:
        bcast.specify_shape(x, (2, 4))
    run = run_bcast_opt(
        ["-o", os.devnull],
        "func.func @f(%a: tensor<?x3xf32>) {\n  %r = "
        "bcast.specify_shape %a : (tensor<?x3xf32>) -> "
        "tensor<2x4xf32>\n  return\n}\n")
    assert f"'bcast.specify_shape' op {error.value}" in run.stderr


def test_permute():
    # Valid and refused dims (length, range, repeats) over every dtype.
    cases = []
    for (shape, dims), dtype in itertools.product(
            [((2, 3), (1, 0)), ((2, 3), (-1, 0)), ((), ()), ((4, 0, 2),
             (2, 0, 1)), ((2, 3), (0,)), ((2, 3), (0, 2)),
             ((2, 3), (1, 1)), ((2, 3), (-1, 1)), ((), (0,))], DTYPES):
        attrs = f"{{dims = array<i64{': ' if dims else ''}" \
                f"{', '.join(map(str, dims))}>}}"
        cases.append(Case("permute", [(shape, dtype)],
                          lambda x, d=dims: bcast.permute(x, d), attrs))
    check_agreement(cases)


def test_exception_classes():
    # Shapes are ValueErrors, dtypes TypeErrors, dims both ValueError and
    # IndexError (NumPy's AxisError), decided in the extension.
    [shape, dtype, dim] = check_agreement([
        Case("add", [((2, 3), "float32"), ((4, 3), "float32")],
             lambda a, b: a + b),
        Case("silu", [((2,), "int32")], bcast.silu),
        Case("sum", [((2, 3), "float32")], lambda x: bcast.sum(x, 2),
             "{dims = array<i64: 2>}"),
    ])
    assert type(shape.error) is ValueError
    assert type(dtype.error) is TypeError
    assert isinstance(dim.error, ValueError)
    assert isinstance(dim.error, IndexError)


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "softmax",
                                "log_softmax"])
def test_dtype_attribute(op):
    # PyTorch's dtype=: every dtype as the target, from a few inputs.
    cases = []
    for source, target in itertools.product(
            ("int8", "bool", "float16", "uint8"), DTYPES):
        attr = f"dtype = {ELEMENT[target]}"
        if op in ("softmax", "log_softmax"):
            def call(x, t=target):
                return getattr(bcast, op)(x, 1, dtype=t)
            attrs = f"{{dim = 1 : i64, {attr}}}"
        else:
            def call(x, t=target):
                return getattr(bcast, op)(x, dtype=t)
            attrs = f"{{{attr}}}"
        cases.append(Case(op, [((2, 3), source)], call, attrs))
    check_agreement(cases)
