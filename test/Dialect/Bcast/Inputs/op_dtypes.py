#!/usr/bin/env python3
"""Writes the binary additions and three-operand ops of issue 13 over every
combination of element types, with PyTorch 1.13's verdicts.

For every pair (binary ops: atan2, copysign, hypot, the shifts, the logical
ops) or triple (clamp, lerp, addcmul, addcdiv) of PyTorch's dtypes that bcast
has, out of place and in place, with a zero-dim operand among dimensioned
ones (or, with --ops value, for addcmul's and addcdiv's `value` at the edges
of each compute type), runs the op in PyTorch on the CPU and prints an MLIR file for
`bcast-opt -split-input-file -verify-diagnostics`: an accepted case carries
PyTorch's result dtype as its result type (the verifier must infer exactly
that type), a rejected case carries PyTorch's message.

Two differences are by design, where PyTorch 1.13's CPU kernels fall short
of its own type rules. They lack f16 for most of these ops (`"atan2_cpu" not
implemented for 'Half'`), which bcast computes in f32 and rounds once, as
PyTorch's CUDA kernels do; and `addcmul_` and `addcdiv_` stop on an internal
assertion (`!needs_dynamic_casting<func_t>::check(iter) INTERNAL ASSERT
FAILED`) when the in-place type differs from the computed one, which bcast
stores into the in-place type as for every in-place op (`add_`, and
`clamp_`, which PyTorch runs). Such a case is expected to verify, with the
result dtype PyTorch's type rule gives (from meta tensors, which run no
kernel).
"""

import argparse
import itertools
import struct

import torch

DTYPES = {
    torch.bool: "i1", torch.uint8: "ui8", torch.int8: "i8",
    torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
    torch.float64: "f64",
}
BINARY = ["atan2", "copysign", "hypot", "bitwise_left_shift",
          "bitwise_right_shift", "logical_and", "logical_or", "logical_xor"]
# Issue 28's: the in-place comparisons (with their out-of-place forms),
# fmod_, and clamp_min/clamp_max with their in-place forms.
BINARY_28 = ["eq", "ne", "lt", "le", "gt", "ge", "fmod", "clamp_min",
             "clamp_max"]
# add's and sub's `alpha=`: a Python bool, int or float, at the edges of
# each compute type.
ALPHAS = [True, False, 2, -1, -255, -256, 300, 70000, 2**40, 2.5, 1e6,
          3.5e38, 1e300, float("inf")]
TERNARY = ["clamp", "lerp", "addcmul", "addcdiv"]


def tensor_type(shape, element):
    return "tensor<" + "".join(f"{s}x" for s in shape) + element + ">"


# The ops that bcast computes in f32 for f16 where PyTorch 1.13's CPU lacks
# the kernel.
HALF_IN_FLOAT = ["atan2", "hypot", "clamp", "lerp", "addcmul", "addcdiv"]


def on_meta(fn, tensors):
    return fn(*[torch.empty(t.shape, dtype=t.dtype, device="meta")
                for t in tensors])


def promoted(tensors):
    """PyTorch's promotion of the operands, as any op of theirs without a
    dtype rule of its own computes it (a rejected case still needs a result
    type that the verifier's earlier checks accept)."""
    if len(tensors) == 2:
        return torch.result_type(*tensors)
    return on_meta(torch.addcmul, tensors).dtype


def verdict(op, in_place, tensors, value=None, alpha=None):
    """PyTorch's result dtype, or its message."""
    fn = (getattr(torch.Tensor, op + "_") if in_place else getattr(torch, op))
    args = [t.clone() for t in tensors]
    kwargs = {} if value is None else {"value": value}
    if alpha is not None:
        kwargs["alpha"] = alpha
    try:
        return fn(*args, **kwargs).dtype, None
    except RuntimeError as e:
        message = str(e)
    if ("not implemented for 'Half'" in message and op in HALF_IN_FLOAT) or \
            "needs_dynamic_casting" in message:
        return on_meta(fn, tensors).dtype, None
    return None, message


def alpha_attr(alpha):
    if isinstance(alpha, bool):
        return "true" if alpha else "false"
    if isinstance(alpha, int):
        return f"{alpha} : i64"
    bits = struct.unpack("<Q", struct.pack("<d", alpha))[0]
    return f"0x{bits:016X} : f64"


def case(name, op, in_place, tensors, value=None, alpha=None):
    dtype, error = verdict(op, in_place, tensors, value, alpha)
    types = [tensor_type(list(t.shape), DTYPES[t.dtype]) for t in tensors]
    shape = list(torch.broadcast_shapes(*[t.shape for t in tensors]))
    if in_place:
        result = types[0]
    elif dtype is not None:
        result = tensor_type(shape, DTYPES[dtype])
    else:
        # The type the verifier's result check accepts, so that PyTorch's
        # sentence is the first error: the promoted type (f32 for float
        # functions of integers), or i1 for the logical ops.
        try:
            dtype = on_meta(getattr(torch, op), tensors).dtype
        except RuntimeError:
            dtype = promoted(tensors)
        result = tensor_type(shape, DTYPES[dtype])
    names = [f"%{chr(ord('a') + i)}" for i in range(len(tensors))]
    lines = [f"func.func @{name}({', '.join(f'{n}: {t}' for n, t in zip(names, types))}) {{"]
    if error:
        lines.append(f"  // expected-error @+1 {{{{{error}}}}}")
    mnemonic = op + ("_" if in_place else "")
    attrs = ""
    if value is not None:
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        attrs = f" {{value = 0x{bits:016X} : f64}}"
    if alpha is not None:
        attrs = f" {{alpha = {alpha_attr(alpha)}}}"
    lines.append(f"  %r = bcast.{mnemonic} {', '.join(names)}{attrs} : "
                 f"({', '.join(types)}) -> {result}")
    lines += ["  return", "}"]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", choices=["binary", "binary28", "alpha",
                                          "ternary", "value"],
                        required=True)
    args = parser.parse_args()
    cases = []
    dtypes = list(DTYPES)
    if args.ops == "alpha":
        for op, alpha in itertools.product(["add", "sub"], ALPHAS):
            for da, db in itertools.product(dtypes, repeat=2):
                tensors = [torch.ones([3], dtype=da),
                           torch.ones([3], dtype=db)]
                for in_place in (False, True):
                    cases.append(case(f"{op}_{len(cases)}", op, in_place,
                                      tensors, alpha=alpha))
    elif args.ops in ("binary", "binary28"):
        for op in BINARY if args.ops == "binary" else BINARY_28:
            for da, db in itertools.product(dtypes, repeat=2):
                # Dimensioned with dimensioned, and with a zero-dim operand.
                for shape_b in ([3], []):
                    tensors = [torch.ones([3], dtype=da),
                               torch.ones(shape_b, dtype=db)]
                    for in_place in (False, True):
                        cases.append(case(f"{op}_{len(cases)}", op, in_place,
                                          tensors))
    elif args.ops == "value":
        # addcmul's and addcdiv's `value` at the edges of each compute type
        # (f16 aside: PyTorch's CPU lacks it). 2^63 is left out: PyTorch
        # compares it with INT64_MAX rounded to a double, 2^63, and accepts
        # it; bcast compares exactly and reports the overflow.
        values = [1.0, -2.7, 126.9, 127.5, -128.0, -128.9, 255.5, -0.5, -1.0,
                  32767.5, 2.0**31 - 1, 2.0**31, -2.0**31 - 0.5, 1e10, 1e19,
                  3.4e38, 3.5e38, 1e300, float("inf"), float("nan")]
        kinds = [torch.int8, torch.uint8, torch.int16, torch.int32,
                 torch.int64, torch.bfloat16, torch.float32, torch.float64]
        for op, dtype, value in itertools.product(["addcmul", "addcdiv"],
                                                  kinds, values):
            divisor = dtype if op == "addcmul" else torch.float32
            tensors = [torch.ones([3], dtype=dtype),
                       torch.ones([3], dtype=dtype),
                       torch.ones([3], dtype=divisor)]
            cases.append(case(f"{op}_{len(cases)}", op, False, tensors,
                              value))
    else:
        for op in TERNARY:
            for types in itertools.product(dtypes, repeat=3):
                tensors = [torch.ones([3], dtype=d) for d in types]
                for in_place in (False, True):
                    cases.append(case(f"{op}_{len(cases)}", op, in_place,
                                      tensors))
            # A zero-dim operand in each position beside dimensioned ones.
            for types in itertools.product(dtypes, repeat=2):
                for zero in range(3):
                    kinds = list(types)
                    kinds.insert(zero, torch.float64)
                    tensors = [torch.ones([] if i == zero else [3], dtype=d)
                               for i, d in enumerate(kinds)]
                    cases.append(case(f"{op}_{len(cases)}", op, False,
                                      tensors))
    print(f"// Generated by op_dtypes.py --ops {args.ops}: checked against "
          "PyTorch.\n")
    print("\n\n// -----\n\n".join(cases))


if __name__ == "__main__":
    main()
