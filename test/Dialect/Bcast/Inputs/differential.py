#!/usr/bin/env python3
"""Writes random bcast ops whose expected verdicts come from an oracle.

Draws random shape pairs (and triples for `where` and, with --ternary-cases,
for the three-operand ops and their in-place twins, and expand targets for
`broadcast_to`), asks PyTorch (or NumPy with --oracle numpy) what it makes of
them, and prints an MLIR file for `bcast-opt -split-input-file
-verify-diagnostics`: cases the oracle accepts carry the oracle's result type
(so the verifier must accept exactly that shape), cases it rejects carry an
`expected-error` with the oracle's message. The verdict, the result shape
and the message are thus all checked against the reference implementation.
"""

import argparse
import random
import re

SIZES = [0, 1, 1, 1, 2, 3, 4, 5]


def random_shape(rng, max_rank=4):
    return [rng.choice(SIZES) for _ in range(rng.randint(0, max_rank))]


def related_shape(rng, shape):
    """A shape likely to broadcast with `shape`: drop leading dims, turn some
    sizes into 1, and sometimes break one size."""
    out = list(shape[rng.randint(0, len(shape)):]) if shape else []
    out = [1 if rng.random() < 0.4 else s for s in out]
    if rng.random() < 0.3:
        out = [rng.choice(SIZES) for _ in range(rng.randint(0, 2))] + out
    if out and rng.random() < 0.25:
        out[rng.randrange(len(out))] = rng.choice(SIZES)
    return out


def tensor_type(shape, element="f32"):
    return "tensor<" + "".join(f"{s}x" for s in shape) + element + ">"


class TorchOracle:
    def __init__(self):
        import torch
        self.torch = torch

    def binary(self, a, b):
        t = self.torch
        try:
            return list(t.add(t.empty(a), t.empty(b)).shape), None
        except RuntimeError as e:
            return None, str(e)

    def in_place(self, a, b):
        t = self.torch
        try:
            return list(t.empty(a).add_(t.empty(b)).shape), None
        except RuntimeError as e:
            return None, str(e)

    def where(self, c, x, y):
        t = self.torch
        try:
            cond = t.empty(c, dtype=t.bool)
            return list(t.where(cond, t.empty(x), t.empty(y)).shape), None
        except RuntimeError as e:
            return None, str(e)

    def ternary(self, a, b, c):
        t = self.torch
        try:
            return list(t.addcmul(t.empty(a), t.empty(b), t.empty(c)).shape), \
                None
        except RuntimeError as e:
            return None, str(e)

    def ternary_in_place(self, a, b, c):
        t = self.torch
        try:
            return list(t.empty(a).addcmul_(t.empty(b), t.empty(c)).shape), \
                None
        except RuntimeError as e:
            return None, str(e)

    def expand(self, x, target):
        t = self.torch
        try:
            return list(t.empty(x).expand(t.Size(target)).shape), None
        except RuntimeError as e:
            # Drop PyTorch's "expand(torch.FloatTensor{...}, size=[...]): ".
            return None, re.sub(r"^expand\(.*?\): ", "", str(e))


class NumPyOracle:
    """Verdicts and shapes only: NumPy's messages differ from PyTorch's."""

    def __init__(self):
        import numpy
        self.np = numpy

    def binary(self, a, b):
        try:
            return list(self.np.broadcast_shapes(tuple(a), tuple(b))), None
        except ValueError:
            return None, ""

    def in_place(self, a, b):
        shape, err = self.binary(a, b)
        if shape is None or shape == list(a):
            return shape, err
        return None, ""

    def where(self, c, x, y):
        try:
            return list(self.np.broadcast_shapes(tuple(c), tuple(x),
                                                 tuple(y))), None
        except ValueError:
            return None, ""

    def ternary(self, a, b, c):
        return self.where(a, b, c)

    def ternary_in_place(self, a, b, c):
        shape, err = self.where(a, b, c)
        if shape is None or shape == list(a):
            return shape, err
        return None, ""

    def expand(self, x, target):
        try:
            self.np.broadcast_to(self.np.empty(x), target)
            return list(target), None
        except ValueError:
            return None, ""


SIZE_SENTENCE_RE = (r"The size of tensor {{[abc]}} ({{[0-9]+}}) must match "
                    r"the size of tensor {{[abc]}} ({{[0-9]+}}) at "
                    r"non-singleton dimension {{[0-9]+}}")


def expectation(message, regex=None):
    if regex is not None:
        return f"  // expected-error-re @+1 {{{{{regex}}}}}\n"
    if message:
        return f"  // expected-error @+1 {{{{{message}}}}}\n"
    return "  // expected-error @+1 {{}}\n"


def ternary_chunks(oracle, exact, cases, rng):
    """Three-operand ops (clamp, lerp, addcmul, addcdiv) on shape triples,
    out of place and in place, with addcmul as PyTorch's oracle: all four
    share its broadcasting and in-place rule."""
    chunks = []
    for i in range(cases):
        op = rng.choice(["clamp", "lerp", "addcmul", "addcdiv"])
        a = random_shape(rng)
        operands = [a, related_shape(rng, a), related_shape(rng, a)]
        in_place = rng.random() < 0.5
        if in_place:
            a, b, c = operands
            shape, err = oracle.ternary_in_place(a, b, c)
            result = a
        else:
            rng.shuffle(operands)
            a, b, c = operands
            shape, err = oracle.ternary(a, b, c)
            result = shape if shape is not None else [7] * max(
                len(a), len(b), len(c))
        expected = ""
        if shape is None:
            # The in-place sentence is PyTorch's (bcast adds the expand
            # sentence after it); for a size mismatch PyTorch names its
            # accumulated shape "a", so only the sentence is compared.
            in_place_error = err.startswith("output with shape")
            expected = expectation(
                err, None if in_place_error or not exact else
                SIZE_SENTENCE_RE)
        mnemonic = op + ("_" if in_place else "")
        types = ", ".join(tensor_type(s) for s in (a, b, c))
        chunks.append(
            f"func.func @ternary{i}(%a: {tensor_type(a)}, %b: "
            f"{tensor_type(b)}, %c: {tensor_type(c)}) {{\n{expected}"
            f"  %r = bcast.{mnemonic} %a, %b, %c : ({types}) -> "
            f"{tensor_type(result)}\n  return\n}}\n")
    return chunks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", choices=["torch", "numpy"],
                        default="torch")
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ternary-cases", type=int, default=0,
                        help="cases of the three-operand ops, drawn after "
                        "the others from a generator of their own")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    oracle = TorchOracle() if args.oracle == "torch" else NumPyOracle()
    exact = args.oracle == "torch"

    chunks = []
    for i in range(args.cases):
        kind = rng.choice(["binary", "binary", "in_place", "where", "expand"])
        a = random_shape(rng)
        b = related_shape(rng, a)
        if kind == "binary":
            if rng.random() < 0.5:
                a, b = b, a
            shape, err = oracle.binary(a, b)
            result = shape if shape is not None else [7] * max(len(a), len(b))
            body = (expectation(err) if shape is None else "") + (
                f"  %r = bcast.mul %a, %b : ({tensor_type(a)}, "
                f"{tensor_type(b)}) -> {tensor_type(result)}\n")
            args_text = f"%a: {tensor_type(a)}, %b: {tensor_type(b)}"
        elif kind == "in_place":
            shape, err = oracle.in_place(a, b)
            body = (expectation(err) if shape is None else "") + (
                f"  %r = bcast.add_ %a, %b : ({tensor_type(a)}, "
                f"{tensor_type(b)}) -> {tensor_type(a)}\n")
            args_text = f"%a: {tensor_type(a)}, %b: {tensor_type(b)}"
        elif kind == "where":
            c = related_shape(rng, a)
            operands = [c, a, b]
            rng.shuffle(operands)
            c, x, y = operands
            shape, err = oracle.where(c, x, y)
            result = shape if shape is not None else [7] * max(
                len(c), len(x), len(y))
            # PyTorch names the accumulated shape "a"; bcast names the
            # operands of the failing pair, so only the sentence is compared.
            body = (expectation(err, SIZE_SENTENCE_RE if exact else None)
                    if shape is None else "") + (
                f"  %r = bcast.where %c, %x, %y : ({tensor_type(c, 'i1')}, "
                f"{tensor_type(x)}, {tensor_type(y)}) -> "
                f"{tensor_type(result)}\n")
            args_text = (f"%c: {tensor_type(c, 'i1')}, %x: {tensor_type(x)}, "
                         f"%y: {tensor_type(y)}")
        else:
            x, target = b, a
            if rng.random() < 0.2:
                x, target = a, b
            shape, err = oracle.expand(x, target)
            body = (expectation(err) if shape is None else "") + (
                f"  %r = bcast.broadcast_to %x : {tensor_type(x)} -> "
                f"{tensor_type(target)}\n")
            args_text = f"%x: {tensor_type(x)}"
        chunks.append(f"func.func @case{i}({args_text}) {{\n{body}"
                      f"  return\n}}\n")
    chunks += ternary_chunks(oracle, exact, args.ternary_cases,
                             random.Random(args.seed + 1))
    print("\n// -----\n\n".join(chunks))


if __name__ == "__main__":
    main()
