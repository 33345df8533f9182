#!/usr/bin/env python3
"""Runs bcast's GPU kernels without a GPU: an interpreter of the IR that
--bcast-to-nvvm has after bcast-device-allocations (host code with
gpu.launch ops, printed in generic form), for the ops bcast's mappings emit.

Each block's threads run as Python generators in lockstep between the
points where threads of a block meet (gpu.barrier, gpu.shuffle), so a
barrier that some thread of a block misses, a shuffle with lanes missing,
or a read of workgroup memory before the barrier that publishes it shows
up as an error or a wrong number. Float arithmetic is NumPy's, in the
element type (f32 stays f32). Not a GPU: no memory model beyond program
order within a thread and the meeting points, no timing.

    emulate.py --family NAME [--every N]
        the static f32/f64/f16/integer/bool cases of a numeric.py family
        (every Nth), compared with the expected values (prints PASS or
        the mismatches); --break barriers|shuffles runs them on a broken
        GPU, where they must fail
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Integration", "Inputs"))


class Op:
    __slots__ = ("results", "name", "operands", "attrs", "types", "regions")

    def __init__(self, results, name, operands, attrs):
        self.results, self.name = results, name
        self.operands, self.attrs = operands, attrs
        self.types = ""
        self.regions = []


class Block:
    __slots__ = ("args", "types", "ops")

    def __init__(self, args):
        self.args, self.ops = args, []
        self.types = []


OP_LINE = re.compile(r'^\s*(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\((.*?)\)'
                     r'(.*)$')


def parse(text):
    """The ops of a module in generic form, as a tree."""
    lines = [l for l in text.splitlines() if l.strip()]
    pos = 0

    def parse_op():
        nonlocal pos
        line = lines[pos]
        pos += 1
        m = OP_LINE.match(line)
        if not m:
            raise ValueError(f"cannot parse: {line}")
        name, count = m.group(1), int(m.group(2) or 1)
        results = [] if not name else (
            [name] if count == 1 else [f"{name}#{i}" for i in range(count)])
        operands = re.findall(r"%[\w#]+", m.group(4))
        op = Op(results, m.group(3), operands, m.group(5))
        if not m.group(5).rstrip().endswith("({"):
            op.types = m.group(5)
            return op
        region = []
        block = None
        while True:
            line = lines[pos].strip()
            if line.startswith("^bb"):
                inside = line[line.index("(") + 1:line.rindex(")")]
                args = [part.strip().split(": ", 1)
                        for part in split_top(inside)]
                block = Block([a for a, _ in args])
                block.types = [t for _, t in args]
                region.append(block)
                pos += 1
            elif line == "}, {":
                op.regions.append(region)
                region, block = [], None
                pos += 1
            elif line.startswith("})"):
                op.regions.append(region)
                op.types = line[2:]
                op.attrs += line[2:]
                pos += 1
                return op
            else:
                if block is None:
                    block = Block([])
                    region.append(block)
                block.ops.append(parse_op())

    ops = []
    while pos < len(lines):
        ops.append(parse_op())
    return ops


def result_type(op, index=0):
    """The MLIR type of result `index`."""
    types = op.types.rsplit("->", 1)[-1].strip()
    if types.startswith("("):
        types = types[1:-1]
    return [t.strip() for t in split_top(types)][index]


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def element_dtype(type_text):
    body = type_text.split("<", 1)[-1].split(",")[0].rstrip(">")
    elem = body.split("x")[-1].strip()
    if elem in FLOATS:
        return FLOATS[elem]
    return {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
            "i64": np.int64, "index": np.int64}[elem]


def width(type_text):
    if type_text == "index":
        return 64
    return int(type_text[1:])


def wrap(value, bits):
    """`value` as a signless integer of `bits`, kept unsigned."""
    return int(value) & ((1 << bits) - 1)


def signed(value, bits):
    value = wrap(value, bits)
    return value - (1 << bits) if value >> (bits - 1) else value


def constant(op):
    text = re.search(r"value = (.*?)\}>", op.attrs).group(1)
    if " : " in text:
        text = text.split(" : ")[0]
    ty = result_type(op)
    if ty in FLOATS:
        if text.startswith("0x"):
            bits = int(text, 16)
            dt = FLOATS[ty]
            view = {np.float16: np.uint16, np.float32: np.uint32,
                    np.float64: np.uint64}[dt]
            return np.array(bits, dtype=view).view(dt)[()]
        return FLOATS[ty](float(text))
    if text in ("true", "false"):
        return int(text == "true")
    return wrap(int(text), width(ty))


def dense(text, shape, dtype):
    m = re.search(r"dense<(.*?)> : tensor", text)
    body = m.group(1).strip()
    if body.startswith('"0x'):
        raw = bytes.fromhex(body[3:-1])
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    values = np.array(eval(body.replace("true", "True")
                           .replace("false", "False")), dtype=np.float64)
    return np.broadcast_to(values.astype(dtype), shape).copy()


CMPI = {0: lambda a, b, w: a == b, 1: lambda a, b, w: a != b,
        2: lambda a, b, w: signed(a, w) < signed(b, w),
        3: lambda a, b, w: signed(a, w) <= signed(b, w),
        4: lambda a, b, w: signed(a, w) > signed(b, w),
        5: lambda a, b, w: signed(a, w) >= signed(b, w),
        6: lambda a, b, w: a < b, 7: lambda a, b, w: a <= b,
        8: lambda a, b, w: a > b, 9: lambda a, b, w: a >= b}


def cmpf(pred, a, b):
    unordered = np.isnan(a) or np.isnan(b)
    ordered_ops = {1: a == b, 2: a > b, 3: a >= b, 4: a < b, 5: a <= b,
                   6: a != b}
    if pred == 0:
        return False
    if pred == 15:
        return True
    if pred == 7:
        return not unordered
    if pred == 14:
        return unordered
    if pred <= 6:
        return (not unordered) and ordered_ops[pred]
    return unordered or {8: a == b, 9: a > b, 10: a >= b, 11: a < b,
                         12: a <= b, 13: a != b}[pred]


def maximumf(a, b):
    if np.isnan(a) or np.isnan(b):
        return type(a)(np.nan)
    if a == b == 0:
        return a if not np.signbit(a) else b
    return a if a > b else b


def minimumf(a, b):
    if np.isnan(a) or np.isnan(b):
        return type(a)(np.nan)
    if a == b == 0:
        return a if np.signbit(a) else b
    return a if a < b else b


class Meet:
    """What a thread waits for at a meeting point."""

    def __init__(self, kind, value=None, offset=None, width=None):
        self.kind, self.value, self.offset = kind, value, offset
        self.width = width
        self.result = None


class Interpreter:
    def __init__(self, module_ops, broken=None):
        # "barriers" or "shuffles": emulate a GPU without them (the test of
        # the tests: the results must then come out wrong).
        self.broken = broken
        self.globals = {}
        self.functions = {}
        for op in module_ops:
            self.collect(op)

    def collect(self, op):
        if op.name == "memref.global":
            name = re.search(r'sym_name = "([\w.]+)"', op.attrs).group(1)
            mtype = re.search(r"type = (memref<[^>]*>)", op.attrs).group(1)
            shape = [int(s) for s in mtype[7:-1].split("x")[:-1]]
            self.globals[name] = dense(op.attrs, shape, element_dtype(mtype))
        elif op.name == "func.func":
            name = re.search(r'sym_name = "([\w.]+)"', op.attrs).group(1)
            self.functions[name] = op
        for region in op.regions:
            for block in region:
                for inner in block.ops:
                    self.collect(inner)

    def call(self, name, args):
        func = self.functions[name]
        block = func.regions[0][0]
        env = dict(zip(block.args, args))
        for _ in self.run(block.ops, env, None):
            raise RuntimeError("a meeting point outside a kernel")

    # Every op runs as a generator: kernels yield at meeting points.
    def run(self, ops, env, thread):
        for op in ops:
            result = yield from self.step(op, env, thread)
            if result == "return":
                return "return"
        return None

    def run_region(self, region, env, args, thread):
        block = region[0]
        for name, value in zip(block.args, args):
            env[name] = value
        for op in block.ops:
            if op.name in ("scf.yield", "gpu.terminator", "func.return"):
                return [env[o] for o in op.operands]
            yield from self.step(op, env, thread)
        return []

    def step(self, op, env, thread):
        n = op.name
        a = [env[o] for o in op.operands]
        out = op.results

        def set1(value):
            env[out[0]] = value

        if n == "arith.constant":
            set1(constant(op))
        elif n in ("arith.addi", "arith.subi", "arith.muli"):
            w = width(result_type(op))
            f = {"arith.addi": lambda x, y: x + y,
                 "arith.subi": lambda x, y: x - y,
                 "arith.muli": lambda x, y: x * y}[n]
            set1(wrap(f(a[0], a[1]), w))
        elif n in ("arith.divui", "arith.remui", "arith.ceildivui"):
            if a[1] == 0:
                raise ZeroDivisionError(n)
            set1({"arith.divui": a[0] // a[1], "arith.remui": a[0] % a[1],
                  "arith.ceildivui": -(-a[0] // a[1])}[n])
        elif n in ("arith.minui", "arith.maxui"):
            set1(min(a) if n == "arith.minui" else max(a))
        elif n in ("arith.minsi", "arith.maxsi"):
            w = width(result_type(op))
            pick = min if n == "arith.minsi" else max
            set1(wrap(pick(signed(a[0], w), signed(a[1], w)), w))
        elif n in ("arith.andi", "arith.ori", "arith.xori"):
            set1({"arith.andi": a[0] & a[1], "arith.ori": a[0] | a[1],
                  "arith.xori": a[0] ^ a[1]}[n])
        elif n in ("arith.shli", "arith.shrui"):
            w = width(result_type(op))
            set1(wrap(a[0] << a[1], w) if n == "arith.shli" else a[0] >> a[1])
        elif n == "arith.cmpi":
            pred = int(re.search(r"predicate = (\d+)", op.attrs).group(1))
            ty = op.types.split("(")[1].split(",")[0].strip()
            set1(int(CMPI[pred](a[0], a[1], width(ty))))
        elif n == "arith.cmpf":
            pred = int(re.search(r"predicate = (\d+)", op.attrs).group(1))
            set1(int(cmpf(pred, a[0], a[1])))
        elif n == "arith.select":
            set1(a[1] if a[0] else a[2])
        elif n in ("arith.addf", "arith.subf", "arith.mulf", "arith.divf"):
            with np.errstate(all="ignore"):
                set1({"arith.addf": a[0] + a[1], "arith.subf": a[0] - a[1],
                      "arith.mulf": a[0] * a[1],
                      "arith.divf": a[0] / a[1]}[n])
        elif n == "arith.maximumf":
            set1(maximumf(a[0], a[1]))
        elif n == "arith.minimumf":
            set1(minimumf(a[0], a[1]))
        elif n == "arith.negf":
            set1(-a[0])
        elif n in ("arith.extf", "arith.truncf"):
            set1(FLOATS[result_type(op)](a[0]))
        elif n == "arith.extui" or n == "arith.trunci":
            set1(wrap(a[0], width(result_type(op))))
        elif n == "arith.extsi":
            src = op.types.split("(")[1].split(")")[0].strip()
            set1(wrap(signed(a[0], width(src)), width(result_type(op))))
        elif n == "arith.index_cast":
            src = op.types.split("(")[1].split(")")[0].strip()
            dst = result_type(op)
            set1(wrap(signed(a[0], width(src)), width(dst)))
        elif n == "arith.sitofp":
            src = op.types.split("(")[1].split(")")[0].strip()
            set1(FLOATS[result_type(op)](signed(a[0], width(src))))
        elif n == "arith.uitofp":
            set1(FLOATS[result_type(op)](a[0]))
        elif n in ("arith.fptosi", "arith.fptoui"):
            set1(wrap(int(a[0]), width(result_type(op))))
        elif n in ("arith.maxnumf", "arith.minnumf"):
            x, y = a
            if np.isnan(x):
                set1(y)
            elif np.isnan(y):
                set1(x)
            else:
                set1((maximumf if n == "arith.maxnumf" else minimumf)(x, y))
        elif n in ("arith.divsi", "arith.remsi"):
            w = width(result_type(op))
            x, y = signed(a[0], w), signed(a[1], w)
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            set1(wrap(q if n == "arith.divsi" else x - q * y, w))
        elif n == "arith.bitcast":
            dst = result_type(op)
            src = op.types.split("(")[1].split(")")[0].strip()
            if dst in FLOATS:
                bits = {16: np.uint16, 32: np.uint32, 64: np.uint64}[
                    width(src)]
                set1(np.array(a[0], dtype=bits).view(FLOATS[dst])[()])
            elif src in FLOATS:
                bits = {16: np.uint16, 32: np.uint32, 64: np.uint64}[
                    width(dst)]
                set1(int(np.array(a[0], dtype=FLOATS[src]).view(bits)))
            else:
                set1(a[0])
        elif n.startswith("math."):
            fn = {"math.exp": np.exp, "math.log": np.log,
                  "math.log1p": np.log1p, "math.expm1": np.expm1,
                  "math.sqrt": np.sqrt, "math.rsqrt": lambda x: 1 / np.sqrt(x),
                  "math.absf": np.abs, "math.tanh": np.tanh}[n]
            with np.errstate(all="ignore"):
                set1(type(a[0])(fn(a[0])))
        elif n == "memref.load":
            set1(self.load(a[0], a[1:]))
        elif n == "memref.store":
            self.store(a[1], a[2:], a[0])
        elif n == "memref.dim":
            set1(a[0].shape[a[1]])
        elif n in ("memref.alloc", "gpu.alloc"):
            mtype = result_type(op)
            dims = iter(a)
            shape = [next(dims) if s == "?" else int(s)
                     for s in mtype[mtype.index("<") + 1:].split("x")[:-1]]
            # Fresh memory holds garbage, not zeros.
            set1(garbage(shape, element_dtype(mtype)))
        elif n in ("memref.dealloc", "gpu.dealloc"):
            pass
        elif n == "memref.get_global":
            name = re.search(r"name = @([\w.]+)", op.attrs).group(1)
            set1(self.globals[name])
        elif n == "gpu.memcpy":
            np.copyto(a[0], a[1])
        elif n == "memref.cast":
            set1(a[0])
        elif n == "memref.extract_strided_metadata":
            x = a[0]
            values = [x, 0] + list(x.shape) + [st // x.itemsize
                                               for st in x.strides]
            for name, value in zip(out, values):
                env[name] = value
        elif n == "memref.reinterpret_cast":
            dynamic = iter(a[1:])
            parts = []
            for key in ("static_offsets", "static_sizes", "static_strides"):
                listed = re.search(key + r" = array<i64(?:: ([^>]*))?>",
                                   op.attrs).group(1) or ""
                parts.append([next(dynamic) if int(v) == -2**63 else int(v)
                              for v in listed.split(",") if v.strip()])
            (offset,), shape, strides = parts
            x = a[0].reshape(-1)[offset:] if offset else a[0]
            set1(np.lib.stride_tricks.as_strided(
                x, shape, [st * x.itemsize for st in strides]))
        elif n in ("memref.expand_shape", "memref.collapse_shape"):
            mtype = result_type(op)
            shape = [int(x) for x in mtype[7:].split("x")[:-1]]
            set1(a[0].reshape(shape))
        elif n == "scf.for":
            lo, hi, st = a[0], a[1], a[2]
            carried = a[3:]
            i = lo
            while i < hi:
                carried = yield from self.run_region(
                    op.regions[0], env, [i] + list(carried), thread)
                i += st
            for name, value in zip(out, carried):
                env[name] = value
        elif n == "scf.if":
            region = op.regions[0] if a[0] else (
                op.regions[1] if len(op.regions) > 1 and op.regions[1]
                else None)
            values = [] if region is None else (
                yield from self.run_region(region, env, [], thread))
            for name, value in zip(out, values):
                env[name] = value
        elif n == "gpu.launch":
            self.launch(op, a, env)
        elif n == "gpu.barrier":
            if self.broken != "barriers":
                yield Meet("barrier")
        elif n == "gpu.shuffle":
            mode = re.search(r"shuffle_mode (\w+)", op.attrs).group(1)
            assert mode == "xor", mode
            meet = Meet("shuffle", a[0], a[1], a[2])
            if self.broken != "shuffles":
                yield meet
            env[out[0]] = a[0] if self.broken == "shuffles" else meet.result
            env[out[1]] = 1
        elif n == "func.return":
            return "return"
        elif n in ("llvm.mlir.addressof",):
            set1(None)
        else:
            raise NotImplementedError(n)
        return None

    @staticmethod
    def load(buffer, indices):
        value = buffer[tuple(indices)]
        if np.issubdtype(buffer.dtype, np.floating):
            return value
        if buffer.dtype == np.bool_:
            return int(value)
        return wrap(int(value), buffer.dtype.itemsize * 8)

    @staticmethod
    def store(buffer, indices, value):
        if np.issubdtype(buffer.dtype, np.integer):
            value = signed(value, buffer.dtype.itemsize * 8)
        buffer[tuple(indices)] = value

    def launch(self, op, sizes, env):
        grid, block = sizes[0:3], sizes[3:6]
        assert block[1:] == [1, 1], block
        body = op.regions[0][0]
        for bz in range(grid[2]):
            for by in range(grid[1]):
                for bx in range(grid[0]):
                    self.run_block(body, env, (bx, by, bz), grid, block[0])

    def run_block(self, body, env, ids, grid, size):
        scratch = []
        for mtype in body.types[12:]:
            shape = [int(x) for x in mtype[7:].split(",")[0].split("x")[:-1]]
            scratch.append(garbage(shape, element_dtype(mtype)))
        threads = []
        for tx in range(size):
            local = dict(env)
            values = list(ids) + [tx, 0, 0] + list(grid) + [size, 1, 1]
            for name, value in zip(body.args, values + scratch):
                local[name] = value
            threads.append(self.run_body(body, local, tx))
        self.schedule(threads, size)

    def run_body(self, body, env, tx):
        for inner in body.ops:
            if inner.name == "gpu.terminator":
                return
            yield from self.step(inner, env, tx)

    @staticmethod
    def schedule(threads, size):
        pending = [next_or_none(t) for t in threads]
        while any(p is not None for p in pending):
            if any(p is None for p in pending):
                raise RuntimeError("some threads left the kernel while "
                                   "others wait at a meeting point")
            kinds = {p.kind for p in pending}
            if len(kinds) != 1:
                raise RuntimeError(f"threads meet at different points: "
                                   f"{kinds}")
            if kinds == {"shuffle"}:
                for lane, meet in enumerate(pending):
                    assert meet.width == 32
                    partner = (lane & ~31) | ((lane % 32) ^ meet.offset)
                    if partner >= size:
                        raise RuntimeError("shuffle with a missing lane")
                    meet.result = pending[partner].value
            pending = [next_or_none(t) for t in threads]


def next_or_none(gen):
    try:
        return next(gen)
    except StopIteration:
        return None


def garbage(shape, dtype):
    """Fresh memory: NaN for floats, a pattern for integers, true for i1, so
    that a read before a write shows."""
    if np.issubdtype(dtype, np.floating):
        return np.full(shape, np.nan, dtype)
    if dtype == np.bool_:
        return np.ones(shape, dtype)
    return np.full(shape, 0x5A, dtype)


def lower(text):
    """The module after bcast-device-allocations, in generic form."""
    run = subprocess.run(
        [shutil.which("bcast-opt"), "--bcast-to-nvvm",
         "-mlir-print-ir-after=bcast-device-allocations",
         "-mlir-print-op-generic", "-o", os.devnull],
        input=text, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(run.stderr)
    dump = run.stderr.split("//----- //", 1)[1]
    return dump[dump.index('"builtin.module"'):]


def matmul_function(name, case):
    """A bcast.matmul case of Inputs/matmul.py as a kernel on device
    buffers: lhs, rhs, then the output."""
    import matmul
    ta = matmul.tensor_type(case.lhs, case.element)
    tb = matmul.tensor_type(case.rhs, case.element)
    tr = matmul.tensor_type(list(case.want.shape), case.element)
    ma, mb, mr = (t.replace("tensor<", "memref<") for t in (ta, tb, tr))
    return (f"func.func @{name}(%ma: {ma}, %mb: {mb}, %out: {mr}) {{\n"
            f"  %a = bufferization.to_tensor %ma restrict : {ma} to {ta}\n"
            f"  %b = bufferization.to_tensor %mb restrict : {mb} to {tb}\n"
            f"  %r = bcast.matmul %a, %b : ({ta}, {tb}) -> {tr}\n"
            f"  bufferization.materialize_in_destination %r in restrict "
            f"writable %out : ({tr}, {mr}) -> ()\n"
            f"  return\n}}")


def emulate_matmul(broken):
    """bcast.matmul's tiled kernels (bcast-map-matmul-to-gpu) on partial
    tiles, several tiles along M, N and K, broadcast batch dims on either
    side, f32, f64 and wrapping i32, against NumPy (Inputs/matmul.py's
    cases and comparison)."""
    import matmul
    cases = [matmul.Case([5, 7], [7, 3]),
             matmul.Case([2, 1, 17, 9], [3, 9, 18]),
             matmul.Case([1, 2, 6, 40], [2, 1, 40, 5], "f64"),
             matmul.Case([3, 4, 33], [33, 2]),
             matmul.Case([4, 6], [6, 4], "i32"),
             matmul.Case([2, 0, 3], [1, 3, 4]),
             matmul.Case([3, 0], [0, 2])]
    text = "\n".join(matmul_function(f"case{i}", c)
                     for i, c in enumerate(cases))
    interp = Interpreter(parse(lower(text)), broken)
    bad = 0
    for i, case in enumerate(cases):
        dtype = matmul.TYPES[case.element]
        out = garbage(case.want.shape, dtype)
        interp.call(f"case{i}", [np.array(case.a, dtype, copy=True),
                                 np.array(case.b, dtype, copy=True), out])
        if not matmul.matches(case, out.reshape(-1).tolist()):
            bad += 1
            print(f"MISMATCH case{i}: {case.lhs} @ {case.rhs} "
                  f"{case.element}\n  want {case.want.reshape(-1)[:8]}\n"
                  f"  got  {out.reshape(-1)[:8]}")
    if bad:
        print(f"FAIL: {bad} of {len(cases)} cases")
        return 1
    print(f"PASS: {len(cases)} cases emulated")
    return 0


def main():
    import numeric
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", required=True,
                        help="numeric.py families, or 'matmul'")
    parser.add_argument("--every", type=int, default=1,
                        help="emulate every Nth case only")
    parser.add_argument("--break", dest="broken",
                        choices=["barriers", "shuffles"],
                        help="ignore barriers, or shuffles return the "
                             "thread's own value")
    args = parser.parse_args()
    if args.family == "matmul":
        return emulate_matmul(args.broken)
    cases = [c for name in args.family.split(",")
             for c in numeric.family(name)]
    cases = [c for c in cases if not c.in_place and
             c.op not in ("argmax", "argmin") and
             not np.issubdtype(c.result_dtype, np.unsignedinteger) and
             numeric.bfloat16 not in (c.dtype, c.result_dtype)]
    cases = cases[::args.every]
    text = "\n".join(c.gpu_function(f"case{i}") for i, c in enumerate(cases))
    interp = Interpreter(parse(lower(text)), args.broken)
    outputs = []
    for i, case in enumerate(cases):
        out = garbage(case.expected.shape, case.printable_dtype())
        inputs = [np.array(a, copy=True) for a in case.args]
        interp.call(f"case{i}", inputs + [out])
        outputs.append(out.reshape(-1).tolist())
    return numeric.compare_values(cases, outputs, "cases emulated", gpu=True)

if __name__ == "__main__":
    sys.exit(main())
