#!/usr/bin/env python3
"""Runs bcast.matmul through bcast-opt --bcast-to-llvm and mlir-runner and
compares every printed number with NumPy.

Each case is one bcast.matmul in a function of its own, called from @main
with constant inputs (a call, so nothing is folded at compile time), its
operand types made dynamic (`?`) where the case says so; @main prints each
result with the runner's printMemref*. The expected values are computed
here with NumPy: integer products in int64 and wrapped to the element type
(PyTorch's products wrap), bf16 products in f32 from bf16 inputs and
rounded once. Cases cover every rank combination (1-D, 2-D, N-D on each
side), batch dims broadcast on either side (statically, and through a `?`
size that is 1 at run time), sizes 0 and 1, every element type, shapes
that the runtime folds into one GEMM or calls in blocks of rows, and
operands that a bcast.permute makes (read through by the product, no
copy).

    matmul.py --lib-dir /usr/lib/llvm-22/lib --runtime <libbcast_matmul_runtime.so>
              [--options 'broadcast-policy=static matmul-blas=false']
"""

import argparse
import re
import shutil
import subprocess
import sys

import numpy as np

RNG = np.random.default_rng(29)

TYPES = {"f32": np.float32, "f64": np.float64, "bf16": np.float32,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
         "ui8": np.uint8}


def tensor_type(shape, element, dynamic=()):
    dims = "".join(("?" if i in dynamic else str(s)) + "x"
                   for i, s in enumerate(shape))
    return f"tensor<{dims}{element}>"


def to_bf16(values):
    import torch
    return torch.from_numpy(np.asarray(values, np.float32)).to(
        torch.bfloat16).to(torch.float32).numpy()


def make_input(shape, element):
    if element in ("f32", "f64", "bf16"):
        values = RNG.uniform(-2, 2, shape)
        return to_bf16(values) if element == "bf16" else \
            values.astype(TYPES[element])
    info = np.iinfo(TYPES[element])
    # Large values, so that integer products wrap.
    return RNG.integers(info.min, info.max, shape, endpoint=True).astype(
        TYPES[element])


def expected(a, b, element):
    if element in ("f32", "f64", "bf16"):
        result = np.matmul(a.astype(np.float64), b.astype(np.float64))
        return to_bf16(result) if element == "bf16" else result
    wide = np.matmul(a.astype(np.int64), b.astype(np.int64))
    return wide.astype(TYPES[element])  # wraps modulo 2^width


def literal(array, element):
    if element in ("f32", "f64", "bf16"):
        text = np.array2string(array, separator=", ", threshold=10**9,
                               floatmode="unique", max_line_width=10**9)
    else:
        text = np.array2string(array.astype(np.int64), separator=", ",
                               threshold=10**9, max_line_width=10**9)
    return f"dense<{text}>" if array.ndim else f"dense<{array.item()!r}>"


class Case:
    """lhs @ rhs; `perm_lhs`/`perm_rhs` (dims): that operand is the
    bcast.permute of a source held in another order (the source's `?` dims
    are dyn_lhs/dyn_rhs), as `k.transpose(-1, -2)` is. With `extra` (a
    shape), the product's element-wise epilogue abs(product + e), e of that
    shape broadcast against it."""

    def __init__(self, lhs, rhs, element="f32", dyn_lhs=(), dyn_rhs=(),
                 dyn_result=None, perm_lhs=None, perm_rhs=None, extra=None):
        self.lhs, self.rhs, self.element = lhs, rhs, element
        self.dyn_lhs, self.dyn_rhs = dyn_lhs, dyn_rhs
        self.perm_lhs, self.perm_rhs = perm_lhs, perm_rhs
        self.a = make_input(lhs, element)
        self.b = make_input(rhs, element)
        self.want = expected(self.a, self.b, element)
        self.extra = extra
        if extra is not None:
            self.e = make_input(extra, element)
            self.want = np.abs(self.want + self.e.astype(self.want.dtype))
        rank = self.want.ndim
        self.dyn_result = (tuple(range(rank)) if dyn_result is None and
                           (dyn_lhs or dyn_rhs) else dyn_result or ())

    @staticmethod
    def source(value, perm):
        """The array whose permute by `perm` is `value`."""
        return value if perm is None else np.ascontiguousarray(
            np.transpose(value, np.argsort(perm)))


def constant(name, array, shape, element):
    static = tensor_type(shape, element)
    if array.size == 0:
        return [f"  {name} = tensor.empty() : {static}"]
    return [f"  {name} = arith.constant {literal(array, element)} : {static}"]


def print_lines(value, shape, element, index):
    """Prints through printMemref, widening i8, i16 and ui8 to i32 and bf16
    to f32 (ui8 zero-extended)."""
    static = tensor_type(shape, element)
    lines = []
    elem = element
    if element == "ui8":
        signless = tensor_type(shape, "i8")
        lines.append(f"  %sl{index} = tensor.bitcast {value} : {static} to "
                     f"{signless}")
        value, static, elem = f"%sl{index}", signless, "i8"
    widen = {"i8": ("i32", "arith.extui" if element == "ui8" else
                    "arith.extsi"),
             "i16": ("i32", "arith.extsi"), "bf16": ("f32", "arith.extf")}
    if elem in widen:
        wide, op = widen[elem]
        wide_type = tensor_type(shape, wide)
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        identity = f"affine_map<({dims}) -> ({dims})>"
        iterators = ", ".join(['"parallel"'] * rank)
        lines.append(f"  %e{index} = tensor.empty() : {wide_type}")
        lines.append(
            f"  %w{index} = linalg.generic {{indexing_maps = [{identity}, "
            f"{identity}], iterator_types = [{iterators}]}} ins({value} : "
            f"{static}) outs(%e{index} : {wide_type}) {{\n"
            f"  ^bb0(%x: {elem}, %o: {wide}):\n"
            f"    %y = {op} %x : {elem} to {wide}\n"
            f"    linalg.yield %y : {wide}\n"
            f"  }} -> {wide_type}")
        value, static, elem = f"%w{index}", wide_type, wide
    memref = static.replace("tensor<", "memref<")
    fn = {"f32": "printMemrefF32", "f64": "printMemrefF64",
          "i32": "printMemrefI32", "i64": "printMemrefI64"}[elem]
    lines += [f"  %m{index} = bufferization.to_buffer {value} : {static} to "
              f"{memref}",
              f"  %u{index} = memref.cast %m{index} : {memref} to "
              f"memref<*x{elem}>",
              f"  func.call @{fn}(%u{index}) : (memref<*x{elem}>) -> ()"]
    return lines


def module(cases):
    text = [f"func.func private @printMemref{t}(memref<*x{e}>)"
            for t, e in (("F32", "f32"), ("F64", "f64"), ("I32", "i32"),
                         ("I64", "i64"))]
    main = ["func.func @main() {"]
    for i, c in enumerate(cases):
        a, b = Case.source(c.a, c.perm_lhs), Case.source(c.b, c.perm_rhs)
        ta = tensor_type(a.shape, c.element, c.dyn_lhs)
        tb = tensor_type(b.shape, c.element, c.dyn_rhs)
        shape = list(c.want.shape)
        tr = tensor_type(shape, c.element, c.dyn_result)
        body, operands = [], []
        for name, t, perm, source in (("%a", ta, c.perm_lhs, a),
                                      ("%b", tb, c.perm_rhs, b)):
            if perm is None:
                operands.append((name, t))
                continue
            dyn = c.dyn_lhs if name == "%a" else c.dyn_rhs
            permuted = tensor_type([source.shape[d] for d in perm],
                                   c.element,
                                   [j for j, d in enumerate(perm)
                                    if d in dyn])
            body.append(f"  {name}p = bcast.permute {name} {{dims = "
                        f"array<i64: {', '.join(map(str, perm))}>}} : ({t}) "
                        f"-> {permuted}")
            operands.append((name + "p", permuted))
        (na, pa), (nb, pb) = operands
        body.append(f"  %r = bcast.matmul {na}, {nb} : ({pa}, {pb}) -> {tr}")
        params, args, types = f"%a: {ta}, %b: {tb}", f"%ca{i}, %cb{i}", \
            f"{ta}, {tb}"
        if c.extra is not None:
            te = tensor_type(c.extra, c.element)
            body += [f"  %s = bcast.add %r, %e : ({tr}, {te}) -> {tr}",
                     f"  %t = bcast.abs %s : ({tr}) -> {tr}"]
            params, args, types = params + f", %e: {te}", \
                args + f", %e{i}", types + f", {te}"
        result = "%t" if c.extra is not None else "%r"
        text.append(f"func.func @case{i}({params}) -> {tr} {{\n" +
                    "".join(line + "\n" for line in body) +
                    f"  return {result} : {tr}\n}}")
        main += constant(f"%a{i}", a, a.shape, c.element)
        main += constant(f"%b{i}", b, b.shape, c.element)
        if c.extra is not None:
            main += constant(f"%e{i}", c.e, c.extra, c.element)
        sa, sb = tensor_type(a.shape, c.element), tensor_type(b.shape,
                                                              c.element)
        main.append(f"  %ca{i} = tensor.cast %a{i} : {sa} to {ta}")
        main.append(f"  %cb{i} = tensor.cast %b{i} : {sb} to {tb}")
        main.append(f"  %r{i} = func.call @case{i}({args}) : "
                    f"({types}) -> {tr}")
        main.append(f"  %s{i} = tensor.cast %r{i} : {tr} to "
                    f"{tensor_type(shape, c.element)}")
        main += print_lines(f"%s{i}", shape, c.element, i)
    main += ["  return", "}"]
    return "\n\n".join(text + ["\n".join(main)]) + "\n"


def parse_outputs(text):
    results = []
    for block in text.split("Unranked Memref")[1:]:
        sizes = re.search(r"sizes = \[([0-9, ]*)\]", block).group(1)
        if "0" in [t.strip() for t in sizes.split(",")]:
            results.append([])  # printMemref prints a stray element
            continue
        data = block.split("data =", 1)[1]
        tokens = re.findall(r"-?nan|-?inf|[-+]?[0-9.]+(?:e[-+]?[0-9]+)?",
                            data)
        results.append([int(t) if re.fullmatch(r"[-+]?[0-9]+", t) else
                        float(t) for t in tokens])
    return results


def matches(case, got):
    want = case.want.reshape(-1)
    if len(got) != want.size:
        return False
    if case.element not in ("f32", "f64", "bf16"):
        mask = 0xFF if case.element == "ui8" else None
        return [int(v) for v in want.tolist()] == \
            [int(v) & mask if mask else int(v) for v in got]
    # The runner prints 6 significant digits; a sum of K products carries
    # rounding relative to the sum of their magnitudes.
    scale = np.matmul(np.abs(case.a.astype(np.float64)),
                      np.abs(case.b.astype(np.float64))).reshape(-1)
    rel = 1e-2 if case.element == "bf16" else 2e-5
    return bool(np.all(np.abs(np.asarray(got) - want) <= rel * (scale + 1)))


def cases():
    out = []
    # Every rank pair up to 4-D, with batch dims broadcast on either side.
    pairs = [([5], [5]), ([3, 5], [5]), ([5], [5, 4]), ([3, 5], [5, 4]),
             ([2, 3, 5], [5]), ([5], [2, 5, 4]), ([2, 3, 5], [5, 4]),
             ([3, 5], [2, 5, 4]), ([2, 3, 5], [2, 5, 4]),
             ([1, 3, 5], [2, 5, 4]), ([2, 3, 5], [1, 5, 4]),
             ([2, 1, 3, 5], [5]), ([5], [2, 1, 5, 4]),
             ([2, 1, 3, 5], [5, 4]), ([3, 5], [1, 4, 5, 4]),
             ([2, 1, 3, 5], [4, 5, 4]), ([4, 3, 5], [2, 1, 5, 4]),
             ([2, 1, 3, 5], [1, 4, 5, 4]), ([1, 4, 3, 5], [2, 1, 5, 4])]
    out += [Case(a, b) for a, b in pairs]
    # The issue's example; sizes 0 and 1.
    out.append(Case([2, 1, 4, 3], [5, 3, 6]))
    out += [Case([2, 0], [0, 3]), Case([0], [0]), Case([0, 3], [3, 2]),
            Case([2, 0, 3], [1, 3, 4]), Case([1, 1], [1, 1]),
            Case([1], [1, 7]), Case([3, 1, 2], [1, 2, 1])]
    # Shapes the runtime folds into one GEMM: a 2-D rhs, and a batch dim
    # the rhs broadcasts with M = 1 (a per-token FFN).
    out += [Case([4, 3, 6, 8], [8, 5]), Case([3, 4, 1, 8], [1, 4, 8, 5]),
            Case([2, 3, 2, 8], [1, 3, 8, 5])]
    # Odd sizes that exercise the BLAS's edges.
    out.append(Case([2, 1, 33, 65], [3, 65, 17]))
    # Rows the runtime calls in blocks under BCAST_MATMUL_SMALL_PRODUCT=64
    # (the RUN line that sets it): one call in 3 blocks of 14, 14 and 12
    # rows; 3 calls of 3 blocks; a folded broadcast batch's strided rows;
    # f64; a transposed lhs (rows 1 apart).
    out += [Case([40, 2], [2, 2]), Case([3, 37, 2], [3, 2, 2]),
            Case([40, 4, 1, 2], [4, 2, 2]), Case([40, 2], [2, 2], "f64"),
            Case([40, 2], [2, 2], perm_lhs=(1, 0))]
    # f32 products small enough for the runtime's own kernel (AVX-512 or
    # AVX2 hosts; BLAS calls under BCAST_MATMUL_SMALL_KERNEL=0): 16 columns,
    # batched; 24 columns (a masked register with AVX-512) and 13 rows (a
    # block of 8 and one of 5, or of 6, 6 and 1) of a folded lhs; 40
    # columns (whole panels and a masked register) with a broadcast lhs
    # batch; 17 columns; k = 1; a batch dim folded
    # into rows of M = 1 (rows 32 floats apart); a transposed rhs (its
    # panels packed from the source's rows): batched, 24 and 33 columns,
    # depths 20 and 37 (tails of the pack's squares), a 2-D one under
    # folded lhs rows; and layouts it does not take (a transposed lhs, a
    # transposed rhs with fewer than 8 rows: BLAS calls).
    out += [Case([6, 16, 16], [6, 16, 16]), Case([3, 13, 20], [20, 24]),
            Case([2, 1, 9, 8], [3, 8, 40]), Case([7, 5], [5, 17]),
            Case([9, 1], [1, 16]), Case([3, 4, 1, 8], [1, 4, 8, 16]),
            Case([2, 16, 8], [2, 8, 16], perm_rhs=(0, 2, 1)),
            Case([3, 13, 20], [3, 20, 24], perm_rhs=(0, 2, 1)),
            Case([40, 37], [37, 33], perm_rhs=(1, 0)),
            Case([4, 10, 20], [20, 17], perm_rhs=(1, 0)),
            Case([16, 8], [8, 16], perm_lhs=(1, 0)),
            Case([2, 5, 8], [2, 8, 16], perm_rhs=(0, 2, 1))]
    # Every element type (integers wrap).
    for element in ("f64", "bf16", "i8", "i16", "i32", "i64", "ui8"):
        out += [Case([2, 1, 3, 4], [3, 4, 2], element), Case([6], [6], element),
                Case([3, 5], [5], element)]
    # Element-wise epilogues (bcast-matmul-to-blas computes the product
    # block by block into the epilogue's output): 2-D, batched, either
    # operand broadcast over the batch, a matrix-vector product, a vector
    # lhs, f64, an integer product (loops), `?` rows.
    out += [Case([5, 8], [8, 6], extra=[6]),
            Case([3, 5, 8], [3, 8, 6], extra=[3, 1, 6]),
            Case([1, 5, 8], [3, 8, 6], extra=[5, 6]),
            Case([3, 5, 8], [8, 6], extra=[6]),
            Case([2, 3, 5, 8], [2, 3, 8, 6], "f64", extra=[2, 1, 5, 6]),
            Case([7, 8], [8], extra=[7]), Case([8], [8, 6], extra=[6]),
            Case([5, 8], [8, 6], "i32", extra=[6]),
            Case([5, 8], [8, 6], dyn_lhs=(0,), extra=[1])]
    # `?` sizes: everywhere, a batch size 1 at run time that broadcasts
    # (numpy policy; the static policy runs the cases whose `?` sizes
    # equal the other operand's), and a static result type kept.
    out += [Case([2, 3, 4], [2, 4, 5], dyn_lhs=(0, 1, 2), dyn_rhs=(0, 1, 2)),
            Case([3, 4], [4], dyn_lhs=(0, 1), dyn_rhs=(0,)),
            Case([6], [6], "i32", dyn_lhs=(0,), dyn_rhs=(0,)),
            Case([2, 3, 4], [2, 4, 5], "f64", dyn_lhs=(0,), dyn_rhs=(0,),
                 dyn_result=())]
    # Permuted operands (bcast.permute read through by the product; on the
    # BLAS route a transposed view of the source): k.transpose(-1, -2), a.T
    # on the left, a batch permutation, broadcast batch dims, f64 and the
    # loops' integers, `?` sizes of the source.
    out += [Case([2, 3, 5, 4], [2, 3, 4, 6], perm_rhs=(0, 1, 3, 2)),
            Case([4, 3], [3, 5], perm_lhs=(1, 0)),
            Case([4, 3], [3, 5], "f64", perm_lhs=(1, 0), perm_rhs=(1, 0)),
            Case([2, 1, 5, 4], [3, 4, 6], perm_lhs=(1, 0, 3, 2),
                 perm_rhs=(0, 2, 1)),
            Case([2, 1, 33, 65], [3, 65, 17], perm_rhs=(0, 2, 1)),
            Case([2, 3, 5, 4], [2, 3, 4, 6], "i32", perm_rhs=(0, 1, 3, 2)),
            Case([3, 5], [5, 4], "ui8", perm_lhs=(1, 0)),
            Case([2, 3, 5, 4], [2, 3, 4, 6], dyn_lhs=(0, 1, 2, 3),
                 dyn_rhs=(0, 1, 2, 3), perm_rhs=(0, 1, 3, 2)),
            Case([2, 3, 5], [5, 4], "f64", dyn_lhs=(0, 1, 2), dyn_rhs=(0,),
                 perm_lhs=(2, 1, 0))]
    return out


def runtime_one_cases():
    """A `?` batch size that is 1 at run time: broadcast under numpy only."""
    return [Case([1, 3, 4], [2, 4, 5], dyn_lhs=(0,)),
            Case([2, 1, 3, 4], [1, 5, 4, 2], "i32", dyn_lhs=(0, 1),
                 dyn_rhs=(0, 1)),
            # The stride-0 view of a permute's source.
            Case([2, 3, 5, 4], [1, 3, 4, 6], dyn_lhs=(0, 1, 2, 3),
                 dyn_rhs=(0, 1, 2, 3), perm_rhs=(0, 1, 3, 2))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib-dir", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--options", default="")
    args = parser.parse_args()
    all_cases = cases()
    if "broadcast-policy=static" not in args.options:
        all_cases += runtime_one_cases()
    bcast_opt = shutil.which("bcast-opt")
    runner = shutil.which("mlir-runner")
    lowered = subprocess.run([bcast_opt, f"--bcast-to-llvm={args.options}"],
                             input=module(all_cases), capture_output=True,
                             text=True)
    if lowered.returncode:
        print(lowered.stderr)
        return 1
    libs = ",".join([f"{args.lib_dir}/lib{n}.so" for n in
                     ("mlir_c_runner_utils", "mlir_runner_utils", "omp")] +
                    [args.runtime])
    run = subprocess.run([runner, "-e", "main", "-entry-point-result=void",
                          "-shared-libs=" + libs], input=lowered.stdout,
                         capture_output=True, text=True)
    if run.returncode:
        print(run.stderr)
        return 1
    outputs = parse_outputs(run.stdout)
    if len(outputs) != len(all_cases):
        print(f"expected {len(all_cases)} results, got {len(outputs)}")
        return 1
    bad = [i for i, (c, got) in enumerate(zip(all_cases, outputs))
           if not matches(c, got)]
    for i in bad[:5]:
        c = all_cases[i]
        print(f"MISMATCH case{i}: {c.lhs} @ {c.rhs} {c.element}\n"
              f"  want {c.want.reshape(-1)[:8]}\n  got  {outputs[i][:8]}")
    if bad:
        return 1
    print(f"PASS: {len(all_cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
