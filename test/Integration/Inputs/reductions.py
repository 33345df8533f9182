#!/usr/bin/env python3
"""Runs reduction linalg.generic chains (the form convert-bcast-to-linalg
gives reductions: a linalg.fill of the identity, then a generic with
reduction iterators whose body combines the accumulator with a value of
the inputs) through bcast-opt --bcast-to-llvm and mlir-runner, and compares
every result with NumPy, computed here at test time.

The cases: row and outer-dim sums, max (NaN propagation), min, integer sums
accumulated in i64, f16 sums accumulated in f32, argmax (two outputs),
written-out softmax (last dim and dim 0), LayerNorm and RMSNorm, size 0,
rank 0, dynamic sizes, the accuracy of a sum of 16M f32 values against
a float64 sum, and full reductions to rank 0 (sums, products, max/min with
a NaN, integer sums and products) above and below the grain size, which
bcast-vectorize-reductions splits among the tasks above it. f32 results are printed as their bits (i32), so they are
compared exactly or with a stated tolerance, never through 6 printed digits.

    reductions.py --lib-dir /usr/lib/llvm-22/lib [--options "parallel=false"]
"""

import argparse
import re
import shutil
import subprocess
import sys

import numpy as np

RNG = np.random.default_rng(1414)

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
ROW2 = "affine_map<(d0, d1) -> (d0, 0)>"
COL2 = "affine_map<(d0, d1) -> (0, d1)>"
VEC2 = "affine_map<(d0, d1) -> (d1)>"
PAR2 = '["parallel", "parallel"]'
RED_INNER = '["parallel", "reduction"]'
RED_OUTER = '["reduction", "parallel"]'

MLIR = {np.float32: "f32", np.float16: "f16", np.int32: "i32",
        np.int64: "i64"}


def ttype(shape, dtype, dynamic=False):
    dims = "".join(("?" if dynamic else str(s)) + "x" for s in shape)
    return f"tensor<{dims}{MLIR[dtype]}>"


def literal(array):
    if array.size == 0 or array.ndim == 0:
        value = array.reshape(-1)[0] if array.size else 0
        return ("dense<" + repr(float(value) if np.issubdtype(
            array.dtype, np.floating) else int(value)) + ">")

    def fmt(v):
        if np.issubdtype(array.dtype, np.floating):
            f = float(v)
            if np.isnan(f) or np.isinf(f):
                bits = np.array([f], array.dtype).view(
                    np.uint32 if array.dtype == np.float32 else np.uint16)[0]
                return f"0x{int(bits):X}"
            return repr(f)
        return str(int(v))

    def nest(a):
        if a.ndim == 1:
            return "[" + ", ".join(fmt(v) for v in a) + "]"
        return "[" + ", ".join(nest(s) for s in a) + "]"
    return "dense<" + nest(array) + ">"


class Case:
    """A function @name taking `args` (NumPy arrays), whose body is `body`
    (MLIR text using %a0, %a1, ... and returning `result_types`), checked
    against `expected` (NumPy arrays) with `check(expected, got)`."""

    def __init__(self, name, args, body, results, expected, rtol=0.0,
                 dynamic=False, arg_types=None, scale=None):
        self.name, self.args, self.body = name, args, body
        self.results, self.expected, self.rtol = results, expected, rtol
        # The error bound is rtol * scale: |expected| by default, the sum
        # of the terms' magnitudes for sums (their rounding error grows with
        # it, whatever cancellation leaves of the sum).
        self.scale = scale
        self.dynamic = dynamic
        self.arg_types = arg_types or [ttype(a.shape, a.dtype.type, dynamic)
                                       for a in args]


def reduction(out, x, xtype, rtype, rshape, identity, body, maps, iters,
              more_ins=(), dims=()):
    """A linalg.fill of `identity` and a reduction generic into `out`."""
    ins = [x] + [v for v, _ in more_ins]
    in_types = [xtype] + [t for _, t in more_ins]
    return (f"  {out}_e = tensor.empty({', '.join(dims)}) : {rtype}\n"
            f"  {out}_i = linalg.fill ins({identity}) outs({out}_e : {rtype})"
            f" -> {rtype}\n"
            f"  {out} = linalg.generic {{indexing_maps = [{', '.join(maps)}],"
            f" iterator_types = {iters}}} ins({', '.join(ins)} : "
            f"{', '.join(in_types)}) outs({out}_i : {rtype}) {{\n{body}\n"
            f"  }} -> {rtype}\n")


def elementwise(out, ins, in_types, rtype, maps, iters, body, dims=()):
    return (f"  {out}_e = tensor.empty({', '.join(dims)}) : {rtype}\n"
            f"  {out} = linalg.generic {{indexing_maps = [{', '.join(maps)}],"
            f" iterator_types = {iters}}} ins({', '.join(ins)} : "
            f"{', '.join(in_types)}) outs({out}_e : {rtype}) {{\n{body}\n"
            f"  }} -> {rtype}\n")


def _sum(x, name, outer, in_type, acc_type):
    """A sum over the rows (or, `outer`, the columns) of `x`, read as
    `in_type` and accumulated in `acc_type` (widened in the body, as
    convert-bcast-to-linalg does)."""
    m, n = x.shape
    shape = [1, n] if outer else [m, 1]
    ins, acc = MLIR[in_type], MLIR[acc_type]
    xt, rt = ttype(x.shape, in_type), ttype(shape, acc_type)
    if ins == acc:
        widen, value = "", "%in"
    else:
        ext = "arith.extf" if acc.startswith("f") else "arith.extsi"
        widen, value = f"    %w = {ext} %in : {ins} to {acc}\n", "%w"
    add = "arith.addf" if acc.startswith("f") else "arith.addi"
    init = "%zero : f32" if acc == "f32" else "%izero : i64"
    body = reduction("%s", "%a0", xt, rt, shape, init,
                     f"  ^bb0(%in: {ins}, %acc: {acc}):\n{widen}"
                     f"    %c = {add} %acc, {value} : {acc}\n"
                     f"    linalg.yield %c : {acc}",
                     [ID2, COL2 if outer else ROW2],
                     RED_OUTER if outer else RED_INNER)
    wide = x.astype(np.int64 if acc == "i64" else np.float64)
    axis = 0 if outer else 1
    want = wide.sum(axis, keepdims=True)
    if acc == "i64":
        return Case(f"{name}_{m}x{n}", [x], body + "  return %s : " + rt,
                    [rt], [want])
    return Case(f"{name}_{m}x{n}", [x], body + "  return %s : " + rt,
                [rt], [want], 1e-6, scale=np.abs(wide).sum(axis))


def sum_rows(x):
    return _sum(x, "sum_rows", False, np.float32, np.float32)


def sum_cols(x):
    return _sum(x, "sum_cols", True, np.float32, np.float32)


def int_sum_rows(x):
    return _sum(x, "int_sum_rows", False, np.int32, np.int64)


def half_sum_rows(x):
    return _sum(x, "half_sum_rows", False, np.float16, np.float32)


def minmax_rows(x, op, outer=False):
    m, n = x.shape
    shape = [1, n] if outer else [m, 1]
    xt, rt = ttype(x.shape, np.float32), ttype(shape, np.float32)
    ident = "%ninf" if op == "maximumf" else "%pinf"
    body = reduction("%s", "%a0", xt, rt, shape, ident + " : f32",
                     "  ^bb0(%in: f32, %acc: f32):\n"
                     f"    %c = arith.{op} %acc, %in : f32\n"
                     "    linalg.yield %c : f32",
                     [ID2, COL2 if outer else ROW2],
                     RED_OUTER if outer else RED_INNER)
    ref = np.max if op == "maximumf" else np.min
    with np.errstate(invalid="ignore"):
        want = ref(x, axis=0 if outer else 1, keepdims=True)
    return Case(f"{op}_{'cols' if outer else 'rows'}_{m}x{n}", [x],
                body + "  return %s : " + rt, [rt], [want])


def argmax_rows(x):
    m, n = x.shape
    xt = ttype(x.shape, np.float32)
    vt, it = ttype([m, 1], np.float32), ttype([m, 1], np.int64)
    body = (f"  %ve = tensor.empty() : {vt}\n"
            f"  %vi = linalg.fill ins(%ninf : f32) outs(%ve : {vt}) -> {vt}\n"
            f"  %ie = tensor.empty() : {it}\n"
            f"  %ii = linalg.fill ins(%izero : i64) outs(%ie : {it}) -> {it}\n"
            f"  %v, %i = linalg.generic {{indexing_maps = [{ID2}, {ROW2}, "
            f"{ROW2}], iterator_types = {RED_INNER}}} ins(%a0 : {xt}) "
            f"outs(%vi, %ii : {vt}, {it}) {{\n"
            "  ^bb0(%in: f32, %best: f32, %at: i64):\n"
            "    %j = linalg.index 1 : index\n"
            "    %ji = arith.index_cast %j : index to i64\n"
            "    %gt = arith.cmpf ogt, %in, %best : f32\n"
            "    %nv = arith.select %gt, %in, %best : f32\n"
            "    %ni = arith.select %gt, %ji, %at : i64\n"
            "    linalg.yield %nv, %ni : f32, i64\n"
            f"  }} -> ({vt}, {it})\n"
            f"  return %i : {it}")
    return Case(f"argmax_rows_{m}x{n}", [x], body, [it],
                [np.argmax(x, axis=1).reshape(m, 1).astype(np.int64)])


def softmax(x, dim=1, dynamic=False):
    """Written out as a user writes it with separate ops: amax keepdim,
    x - m, exp, sum keepdim, divide."""
    m, n = x.shape
    xt = ttype(x.shape, np.float32, dynamic)
    shape = [m, 1] if dim == 1 else [1, n]
    st = ttype(shape, np.float32, dynamic and dim == 1)
    if dynamic and dim == 1:
        st = "tensor<?x1xf32>"
    red_map = ROW2 if dim == 1 else COL2
    iters = RED_INNER if dim == 1 else RED_OUTER
    dims = ["%d0"] if dynamic else []
    full_dims = ["%d0", "%d1"] if dynamic else []
    pre = ("  %d0 = tensor.dim %a0, %c0 : " + xt + "\n"
           "  %d1 = tensor.dim %a0, %c1 : " + xt + "\n") if dynamic else ""
    body = pre
    body += reduction("%m", "%a0", xt, st, shape, "%ninf : f32",
                      "  ^bb0(%in: f32, %acc: f32):\n"
                      "    %c = arith.maximumf %acc, %in : f32\n"
                      "    linalg.yield %c : f32", [ID2, red_map], iters,
                      dims=dims)
    body += elementwise("%d", ["%a0", "%m"], [xt, st], xt,
                        [ID2, red_map, ID2], PAR2,
                        "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                        "    %t = arith.subf %p, %q : f32\n"
                        "    linalg.yield %t : f32", dims=full_dims)
    body += elementwise("%x", ["%d"], [xt], xt, [ID2, ID2], PAR2,
                        "  ^bb0(%p: f32, %o: f32):\n"
                        "    %t = math.exp %p : f32\n"
                        "    linalg.yield %t : f32", dims=full_dims)
    body += reduction("%s", "%x", xt, st, shape, "%zero : f32",
                      "  ^bb0(%in: f32, %acc: f32):\n"
                      "    %c = arith.addf %acc, %in : f32\n"
                      "    linalg.yield %c : f32", [ID2, red_map], iters,
                      dims=dims)
    body += elementwise("%y", ["%x", "%s"], [xt, st], xt,
                        [ID2, red_map, ID2], PAR2,
                        "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                        "    %t = arith.divf %p, %q : f32\n"
                        "    linalg.yield %t : f32", dims=full_dims)
    body += "  return %y : " + xt
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=dim, keepdims=True, initial=-np.inf))
    want = e / e.sum(axis=dim, keepdims=True)
    return Case(f"softmax_dim{dim}_{m}x{n}{'_dyn' if dynamic else ''}", [x],
                body, [xt], [want], 1e-5, dynamic)


def softmax_middle(x):
    """Softmax over dim 1 of [B, C, W]: loop 0 parallel (the row blocks of
    bcast-fuse-rows), the reduction over an outer loop with the innermost
    kept (vectorized across it) inside each block."""
    b, c, w = x.shape
    xt, st = ttype(x.shape, np.float32), ttype([b, 1, w], np.float32)
    id3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
    mid = "affine_map<(d0, d1, d2) -> (d0, 0, d2)>"
    red = '["parallel", "reduction", "parallel"]'
    par = '["parallel", "parallel", "parallel"]'
    body = reduction("%m", "%a0", xt, st, [b, 1, w], "%ninf : f32",
                     "  ^bb0(%in: f32, %acc: f32):\n"
                     "    %c = arith.maximumf %acc, %in : f32\n"
                     "    linalg.yield %c : f32", [id3, mid], red)
    body += elementwise("%x", ["%a0", "%m"], [xt, st], xt, [id3, mid, id3],
                        par, "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                        "    %d = arith.subf %p, %q : f32\n"
                        "    %t = math.exp %d : f32\n"
                        "    linalg.yield %t : f32")
    body += reduction("%s", "%x", xt, st, [b, 1, w], "%zero : f32",
                      "  ^bb0(%in: f32, %acc: f32):\n"
                      "    %c = arith.addf %acc, %in : f32\n"
                      "    linalg.yield %c : f32", [id3, mid], red)
    body += elementwise("%y", ["%x", "%s"], [xt, st], xt, [id3, mid, id3],
                        par, "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                        "    %t = arith.divf %p, %q : f32\n"
                        "    linalg.yield %t : f32")
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    return Case(f"softmax_middle_{b}x{c}x{w}", [x], body + "  return %y : " +
                xt, [xt], [want], 1e-5)


def layernorm(x, w, b, rms=False):
    """LayerNorm written out: mean = sum / N, centred square, mean, + eps,
    rsqrt, * w + b. RMSNorm: mean of squares, rsqrt, * w."""
    m, n = x.shape
    xt, st = ttype(x.shape, np.float32), ttype([m, 1], np.float32)
    wt = ttype([n], np.float32)
    nf = f"{float(n)!r}"
    body = ""
    if not rms:
        body += reduction("%s1", "%a0", xt, st, [m, 1], "%zero : f32",
                          "  ^bb0(%in: f32, %acc: f32):\n"
                          "    %c = arith.addf %acc, %in : f32\n"
                          "    linalg.yield %c : f32", [ID2, ROW2], RED_INNER)
        body += elementwise("%mean", ["%s1"], [st], st, [ID2, ID2], PAR2,
                            "  ^bb0(%p: f32, %o: f32):\n"
                            f"    %nn = arith.constant {nf} : f32\n"
                            "    %t = arith.divf %p, %nn : f32\n"
                            "    linalg.yield %t : f32")
        body += elementwise("%xc", ["%a0", "%mean"], [xt, st], xt,
                            [ID2, ROW2, ID2], PAR2,
                            "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                            "    %t = arith.subf %p, %q : f32\n"
                            "    linalg.yield %t : f32")
        centred = "%xc"
    else:
        centred = "%a0"
    body += elementwise("%sq", [centred], [xt], xt, [ID2, ID2], PAR2,
                        "  ^bb0(%p: f32, %o: f32):\n"
                        "    %t = arith.mulf %p, %p : f32\n"
                        "    linalg.yield %t : f32")
    body += reduction("%s2", "%sq", xt, st, [m, 1], "%zero : f32",
                      "  ^bb0(%in: f32, %acc: f32):\n"
                      "    %c = arith.addf %acc, %in : f32\n"
                      "    linalg.yield %c : f32", [ID2, ROW2], RED_INNER)
    body += elementwise("%rstd", ["%s2"], [st], st, [ID2, ID2], PAR2,
                        "  ^bb0(%p: f32, %o: f32):\n"
                        f"    %nn = arith.constant {nf} : f32\n"
                        "    %eps = arith.constant 1.0e-05 : f32\n"
                        "    %v = arith.divf %p, %nn : f32\n"
                        "    %ve = arith.addf %v, %eps : f32\n"
                        "    %t = math.rsqrt %ve : f32\n"
                        "    linalg.yield %t : f32")
    body += elementwise("%xn", [centred, "%rstd"], [xt, st], xt,
                        [ID2, ROW2, ID2], PAR2,
                        "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                        "    %t = arith.mulf %p, %q : f32\n"
                        "    linalg.yield %t : f32")
    if rms:
        body += elementwise("%y", ["%xn", "%a1"], [xt, wt], xt,
                            [ID2, VEC2, ID2], PAR2,
                            "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
                            "    %t = arith.mulf %p, %q : f32\n"
                            "    linalg.yield %t : f32")
    else:
        body += elementwise("%y", ["%xn", "%a1", "%a2"], [xt, wt, wt], xt,
                            [ID2, VEC2, VEC2, ID2], PAR2,
                            "  ^bb0(%p: f32, %q: f32, %r: f32, %o: f32):\n"
                            "    %t = arith.mulf %p, %q : f32\n"
                            "    %u = arith.addf %t, %r : f32\n"
                            "    linalg.yield %u : f32")
    body += "  return %y : " + xt
    x64 = x.astype(np.float64)
    if rms:
        want = x64 / np.sqrt((x64 * x64).mean(1, keepdims=True) + 1e-5) * w
        args = [x, w]
    else:
        c = x64 - x64.mean(1, keepdims=True)
        want = c / np.sqrt((c * c).mean(1, keepdims=True) + 1e-5) * w + b
        args = [x, w, b]
    # Outputs are O(1): an absolute bound near their zeros.
    return Case(f"{'rmsnorm' if rms else 'layernorm'}_{m}x{n}", args, body,
                [xt], [want], 1e-5, scale=np.maximum(np.abs(want), 1.0))


def sum_rank0(x):
    t = ttype([], np.float32)
    body = reduction("%s", "%a0", t, t, [], "%zero : f32",
                     "  ^bb0(%in: f32, %acc: f32):\n"
                     "    %c = arith.addf %acc, %in : f32\n"
                     "    linalg.yield %c : f32",
                     ["affine_map<() -> ()>", "affine_map<() -> ()>"], "[]")
    return Case("sum_rank0", [x], body + "  return %s : " + t, [t],
                [x.astype(np.float64)], 1e-7)


def long_sum(n):
    """x[i] = f32(i % 1000) * 0.001 + 0.5, built in @main (so the sum
    reads a buffer), summed over one row of n elements. A naive f32
    running sum is off by percents; PyTorch's cascade by ~1e-7."""
    i = np.arange(n, dtype=np.int64)
    x = (i % 1000).astype(np.float32) * np.float32(0.001) + np.float32(0.5)
    want = x.astype(np.float64).sum()
    t = f"tensor<{n}xf32>"
    rt = "tensor<f32>"
    body = reduction("%s", "%a0", t, rt, [], "%zero : f32",
                     "  ^bb0(%in: f32, %acc: f32):\n"
                     "    %c = arith.addf %acc, %in : f32\n"
                     "    linalg.yield %c : f32",
                     ["affine_map<(d0) -> (d0)>", "affine_map<(d0) -> ()>"],
                     '["reduction"]')
    make = (f"  %g_e = tensor.empty() : {t}\n"
            f"  %g = linalg.generic {{indexing_maps = [affine_map<(d0) -> "
            f"(d0)>], iterator_types = [\"parallel\"]}} outs(%g_e : {t}) {{\n"
            "  ^bb0(%o: f32):\n"
            "    %j = linalg.index 0 : index\n"
            "    %ji = arith.index_cast %j : index to i64\n"
            "    %k = arith.constant 1000 : i64\n"
            "    %r = arith.remui %ji, %k : i64\n"
            "    %f = arith.uitofp %r : i64 to f32\n"
            "    %s = arith.constant 0.001 : f32\n"
            "    %h = arith.constant 0.5 : f32\n"
            "    %p = arith.mulf %f, %s : f32\n"
            "    %v = arith.addf %p, %h : f32\n"
            "    linalg.yield %v : f32\n"
            f"  }} -> {t}\n")
    case = Case(f"long_sum_{n}", [], body + "  return %s : " + rt, [rt],
                [np.array(want)], 2e-7, arg_types=[t])
    case.make = make
    return case


FULL_OPS = {
    # combiner: (element type, accumulator type, identity, widening)
    "addf": ("f32", "f32", "%zero : f32", ""),
    "mulf": ("f32", "f32", "%fone : f32", ""),
    "maximumf": ("f32", "f32", "%ninf : f32", ""),
    "minimumf": ("f32", "f32", "%pinf : f32", ""),
    "addi": ("i32", "i64", "%izero : i64", "arith.extsi"),
    "muli": ("i64", "i64", "%ione : i64", ""),
}


def full_reduce(x, op, dynamic=False, init=None):
    """All dims of `x` (rank 1 or 2) reduced to rank 0 with combiner `op`:
    the reductions bcast-vectorize-reductions splits among the tasks when
    they have at least grain-size (32,768) elements. `init` (name, value):
    an output filled with other than the identity, which must be combined
    in exactly once."""
    ins, acc, identity, widen = FULL_OPS[op]
    if init:
        identity = f"{init[0]} : {acc}"
    rank = x.ndim
    dims = ", ".join(f"d{i}" for i in range(rank))
    xt = ttype(x.shape, x.dtype.type, dynamic)
    rt = f"tensor<{acc}>"
    value = "%in"
    pre = ""
    if widen:
        pre, value = f"    %w = {widen} %in : {ins} to {acc}\n", "%w"
    body = reduction("%s", "%a0", xt, rt, [], identity,
                     f"  ^bb0(%in: {ins}, %acc: {acc}):\n{pre}"
                     f"    %c = arith.{op} %acc, {value} : {acc}\n"
                     f"    linalg.yield %c : {acc}",
                     [f"affine_map<({dims}) -> ({dims})>",
                      f"affine_map<({dims}) -> ()>"],
                     "[" + ", ".join(['"reduction"'] * rank) + "]")
    name = (f"full_{op}_{'x'.join(map(str, x.shape))}"
            f"{'_dyn' if dynamic else ''}{'_init' if init else ''}")
    if acc == "i64":
        wide = x.astype(np.int64)
        want = wide.sum() if op == "addi" else np.prod(wide)
        return Case(name, [x], body + "  return %s : " + rt, [rt],
                    [np.array(want, np.int64)], dynamic=dynamic)
    wide = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = {"addf": np.sum, "mulf": np.prod, "maximumf": np.max,
                "minimumf": np.min}[op](wide)
        if init:
            want = {"addf": np.add, "maximumf": np.fmax}[op](want, init[1])
    if op == "addf":
        return Case(name, [x], body + "  return %s : " + rt, [rt],
                    [np.array(want)], 1e-6, dynamic,
                    scale=np.abs(wide).sum())
    # Exact: max/min, and products of powers of two.
    return Case(name, [x], body + "  return %s : " + rt, [rt],
                [np.array(want).astype(np.float32)], dynamic=dynamic)


def full_cases():
    f32 = np.float32
    r = lambda *s: RNG.standard_normal(s).astype(f32)
    # Products of +-1 with a few 2 and 0.5: exact in f32 in any order.
    signs = RNG.choice(np.array([1.0, -1.0], f32), 70001)
    signs[RNG.choice(70001, 20, replace=False)] = 2.0
    signs[RNG.choice(70001, 20, replace=False)] = 0.5
    # A NaN in one chunk (the 200th of 256), and -inf elsewhere.
    nan_x = r(90001)
    nan_x[70000] = np.nan
    nan_x[5] = -np.inf
    ints = RNG.integers(-2**31, 2**31 - 1, 50001, dtype=np.int64)
    return [
        full_reduce(r(100003), "addf"), full_reduce(r(1000), "addf"),
        full_reduce(r(333, 301), "addf"), full_reduce(r(1, 50000), "addf"),
        full_reduce(r(100003), "addf", dynamic=True),
        full_reduce(r(100003), "addf", init=("%fone", 1.0)),
        full_reduce(r(50000), "maximumf", init=("%pinf", np.inf)),
        full_reduce(r(999), "addf", dynamic=True),
        full_reduce(r(333, 301), "addf", dynamic=True),
        full_reduce(signs, "mulf"), full_reduce(signs[:777], "mulf"),
        full_reduce(r(70001), "maximumf"), full_reduce(r(70001), "minimumf"),
        full_reduce(nan_x, "maximumf"), full_reduce(nan_x, "minimumf"),
        full_reduce(nan_x, "maximumf", dynamic=True),
        full_reduce(r(300), "maximumf", dynamic=True),
        full_reduce(RNG.integers(-2**31, 2**31 - 1, 60007, dtype=np.int32),
                    "addi"),
        full_reduce(RNG.integers(-2**31, 2**31 - 1, (250, 201),
                                 dtype=np.int32), "addi", dynamic=True),
        # Wraps modulo 2**64 as NumPy's int64 product does.
        full_reduce(ints, "muli"), full_reduce(ints[:100], "muli"),
    ]


def cases():
    f32 = np.float32
    r = lambda *s: RNG.standard_normal(s).astype(f32)
    nan_x = r(5, 37)
    nan_x[1, 3] = np.nan
    nan_x[4, 36] = np.nan
    nan_x[2, :] = -np.inf
    out = [
        sum_rows(r(3, 5)), sum_rows(r(7, 1000)), sum_rows(r(2, 70001)),
        sum_rows(r(0, 9)), sum_rows(r(4, 0)),
        sum_cols(r(1000, 9)), sum_cols(r(3000, 40)), sum_cols(r(0, 5)),
        sum_cols(r(6, 0)),
        minmax_rows(nan_x, "maximumf"), minmax_rows(nan_x, "minimumf"),
        minmax_rows(nan_x, "maximumf", outer=True),
        minmax_rows(r(9, 33), "minimumf", outer=True),
        int_sum_rows(RNG.integers(-2**31, 2**31 - 1, (3, 100),
                                  dtype=np.int32)),
        half_sum_rows(r(4, 300).astype(np.float16)),
        argmax_rows(r(6, 45)),
        softmax(r(3, 7)), softmax(r(64, 1000)), softmax(r(33, 4099)),
        softmax(r(300, 17), dim=0), softmax(r(1, 1)),
        softmax_middle(r(5, 70, 300)),
        softmax(r(37, 77), dynamic=True), softmax(r(0, 5), dynamic=True),
        softmax(r(4, 0), dynamic=True),
        layernorm(r(50, 768), r(768), r(768)),
        layernorm(r(3, 5), r(5), r(5)),
        layernorm(r(20, 300), r(300), None, rms=True),
        sum_rank0(np.array(2.5, f32)),
        long_sum(1 << 24),
    ] + full_cases()
    return out


def module(all_cases):
    text = ["func.func private @printMemrefI32(memref<*xi32>)",
            "func.func private @printMemrefI64(memref<*xi64>)"]
    consts = ("  %zero = arith.constant 0.0 : f32\n"
              "  %izero = arith.constant 0 : i64\n"
              "  %fone = arith.constant 1.0 : f32\n"
              "  %ione = arith.constant 1 : i64\n"
              "  %ninf = arith.constant 0xFF800000 : f32\n"
              "  %pinf = arith.constant 0x7F800000 : f32\n"
              "  %c0 = arith.constant 0 : index\n"
              "  %c1 = arith.constant 1 : index\n")
    for case in all_cases:
        params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(case.arg_types))
        text.append(f"func.func @{case.name}({params}) -> "
                    f"({', '.join(case.results)}) {{\n{consts}{case.body}\n}}")
    text.append("func.func @main() {")
    for k, case in enumerate(all_cases):
        names = []
        for i, (a, t) in enumerate(zip(case.args, case.arg_types)):
            static = ttype(a.shape, a.dtype.type)
            text.append(f"  %k{k}_{i}s = arith.constant {literal(a)} : "
                        f"{static}")
            value = f"%k{k}_{i}s"
            if case.dynamic:
                text.append(f"  %k{k}_{i} = tensor.cast %k{k}_{i}s : {static}"
                            f" to {t}")
                value = f"%k{k}_{i}"
            names.append(value)
        if hasattr(case, "make"):
            text.append(case.make.replace("%g", f"%g{k}"))
            names.append(f"%g{k}")
        rt = case.results[0]
        text.append(f"  %r{k} = func.call @{case.name}({', '.join(names)}) : "
                    f"({', '.join(case.arg_types)}) -> {rt}")
        exp = case.expected[0]
        static_rt = ttype(exp.shape, np.int64 if "i64" in rt else np.float32)
        value = f"%r{k}"
        if case.dynamic:
            text.append(f"  %rc{k} = tensor.cast %r{k} : {rt} to {static_rt}")
            value = f"%rc{k}"
        if "i64" in rt:
            mt = static_rt.replace("tensor", "memref")
            text.append(f"  %m{k} = bufferization.to_buffer {value} : "
                        f"{static_rt} to {mt}")
            text.append(f"  %u{k} = memref.cast %m{k} : {mt} to memref<*xi64>")
            text.append(f"  func.call @printMemrefI64(%u{k}) : "
                        "(memref<*xi64>) -> ()")
        else:
            bt = static_rt.replace("f32", "i32")
            mt = bt.replace("tensor", "memref")
            rank = exp.ndim
            dims = ", ".join(f"d{i}" for i in range(rank))
            ident = f"affine_map<({dims}) -> ({dims})>"
            iters = ", ".join(['"parallel"'] * rank)
            text.append(f"  %be{k} = tensor.empty() : {bt}")
            text.append(
                f"  %b{k} = linalg.generic {{indexing_maps = [{ident}, "
                f"{ident}], iterator_types = [{iters}]}} ins({value} : "
                f"{static_rt}) outs(%be{k} : {bt}) {{\n"
                "  ^bb0(%f: f32, %o: i32):\n"
                "    %i = arith.bitcast %f : f32 to i32\n"
                "    linalg.yield %i : i32\n"
                f"  }} -> {bt}")
            text.append(f"  %m{k} = bufferization.to_buffer %b{k} : {bt} to "
                        f"{mt}")
            text.append(f"  %u{k} = memref.cast %m{k} : {mt} to memref<*xi32>")
            text.append(f"  func.call @printMemrefI32(%u{k}) : "
                        "(memref<*xi32>) -> ()")
    text.append("  return\n}")
    return "\n".join(t for t in text if t) + "\n"


def parse(output):
    results = []
    for block in output.split("Unranked Memref")[1:]:
        sizes = re.search(r"sizes = \[([0-9, ]*)\]", block).group(1)
        if "0" in [t.strip() for t in sizes.split(",")]:
            results.append(np.array([], np.int64))
            continue
        data = block.split("data =", 1)[1]
        results.append(np.array([int(t) for t in
                                 re.findall(r"-?[0-9]+", data)], np.int64))
    return results


def check(case, got):
    want = np.asarray(case.expected[0])
    if "i64" in case.results[0]:
        return want.reshape(-1).tolist() == got.tolist(), got
    values = got.astype(np.uint32).view(np.float32).astype(np.float64)
    want = want.astype(np.float64).reshape(-1)
    if values.shape != want.shape:
        return False, values
    if case.rtol == 0.0:
        same = (values == want) | (np.isnan(values) & np.isnan(want))
        return bool(same.all()), values
    scale = np.abs(want) if case.scale is None else \
        np.asarray(case.scale, np.float64).reshape(-1)
    close = (np.abs(values - want) <= case.rtol * scale) | (
        np.isnan(values) & np.isnan(want))
    return bool(close.all()), values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib-dir", default="/usr/lib/llvm-22/lib")
    parser.add_argument("--options", default="")
    parser.add_argument("--emit", action="store_true")
    args = parser.parse_args()
    all_cases = cases()
    text = module(all_cases)
    if args.emit:
        print(text)
        return 0
    lowered = subprocess.run(
        [shutil.which("bcast-opt"), f"--bcast-to-llvm={args.options}"],
        input=text, capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr)
        return 1
    libs = ",".join(f"{args.lib_dir}/lib{n}.so" for n in
                    ("mlir_c_runner_utils", "mlir_runner_utils", "omp"))
    run = subprocess.run([shutil.which("mlir-runner"), "-e", "main",
                          "-entry-point-result=void", "-shared-libs=" + libs],
                         input=lowered.stdout, capture_output=True, text=True)
    if run.returncode:
        print(run.stderr)
        return 1
    outputs = parse(run.stdout)
    if len(outputs) != len(all_cases):
        print(f"expected {len(all_cases)} results, got {len(outputs)}")
        return 1
    failures = 0
    for case, got in zip(all_cases, outputs):
        ok, values = check(case, got)
        if not ok:
            failures += 1
            print(f"MISMATCH {case.name}:\n  expected "
                  f"{np.asarray(case.expected[0]).reshape(-1)[:8].tolist()}"
                  f"\n  got      {values[:8].tolist()}")
        if case.name.startswith("long_sum"):
            err = abs(values[0] - case.expected[0]) / abs(case.expected[0])
            print(f"long sum relative error: {err:.2e}")
    if failures:
        print(f"FAIL: {failures} of {len(all_cases)} cases")
        return 1
    print(f"PASS: {len(all_cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
