#!/usr/bin/env python3
"""bcast.cast between every pair of the thirteen element types on hostile
values (NaN, the infinities, -0, the largest and smallest values, the
extremes of each integer type), issue 17:

  1. the module verifies, lowers with --bcast-to-llvm and runs under
     mlir-runner to the end (exit 0): no crash, no trap, whatever the
     values;
  2. --canonicalize folds every cast of constants: since issue 28 a float
     NaN, infinity or out-of-range value cast to an integer type has
     PyTorch's CPU value (docs/Semantics.md) on every path, folding
     included.

    hostile_casts.py --lib-dir DIR [--bcast-opt PATH] [--runner PATH]

Prints "PASS: <n> casts run, <d> folded, <u> left unfolded" or what failed.
"""

import argparse
import itertools
import re
import shutil
import subprocess
import sys

FLOATS = {"f16": (16, 65504.0), "bf16": (16, 3.3895313892515355e38),
          "f32": (32, 3.4028234663852886e38), "f64": (64, 1.7976931348623157e308)}
INTS = {"i1": (1, False), "i8": (8, False), "i16": (16, False),
        "i32": (32, False), "i64": (64, False), "ui8": (8, True),
        "ui16": (16, True), "ui32": (32, True), "ui64": (64, True)}
TYPES = list(INTS) + list(FLOATS)

# Bit patterns, so that every value is exactly the one meant.
FLOAT_BITS = {
    "f16": {"nan": "0x7E00", "inf": "0x7C00", "-inf": "0xFC00",
            "-0": "0x8000", "max": "0x7BFF", "tiny": "0x0001"},
    "bf16": {"nan": "0x7FC0", "inf": "0x7F80", "-inf": "0xFF80",
             "-0": "0x8000", "max": "0x7F7F", "tiny": "0x0001"},
    "f32": {"nan": "0x7FC00000", "inf": "0x7F800000", "-inf": "0xFF800000",
            "-0": "0x80000000", "max": "0x7F7FFFFF", "tiny": "0x00000001"},
    "f64": {"nan": "0x7FF8000000000000", "inf": "0x7FF0000000000000",
            "-inf": "0xFFF0000000000000", "-0": "0x8000000000000000",
            "max": "0x7FEFFFFFFFFFFFFF", "tiny": "0x0000000000000001"},
}


def int_values(name):
    width, unsigned = INTS[name]
    if width == 1:
        return ["true", "false"]
    if unsigned:
        return ["0", "1", str(2**(width - 1)), str(2**width - 1)]
    return [str(-2**(width - 1)), "-1", "0", str(2**(width - 1) - 1)]


def source_values(src, dst):
    """(literal, defined) pairs of `src` values cast to `dst`."""
    if src in INTS:
        return [(v, True) for v in int_values(src)]
    bits = FLOAT_BITS[src]
    return [(bits[key], True)
            for key in ("-0", "tiny", "nan", "inf", "-inf", "max")] + \
        [("1.5", True)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bcast-opt", default=shutil.which("bcast-opt"))
    parser.add_argument("--runner", default=shutil.which("mlir-runner"))
    parser.add_argument("--lib-dir", required=True)
    args = parser.parse_args()

    functions, calls, expect = [], [], {}
    index = 0
    for src, dst in itertools.product(TYPES, repeat=2):
        for literal, defined in source_values(src, dst):
            name = f"cast{index}"
            index += 1
            expect[name] = defined
            # The folded form: the cast of a constant, in a function of its
            # own, whose result main prints nothing of (the run checks only
            # that the code runs).
            functions.append(
                f"func.func @{name}() -> tensor<2x{dst}> {{\n"
                f"  %c = arith.constant dense<{literal}> : tensor<2x{src}>\n"
                f"  %r = bcast.cast %c : (tensor<2x{src}>) -> tensor<2x{dst}>\n"
                f"  return %r : tensor<2x{dst}>\n}}\n")
            calls.append(f"  %r{index} = func.call @{name}() : () -> "
                         f"tensor<2x{dst}>")
    text = "\n".join(functions) + "func.func @main() {\n" + \
        "\n".join(calls) + "\n  return\n}\n"

    folded = subprocess.run([args.bcast_opt, "--canonicalize"], input=text,
                            capture_output=True, text=True)
    if folded.returncode:
        print("FAIL: --canonicalize:", folded.stderr[-2000:])
        return 1
    bodies = dict(re.findall(r"func\.func @(cast\d+)\(\)[^{]*\{(.*?)\n  \}",
                             folded.stdout, re.S))
    wrong = []
    for name, defined in expect.items():
        unfolded = "bcast.cast" in bodies.get(name, "bcast.cast")
        if defined == unfolded:
            wrong.append((name, defined))
    if wrong:
        for name, defined in wrong[:10]:
            print(f"FAIL: {name} ({'defined' if defined else 'undefined'}) "
                  f"was {'not ' if defined else ''}folded:\n"
                  + next(f for f in functions if f"@{name}()" in f))
        return 1

    lowered = subprocess.run([args.bcast_opt, "--bcast-to-llvm"], input=text,
                             capture_output=True, text=True)
    if lowered.returncode:
        print("FAIL: --bcast-to-llvm:", lowered.stderr[-2000:])
        return 1
    libs = ",".join(f"{args.lib_dir}/lib{n}.so" for n in
                    ("mlir_c_runner_utils", "mlir_runner_utils", "omp"))
    run = subprocess.run([args.runner, "-e", "main",
                          "-entry-point-result=void", "-shared-libs=" + libs],
                         input=lowered.stdout, capture_output=True, text=True)
    if run.returncode:
        print(f"FAIL: mlir-runner exit {run.returncode}:", run.stderr[-2000:])
        return 1
    unfolded = sum(not d for d in expect.values())
    print(f"PASS: {len(expect)} casts run, {len(expect) - unfolded} folded, "
          f"{unfolded} left unfolded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
