#!/usr/bin/env python3
"""Runs bcast ops on PyTorch's edge cases through bcast-opt --bcast-to-llvm
and mlir-runner, and compares every element with PyTorch 1.13, computed
here at test time (issue 28's classes).

Each case is one op in a function of its own, called from @main with
constant inputs (a call, so the code is compiled, not folded); the same op
also runs on constants in a function without arguments, which
`--canonicalize` folds: folding must give the same numbers (the script
checks that it folded). Results are widened to i64 or f64 with bcast.cast
and printed with printMemrefI64/F64.

Families:
  division  integer div (both rounding modes), remainder, fmod and their
            in-place twins at every width, extremal values (INT_MIN // -1
            wraps: PyTorch's values at 8 and 16 bits; PyTorch 1.13 itself
            dies of SIGFPE at 32 and 64 bits, where the expected values are
            two's complement's, computed with Python integers)
  casts     float -> integer casts of out-of-range values, NaN and inf, in
            short and long tensors (the vector loop and the scalar tail)
  inplace   the in-place comparisons, clamp_min/clamp_max and their twins,
            fmod_, and add/sub with alpha

    torch_edges.py --family division --lib-dir /usr/lib/llvm-22/lib
"""

import argparse
import shutil
import struct
import subprocess
import sys

import torch

MLIR = {torch.bool: "i1", torch.int8: "i8", torch.int16: "i16",
        torch.int32: "i32", torch.int64: "i64", torch.uint8: "ui8",
        torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
        torch.float64: "f64"}
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]


def tensor_type(t, dtype=None):
    dims = "x".join(str(s) for s in t.shape)
    elem = MLIR[dtype or t.dtype]
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


def literal(t):
    """A dense attribute body for `t` (bools as true/false, floats exactly,
    by their hexadecimal bits where they are not finite)."""
    if t.dtype == torch.bool:
        flat = ["true" if v else "false" for v in t.reshape(-1).tolist()]
    elif t.dtype.is_floating_point:
        flat = []
        for v in t.reshape(-1).tolist():
            if v != v or v in (float("inf"), float("-inf")):
                return None
            flat.append(repr(float(v)))
    else:
        flat = [str(v) for v in t.reshape(-1).tolist()]
    return "[" + ", ".join(flat) + "]"


def constant(name, t):
    """`%name = arith.constant ...` for `t`; non-finite floats go through
    bit patterns of the same width (bitcast), as MLIR's parser has no NaN
    literal in dense arrays."""
    text = literal(t)
    if text is not None:
        return [f"  %{name} = arith.constant dense<{text}> : {tensor_type(t)}"]
    bits = {torch.float32: torch.int32, torch.float64: torch.int64,
            torch.float16: torch.int16, torch.bfloat16: torch.int16}[t.dtype]
    ints = t.contiguous().view(bits)
    itype = tensor_type(ints)
    return [f"  %{name}_bits = arith.constant dense<{literal(ints)}> : {itype}",
            f"  %{name} = arith.bitcast %{name}_bits : {itype} to "
            f"{tensor_type(t)}"]


class Case:
    def __init__(self, op, inputs, expected, attrs=""):
        self.op, self.inputs, self.expected = op, inputs, expected
        # Folding is checked on inputs small enough for the folder's limit.
        self.attrs = attrs
        self.fold = all(t.numel() <= 256 for t in inputs)


def render(cases):
    lines = ["func.func private @printMemrefI64(memref<*xi64>)"]
    main = ["func.func @main() {"]
    for k, case in enumerate(cases):
        ins = ", ".join(tensor_type(t) for t in case.inputs)
        out = tensor_type(case.expected)
        attrs = f" {{{case.attrs}}}" if case.attrs else ""
        args = ", ".join(f"%a{i}" for i in range(len(case.inputs)))
        sig = ", ".join(f"%a{i}: {tensor_type(t)}"
                        for i, t in enumerate(case.inputs))
        lines += [f"func.func @case{k}({sig}) -> {out} {{",
                  f"  %r = bcast.{case.op} {args}{attrs} : ({ins}) -> {out}",
                  f"  return %r : {out}", "}"]
        if case.fold:
            body = []
            for i, t in enumerate(case.inputs):
                body += constant(f"a{i}", t)
            lines += [f"func.func @fold{k}() -> {out} {{"] + body + [
                f"  %r = bcast.{case.op} {args}{attrs} : ({ins}) -> {out}",
                f"  return %r : {out}", "}"]
        for i, t in enumerate(case.inputs):
            main += constant(f"c{k}_{i}", t)
        cargs = ", ".join(f"%c{k}_{i}" for i in range(len(case.inputs)))
        calls = [f"%r{k} = call @case{k}({cargs}) : ({ins}) -> {out}"]
        if case.fold:
            calls.append(f"%f{k} = call @fold{k}() : () -> {out}")
        # Floats widen to f64 and print as their bits (exact), integers
        # widen to i64.
        is_float = case.expected.dtype.is_floating_point
        wide = "f64" if is_float else "i64"
        for call in calls:
            name = call.split()[0]
            shape = out[len("tensor<"):].rsplit("x", 1)[0] + "x" \
                if "x" in out else ""
            wtype = f"tensor<{shape}{wide}>"
            itype = f"tensor<{shape}i64>"
            main += [f"  {call}",
                     f"  {name}w = bcast.cast {name} : ({out}) -> {wtype}"]
            bits = f"{name}w"
            if is_float:
                # arith.bitcast of a tensor does not bufferize: per element.
                bits = f"{name}i"
                rank = case.expected.dim()
                dims = ", ".join(f"d{i}" for i in range(rank))
                amap = f"affine_map<({dims}) -> ({dims})>"
                main += [
                    f"  {name}e = tensor.empty() : {itype}",
                    f"  {bits} = linalg.generic {{indexing_maps = [{amap}, "
                    f"{amap}], iterator_types = ["
                    + ", ".join(['"parallel"'] * rank) + "]} "
                    f"ins({name}w : {wtype}) outs({name}e : {itype}) {{",
                    "  ^bb0(%x: f64, %o: i64):",
                    "    %b = arith.bitcast %x : f64 to i64",
                    "    linalg.yield %b : i64",
                    f"  }} -> {itype}"]
            main += [f"  {name}m = bufferization.to_buffer {bits} : {itype} "
                     f"to memref<{shape}i64>",
                     f"  {name}u = memref.cast {name}m : memref<{shape}i64>"
                     f" to memref<*xi64>",
                     f"  call @printMemrefI64({name}u) : (memref<*xi64>) -> ()"]
    main += ["  return", "}"]
    return "\n".join(lines + main) + "\n"


def parse(text):
    import re
    results = []
    for block in text.split("Unranked Memref")[1:]:
        data = block.split("data =", 1)[1]
        tokens = re.findall(r"-?nan|-?inf|[-+]?[0-9.]+(?:e[-+]?[0-9]+)?",
                            data)
        results.append([int(t) if re.fullmatch(r"[-+]?[0-9]+", t) else
                        float(t.replace("-nan", "nan")) for t in tokens])
    return results


def same(want, got):
    """`want` (Python numbers) against the printed integers: floats as the
    bits of their f64 value (any NaN matches any NaN)."""
    if len(want) != len(got):
        return False
    for w, g in zip(want, got):
        if isinstance(w, float):
            g = struct.unpack("<d", struct.pack("<q", g))[0]
            if w != w:
                if g == g:
                    return False
                continue
            if struct.pack("<d", w) != struct.pack("<d", g):
                return False
        elif w != g:
            return False
    return True


#===-------------------------------------------------------------------===#
# Families
#===-------------------------------------------------------------------===#


def wrap(value, dtype):
    """`value` as two's complement in `dtype` (a Python integer)."""
    bits = torch.iinfo(dtype).bits
    value &= (1 << bits) - 1
    if dtype != torch.uint8 and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def python_div(a, b, mode):
    """Integer division as PyTorch defines it, on Python integers."""
    q = a // b
    if mode != "floor" and q < 0 and q * b != a:
        q += 1
    return q


def division_cases():
    cases = []
    for dtype in INTS:
        info = torch.iinfo(dtype)
        signed = dtype != torch.uint8
        lhs = [info.min, info.max, info.min, info.min + 1, -7 if signed else
               7, 7, 0, info.max]
        rhs = [-1 if signed else 1, -1 if signed else 1, 1, -1 if signed else
               3, 2, -2 if signed else 2, 5, info.min if signed else 255]
        # 64 elements: the vector loop and the tail (issue 28 crashed at 64).
        a = torch.tensor(lhs * 8, dtype=dtype)
        b = torch.tensor(rhs * 8, dtype=dtype)
        a_short = torch.tensor(lhs[:3], dtype=dtype)
        b_short = torch.tensor(rhs[:3], dtype=dtype)
        for x, y in ((a, b), (a_short, b_short)):
            for op, mode in (("div", "trunc"), ("div", "floor"),
                             ("remainder", None), ("fmod", None)):
                if info.bits <= 16:
                    # PyTorch computes these widths without trapping.
                    if op == "div":
                        want = torch.div(x, y, rounding_mode=mode)
                    else:
                        want = getattr(torch, op)(x, y)
                else:
                    vals = []
                    for p, q in zip(x.tolist(), y.tolist()):
                        if op == "div":
                            v = python_div(p, q, mode)
                        elif op == "remainder":
                            v = p - q * (p // q)
                        else:
                            v = p - q * python_div(p, q, "trunc")
                        vals.append(wrap(v, dtype))
                    want = torch.tensor(vals, dtype=dtype)
                attrs = f'rounding_mode = "{mode}"' if mode else ""
                cases.append(Case(op, [x, y], want, attrs))
                cases.append(Case(op + "_", [x.clone(), y], want, attrs))
    # Mixed widths: the compute type is the promoted one.
    x = torch.tensor([-128, 127, -128], dtype=torch.int8)
    y = torch.tensor([-1, -1, 3], dtype=torch.int64)
    cases.append(Case("div", [x, y], torch.div(x, y, rounding_mode="floor"),
                      'rounding_mode = "floor"'))
    return cases


def cast_cases():
    values = [-500.0, float("nan"), float("inf"), float("-inf"), -3.0, 300.0,
              1e10, -1e10, 3e9, -3e9, 1e19, 2e19, 70000.5, -70000.5,
              3000000001.0, 2.0 ** 31 + 257, -(2.0 ** 31) - 255, 2.0 ** 32 + 5,
              2.0 ** 31 - 1, -(2.0 ** 31), 2.0 ** 63, -(2.0 ** 63), 1e300,
              -0.9, 0.99]
    cases = []
    for source in (torch.float32, torch.float64, torch.float16,
                   torch.bfloat16):
        for count in (1, 3, 4, 9, 64):
            # Each value repeated `count` times: 1..4 stay in the scalar
            # tail, 9 and 64 reach the vector loop.
            x = torch.tensor(values, dtype=torch.float64).to(source)
            x = x.repeat_interleave(count)
            for target in INTS + [torch.bool]:
                want = x.to(target)
                cases.append(Case("cast", [x], want))
    return cases


def inplace_cases():
    cases = []
    f = torch.tensor([1.5, 2.0, float("nan"), -0.5, 3.0, 7.25, -8.0, 1.0])
    i = torch.tensor([1, 2, 3, -1, 3, 7, -8, 0], dtype=torch.int32)
    b = torch.tensor([True, False, True, False, True, True, False, False])
    u = torch.tensor([1, 2, 3, 255, 3, 7, 0, 128], dtype=torch.uint8)
    h = torch.tensor([1.5, 2.0, 2.5, -0.5, 3.0, 7.25, -8.0, 1.0],
                     dtype=torch.float16)
    tensors = [f, i, b, u, h]
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        for x in tensors:
            for y in tensors:
                want = getattr(x.clone(), op + "_")(y)
                cases.append(Case(op + "_", [x.clone(), y], want))
    for op in ("clamp_min", "clamp_max"):
        for x in tensors:
            for y in tensors:
                want = getattr(torch, op)(x, y)
                cases.append(Case(op, [x, y], want))
                try:
                    want = getattr(x.clone(), op + "_")(y)
                except RuntimeError:
                    continue  # canCast: the verifier's (tested in invalid.mlir)
                cases.append(Case(op + "_", [x.clone(), y], want))
    for x in (f, h):
        for y in (f, i, h):
            try:
                want = x.clone().fmod_(y)
            except RuntimeError:
                continue
            cases.append(Case("fmod_", [x.clone(), y], want))
    for op in ("add", "sub"):
        for x, y, alpha in ((f, f, 2.5), (f, i, 3), (i, i, -2), (i, i, 3),
                            (u, u, -1), (u, i, 2), (h, h, 0.1), (h, f, 3),
                            (b, b, True), (b, b, False), (b, b, 300),
                            (f, f, -1e30)):
            if op == "sub" and b.dtype in (x.dtype, y.dtype):
                continue
            want = getattr(torch, op)(x, y, alpha=alpha)
            if isinstance(alpha, bool):
                attr = "true" if alpha else "false"
            elif isinstance(alpha, int):
                attr = f"{alpha} : i64"
            else:
                bits = struct.unpack("<Q", struct.pack("<d", alpha))[0]
                attr = f"0x{bits:016X} : f64"
            cases.append(Case(op, [x, y], want, f"alpha = {attr}"))
            try:
                want = getattr(x.clone(), op + "_")(y, alpha=alpha)
            except RuntimeError:
                continue
            cases.append(Case(op + "_", [x.clone(), y], want,
                              f"alpha = {attr}"))
    return cases


FAMILIES = {"division": division_cases, "casts": cast_cases,
            "inplace": inplace_cases}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", choices=FAMILIES, required=True)
    parser.add_argument("--lib-dir", required=True)
    parser.add_argument("--print-ir", action="store_true")
    args = parser.parse_args()
    cases = FAMILIES[args.family]()
    text = render(cases)
    if args.print_ir:
        print(text)
        return 0
    bcast_opt = shutil.which("bcast-opt")
    # Folding: every fold function must be left without a bcast op.
    folded = subprocess.run([bcast_opt, "--canonicalize"], input=text,
                            capture_output=True, text=True)
    if folded.returncode:
        print(folded.stderr)
        return 1
    import re
    for k, case in enumerate(cases):
        if not case.fold:
            continue
        body = re.search(rf"func.func @fold{k}\(\).*?\n  }}", folded.stdout,
                         re.S)
        if body is None or "bcast." + case.op + " " in body.group(0):
            print(f"FAIL: fold{k} ({case.op}) was not folded")
            return 1
    lowered = subprocess.run([bcast_opt, "--bcast-to-llvm"], input=text,
                             capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr)
        return 1
    libs = ",".join(f"{args.lib_dir}/lib{n}.so"
                    for n in ("mlir_c_runner_utils", "mlir_runner_utils",
                              "omp"))
    run = subprocess.run([shutil.which("mlir-runner"), "-e", "main",
                          "-entry-point-result=void", "-shared-libs=" + libs],
                         input=lowered.stdout, capture_output=True, text=True)
    if run.returncode:
        print(run.stderr)
        return 1
    results = parse(run.stdout)
    expected = []
    for case in cases:
        want = case.expected
        want = (want.double() if want.dtype.is_floating_point
                else want.long()).reshape(-1).tolist()
        expected += [want, want] if case.fold else [want]
    names = []
    for k, case in enumerate(cases):
        names += [f"case{k}", f"fold{k}"] if case.fold else [f"case{k}"]
    if len(results) != len(expected):
        print(f"FAIL: {len(results)} results for {len(expected)} calls")
        return 1
    failures = 0
    for name, want, got in zip(names, expected, results):
        if not same(want, got):
            k = int(name.lstrip("casefold"))
            failures += 1
            if failures <= 10:
                c = cases[k]
                print(f"FAIL {name}: bcast.{c.op} {c.attrs} on "
                      f"{[t.tolist() for t in c.inputs]} "
                      f"({[str(t.dtype) for t in c.inputs]}): "
                      f"want {want}, got {got}")
    if failures:
        print(f"{failures} mismatches")
        return 1
    print(f"PASS: {len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
