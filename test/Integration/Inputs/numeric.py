#!/usr/bin/env python3
"""Runs bcast ops through bcast-opt --bcast-to-llvm and mlir-runner and
compares every printed number with NumPy.

Each case is one bcast op in a function of its own, called from @main with
constant inputs (a call, so nothing is folded at compile time); @main prints
each result with the runner's printMemref*. A folded case's function
instead takes no arguments and applies its op to constants, which
`bcast-opt --canonicalize` folds before the lowering (the script checks
that it did), so folding is compared with the same numbers as execution. The expected values are computed
here, at test time, with NumPy following PyTorch's semantics
(docs/Semantics.md); the script prints "PASS: <n> cases" or the first
mismatches and exits 1.

    numeric.py --family <name> --lib-dir /usr/lib/llvm-22/lib [--policy numpy]
"""

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(1234)

class bfloat16(np.floating):
    """Marks bf16 data: NumPy has no bf16 dtype, so bf16 tensors are held as
    float32 arrays of bf16 values (BF16Array, made by as_bf16)."""


class BF16Array(np.ndarray):
    """A float32 array whose every value is a bf16 value; typed bf16 in
    MLIR."""


def as_bf16(values):
    """`values` rounded to bf16 (round to nearest even, by PyTorch)."""
    import torch
    single = torch.from_numpy(np.array(values, np.float32))
    return single.to(torch.bfloat16).to(torch.float32).numpy().view(BF16Array)


def dtype_of(array):
    """The element type of `array`: its NumPy scalar type, or bfloat16."""
    return bfloat16 if isinstance(array, BF16Array) else array.dtype.type


MLIR_TYPE = {bfloat16: "bf16",
             np.float32: "f32", np.float64: "f64", np.float16: "f16",
             np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
             np.uint8: "ui8", np.uint16: "ui16", np.uint32: "ui32",
             np.uint64: "ui64", np.bool_: "i1"}

UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]

# PyTorch's broadcasting notes and the edge cases of the rules.
SHAPES = [
    ([5, 1, 4, 1], [3, 1, 1]),
    ([1], [3, 1, 7]),
    ([5, 3, 4, 1], [3, 1, 1]),
    ([], [2, 3]),
    ([2, 3], []),
    ([], []),
    ([0], [1]),
    ([0, 3], [3]),
    ([4, 1], [3]),
    ([2, 1, 3], [4, 1]),
]

#===------------------------------------------------------------------------===#
# Reference semantics (PyTorch's, in NumPy)
#===------------------------------------------------------------------------===#


def int_pow(a, b):
    """PyTorch's integer pow: wrapping repeated squaring; negative exponent
    gives 1 for base 1, +-1 for base -1, else 0 (unsigned exponents are
    never negative)."""
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape, dtype=a.dtype)
    bits = a.dtype.itemsize * 8
    signed = np.issubdtype(a.dtype, np.signedinteger)
    for idx in np.ndindex(a.shape):
        base, exp = int(a[idx]), int(b[idx])
        if exp < 0:
            r = 1 if base == 1 else ((-1 if exp % 2 else 1) if base == -1
                                     else 0)
        else:
            r = pow(base, exp, 1 << bits)
        r &= (1 << bits) - 1
        if signed and r >= 1 << (bits - 1):
            r -= 1 << bits
        out[idx] = r
    return out


def reference(op, args, dtype, mode=None):
    is_bool = dtype == np.bool_
    is_float = np.issubdtype(dtype, np.floating)
    with np.errstate(all="ignore"):
        a = args[0]
        b = args[1] if len(args) > 1 else None
        if op == "add":
            return np.logical_or(a, b) if is_bool else a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return np.logical_and(a, b) if is_bool else a * b
        if op == "div":
            if is_float and mode is None:
                return a / b
            if is_float and mode == "trunc":
                return np.trunc(a / b)
            if is_float:
                return np.floor_divide(a, b)
            if is_bool:
                return np.logical_and(a, b)  # a / 1 = a; b is never 0
            q = np.floor_divide(a, b)
            if mode == "trunc":
                fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
                q = q + fix.astype(dtype)
            return q
        if op == "remainder":
            if is_bool:
                return np.zeros(np.broadcast_shapes(a.shape, b.shape), bool)
            return np.remainder(a, b)
        if op == "fmod":
            return np.fmod(a, b)
        if op == "pow":
            if is_float:
                return np.power(a, b)
            if is_bool:
                return np.logical_or(a, np.logical_not(b))
            return int_pow(a, b)
        if op == "maximum":
            return np.logical_or(a, b) if is_bool else np.maximum(a, b)
        if op == "minimum":
            return np.logical_and(a, b) if is_bool else np.minimum(a, b)
        if op == "and":
            return np.bitwise_and(a, b)
        if op == "or":
            return np.bitwise_or(a, b)
        if op == "xor":
            return np.bitwise_xor(a, b)
        if op in ("eq", "ne", "lt", "le", "gt", "ge"):
            fn = {"eq": np.equal, "ne": np.not_equal, "lt": np.less,
                  "le": np.less_equal, "gt": np.greater,
                  "ge": np.greater_equal}[op]
            return fn(a, b)
        if op == "where":
            return np.where(args[0], args[1], args[2])
    raise ValueError(op)


#===------------------------------------------------------------------------===#
# Inputs
#===------------------------------------------------------------------------===#


# The edges of each unsigned type: around 2^(bits-1), where signed and
# unsigned semantics part, and at the top, where arithmetic wraps.
UNSIGNED_EDGES = {
    np.uint8: [0, 1, 2, 3, 7, 100, 127, 128, 129, 200, 254, 255],
    np.uint16: [0, 1, 3, 255, 256, 32767, 32768, 40000, 65534, 65535],
    np.uint32: [0, 1, 3, 7, 2**31 - 1, 2**31, 2**31 + 1, 3_000_000_000,
                2**32 - 2, 2**32 - 1],
    np.uint64: [0, 1, 3, 2**31, 2**63 - 1, 2**63, 2**63 + 1, 2**63 + 12345,
                2**64 - 2, 2**64 - 1],
}


def unsigned_array(shape, dtype, op=None, operand=0):
    """Edge values of an unsigned type (no zero divisors)."""
    edges = np.array(UNSIGNED_EDGES[dtype], dtype=dtype)
    if op in ("div", "remainder", "fmod") and operand == 1:
        edges = edges[edges != 0]
    return np.asarray(RNG.choice(edges, shape)).astype(dtype)


def random_array(shape, dtype, op=None, operand=0):
    if dtype in UNSIGNED:
        return unsigned_array(shape, dtype, op, operand)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if np.issubdtype(dtype, np.floating):
        if op == "pow":
            # Positive bases keep results finite; a few exact cases.
            if operand == 0:
                return RNG.uniform(0.5, 3.0, shape).astype(dtype)
            return RNG.choice([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0],
                              shape).astype(dtype)
        values = RNG.choice([-7.5, -3.0, -2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 2.0,
                             3.0, 4.5, 7.0], shape).astype(dtype)
        if op in ("div", "remainder", "fmod") and operand == 1:
            values[values == 0] = 2.0
        return values
    info = np.iinfo(dtype)
    if op == "pow":
        if operand == 0:
            return RNG.integers(-3, 4, shape).astype(dtype)
        return RNG.integers(-2, 6, shape).astype(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    values = RNG.integers(lo, hi + 1, shape).astype(dtype)
    if op in ("div", "remainder", "fmod") and operand == 1:
        values[values == 0] = 3
    if op in ("add", "sub", "mul"):
        # Also exercise wrap-around at the extremes.
        flat = values.reshape(-1)
        if flat.size:
            flat[0] = info.max
    return values


#===------------------------------------------------------------------------===#
# MLIR
#===------------------------------------------------------------------------===#


def tensor_type(shape, dtype, dynamic=False):
    dims = "".join(("?" if dynamic else str(s)) + "x" for s in shape)
    return f"tensor<{dims}{MLIR_TYPE[dtype]}>"


def literal(array):
    dtype = dtype_of(array)
    ty = tensor_type(array.shape, dtype)

    def fmt(v):
        if dtype == np.bool_:
            return "true" if v else "false"
        if np.issubdtype(dtype, np.floating):
            if np.isfinite(v):
                # MLIR wants a digit after the point: 1e-300 -> 1.0e-300.
                text = repr(float(v))
                mantissa, _, exponent = text.partition("e")
                if exponent and "." not in mantissa:
                    text = f"{mantissa}.0e{exponent}"
                return text
            # Non-finite values are written as their bit patterns.
            if dtype is bfloat16:
                bits = np.array(v, np.float32).view(np.uint32) >> 16
                return "0x%04X" % int(bits)
            bits = np.array(v, dtype=dtype).view(f"u{array.itemsize}")
            return "0x%0*X" % (2 * array.itemsize, int(bits))
        return str(int(v))

    def nest(a):
        if a.ndim == 0:
            return fmt(a[()])
        return "[" + ", ".join(nest(x) for x in a) + "]"

    if array.size == 0:
        return f"dense<> : {ty}"
    return f"dense<{nest(array)}> : {ty}"


class Case:
    def __init__(self, op, args, dtype, mode=None, in_place=False,
                 dynamic=False, result_dtype=None, target=None,
                 expected=None, fold=False, attrs="", static_result=False):
        self.op = op
        # The result type stays static with dynamic operands (sum_to_size,
        # whose result type is its target).
        self.dynamic_result = dynamic and not static_result
        # Extra attributes written after the operands, e.g.
        # ' {approximate = "tanh"}'.
        self.attrs = attrs
        self.args = args
        self.dtype = dtype
        self.mode = mode
        self.in_place = in_place
        self.dynamic = dynamic
        self.target = target
        # Applied to constants in its function and folded at compile time.
        self.fold = fold
        assert not (fold and dynamic)
        if expected is not None:
            # Computed by the caller (PyTorch, for mixed element types).
            self.expected = expected
        elif op == "broadcast_to":
            self.expected = np.broadcast_to(args[0], target)
        else:
            self.expected = np.asarray(reference(op, args, dtype, mode))
            if in_place:
                assert self.expected.shape == args[0].shape
        self.result_dtype = (dtype_of(expected) if expected is not None else
                             np.bool_ if op in ("eq", "ne", "lt", "le", "gt",
                                                "ge") else
                             dtype_of(args[-1]))

    def operation(self, result_name, names):
        """The case's bcast op applied to the values `names`."""
        dyn = self.dynamic
        operand_types = ", ".join(tensor_type(a.shape, dtype_of(a), dyn)
                                  for a in self.args)
        result = tensor_type(self.expected.shape, self.result_dtype,
                             self.dynamic_result)
        if self.op == "broadcast_to":
            return (f"  {result_name} = bcast.broadcast_to {names[0]} : "
                    f"{operand_types} -> {result}\n")
        if self.op == "expression":
            return self.expand(result_name, names, dyn)
        attrs = (f" {{rounding_mode = \"{self.mode}\"}}"
                 if self.mode else self.attrs)
        mnemonic = self.op + ("_" if self.in_place else "")
        return (f"  {result_name} = bcast.{mnemonic} {', '.join(names)}"
                f"{attrs} : ({operand_types}) -> {result}\n")

    def function(self, name):
        if self.fold:
            return self.folded_function(name)
        dyn = self.dynamic
        params = [f"%a{i}: {tensor_type(a.shape, dtype_of(a), dyn)}"
                  for i, a in enumerate(self.args)]
        result = tensor_type(self.expected.shape, self.result_dtype,
                             self.dynamic_result)
        body = self.operation("%r", [f"%a{i}" for i in range(len(self.args))])
        return (f"func.func @{name}({', '.join(params)}) -> {result} {{\n"
                f"{body}  return %r : {result}\n}}\n")

    def folded_function(self, name):
        """The case's op on constants, in a function without arguments (a
        call of its own, so that no two results are merged)."""
        lines = [f"  %c{i} = arith.constant {literal(a)}"
                 for i, a in enumerate(self.args)]
        result = tensor_type(self.expected.shape, self.result_dtype)
        body = self.operation(
            "%r", [f"%c{i}" for i in range(len(self.args))])
        return (f"func.func @{name}() -> {result} {{\n"
                + "\n".join(lines) + f"\n{body}  return %r : {result}\n}}\n")

    def call(self, name, index):
        if self.fold:
            rtype = tensor_type(self.expected.shape, self.result_dtype)
            lines = [f"  %r{index} = func.call @{name}() : () -> {rtype}"]
            lines += print_tensor(f"%r{index}", self.expected.shape,
                                  self.result_dtype, False, index)
            return "\n".join(lines) + "\n"
        lines = []
        arg_names = []
        for i, a in enumerate(self.args):
            lines.append(f"  %c{index}_{i} = arith.constant {literal(a)}")
            value = f"%c{index}_{i}"
            if self.dynamic:
                lines.append(f"  %d{index}_{i} = tensor.cast {value} : "
                             f"{tensor_type(a.shape, dtype_of(a))} to "
                             f"{tensor_type(a.shape, dtype_of(a), True)}")
                value = f"%d{index}_{i}"
            arg_names.append(value)
        types = ", ".join(tensor_type(a.shape, dtype_of(a), self.dynamic)
                          for a in self.args)
        rtype = tensor_type(self.expected.shape, self.result_dtype,
                            self.dynamic_result)
        lines.append(f"  %r{index} = func.call @{name}({', '.join(arg_names)}) "
                     f": ({types}) -> {rtype}")
        lines += print_tensor(f"%r{index}", self.expected.shape,
                              self.result_dtype, self.dynamic_result, index)
        return "\n".join(lines) + "\n"


    #===--------------------------------------------------------------------===#
    # GPU form: destination-passing kernels on device buffers
    #===--------------------------------------------------------------------===#

    def printable_dtype(self):
        return {np.float16: np.float32, bfloat16: np.float32,
                np.bool_: np.int32, np.int8: np.int32,
                np.int16: np.int32}.get(self.result_dtype, self.result_dtype)

    def gpu_function(self, name):
        """The case as a kernel on device buffers: inputs, then the output
        (widened to a printable type inside the kernel), or in place."""
        dyn = self.dynamic
        memrefs = [tensor_type(a.shape, dtype_of(a), dyn).replace(
            "tensor<", "memref<") for a in self.args]
        tensors = [tensor_type(a.shape, dtype_of(a), dyn) for a in self.args]
        # sum_to_size keeps a static result type (its target) with dynamic
        # operands.
        dyn_out = self.dynamic_result
        result = tensor_type(self.expected.shape, self.result_dtype, dyn_out)
        wide = self.printable_dtype()
        out_tensor = tensor_type(self.expected.shape, wide, dyn_out)
        out_memref = out_tensor.replace("tensor<", "memref<")
        params = [f"%m{i}: {m}" for i, m in enumerate(memrefs)]
        if not self.in_place:
            params.append(f"%out: {out_memref}")
        lines = [f"func.func @{name}({', '.join(params)}) {{"]
        for i, (m, t) in enumerate(zip(memrefs, tensors)):
            writable = " writable" if self.in_place and i == 0 else ""
            lines.append(f"  %a{i} = bufferization.to_tensor %m{i} restrict"
                         f"{writable} : {m} to {t}")
        names = ", ".join(f"%a{i}" for i in range(len(self.args)))
        if self.op == "broadcast_to":
            lines.append(f"  %r = bcast.broadcast_to %a0 : {tensors[0]} -> "
                         f"{result}")
        elif self.op == "expression":
            lines.append(self.expand(
                "%r", [f"%a{i}" for i in range(len(self.args))],
                dyn).rstrip("\n"))
        else:
            attrs = (f" {{rounding_mode = \"{self.mode}\"}}"
                     if self.mode else self.attrs)
            mnemonic = self.op + ("_" if self.in_place else "")
            lines.append(f"  %r = bcast.{mnemonic} {names}{attrs} : "
                         f"({', '.join(tensors)}) -> {result}")
        value = "%r"
        if wide != self.result_dtype:
            elem, wide_elem = MLIR_TYPE[self.result_dtype], MLIR_TYPE[wide]
            op = {np.float16: "arith.extf", bfloat16: "arith.extf",
                  np.bool_: "arith.extui"}.get(
                self.result_dtype, "arith.extsi")
            rank = self.expected.ndim
            dims = [f"%dim{d}" for d in range(rank)] if dyn_out else []
            for d in dims:
                lines.append(f"  %c{d[4:]} = arith.constant {d[4:]} : index")
                lines.append(f"  {d} = tensor.dim %r, %c{d[4:]} : {result}")
            lines.append(f"  %e = tensor.empty({', '.join(dims)}) : {out_tensor}")
            iterators = ", ".join(['"parallel"'] * rank)
            lines.append(
                f"  %w = linalg.generic {{indexing_maps = [{identity(rank)}, "
                f"{identity(rank)}], iterator_types = [{iterators}]}} "
                f"ins(%r : {result}) outs(%e : {out_tensor}) {{\n"
                f"  ^bb0(%x: {elem}, %o: {wide_elem}):\n"
                f"    %y = {op} %x : {elem} to {wide_elem}\n"
                f"    linalg.yield %y : {wide_elem}\n"
                f"  }} -> {out_tensor}")
            value = "%w"
        dest = "%m0" if self.in_place else "%out"
        dest_type = memrefs[0] if self.in_place else out_memref
        lines.append(f"  bufferization.materialize_in_destination {value} in "
                     f"restrict writable {dest} : ({out_tensor}, {dest_type}) "
                     f"-> ()")
        lines.append("  return\n}")
        return "\n".join(lines) + "\n"

    def gpu_call(self, name, index):
        """Copies the inputs to the device, calls the kernel, copies the
        result back and prints it."""
        lines = []
        device_args, arg_types = [], []
        for i, a in enumerate(self.args):
            static_t = tensor_type(a.shape, dtype_of(a))
            static_m = static_t.replace("tensor<", "memref<")
            lines.append(f"  %c{index}_{i} = arith.constant {literal(a)}")
            lines.append(f"  %h{index}_{i} = bufferization.to_buffer "
                         f"%c{index}_{i} : {static_t} to {static_m}")
            lines.append(f"  %g{index}_{i} = gpu.alloc () : {static_m}")
            lines.append(f"  gpu.memcpy %g{index}_{i}, %h{index}_{i} : "
                         f"{static_m}, {static_m}")
            value, ty = f"%g{index}_{i}", static_m
            if self.dynamic:
                dyn_m = tensor_type(a.shape, dtype_of(a), True).replace(
                    "tensor<", "memref<")
                lines.append(f"  %q{index}_{i} = memref.cast {value} : "
                             f"{static_m} to {dyn_m}")
                value, ty = f"%q{index}_{i}", dyn_m
            device_args.append(value)
            arg_types.append(ty)
        wide = self.printable_dtype()
        out_m = tensor_type(self.expected.shape, wide).replace(
            "tensor<", "memref<")
        if self.in_place:
            device_out = f"%g{index}_0"
        else:
            device_out = f"%go{index}"
            lines.append(f"  {device_out} = gpu.alloc () : {out_m}")
            value, ty = device_out, out_m
            if self.dynamic_result:
                dyn_m = tensor_type(self.expected.shape, wide, True).replace(
                    "tensor<", "memref<")
                lines.append(f"  %qo{index} = memref.cast {value} : {out_m} "
                             f"to {dyn_m}")
                value, ty = f"%qo{index}", dyn_m
            device_args.append(value)
            arg_types.append(ty)
        lines.append(f"  func.call @{name}({', '.join(device_args)}) : "
                     f"({', '.join(arg_types)}) -> ()")
        lines.append(f"  %ho{index} = memref.alloc () : {out_m}")
        lines.append(f"  gpu.memcpy %ho{index}, {device_out} : {out_m}, "
                     f"{out_m}")
        elem = MLIR_TYPE[wide]
        lines.append(f"  %u{index} = memref.cast %ho{index} : {out_m} to "
                     f"memref<*x{elem}>")
        fn = {"f32": "printMemrefF32", "f64": "printMemrefF64",
              "i32": "printMemrefI32", "i64": "printMemrefI64"}[elem]
        lines.append(f"  func.call @{fn}(%u{index}) : (memref<*x{elem}>) -> ()")
        return "\n".join(lines) + "\n"


#: Written-out softmax, log-softmax, LayerNorm and RMSNorm as a user writes
#: them, on operands %a0 (X, [M,N]), %a1 and %a2 (W, [N]), with the types
#: S ([M,1]) and C ([1,N]) for statistics; the result is %r. Shared with
#: benchmarks/gpu_bench.py.
SOFTMAX = [
    "%m = bcast.amax %a0 {dims = array<i64: -1>, keepdim = true} : (X) -> S",
    "%d = bcast.sub %a0, %m : (X, S) -> X",
    "%e = bcast.exp %d : (X) -> X",
    "%s = bcast.sum %e {dims = array<i64: -1>, keepdim = true} : (X) -> S",
    "%r = bcast.div %e, %s : (X, S) -> X"]
SOFTMAX_DIM0 = [line.replace("array<i64: -1>", "array<i64: 0>")
                .replace("S", "C") for line in SOFTMAX]
LOG_SOFTMAX = SOFTMAX[:4] + [
    "%l = bcast.log %s : (S) -> S",
    "%r = bcast.sub %d, %l : (X, S) -> X"]
LAYER_NORM = [
    "%mean = bcast.mean %a0 {dims = array<i64: -1>, keepdim = true} : (X) -> S",
    "%c = bcast.sub %a0, %mean : (X, S) -> X",
    "%sq = bcast.mul %c, %c : (X, X) -> X",
    "%var = bcast.mean %sq {dims = array<i64: -1>, keepdim = true} : (X) -> S",
    "%eps = arith.constant dense<1.0e-5> : tensor<f32>",
    "%ve = bcast.add %var, %eps : (S, tensor<f32>) -> S",
    "%rs = bcast.rsqrt %ve : (S) -> S",
    "%n = bcast.mul %c, %rs : (X, S) -> X",
    "%sc = bcast.mul %n, %a1 : (X, W) -> X",
    "%r = bcast.add %sc, %a2 : (X, W) -> X"]
RMS_NORM = [
    "%sq = bcast.mul %a0, %a0 : (X, X) -> X",
    "%ms = bcast.mean %sq {dims = array<i64: -1>, keepdim = true} : (X) -> S",
    "%eps = arith.constant dense<1.0e-6> : tensor<f32>",
    "%me = bcast.add %ms, %eps : (S, tensor<f32>) -> S",
    "%rs = bcast.rsqrt %me : (S) -> S",
    "%n = bcast.mul %a0, %rs : (X, S) -> X",
    "%r = bcast.mul %n, %a1 : (X, W) -> X"]


class Expression(Case):
    """A written-out expression of several bcast ops on f32 operands %a0,
    %a1, ...: `template` lines whose types are written X (the first
    operand's), S (its rows, [M,1]), C (its columns, [1,N]) and W (its last
    dimension, [N]), ending in %r; compared with `expected`."""

    def __init__(self, name, template, args, expected, dynamic=False):
        super().__init__("expression", args, np.float32,
                         expected=np.asarray(expected, np.float32),
                         dynamic=dynamic)
        self.name = name
        self.template = template
        # LayerNorm's bias cancels some products to near 0, where float32
        # rounding (1e-7 of the terms, which are about 1) dominates.
        self.atol = 1e-5 if name == "layer_norm" else 1e-30

    def expand(self, result_name, names, dynamic):
        m, n = self.args[0].shape
        types = {"X": tensor_type((m, n), np.float32, dynamic),
                 "S": tensor_type((m, 1), np.float32, dynamic).replace(
                     "?x?x", "?x1x"),
                 "C": tensor_type((1, n), np.float32, dynamic).replace(
                     "tensor<?x", "tensor<1x", 1),
                 "W": tensor_type((n,), np.float32, dynamic)}
        text = "\n".join("  " + line for line in self.template)
        for i, name in enumerate(names):
            text = re.sub(rf"%a{i}\b", name, text)
        text = re.sub(r"%r\b", result_name, text)
        text = re.sub(r"\b[XSCW]\b", lambda m: types[m.group(0)], text)
        return text + "\n"


def expression_cases():
    """A written-out softmax (over either dim), log-softmax, LayerNorm with
    weight and bias and RMSNorm, on rows longer than a GPU block, static
    and dynamic: the row groups that bcast-fuse-rows makes one loop and
    bcast-map-reductions-to-gpu one kernel, against the same formulas in
    float64 NumPy."""
    cases = []
    for dynamic in (False, True):
        x = reduction_input((37, 1000), np.float32, False)
        w = RNG.uniform(0.5, 2.0, 1000).astype(np.float32)
        b = RNG.uniform(-1.0, 1.0, 1000).astype(np.float32)
        x64 = x.astype(np.float64)
        for name, template, dim in (("softmax", SOFTMAX, -1),
                                    ("softmax0", SOFTMAX_DIM0, 0),
                                    ("log_softmax", LOG_SOFTMAX, -1)):
            d = x64 - x64.max(dim, keepdims=True)
            s = np.exp(d).sum(dim, keepdims=True)
            want = d - np.log(s) if name == "log_softmax" else np.exp(d) / s
            cases.append(Expression(name, template, [x], want, dynamic))
        c = x64 - x64.mean(-1, keepdims=True)
        var = (c * c).mean(-1, keepdims=True)
        cases.append(Expression("layer_norm", LAYER_NORM, [x, w, b],
                                c / np.sqrt(var + 1e-5) * w + b, dynamic))
        ms = (x64 * x64).mean(-1, keepdims=True)
        cases.append(Expression("rms_norm", RMS_NORM, [x, w],
                                x64 / np.sqrt(ms + 1e-6) * w, dynamic))
    return cases


def print_tensor(value, shape, dtype, dynamic, index):
    """Prints through printMemrefF32/F64/I32/I64, widening other types
    (unsigned ones through their signless twins: the same bits, then
    extended without sign; ui64 prints as i64, compared modulo 2^64)."""
    lines = []
    static = tensor_type(shape, dtype)
    if dynamic:
        lines.append(f"  %s{index} = tensor.cast {value} : "
                     f"{tensor_type(shape, dtype, True)} to {static}")
        value = f"%s{index}"
    if dtype in UNSIGNED:
        signless = static.replace("xui", "xi").replace("<ui", "<i")
        lines.append(f"  %b{index} = tensor.bitcast {value} : {static} to "
                     f"{signless}")
        value, static = f"%b{index}", signless
    widen = {np.float16: ("f32", "arith.extf"),
             bfloat16: ("f32", "arith.extf"), np.bool_: ("i32", "arith.extui"),
             np.int8: ("i32", "arith.extsi"), np.int16: ("i32", "arith.extsi"),
             np.uint8: ("i32", "arith.extui"),
             np.uint16: ("i32", "arith.extui"),
             np.uint32: ("i64", "arith.extui")}
    elem = MLIR_TYPE[dtype].lstrip("u")
    if dtype in widen:
        wide, op = widen[dtype]
        wide_type = static.replace(elem + ">", wide + ">")
        lines.append(f"  %e{index} = tensor.empty() : {wide_type}")
        iterators = ", ".join(['"parallel"'] * len(shape))
        lines.append(
            f"  %w{index} = linalg.generic {{indexing_maps = [{identity(len(shape))},"
            f" {identity(len(shape))}], iterator_types = "
            f"[{iterators}]}} ins({value} : {static}) "
            f"outs(%e{index} : {wide_type}) {{\n"
            f"  ^bb0(%x: {elem}, %o: {wide}):\n"
            f"    %y = {op} %x : {elem} to {wide}\n"
            f"    linalg.yield %y : {wide}\n"
            f"  }} -> {wide_type}")
        value, static, elem = f"%w{index}", wide_type, wide
    memref = static.replace("tensor<", "memref<")
    lines.append(f"  %m{index} = bufferization.to_buffer {value} : {static} "
                 f"to {memref}")
    lines.append(f"  %u{index} = memref.cast %m{index} : {memref} to "
                 f"memref<*x{elem}>")
    fn = {"f32": "printMemrefF32", "f64": "printMemrefF64",
          "i32": "printMemrefI32", "i64": "printMemrefI64"}[elem]
    lines.append(f"  func.call @{fn}(%u{index}) : (memref<*x{elem}>) -> ()")
    return lines


def identity(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({dims})>"


def module(cases, gpu=False):
    if gpu:
        text = ["func.func private @printMemrefF32(memref<*xf32>)",
                "func.func private @printMemrefF64(memref<*xf64>)",
                "func.func private @printMemrefI32(memref<*xi32>)",
                "func.func private @printMemrefI64(memref<*xi64>)"]
        for i, case in enumerate(cases):
            text.append(case.gpu_function(f"case{i}"))
        text.append("func.func @bcast_test_main() {")
        for i, case in enumerate(cases):
            text.append(case.gpu_call(f"case{i}", i))
        text.append("  return\n}")
        return "\n".join(text) + "\n"
    text = ["func.func private @printMemrefF32(memref<*xf32>)",
            "func.func private @printMemrefF64(memref<*xf64>)",
            "func.func private @printMemrefI32(memref<*xi32>)",
            "func.func private @printMemrefI64(memref<*xi64>)"]
    for i, case in enumerate(cases):
        text.append(case.function(f"case{i}"))
    text.append("func.func @main() {")
    for i, case in enumerate(cases):
        text.append(case.call(f"case{i}", i))
    text.append("  return\n}")
    return "\n".join(text) + "\n"


#===------------------------------------------------------------------------===#
# Families of cases
#===------------------------------------------------------------------------===#

ARITH = ["add", "sub", "mul", "div", "remainder", "fmod", "pow", "maximum",
         "minimum"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]


def binary_cases(ops, dtypes, shapes=SHAPES, in_place=False, dynamic=False):
    cases = []
    for dtype in dtypes:
        for op in ops:
            if dtype == np.bool_ and op == "sub":
                continue
            modes = [None]
            if op == "div":
                modes = (["trunc", "floor"] if not np.issubdtype(
                    dtype, np.floating) else [None, "trunc", "floor"])
            for mode in modes:
                for sa, sb in shapes:
                    if in_place and list(np.broadcast_shapes(
                            tuple(sa), tuple(sb))) != sa:
                        continue
                    a = random_array(sa, dtype, op, 0)
                    b = random_array(sb, dtype, op, 1)
                    cases.append(Case(op, [a, b], dtype, mode, in_place,
                                      dynamic))
    return cases


def family(name):
    ints = [np.int8, np.int16, np.int32, np.int64]
    if name == "float":
        return binary_cases(ARITH + COMPARE, [np.float32, np.float64])
    if name == "half":
        return binary_cases(["add", "sub", "mul", "div", "maximum", "minimum",
                             "lt", "ne"], [np.float16], SHAPES[:4])
    if name == "int":
        return binary_cases(ARITH + COMPARE + ["and", "or", "xor"], ints,
                            SHAPES[:5] + SHAPES[6:])
    if name == "bool":
        return binary_cases(["add", "mul", "maximum", "minimum", "and", "or",
                             "xor"] + COMPARE, [np.bool_])
    if name == "nan":
        a = np.array([np.nan, 1.0, -np.inf, 0.0], np.float32)
        b = np.array([[2.0], [np.nan]], np.float32)
        return [Case(op, [a, b], np.float32)
                for op in ["maximum", "minimum", "eq", "ne", "lt", "ge"]]
    if name == "where":
        cases = []
        for dtype in [np.float32, np.int32, np.bool_]:
            for sc, sx, sy in [([4, 1], [3], []), ([2, 1, 3], [1, 3], [2, 1, 1]),
                               ([], [2], [3, 1]), ([0, 1], [1], [3])]:
                c = RNG.random(sc) < 0.5
                cases.append(Case("where", [c, random_array(sx, dtype),
                                            random_array(sy, dtype)], dtype))
        return cases
    if name == "broadcast_to":
        cases = []
        for shape, target in [([3, 1], [4, 3, 5]), ([], [2, 2]), ([1], [0]),
                              ([2, 1, 3], [2, 4, 3])]:
            x = random_array(shape, np.float32)
            cases.append(Case("broadcast_to", [x], np.float32, target=target))
        return cases
    if name == "in_place":
        shapes = [([5, 3, 4, 1], [3, 1, 1]), ([2, 3], []), ([2, 3], [3]),
                  ([4, 3], [4, 1]), ([0, 3], [1])]
        return (binary_cases(ARITH, [np.float32], shapes, in_place=True) +
                binary_cases(ARITH + ["and", "or", "xor"], [np.int32], shapes,
                             in_place=True))
    if name == "dynamic":
        # `?` sizes that are 1 at run time next to n, and equal sizes.
        shapes = [([2, 3], [1]), ([2, 3], [3]), ([2, 1], [1, 3]),
                  ([2, 3], [2, 1]), ([1, 1], [4, 5]), ([0, 3], [1, 3])]
        return (binary_cases(["add", "mul", "maximum", "lt"], [np.float32],
                             shapes, dynamic=True) +
                binary_cases(["sub", "remainder"], [np.int32], shapes,
                             dynamic=True) +
                binary_cases(["add", "mul"], [np.float32],
                             [([2, 3], [1]), ([4, 3], [3])], in_place=True,
                             dynamic=True))
    if name == "dynamic_static_policy":
        # Under the static policy, `?` sizes are equal at run time.
        shapes = [([2, 3], [3]), ([4, 3], [4, 3]), ([0, 2], [2])]
        return (binary_cases(["add", "mul", "lt"], [np.float32], shapes,
                             dynamic=True) +
                binary_cases(["add"], [np.float32], [([4, 3], [3])],
                             in_place=True, dynamic=True))
    if name == "vector":
        # Rows long enough for the vector loops, with tails, row-invariant
        # operands, runtime-1 inner sizes (stride-0 views) and in place.
        shapes = [([3, 37], [37]), ([5, 40], [5, 1]), ([2, 3, 33], [3, 1]),
                  ([100], []), ([4, 1, 50], [3, 50]), ([64], [64])]
        return (binary_cases(["add", "mul", "div", "maximum", "pow"],
                             [np.float32, np.float64], shapes) +
                binary_cases(["add", "remainder", "xor"], [np.int32, np.int8],
                             shapes) +
                binary_cases(["sub", "mul"], [np.float32],
                             [([3, 37], [37]), ([2, 40], [1]),
                              ([2, 40], [2, 1]), ([33], [1])], dynamic=True) +
                binary_cases(["add"], [np.float32, np.int64],
                             [([6, 35], [35]), ([6, 35], [6, 1])],
                             in_place=True, dynamic=True) +
                binary_cases(["add", "minimum"], [np.float32],
                             [([6, 35], [35]), ([4, 50], [1])],
                             in_place=True))
    if name == "unary":
        return unary_cases()
    if name == "binary_functions":
        return binary_function_cases()
    if name == "ternary":
        return ternary_cases()
    if name == "mixed":
        return mixed_cases()
    if name == "unsigned":
        return unsigned_cases()
    if name == "reduction":
        return reduction_cases()
    if name == "reduction_rows":
        return reduction_row_cases()
    if name == "expressions":
        return expression_cases()
    if name == "cast":
        return cast_cases()
    raise SystemExit(f"unknown family {name}")


# The unary ops by kind (issue 13's list): float functions give f32 for
# integers and bools; the others keep the type; the tests give i1.
FLOAT_FUNCTIONS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                   "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "asin",
                   "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
                   "atanh", "sigmoid", "erf", "erfc"]
EXACT_UNARY = ["abs", "neg", "sign", "floor", "ceil", "round", "trunc", "relu"]
BOOL_UNARY = ["logical_not", "isnan", "isinf", "isfinite"]


def mp_reference(op, x, approximate="none"):
    """sigmoid, silu and gelu with mpmath at 60 digits (PyTorch's own f32
    and f64 kernels lose the tails), rounded once to the result type."""
    import mpmath
    mpmath.mp.dps = 60
    out = np.empty(x.shape, np.float64)
    for idx in np.ndindex(x.shape):
        v = float(x[idx])
        if np.isnan(v):
            out[idx] = np.nan
            continue
        if np.isinf(v):
            # -inf * 0 is NaN for silu and gelu, as in PyTorch.
            out[idx] = {"sigmoid": 1.0 if v > 0 else 0.0,
                        "silu": v if v > 0 else np.nan,
                        "gelu": v if v > 0 else np.nan}[op]
            continue
        m = mpmath.mpf(v)
        sig = 1 / (1 + mpmath.exp(-m))
        if op == "sigmoid":
            r = sig
        elif op == "silu":
            r = m * sig
        elif approximate == "tanh":
            u = mpmath.sqrt(2 / mpmath.pi) * (m + mpmath.mpf("0.044715") * m**3)
            r = m / 2 * (1 + mpmath.tanh(u))
        else:
            r = m / 2 * mpmath.erfc(-m / mpmath.sqrt(2))
        out[idx] = float(r)
    return out


def unary_cases():
    """Every unary op on f32, f64, f16 and, where PyTorch defines them,
    integers and bools, at NaN, the infinities, -0, tiny values and the
    domain edges; expected values from PyTorch at test time (in f64, then
    rounded: "computed in f32, rounded once" for f16), and from mpmath for
    sigmoid, silu and gelu."""
    import torch
    import torch.nn.functional as F
    floats = np.array([[-np.inf, -3.5, -1.0, -0.5, -0.0, 0.0, 1e-7],
                       [0.5, 1.0, 2.5, 100.0, np.inf, np.nan, -1e-30]])
    ints = np.array([[-100, -7, -1, 0], [1, 2, 7, 100]])
    bools = np.array([[True, False], [False, True]])
    torch_fn = {"relu": torch.relu, "silu": F.silu}

    def round_result(wide, dtype):
        # f64 stays; f16 is computed in f32 and rounded once more; integers
        # and bools give f32.
        if dtype == np.float64:
            return wide
        with np.errstate(over="ignore"):
            single = wide.astype(np.float32)
            return single.astype(np.float16) if dtype == np.float16 else single

    def run_torch(op, x, attrs):
        fn = torch_fn.get(op) or getattr(torch, op)
        if x.dtype == np.float16:
            # PyTorch 1.13 lacks most Half kernels on the CPU; the exact ops
            # and the tests give the same values through f32.
            result = fn(torch.from_numpy(x.astype(np.float32))).numpy()
            return result if result.dtype == np.bool_ else result.astype(
                np.float16)
        return fn(torch.from_numpy(x)).numpy()

    cases = []
    float_types = [np.float32, np.float64, np.float16]
    for op in FLOAT_FUNCTIONS + EXACT_UNARY + BOOL_UNARY + ["bitwise_not",
                                                           "silu", "gelu"]:
        variants = [("", "none")]
        if op == "gelu":
            variants = [("", "none"), (' {approximate = "tanh"}', "tanh")]
        for dtype in float_types + [np.int32, np.int8, np.int64, np.bool_,
                                    np.uint8]:
            is_float = np.issubdtype(dtype, np.floating)
            if op == "bitwise_not" and is_float:
                continue
            if op in ("silu", "gelu") and not is_float:
                continue
            if dtype == np.bool_ and op in ["abs", "neg", "floor", "ceil",
                                            "round", "trunc", "relu"]:
                continue
            x = (floats if is_float else bools if dtype == np.bool_
                 else ints).astype(dtype)
            if dtype == np.int8:
                x = np.array([[-128, -7, -1, 0], [1, 2, 7, 127]], np.int8)
            if dtype == np.uint8:
                # Unsigned: neg wraps, abs and relu are the identity.
                x = np.array([[0, 1, 2, 7], [100, 127, 128, 255]], np.uint8)
            for attrs, approximate in variants:
                if op in ("sigmoid", "silu", "gelu"):
                    wide = mp_reference(op, x.astype(np.float64), approximate)
                    expected = round_result(wide, dtype)
                elif op in FLOAT_FUNCTIONS:
                    wide = run_torch(op, x.astype(np.float64), attrs)
                    if not is_float:
                        wide = run_torch(op, x, attrs).astype(np.float64)
                    expected = round_result(wide, dtype)
                else:
                    expected = run_torch(op, x, attrs)
                cases.append(Case(op, [x], dtype, expected=expected,
                                  attrs=attrs))
    # bf16 (NumPy has none: float32 arrays of bf16 values), computed in f32
    # and rounded once to bf16, as f16.
    xb = as_bf16(floats)
    wide_in = np.asarray(xb, np.float64)
    for op in FLOAT_FUNCTIONS + EXACT_UNARY + BOOL_UNARY + ["silu", "gelu"]:
        if op in ("sigmoid", "silu", "gelu"):
            wide = mp_reference(op, wide_in)
        elif op in FLOAT_FUNCTIONS:
            wide = run_torch(op, wide_in, "")
        else:
            wide = run_torch(op, np.asarray(xb, np.float32), "")
        if wide.dtype == np.bool_:
            expected = wide
        else:
            with np.errstate(over="ignore"):
                expected = as_bf16(wide.astype(np.float32))
        cases.append(Case(op, [xb], bfloat16, expected=expected))
    # Rows long enough for the vector loops (and, with vector-math=libmvec,
    # its vector functions), with tails.
    wide_range = np.concatenate([np.linspace(-12, 12, 100), [-0.0, 1e-20,
                                 -1e-20, np.inf, -np.inf, np.nan, 0.5,
                                 -100.0, 100.0, 1e-40, -1e-40]]).reshape(3, 37)
    for op in FLOAT_FUNCTIONS + ["silu", "gelu"]:
        for dtype in [np.float32, np.float64]:
            x = wide_range.astype(dtype)
            if op in ("sigmoid", "silu", "gelu"):
                expected = mp_reference(op, x.astype(np.float64))
            else:
                expected = run_torch(op, x.astype(np.float64), "")
            cases.append(Case(op, [x], dtype,
                              expected=round_result(expected, dtype)))
    # In place: computed as out of place, stored in the operand's type.
    for op, dtype in [("exp", np.float32), ("sqrt", np.float64),
                      ("tanh", np.float16), ("abs", np.int32),
                      ("logical_not", np.float32), ("floor", np.float64),
                      ("neg", np.int8), ("bitwise_not", np.int64),
                      ("sigmoid", np.float64)]:
        x = (floats if np.issubdtype(dtype, np.floating) else ints).astype(
            dtype)
        if op == "sigmoid":
            expected = mp_reference(op, x).astype(dtype)
        else:
            t = torch.from_numpy(x.astype(np.float32 if dtype == np.float16
                                          else dtype).copy())
            getattr(t, op + "_")()
            expected = t.numpy().astype(dtype)
        cases.append(Case(op, [x], dtype, in_place=True, expected=expected))
    # Dynamic sizes.
    for op, dtype in [("exp", np.float32), ("relu", np.int32),
                      ("isnan", np.float64), ("erfc", np.float32)]:
        x = (floats if np.issubdtype(dtype, np.floating) else ints).astype(
            dtype)
        with np.errstate(over="ignore"):
            expected = (run_torch(op, x.astype(np.float64), "").astype(dtype)
                        if op in FLOAT_FUNCTIONS else run_torch(op, x, ""))
        cases.append(Case(op, [x], dtype, dynamic=True, expected=expected))
    return cases


def unsigned_cases():
    """ui8..ui64 at their edges (wrap-around at the top, values above 2^31
    and 2^63 where signed semantics would differ): every op on broadcast
    shapes, some with `?` sizes (the numpy policy's views of unsigned
    tensors), mixed with signed, bool and float operands, in place, and
    bcast.cast to and from them; a copy of several folded at compile time.
    The expected values convert the operands to the documented compute type
    (docs/Semantics.md), then apply NumPy's unsigned arithmetic."""
    shapes = SHAPES[:5] + SHAPES[6:]
    cases = binary_cases(ARITH + COMPARE + ["and", "or", "xor"], UNSIGNED,
                         shapes)
    cases += binary_cases(["add", "sub", "div", "remainder", "maximum", "lt"],
                          [np.uint8, np.uint32, np.uint64],
                          [([2, 3], [1]), ([2, 1], [1, 3]), ([0, 3], [1, 3])],
                          dynamic=True)
    # The same ops folded at compile time, on two shapes.
    cases += [Case(c.op, c.args, c.dtype, c.mode, fold=True)
              for c in binary_cases(ARITH + COMPARE + ["xor"], UNSIGNED,
                                    [SHAPES[3], SHAPES[8]])]

    def promoted(op, a, b, compute, mode=None, in_place=False):
        """The case `op(a, b)` computed in `compute`."""
        result = reference(op, [a.astype(compute), b.astype(compute)],
                           compute, mode)
        result = np.asarray(result)
        if in_place:
            result = result.astype(a.dtype)
        return Case(op, [a, b], dtype_of(a), mode, in_place,
                    expected=result)

    u8, i16 = np.uint8, np.int16
    mixed = [
        # (lhs dtype, lhs shape, rhs dtype, rhs shape, compute, ops)
        (u8, [2, 3], i16, [3], i16, ["add", "sub", "mul", "maximum", "lt"]),
        (u8, [3], np.int8, [2, 1], i16, ["add", "minimum", "ge"]),
        (u8, [2, 3], np.float32, [], np.float32, ["add", "mul", "div"]),
        (u8, [4], np.bool_, [2, 1], u8, ["add", "mul", "maximum", "lt"]),
        # A zero-dim integer does not outrank a dimensioned ui8: it
        # converts to ui8 (wrapping).
        (u8, [3], np.int32, [], u8, ["add", "gt"]),
        (np.uint16, [3], np.bool_, [], np.uint16, ["maximum", "mul"]),
        (np.uint32, [2, 3], np.float32, [3], np.float32, ["add", "lt"]),
        (np.uint64, [4], np.float64, [2, 1], np.float64,
         ["add", "maximum", "gt"]),
        (np.uint64, [3], np.float32, [], np.float32, ["mul"]),
    ]
    for da, sa, db, sb, compute, ops in mixed:
        for op in ops:
            a, b = random_array(sa, da, op, 0), random_array(sb, db, op, 1)
            if db == np.int32:
                b = np.asarray(np.array([-1, 100, 255, 256])[
                    RNG.integers(0, 4)], np.int32)
            cases.append(promoted(op, a, b, compute))
            cases.append(promoted(op, a, b, compute))
            cases[-1].fold = True
    # True division and rounded division of unsigned integers.
    for dtype in UNSIGNED:
        a = random_array([2, 3], dtype, "div", 0)
        b = random_array([3], dtype, "div", 1)
        cases.append(promoted("div", a, b, np.float32))
        cases.append(promoted("div", a, b, dtype, mode="floor"))
    # In place: computed in the promoted type, stored in the unsigned one.
    for da, db, op in [(u8, u8, "add"), (u8, i16, "add"), (u8, i16, "mul"),
                       (np.uint32, np.uint32, "mul"),
                       (np.uint64, np.uint64, "sub"),
                       (u8, np.bool_, "maximum"),
                       (np.uint16, np.uint16, "remainder"),
                       (i16, u8, "add"), (np.float32, np.uint32, "add")]:
        a = random_array([2, 3], da, op, 0)
        b = random_array([3], db, op, 1)
        compute = np.result_type(da, db).type
        cases.append(promoted(op, a, b, compute, in_place=True))
    cases += unsigned_cast_cases()
    return cases


def unsigned_cast_cases():
    """bcast.cast to and from unsigned types, against NumPy's astype (to f16
    through f32, as documented)."""
    conversions = [
        (np.uint8, [0, 127, 128, 255], [np.int8, np.int16, np.int32,
                                        np.int64, np.float16, np.float32,
                                        np.bool_, np.uint64]),
        (np.int8, [-128, -1, 0, 127], [np.uint8, np.uint16, np.uint64]),
        (np.int16, [-1, 255, 256, 32767], [np.uint8, np.uint32]),
        (np.uint16, [0, 255, 256, 65535], [np.uint8, np.int16, np.float32]),
        (np.uint32, [1000, 65504, 2**31 + 1, 2**32 - 1],
         [np.float32, np.float64, np.float16, np.int64, np.int32, np.uint16]),
        (np.uint64, [2**63 + 1, 2**63 + 2**11, 2**64 - 1, 12345],
         [np.float32, np.float64, np.int64, np.uint32, np.bool_]),
        (np.float32, [200.75, 0.5, 255.0, 3.0], [np.uint8]),
        (np.float32, [3e9, 4294967040.0, 2147483648.0, 0.25], [np.uint32]),
        (np.float64, [2.0**63 + 2048, 1e19, 0.5, 2.0**64 - 2048],
         [np.uint64]),
        (np.bool_, [True, False, True, True], [np.uint8, np.uint64]),
    ]
    cases = []
    for src, values, targets in conversions:
        x = np.array(values, dtype=src).reshape(2, 2)
        for dst in targets:
            if dst == np.float16 and src != np.float32:
                # Above f16's range: inf, as PyTorch's.
                with np.errstate(over="ignore"):
                    expected = x.astype(np.float32).astype(np.float16)
            else:
                expected = x.astype(dst)
            cases.append(Case("cast", [x], src, expected=expected))
            cases.append(Case("cast", [x], src, expected=expected,
                              fold=True))
    return cases


# The binary additions and three-operand ops of issue 13. Expected values
# come from PyTorch at test time; f16 and bf16 are computed in f32 and
# rounded once (PyTorch 1.13's CPU kernels lack f16 for most of them), and
# the shifts follow NumPy's rule for amounts outside [0, bit width), which
# PyTorch 1.13's CPU kernel leaves to the hardware.

SPECIAL = [-np.inf, -3.5, -1.0, -0.0, 0.0, 0.5, 2.5, np.inf, np.nan]


def typed(values, dtype):
    """`values` as an array of `dtype` (bfloat16 included)."""
    if dtype is bfloat16:
        return as_bf16(values)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(values).astype(dtype)


def torch_dtype(dtype):
    import torch
    if dtype is bfloat16:
        return torch.bfloat16
    return torch.from_numpy(np.zeros(1, dtype)).dtype


def to_torch(array):
    import torch
    if isinstance(array, BF16Array):
        return torch.from_numpy(np.asarray(array).copy()).to(torch.bfloat16)
    return torch.from_numpy(np.array(array))


def from_torch(tensor):
    """A PyTorch result as a NumPy array (a BF16Array for bf16)."""
    import torch
    if tensor.dtype == torch.bfloat16:
        return tensor.to(torch.float32).numpy().view(BF16Array)
    return tensor.numpy()


def torch_reference(fn, args, in_place=False):
    """`fn` applied by PyTorch to `args`. Half and bfloat16 operands are
    computed in f32 (PyTorch 1.13's CPU kernels lack most Half ones) and the
    result is rounded once to the type PyTorch gives, as bcast computes."""
    import torch
    tensors = [to_torch(a) for a in args]
    low = [t.dtype for t in tensors if t.dtype in (torch.float16,
                                                    torch.bfloat16)]
    if in_place:
        target = tensors[0].dtype
        if low:
            tensors = [t.float() if t.dtype in (torch.float16, torch.bfloat16)
                       else t for t in tensors]
        result = fn(*tensors)
        return from_torch(result.to(target))
    if not low:
        return from_torch(fn(*tensors))
    # The result type PyTorch gives, from meta tensors (no kernel runs).
    target = fn(*[torch.empty(t.shape, dtype=t.dtype, device="meta")
                  for t in tensors]).dtype
    wide = [t.float() if t.dtype in (torch.float16, torch.bfloat16) else t
            for t in tensors]
    result = fn(*wide)
    if result.dtype.is_floating_point:
        result = result.to(target)
    return from_torch(result)


def binary_function_cases():
    """atan2, copysign, hypot, the shifts and the logical ops: every pair of
    special values (an outer product, which broadcasts), integers and bools
    where PyTorch defines the op, mixed types, in place and dynamic."""
    import torch
    fns = {"atan2": torch.atan2, "copysign": torch.copysign,
           "hypot": torch.hypot, "logical_and": torch.logical_and,
           "logical_or": torch.logical_or, "logical_xor": torch.logical_xor}
    cases = []
    floats = [np.float32, np.float64, np.float16, bfloat16]
    for op in ["atan2", "copysign", "hypot", "logical_and", "logical_or",
               "logical_xor"]:
        for dtype in floats:
            col = typed(SPECIAL, dtype).reshape(-1, 1)
            row = typed(SPECIAL, dtype)
            cases.append(Case(op, [col, row], dtype,
                              expected=torch_reference(fns[op], [col, row])))
        # Integers and bools (float functions give f32; hypot is float-only).
        if op != "hypot":
            for dtype in [np.int32, np.int8, np.uint8, np.bool_]:
                a = typed([[-7], [0], [1], [3]], dtype)
                b = typed([-2, 0, 5], dtype)
                cases.append(Case(op, [a, b], dtype,
                                  expected=torch_reference(fns[op], [a, b])))
    # Magnitudes whose squares overflow or underflow.
    for dtype, big, tiny in [(np.float32, 2e38, 1e-40),
                             (np.float64, 1e300, 1e-310)]:
        a = typed([[big], [tiny], [3.0]], dtype)
        b = typed([big / 2, tiny, 4.0, -big], dtype)
        cases.append(Case("hypot", [a, b], dtype,
                          expected=torch_reference(torch.hypot, [a, b])))
    # Mixed types and zero-dim operands.
    for op, a, b in [
            ("atan2", typed([[1], [-2]], np.int32), typed(0.5, np.float64)),
            ("copysign", typed([3, -4], np.int64), typed([[-0.0], [1.0]],
                                                         np.float16)),
            ("hypot", typed([3.0, 1.5], bfloat16), typed([[4.0]], np.float32)),
            ("logical_xor", typed([np.nan, 0.0, 2.0], np.float32),
             typed([[0], [7]], np.int64)),
            ("logical_and", typed([True, False], np.bool_),
             typed([[0.0], [-0.0], [np.nan]], np.float16)),
    ]:
        cases.append(Case(op, [a, b], dtype_of(a),
                          expected=torch_reference(fns[op], [a, b])))
    # Shifts: NumPy's rule, in the type PyTorch promotes to.
    for dtype in [np.int8, np.int16, np.int32, np.int64]:
        bits = np.iinfo(dtype).bits
        info = np.iinfo(dtype)
        x = np.array([[1], [-1], [5], [info.min], [info.max]], dtype)
        n = np.array([0, 1, bits - 1, bits, bits + 1, -1, 100], dtype)
        for op, fn in [("bitwise_left_shift", np.left_shift),
                       ("bitwise_right_shift", np.right_shift)]:
            cases.append(Case(op, [x, n], dtype, expected=fn(x, n)))
    # Unsigned: logical right shifts; amounts of at least the width give 0.
    for dtype in UNSIGNED:
        bits = np.iinfo(dtype).bits
        x = np.array([[1], [5], [1 << (bits - 1)], [np.iinfo(dtype).max]],
                     dtype)
        n = np.array([0, 1, bits - 1, bits, bits + 1, 200], dtype)
        for op, fn in [("bitwise_left_shift", np.left_shift),
                       ("bitwise_right_shift", np.right_shift)]:
            cases.append(Case(op, [x, n], dtype, expected=fn(x, n)))
    for x, n in [(np.array([[-100], [3]], np.int8),
                  np.array([1, 7, 8, 9, 64], np.int64)),
                 (np.array([[200], [3]], np.uint8),
                  np.array([1, 7, 8, -1], np.int8)),
                 (np.array([True, False, True]), np.array([[0], [1], [-1]],
                                                          np.int16))]:
        wide = np.result_type(x, n)
        assert torch.result_type(to_torch(x), to_torch(n)) == torch_dtype(
            wide)
        for op, fn in [("bitwise_left_shift", np.left_shift),
                       ("bitwise_right_shift", np.right_shift)]:
            cases.append(Case(op, [x, n], dtype_of(x),
                              expected=fn(x.astype(wide), n.astype(wide))))
    # In place: computed as out of place, stored in the first operand's type.
    for op, a, b in [
            ("atan2", typed([[1.0, -2.0], [0.0, -0.0]], np.float32),
             typed([-1, 0], np.int32)),
            ("hypot", typed([[3.0, np.inf], [1e300, 0.0]], np.float64),
             typed([4.0, np.nan], np.float32)),
            ("copysign", typed([1.5, -2.5], bfloat16), typed([-1], np.int8)),
            ("logical_or", typed([[0.0, 2.0], [np.nan, 0.0]], np.float32),
             typed([0, 0], np.int32)),
            ("logical_and", typed([[0, 7], [-3, 1]], np.int32),
             typed([True, False], np.bool_))]:
        expected = torch_reference(getattr(torch.Tensor, op + "_"),
                                   [a.copy(), b], in_place=True)
        cases.append(Case(op, [a, b], dtype_of(a), in_place=True,
                          expected=expected))
    x = np.array([[1, -128], [64, 3]], np.int8)
    n = np.array([1, 70], np.int64)
    for op, fn in [("bitwise_left_shift", np.left_shift),
                   ("bitwise_right_shift", np.right_shift)]:
        cases.append(Case(op, [x, n], np.int8, in_place=True,
                          expected=fn(x.astype(np.int64), n).astype(np.int8)))
    # Dynamic sizes.
    a, b = typed([[1.0], [-1.0]], np.float32), typed([2.0, -0.0, np.nan],
                                                     np.float32)
    cases.append(Case("atan2", [a, b], np.float32, dynamic=True,
                      expected=torch_reference(torch.atan2, [a, b])))
    x, n = np.array([[-8], [8]], np.int32), np.array([1, 31, 32], np.int32)
    cases.append(Case("bitwise_right_shift", [x, n], np.int32, dynamic=True,
                      expected=np.right_shift(x, n)))
    return cases


def value_attr(value):
    return "" if value is None else f" {{value = {float(value)!r} : f64}}"


def ternary_cases():
    """clamp, lerp, addcmul and addcdiv: the three operands broadcast
    together (each contributing a dimension), NaN and infinities, integers
    (wrapping) and bools where PyTorch defines the op, mixed types, `value`,
    in place and dynamic."""
    import torch

    def fn(op, value=None):
        kwargs = {} if value is None else {"value": value}
        return {"clamp": lambda x, lo, hi: torch.clamp(x, lo, hi),
                "lerp": torch.lerp,
                "addcmul": lambda x, a, b: torch.addcmul(x, a, b, **kwargs),
                "addcdiv": lambda x, a, b: torch.addcdiv(x, a, b, **kwargs)}[
                    op]

    def in_place_fn(op, value=None):
        kwargs = {} if value is None else {"value": value}
        return lambda x, a, b: getattr(x, op + "_")(a, b, **kwargs)

    floats = [np.float32, np.float64, np.float16, bfloat16]
    cases = []
    # Special values, each operand along its own dimension: [3, 1, 1],
    # [4, 1] and [5] broadcast to [3, 4, 5].
    for dtype in floats:
        x = typed([[[-2.5]], [[0.5]], [[np.nan]]], dtype)
        lo = typed([[-1.0], [0.0], [np.nan], [3.0]], dtype)
        hi = typed([2.0, -0.0, np.inf, np.nan, 1.0], dtype)
        cases.append(Case("clamp", [x, lo, hi], dtype,
                          expected=torch_reference(fn("clamp"), [x, lo, hi])))
        start = typed([[[1.0]], [[-3.0]], [[np.inf]]], dtype)
        end = typed([[2.0], [0.25], [np.nan], [-np.inf]], dtype)
        weight = typed([0.0, 0.25, 0.5, 1.0, -1.5], dtype)
        cases.append(Case("lerp", [start, end, weight], dtype,
                          expected=torch_reference(fn("lerp"),
                                                   [start, end, weight])))
        for op in ["addcmul", "addcdiv"]:
            for value in [None, 0.5, -3.0]:
                t1 = typed([[1.5], [-2.0], [np.inf], [0.0]], dtype)
                t2 = typed([3.0, -0.5, 0.0, np.nan, 0.1], dtype)
                cases.append(Case(op, [x, t1, t2], dtype,
                                  attrs=value_attr(value),
                                  expected=torch_reference(
                                      fn(op, value), [x, t1, t2])))
    # Integers: clamp with min > max; addcmul wraps, value truncates.
    for dtype in [np.int8, np.int32, np.int64]:
        info = np.iinfo(dtype)
        x = typed([[[info.min]], [[-7]], [[100]]], dtype)
        lo = typed([[-5], [0], [10]], dtype)
        hi = typed([50, 5, -20], dtype)
        cases.append(Case("clamp", [x, lo, hi], dtype,
                          expected=torch_reference(fn("clamp"), [x, lo, hi])))
        for value in [None, 2.7, -3.0]:
            t1 = typed([[3], [-100], [info.max]], dtype)
            t2 = typed([2, -1, 100], dtype)
            cases.append(Case("addcmul", [x, t1, t2], dtype,
                              attrs=value_attr(value),
                              expected=torch_reference(fn("addcmul", value),
                                                       [x, t1, t2])))
    # Unsigned: clamp orders as unsigned (above 2^31 and 2^63 too), addcmul
    # wraps; PyTorch has uint8, NumPy the wider ones.
    x = typed([[[250]], [[3]], [[128]]], np.uint8)
    lo = typed([[5], [0], [200]], np.uint8)
    hi = typed([255, 100, 2], np.uint8)
    cases.append(Case("clamp", [x, lo, hi], np.uint8,
                      expected=torch_reference(fn("clamp"), [x, lo, hi])))
    for value in [None, 3.0, 2.9]:
        cases.append(Case("addcmul", [x, lo, hi], np.uint8,
                          attrs=value_attr(value),
                          expected=torch_reference(fn("addcmul", value),
                                                   [x, lo, hi])))
    for dtype in [np.uint16, np.uint32, np.uint64]:
        top = np.iinfo(dtype).max
        x = np.array([[[top]], [[3]], [[top // 2 + 1]]], dtype)
        lo = np.array([[5], [top // 2], [top - 1]], dtype)
        hi = np.array([top, top // 2 + 7, 2], dtype)
        cases.append(Case("clamp", [x, lo, hi], dtype,
                          expected=np.minimum(np.maximum(x, lo), hi)))
        wide = [[[int(a) + 3 * int(b) * int(c) for c in hi] for b in lo[:, 0]]
                for a in x[:, 0, 0]]
        cases.append(Case("addcmul", [x, lo, hi], dtype,
                          attrs=value_attr(3.0),
                          expected=np.array(wide, object).__mod__(
                              top + 1).astype(dtype)))
    # Mixed types and zero-dim operands (PyTorch's promotion over three).
    for op, args, value in [
            ("clamp", [typed([[True], [False]], np.bool_),
                       typed([False, True, True], np.bool_),
                       typed([3, 0, 1], np.int8)], None),
            ("clamp", [typed([-3, 4, 9], np.int32), typed(-1.5, np.float32),
                       typed([[2.5], [8.0]], np.float64)], None),
            ("addcmul", [typed([1, 2, 3], np.int32), typed(0.5, np.float32),
                         typed([[2], [4]], np.int8)], 0.5),
            ("addcmul", [typed([[1.0], [2.0]], bfloat16),
                         typed([3, 4], np.int64), typed(2.0, np.float32)],
             None),
            ("addcdiv", [typed([1, 2], np.int32), typed([[3], [4]], np.int32),
                         typed([2.0, 0.0], np.float64)], 0.5),
            ("addcdiv", [typed([1.0, 2.0], np.float16),
                         typed([[True], [False]], np.bool_),
                         typed([4.0, 8.0], np.float16)], None)]:
        cases.append(Case(op, args, dtype_of(args[0]), attrs=value_attr(value),
                          expected=torch_reference(fn(op, value), args)))
    # In place: the other operands broadcast to the first one's shape.
    for op, args, value in [
            ("clamp", [typed([[-9, 0, 9], [1, 2, 300]], np.int64),
                       typed([[0], [2]], np.int8),
                       typed([5, 2, 299], np.int16)], None),
            ("lerp", [typed([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32),
                      typed([10.0, -10.0, 0.0], np.float32),
                      typed([[0.25], [0.75]], np.float32)], None),
            ("addcmul", [typed([[1.0, 2.0], [3.0, 4.0]], np.float32),
                         typed([5, 7], np.int64), typed([[2], [3]], np.int8)],
             0.25),
            ("addcmul", [typed([[100, -100], [0, 1]], np.int8),
                         typed([3, 5], np.int8), typed(7, np.int8)], 3.0),
            ("addcdiv", [typed([[1.0, 2.0], [3.0, 4.0]], np.float64),
                         typed([1.0, 3.0], np.float32),
                         typed([[0.5], [-0.0]], np.float32)], -1.0)]:
        expected = torch_reference(in_place_fn(op, value),
                                   [args[0].copy()] + args[1:],
                                   in_place=True)
        cases.append(Case(op, args, dtype_of(args[0]), in_place=True,
                          attrs=value_attr(value), expected=expected))
    # Dynamic sizes that are 1 at run time in each operand.
    for op, dtype in [("addcmul", np.float32), ("clamp", np.int32),
                      ("lerp", np.float64)]:
        a = typed([[0.5], [-1.5]], dtype)
        b = typed([[-1.0, 2.0, 0.25]], dtype)
        c = typed([[1.0, 0.75, -0.5], [0.0, 3.0, 1.0]], dtype)
        cases.append(Case(op, [a, b, c], dtype, dynamic=True,
                          expected=torch_reference(fn(op), [a, b, c])))
    cases.append(Case("clamp", [typed([[1.0, 9.0], [-4.0, 2.0]], np.float32),
                                typed([[0.0]], np.float32),
                                typed([3.0, 5.0], np.float32)], np.float32,
                      in_place=True, dynamic=True,
                      expected=np.array([[1.0, 5.0], [0.0, 2.0]],
                                        np.float32)))
    # Zero-size and rank-0.
    for shapes in [([0, 1], [1], [3]), ([], [], [])]:
        args = [typed(np.full(s, 1.5), np.float32) for s in shapes]
        cases.append(Case("addcmul", args, np.float32,
                          expected=torch_reference(fn("addcmul"), args)))
    return cases


def cast_cases():
    """bcast.cast between every pair of dtypes, at the edges that are
    defined (no NaN or out-of-range float to integer), against PyTorch's
    `.to(dtype)`."""
    import torch
    dtypes = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.float16,
              np.float32, np.float64]
    values = {
        np.bool_: np.array([True, False, True, False], np.bool_),
        np.int8: np.array([-128, -1, 0, 127], np.int8),
        np.int16: np.array([-300, 255, 256, 32767], np.int16),
        np.int32: np.array([-2**31, 2**24 + 1, -129, 70000], np.int32),
        np.int64: np.array([-2**63, 2**53 + 1, -5, 2**40 + 3], np.int64),
        np.float16: np.array([-2.5, 0.0, 65504.0, 0.1], np.float16),
        np.float32: np.array([-2.7, -0.0, 100.5, 16777217.0], np.float32),
        np.float64: np.array([-2.7, 1e-300, 1e300, 0.1], np.float64),
    }
    cases = []
    for src, dst in itertools.product(dtypes, repeat=2):
        x = values[src]
        if np.issubdtype(src, np.floating) and np.issubdtype(dst, np.integer):
            info = np.iinfo(dst)
            x = np.array([-2.7, -0.5, 0.75, 100.9], src)
            x = np.clip(x, info.min, info.max).astype(src)
        expected = torch.from_numpy(x).to(
            torch.from_numpy(np.zeros(1, dst)).dtype).numpy()
        case = Case("cast", [x.reshape(2, 2)], src,
                    expected=expected.reshape(2, 2))
        cases.append(case)
    return cases


def mixed_cases():
    """Operands of different element types (PyTorch's promotion), dimensioned
    and zero-dim, with PyTorch computing the expected values."""
    import torch
    dtypes = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.float16,
              np.float32, np.float64]
    shapes = [([2, 3], [3]), ([3], []), ([], [2, 1]), ([2, 3], [2, 1])]
    ops = {"add": torch.add, "mul": torch.mul, "sub": torch.sub,
           "maximum": torch.maximum, "lt": torch.lt, "ne": torch.ne,
           "div": torch.div}
    cases = []
    for i, (da, db) in enumerate(itertools.product(dtypes, repeat=2)):
        if da == db:
            continue
        for op, fn in ops.items():
            if op == "sub" and np.bool_ in (da, db):
                continue
            sa, sb = shapes[(i + len(op)) % len(shapes)]
            a = random_array(sa, da, "div" if op == "div" else None, 0)
            b = random_array(sb, db, "div" if op == "div" else None, 1)
            if op == "div" and db == np.bool_:
                b = np.ones(sb, np.bool_)
            expected = fn(torch.from_numpy(np.asarray(a)),
                          torch.from_numpy(np.asarray(b))).numpy()
            cases.append(Case(op, [np.asarray(a), np.asarray(b)], da,
                              expected=expected))
    # where with branches of different types.
    for dx, dy in [(np.int32, np.float64), (np.bool_, np.int8),
                   (np.float16, np.float32)]:
        c = RNG.random([2, 3]) < 0.5
        x, y = random_array([3], dx), random_array([2, 1], dy)
        expected = torch.where(torch.from_numpy(c), torch.from_numpy(x),
                               torch.from_numpy(y)).numpy()
        cases.append(Case("where", [c, x, y], dx, expected=expected))
    # In place: computed in the promoted type, stored in the operand's.
    for da, db in [(np.float32, np.float64), (np.int32, np.int8),
                   (np.float16, np.float32), (np.int64, np.bool_),
                   (np.float32, np.int64)]:
        a, b = random_array([2, 3], da), random_array([3], db)
        t = torch.from_numpy(a.copy())
        t.add_(torch.from_numpy(b))
        cases.append(Case("add", [a, b], da, in_place=True,
                          expected=t.numpy()))
    return cases


#===------------------------------------------------------------------------===#
# Running and comparing
#===------------------------------------------------------------------------===#


#===------------------------------------------------------------------------===#
# Reductions, softmax and sum_to_size (issue 14), against PyTorch
#===------------------------------------------------------------------------===#

REDUCTION_DTYPES = [np.float32, np.float64, np.float16, bfloat16, np.int32,
                    np.int64, np.int8, np.uint8, np.bool_]


def reduction_input(shape, dtype, special):
    """Random values; floats get a NaN or an infinity when `special`."""
    values = random_array(shape, np.float32 if dtype is bfloat16 else dtype)
    if dtype is bfloat16:
        values = as_bf16(values)
    if special and np.issubdtype(np.float32 if dtype is bfloat16 else dtype,
                                 np.floating) and values.size:
        flat = values.reshape(-1)
        flat[RNG.integers(flat.size)] = RNG.choice([np.nan, np.inf, -np.inf])
    return values


def dims_attr(dims, keepdim, name="dims"):
    parts = []
    if dims is not None:
        if name == "dim":
            parts.append(f"dim = {dims} : i64")
        else:
            parts.append(f"dims = array<i64: {', '.join(map(str, dims))}>")
    if keepdim:
        parts.append("keepdim = true")
    return f" {{{', '.join(parts)}}}" if parts else ""


def reduction_cases():
    import torch
    cases = []
    shapes = [((4, 3), [None, [1], [-2], [0, 1]]),
              ((2, 3, 5), [None, [0, 2], [-1], [1]]),
              ((), [None, [0], [-1]]),
              ((0, 3), [[1], [0]]),
              ((6,), [None, [0]])]
    floats = [np.float32, np.float64, np.float16, bfloat16]

    def torch_dims(dims, rank):
        return tuple(range(rank)) if dims is None else tuple(dims)

    for dtype in REDUCTION_DTYPES:
        is_float = dtype in floats
        for shape, dim_lists in shapes:
            for dims in dim_lists:
                for keepdim in (False, True):
                    for special in ((False, True) if is_float else (False,)):
                        x = reduction_input(shape, dtype, special)
                        rank = len(shape)
                        td = torch_dims(dims, rank)
                        attrs = dims_attr(dims, keepdim)
                        empty = x.size == 0 or any(
                            shape[d] == 0 for d in td) if rank else False
                        kinds = {
                            "sum": lambda t: torch.sum(t, td, keepdim),
                            "prod": lambda t: (torch.prod(t, td[0], keepdim)
                                               if len(td) == 1 else None),
                            "amax": lambda t: torch.amax(t, td, keepdim),
                            "amin": lambda t: torch.amin(t, td, keepdim),
                            "logsumexp":
                                lambda t: torch.logsumexp(t, td, keepdim),
                        }
                        if is_float:
                            kinds["mean"] = lambda t: torch.mean(t, td, keepdim)
                            kinds["var"] = lambda t: torch.var(t, td,
                                                               keepdim=keepdim)
                            kinds["std"] = lambda t: torch.std(t, td,
                                                               keepdim=keepdim)
                        for op, fn in kinds.items():
                            if op in ("amax", "amin") and empty:
                                continue
                            if op == "prod" and (len(td) != 1 or dims is None):
                                continue
                            if rank == 0 and op == "logsumexp" and dims is None:
                                continue
                            if rank == 0 and op in ("var", "std") and \
                                    dims is not None and dtype in (np.float16,
                                                                   bfloat16):
                                # PyTorch's meta decomposition fails here.
                                continue
                            expected = torch_reference(fn, [x])
                            cases.append(Case(op, [x], dtype, expected=expected,
                                              attrs=attrs,
                                              dynamic=special or
                                              (keepdim and rank == 3)))
                        # any and all: i1 for every type (NumPy's values),
                        # ui8 0 or 1 for ui8 (PyTorch 1.13's uint8).
                        for op, fn in (("any", np.any), ("all", np.all)):
                            values = np.asarray(x, dtype=np.float32) \
                                if dtype is bfloat16 else x
                            expected = np.asarray(
                                fn(values, axis=td if rank else None,
                                   keepdims=keepdim))
                            truth = np.uint8 if dtype is np.uint8 \
                                else np.bool_
                            cases.append(Case(op, [x], dtype,
                                              expected=expected.astype(truth),
                                              attrs=attrs))
                # var with a correction, and argmax/argmin along one dim.
                if is_float and dims is not None and rank:
                    for correction in (0, 2, 5):
                        x = reduction_input(shape, dtype, False)
                        expected = torch_reference(
                            lambda t: torch.var(t, torch_dims(dims, rank),
                                                correction=correction), [x])
                        cases.append(Case(
                            "var", [x], dtype, expected=expected,
                            attrs=f" {{correction = {correction} : i64, "
                                  f"dims = array<i64: "
                                  f"{', '.join(map(str, dims))}>}}"))
        if dtype is np.bool_:
            continue
        arg_shapes = [((4, 3), [None, 0, 1, -1]), ((2, 3, 5), [None, 1]),
                      ((), [None, 0]), ((7,), [None, 0]), ((3, 0), [0])]
        for shape, dims in arg_shapes:
            for dim in dims:
                for keepdim in (False, True):
                    for special in ((False, True) if is_float else (False,)):
                        x = reduction_input(shape, dtype, special)
                        if is_float and x.size and not special:
                            # Ties: the first index wins.
                            x.reshape(-1)[-1] = x.reshape(-1)[0]
                        for op in ("argmax", "argmin"):
                            fn = getattr(torch, op)
                            expected = torch_reference(
                                (lambda t: fn(t, keepdim=keepdim))
                                if dim is None else
                                (lambda t: fn(t, dim, keepdim)), [x])
                            cases.append(Case(
                                op, [x], dtype, expected=expected,
                                attrs=dims_attr(dim, keepdim, "dim"),
                                dynamic=special))
    # softmax and log_softmax, floats only.
    for dtype in floats:
        for shape, dims in [((4, 3), [0, 1, -1]), ((2, 3, 5), [0, 1, 2]),
                            ((), [0]), ((0, 3), [0, 1]), ((5,), [0])]:
            for dim in dims:
                for special in (False, True):
                    x = reduction_input(shape, dtype, special)
                    for op in ("softmax", "log_softmax"):
                        fn = getattr(torch, op)
                        expected = torch_reference(lambda t: fn(t, dim), [x])
                        cases.append(Case(op, [x], dtype, expected=expected,
                                          attrs=f" {{dim = {dim} : i64}}",
                                          dynamic=special))
                        if op == "log_softmax":
                            # x - m - log(s) with s >= 1: the GPU's tree sum
                            # (another order than PyTorch's CPU loop) moves
                            # s by an ulp and the result by eps, absolutely.
                            # The CPU's results stay compared as before.
                            cases[-1].gpu_atol = 4 * float(np.finfo(
                                np.float32 if dtype is bfloat16 else
                                dtype).eps)
    # sum_to_size: PyTorch's values and dtype (a sum, int64 for bools and
    # integers, where it sums anything; the input's type where not).
    for dtype in REDUCTION_DTYPES:
        for shape, target in [((4, 3), (1, 3)), ((4, 3), (3,)),
                              ((4, 3), (4, 1)), ((2, 3, 4), (3, 1)),
                              ((2, 3, 4), ()), ((2, 3, 4), (1, 1, 1)),
                              ((4, 3), (4, 3)), ((0, 3), (1, 3)),
                              ((5, 1), (1, 1))]:
            for dynamic in (False, True):
                x = reduction_input(shape, dtype, False)
                expected = torch_reference(
                    lambda t: t.sum_to_size(target), [x])
                cases.append(Case("sum_to_size", [x], dtype,
                                  expected=expected, dynamic=dynamic,
                                  static_result=True))
    # A third of the plain cases (static, non-empty, rank > 0) keeps the
    # run time of the test in bounds; every edge case stays.
    cases = [case for i, case in enumerate(cases)
             if i % 3 == 0 or case.dynamic or
             any(a.size == 0 or a.ndim == 0 for a in case.args)]
    # dtype= (issue 28): the input converted first, the result of dtype,
    # against PyTorch's op(x, dtype=...) (the targets its CPU computes).
    tdtype = {np.float16: torch.float16, np.float32: torch.float32,
              np.float64: torch.float64, np.int8: torch.int8,
              np.int32: torch.int32, np.int64: torch.int64,
              np.uint8: torch.uint8, np.bool_: torch.bool}
    for dtype in (np.int8, np.uint8, np.bool_, np.float16, np.float32):
        x = reduction_input((3, 5), dtype, False)
        for op, dim, targets in (
                ("sum", None, (np.float16, np.float64, np.int8, np.bool_)),
                ("sum", 1, (np.float32, np.int32, np.uint8)),
                ("prod", 0, (np.float64, np.int8, np.int64, np.bool_)),
                ("mean", 1, (np.float16, np.float32, np.float64)),
                ("softmax", 1, (np.float32, np.float64)),
                ("log_softmax", 0, (np.float32, np.float64))):
            for target in targets:
                def fn(t, op=op, dim=dim, target=target):
                    args = () if dim is None else (dim,)
                    return getattr(torch, op)(t, *args,
                                              dtype=tdtype[target])
                attrs = [f"dtype = {MLIR_TYPE[target]}"]
                if dim is not None:
                    attrs.insert(0, f"dim = {dim} : i64"
                                 if op.endswith("softmax")
                                 else f"dims = array<i64: {dim}>")
                cases.append(Case(op, [x], dtype,
                                  expected=torch_reference(fn, [x]),
                                  attrs=f" {{{', '.join(attrs)}}}"))
    # Every third static case again on constants, folded at compile time
    # (f16, bf16 and f64 float sums are not folded bit for bit; integer
    # logsumexp is not folded).
    folded = []
    for case in cases[::3]:
        if case.dynamic or case.dtype not in (np.float32, np.int32, np.int64,
                                              np.bool_, np.uint8):
            continue
        if case.op == "logsumexp" and case.dtype is not np.float32:
            continue
        # A dtype= of f16 or f64: float statistics of those types are not
        # folded either.
        if case.result_dtype in (np.float16, np.float64):
            continue
        folded.append(Case(case.op, case.args, case.dtype,
                           expected=case.expected, attrs=case.attrs,
                           fold=True))
    return cases + folded


def reduction_row_cases():
    """Reductions over rows longer than a GPU block (the threads stride and
    the warps' partials meet), over long columns, and over everything,
    static and dynamic, against PyTorch: the shapes that exercise the
    schedules of bcast-map-reductions-to-gpu (and the CPU's vector loops)."""
    import torch
    cases = []

    def add(op, x, dtype, fn, attrs, dynamic=False, **kwargs):
        cases.append(Case(op, [x], dtype, expected=torch_reference(fn, [x]),
                          attrs=attrs, dynamic=dynamic, **kwargs))

    for dynamic in (False, True):
        x = reduction_input((33, 1000), np.float32, False)
        add("sum", x, np.float32, lambda t: t.sum(-1, keepdim=True),
            dims_attr([-1], True), dynamic)
        add("amax", x, np.float32, lambda t: t.amax(-1), dims_attr([-1], False),
            dynamic)
        add("var", x, np.float32, lambda t: t.var(-1, keepdim=True),
            dims_attr([-1], True), dynamic)
        add("logsumexp", x, np.float32, lambda t: t.logsumexp(1),
            dims_attr([1], False), dynamic)
        for op in ("softmax", "log_softmax"):
            for dim in (-1, 0):
                add(op, x, np.float32,
                    lambda t, op=op, dim=dim: getattr(torch, op)(t, dim),
                    f" {{dim = {dim} : i64}}", dynamic)
        y = reduction_input((1000, 70), np.float32, dynamic)
        add("sum", y, np.float32, lambda t: t.sum(0), dims_attr([0], False),
            dynamic)
        add("amin", y, np.float32, lambda t: t.amin(0, keepdim=True),
            dims_attr([0], True), dynamic)
        add("mean", y, np.float32, lambda t: t.mean(), "", dynamic)
        z = reduction_input((64, 8, 600), np.float32, False)
        cases.append(Case("sum_to_size", [z], np.float32,
                          expected=torch_reference(
                              lambda t: t.sum_to_size((8, 1)), [z]),
                          dynamic=dynamic, static_result=True))
    for dtype in (np.float64, np.float16, np.int64, np.int32):
        x = reduction_input((17, 513), dtype, False)
        add("sum", x, dtype, lambda t: t.sum(-1), dims_attr([-1], False))
        add("amax", x, dtype, lambda t: t.amax(0), dims_attr([0], False))
    b = reduction_input((700, 40), np.bool_, False)
    for op, fn in (("any", np.any), ("all", np.all)):
        for dims in ([0], [1], None):
            axis = tuple(dims) if dims else None
            cases.append(Case(op, [b], np.bool_,
                              expected=np.asarray(fn(b, axis=axis)),
                              attrs=dims_attr(dims, False)))
    w = reduction_input((3000,), np.float32, False)
    add("sum", w, np.float32, lambda t: t.sum(), "")
    return cases


def parse_outputs(text):
    blocks = text.split("Unranked Memref")[1:]
    results = []
    for block in blocks:
        sizes = re.search(r"sizes = \[([0-9, ]*)\]", block).group(1)
        if "0" in [t.strip() for t in sizes.split(",")]:
            # printMemref prints one stray element for an empty memref.
            results.append([])
            continue
        data = block.split("data =", 1)[1]
        tokens = re.findall(r"-?nan|-?inf|[-+]?[0-9.]+(?:e[-+]?[0-9]+)?", data)
        # Integers stay exact (64-bit values do not fit in a double).
        results.append([int(t) if re.fullmatch(r"[-+]?[0-9]+", t) else
                        float(t.replace("-nan", "nan")) for t in tokens])
    return results


def matches(expected, got, dtype, atol=1e-30):
    expected = np.asarray(expected)
    if not np.issubdtype(dtype, np.floating):
        # Exact, as Python integers; ui64 prints as i64 (modulo 2^64).
        want = [int(v) for v in expected.reshape(-1).tolist()]
        if dtype == np.uint64:
            got = [int(v) % 2**64 for v in got]
        return want == [int(v) for v in got]
    expected = expected.astype(np.float64).reshape(-1)
    got = np.asarray(got, dtype=np.float64)
    if expected.shape != got.shape:
        return False
    # The runner prints 6 significant digits.
    return np.allclose(got, expected, rtol=2e-5, atol=atol, equal_nan=True)


def compare(cases, output, gpu=False):
    """Prints PASS or the first mismatches; returns the exit status."""
    outputs = parse_outputs(output)
    if len(outputs) != len(cases):
        print(f"expected {len(cases)} printed results, got {len(outputs)}")
        return 1
    return compare_values(cases, outputs, gpu=gpu)


def compare_values(cases, outputs, what="cases", gpu=False):
    """compare() for results already read: a list of values per case; `gpu`
    results may also differ by a case's gpu_atol."""
    failures = 0
    for i, (case, got) in enumerate(zip(cases, outputs)):
        want = case.expected if case.expected.size else []
        atol = getattr(case, "atol", 1e-30)
        if gpu:
            atol = max(atol, getattr(case, "gpu_atol", 0.0))
        if not matches(want, got, case.result_dtype, atol):
            failures += 1
            if failures <= 5:
                print(f"MISMATCH case{i}: {case.op} {case.mode or ''} "
                      f"{'(folded) ' if case.fold else ''}"
                      f"{[a.shape for a in case.args]} {case.dtype.__name__}"
                      f"\n  inputs: {[a.tolist() for a in case.args]}"
                      f"\n  expected: {np.asarray(want).reshape(-1).tolist()}"
                      f"\n  got:      {got}")
    if failures:
        print(f"FAIL: {failures} of {len(cases)} cases")
        return 1
    # The GPU path has no folding step: there such cases run as kernels.
    folded = 0 if gpu else sum(case.fold for case in cases)
    print(f"PASS: {len(cases)} {what}" +
          (f" ({folded} folded at compile time)" if folded else ""))
    return 0


def build_gpu_executable(text, policy, options, exe):
    """--bcast-to-nvvm, LLVM IR, then an executable with the test driver and
    libbcast_cuda_runtime.so (found next to bcast-opt's build)."""
    bcast_opt = shutil.which("bcast-opt")
    build = os.path.dirname(os.path.dirname(os.path.realpath(bcast_opt)))
    lowered = subprocess.run(
        [bcast_opt, f"--bcast-to-nvvm=broadcast-policy={policy} {options}"],
        input=text, capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr)
        return False
    ir = subprocess.run([shutil.which("mlir-translate"), "--mlir-to-llvmir"],
                        input=lowered.stdout, capture_output=True, text=True)
    if ir.returncode:
        print(ir.stderr)
        return False
    ll = exe + ".ll"
    with open(ll, "w") as f:
        f.write(ir.stdout)
    driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "..", "GPU", "Inputs", "gpu_test_main.c")
    cc = subprocess.run(
        ["clang-22", "-O2", "-Wno-override-module", ll, driver, "-o", exe,
         f"-L{build}/lib", "-lbcast_cuda_runtime",
         "-Wl,-rpath,$ORIGIN:" + f"{build}/lib"],
        capture_output=True, text=True)
    if cc.returncode:
        print(cc.stderr)
        return False
    return True


def fold_constants(bcast_opt, text, cases):
    """Canonicalizes the module, which folds the folded cases' ops on
    constants; returns it, or None (with a message) if one of them was not
    folded."""
    folded = subprocess.run([bcast_opt, "--canonicalize"], input=text,
                            capture_output=True, text=True)
    if folded.returncode:
        print(folded.stderr)
        return None
    functions = re.split(r"(?=func\.func )", folded.stdout)
    for i, case in enumerate(cases):
        if not case.fold:
            continue
        body = next(f for f in functions if f.startswith(
            f"func.func @case{i}()"))
        if "bcast." in body:
            print(f"case{i} was not folded at compile time:\n{body}")
            return None
    return folded.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", required=True)
    parser.add_argument("--lib-dir", default="/usr/lib/llvm-22/lib")
    parser.add_argument("--policy", default="numpy")
    parser.add_argument("--options", default="",
                        help="more pipeline options")
    parser.add_argument("--target", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--emit", action="store_true",
                        help="print the module and stop")
    parser.add_argument("--build-exe",
                        help="gpu: build this executable and stop")
    parser.add_argument("--compare",
                        help="compare the output recorded in this file")
    args = parser.parse_args()
    cases = [case for name in args.family.split(",")
             for case in family(name)]
    gpu = args.target == "gpu"
    if gpu:
        # Printing widens narrow types inside the kernel; in-place stays
        # on types that print as they are.
        cases = [c for c in cases if not (c.in_place and c.result_dtype not in
                                          (np.float32, np.float64, np.int32,
                                           np.int64))]
        # The kernels widen results with arith ops, which take no unsigned
        # types: unsigned results are checked on the CPU only.
        cases = [c for c in cases
                 if not np.issubdtype(c.result_dtype, np.unsignedinteger)]
        # argmax and argmin (two accumulators) stay on the CPU: the GPU
        # lowering rejects them with a diagnostic.
        cases = [c for c in cases if c.op not in ("argmax", "argmin")]
    text = module(cases, gpu)
    if args.emit:
        print(text)
        return 0
    if args.compare:
        with open(args.compare) as f:
            return compare(cases, f.read(), gpu)
    if gpu:
        exe = args.build_exe or os.path.join(
            tempfile.mkdtemp(prefix="bcast-gpu-"), "test")
        if not build_gpu_executable(text, args.policy, args.options, exe):
            return 1
        if args.build_exe:
            return 0
        run = subprocess.run([exe], capture_output=True, text=True)
        if run.returncode:
            print(run.stderr)
            return 1
        return compare(cases, run.stdout, gpu=True)
    bcast_opt = shutil.which("bcast-opt")
    runner = shutil.which("mlir-runner")
    if any(case.fold for case in cases):
        text = fold_constants(bcast_opt, text, cases)
        if text is None:
            return 1
    lowered = subprocess.run(
        [bcast_opt, f"--bcast-to-llvm=broadcast-policy={args.policy} "
         f"{args.options}"],
        input=text, capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr)
        return 1
    libs = ",".join(f"{args.lib_dir}/lib{n}.so"
                    for n in ("mlir_c_runner_utils", "mlir_runner_utils",
                              "omp"))
    if "vector-math=libmvec" in args.options:
        import ctypes.util
        libs += ",/lib/x86_64-linux-gnu/" + ctypes.util.find_library("mvec")
    run = subprocess.run([runner, "-e", "main", "-entry-point-result=void",
                          "-shared-libs=" + libs],
                         input=lowered.stdout, capture_output=True, text=True)
    if run.returncode:
        print(run.stderr)
        return 1
    return compare(cases, run.stdout)


if __name__ == "__main__":
    sys.exit(main())
