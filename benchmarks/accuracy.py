#!/usr/bin/python3
"""Accuracy of bcast's compiled f32 float functions, in ULPs.

Every function runs through `@bcast.jit` (the --bcast-to-llvm pipeline) on a
sweep of f32 inputs: every `stride`-th bit pattern of the positive and
negative halves, plus every subnormal and the neighbourhood of each
function's tails. The reference is the correctly rounded f32 value,
computed in f64 (PyTorch's f64 kernels, mpmath-free: the f64 result is
within an f64 ULP of the exact value, so rounding it to f32 gives the
correctly rounded result except within 2^-29 of a tie) with formulas that
do not cancel (gelu through erfc, sigmoid through exp(-|x|)). The error of
an output is its distance from the reference in f32 values (0: correctly
rounded; 1: the neighbour); NaN must be NaN and infinities exact.

    /usr/bin/python3 benchmarks/accuracy.py            # stride 97, a minute
    /usr/bin/python3 benchmarks/accuracy.py --stride 1 # every f32, slow
    /usr/bin/python3 benchmarks/accuracy.py --functions exp,gelu --max-ulp 4
    BCAST_VECTOR_MATH=libmvec /usr/bin/python3 benchmarks/accuracy.py  # AVX2

With --max-ulp it exits 1 if a function is worse (the lit test does so on a
coarse sweep). docs/Semantics.md records the results.
"""

import argparse
import math
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# PYTHONPATH (lit sets it) first, then the default build tree.
sys.path.append(os.path.join(ROOT, "build", "python"))

import bcast  # noqa: E402
import torch  # noqa: E402

SQRT_HALF = math.sqrt(0.5)


def ref_sigmoid(x):
    e = torch.exp(-x.abs())
    return torch.where(x >= 0, 1 / (1 + e), e / (1 + e))


def ref_gelu(x):
    return torch.where(torch.isinf(x) & (x < 0), torch.full_like(x, math.nan),
                       0.5 * x * torch.special.erfc(-x * SQRT_HALF))


def ref_gelu_tanh(x):
    u = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
    return torch.where(torch.isinf(x) & (x < 0), torch.full_like(x, math.nan),
                       x * ref_sigmoid(2 * u))


def ref_silu(x):
    return torch.where(torch.isinf(x) & (x < 0), torch.full_like(x, math.nan),
                       x * ref_sigmoid(x))


# name -> (bcast function on a traced tensor, f64 reference on a tensor).
FUNCTIONS = {
    "exp": (bcast.exp, torch.exp), "exp2": (bcast.exp2, torch.exp2),
    "expm1": (bcast.expm1, torch.expm1), "log": (bcast.log, torch.log),
    "log2": (bcast.log2, torch.log2), "log10": (bcast.log10, torch.log10),
    "log1p": (bcast.log1p, torch.log1p), "sqrt": (bcast.sqrt, torch.sqrt),
    "rsqrt": (bcast.rsqrt, torch.rsqrt),
    "reciprocal": (bcast.reciprocal, torch.reciprocal),
    "sin": (bcast.sin, torch.sin), "cos": (bcast.cos, torch.cos),
    "tan": (bcast.tan, torch.tan), "asin": (bcast.asin, torch.asin),
    "acos": (bcast.acos, torch.acos), "atan": (bcast.atan, torch.atan),
    "sinh": (bcast.sinh, torch.sinh), "cosh": (bcast.cosh, torch.cosh),
    "tanh": (bcast.tanh, torch.tanh), "asinh": (bcast.asinh, torch.asinh),
    "acosh": (bcast.acosh, torch.acosh), "atanh": (bcast.atanh, torch.atanh),
    "erf": (bcast.erf, torch.erf), "erfc": (bcast.erfc, torch.erfc),
    "sigmoid": (bcast.sigmoid, ref_sigmoid), "silu": (bcast.silu, ref_silu),
    "gelu": (bcast.gelu, ref_gelu),
    "gelu_tanh": (lambda t: bcast.gelu(t, approximate="tanh"), ref_gelu_tanh),
}


def inputs(stride):
    """A sweep of f32 values: every stride-th bit pattern of both signs,
    every subnormal's neighbourhood and the values around 0, 1 and the
    tails of exp, erf and gelu."""
    patterns = np.arange(0, 0x7F800001, stride, dtype=np.int64)
    patterns = np.concatenate([patterns, np.arange(0, 0x00800000, max(
        1, stride // 16)), np.arange(0x7F7FFF00, 0x7F800001)])
    positive = patterns.astype(np.uint32).view(np.float32)
    values = np.concatenate([positive, -positive,
                             np.array([np.nan], np.float32)])
    return np.unique(values)


def ulp_distance(got, want):
    """Distance in f32 values; 0 where both are NaN; a large number where
    exactly one is."""
    g = got.view(np.int32).astype(np.int64)
    w = want.view(np.int32).astype(np.int64)
    # Order the bit patterns as the values: negative floats count down.
    g = np.where(g < 0, -(g & 0x7FFFFFFF), g)
    w = np.where(w < 0, -(w & 0x7FFFFFFF), w)
    distance = np.abs(g - w)
    got_nan, want_nan = np.isnan(got), np.isnan(want)
    distance[got_nan & want_nan] = 0
    distance[got_nan ^ want_nan] = 1 << 32
    return distance


def measure(name, x):
    ours, reference = FUNCTIONS[name]
    got = bcast.jit(lambda t: ours(t))(x)
    with np.errstate(all="ignore"):
        want = reference(torch.from_numpy(x.astype(np.float64))).numpy()
        want = want.astype(np.float32)
    distance = ulp_distance(got, want)
    worst = int(np.argmax(distance))
    return distance, worst, got, want


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stride", type=int, default=97)
    parser.add_argument("--functions", default=",".join(FUNCTIONS))
    parser.add_argument("--max-ulp", type=int)
    args = parser.parse_args()
    unknown = [n for n in args.functions.split(",") if n not in FUNCTIONS]
    if unknown:
        parser.error(f"unknown function(s) {', '.join(unknown)}; known: "
                     f"{', '.join(FUNCTIONS)}")
    x = inputs(args.stride)
    # The JIT's vector math (BCAST_VECTOR_MATH chooses another).
    print(f"route: {bcast._options._VECTOR_MATH}")
    print(f"{x.size:,} f32 inputs (stride {args.stride}, all signs, "
          f"subnormals, NaN)")
    print(f"{'function':<12} {'max ULP':>8} {'worst input':>16} "
          f"{'got':>16} {'correctly rounded':>18} {'% exact':>8}")
    failed = []
    for name in args.functions.split(","):
        distance, worst, got, want = measure(name, x)
        exact = 100.0 * np.count_nonzero(distance == 0) / distance.size
        max_ulp = int(distance[worst])
        shown = "NaN-mismatch" if max_ulp >= 1 << 32 else str(max_ulp)
        print(f"{name:<12} {shown:>8} {x[worst]:>16.9g} {got[worst]:>16.9g} "
              f"{want[worst]:>18.9g} {exact:>7.3f}%")
        if args.max_ulp is not None and max_ulp > args.max_ulp:
            failed.append(name)
    if failed:
        print(f"FAIL: above {args.max_ulp} ULP: {', '.join(failed)}")
        return 1
    if args.max_ulp is not None:
        print(f"PASS: every function within {args.max_ulp} ULP")
    return 0


if __name__ == "__main__":
    sys.exit(main())
