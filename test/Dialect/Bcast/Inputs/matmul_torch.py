#!/usr/bin/env python3
"""Writes bcast.matmul over every rank combination (1-D to 4-D on each side)
and every pair of element types, with PyTorch 1.13's verdicts.

Runs `torch.matmul` on the CPU for each case and prints an MLIR file for
`bcast-opt -split-input-file -verify-diagnostics`: an accepted case carries
PyTorch's result shape and dtype as its result type (the verifier must
accept exactly that type), a rejected case carries PyTorch's message.

Shapes: for each rank pair, random shapes (fixed seed) of sizes 0 to 3 whose
batch dims mostly broadcast and whose contracted sizes mostly agree, so that
both verdicts and every sentence occur; dtypes: every pair of PyTorch's
dtypes that bcast has, on a shape that multiplies, and on one with a size 0.

Where bcast's sentence differs from PyTorch's by design it is derived from
PyTorch's verdict, never from bcast's rules:

- Contracted sizes that differ: PyTorch's sentence names the internal
  reshape of the kernel it reached (`size mismatch, got 10, 10x3,4`,
  `Expected size for first two dimensions of batch2 tensor ...`); bcast says
  `mat1 and mat2 shapes cannot be multiplied (5x2x3 and 4)` with the
  operands' shapes for every rank (PyTorch's own sentence for 2-D).
- Types PyTorch lacks a kernel for (Bool, Half) with a product that has
  nothing to compute (an empty result, or a contracted size of 0): PyTorch
  returns without calling the kernel, so without its type check; bcast
  rejects the types whatever the sizes, with the sentence PyTorch gives for
  the same types on nonzero sizes.
"""

import random

import torch

DTYPES = {
    torch.bool: "i1", torch.uint8: "ui8", torch.int8: "i8",
    torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
    torch.float64: "f64",
}
CONTRACTION_SENTENCES = (
    "inconsistent tensor size",
    "size mismatch, got",
    "mat1 and mat2 shapes cannot be multiplied",
    "Expected size for first two dimensions of batch2 tensor",
)


def tensor_type(shape, element):
    return "tensor<" + "".join(f"{s}x" for s in shape) + element + ">"


def run(shape_a, shape_b, da, db):
    """PyTorch's result (shape, dtype), or its message."""
    a = torch.zeros(shape_a, dtype=da)
    b = torch.zeros(shape_b, dtype=db)
    try:
        r = torch.matmul(a, b)
        return (list(r.shape), r.dtype), None
    except RuntimeError as e:
        return None, str(e).splitlines()[0]


def nonzero(shape):
    return [2 if s == 0 else s for s in shape]


def expected(shape_a, shape_b, da, db):
    """The verdict bcast must give: PyTorch's, with the two differences by
    design the module docstring states."""
    result, error = run(shape_a, shape_b, da, db)
    if error and error.startswith(CONTRACTION_SENTENCES):
        fmt = lambda s: "x".join(str(n) for n in s)
        error = (f"mat1 and mat2 shapes cannot be multiplied "
                 f"({fmt(shape_a)} and {fmt(shape_b)})")
    if result and 0 in shape_a + shape_b:
        # Nothing to compute: PyTorch skipped the kernel and its type check.
        _, twin_error = run(nonzero(shape_a), nonzero(shape_b), da, db)
        if twin_error:
            return None, twin_error
    return result, error


def case(name, shape_a, shape_b, da, db):
    result, error = expected(shape_a, shape_b, da, db)
    ta = tensor_type(shape_a, DTYPES[da])
    tb = tensor_type(shape_b, DTYPES[db])
    # A rejected case's result type is never looked at: PyTorch's sentence
    # comes first.
    tr = (tensor_type(result[0], DTYPES[result[1]]) if result
          else tensor_type([1], DTYPES[da]))
    lines = [f"func.func @{name}(%a: {ta}, %b: {tb}) {{"]
    if error:
        lines.append(f"  // expected-error @+1 {{{{{error}}}}}")
    lines.append(f"  %r = bcast.matmul %a, %b : ({ta}, {tb}) -> {tr}")
    lines += ["  return", "}"]
    return "\n".join(lines)


def random_pair(rng, rank_a, rank_b):
    """Shapes that mostly multiply: batch dims equal or 1, equal contracted
    sizes, a size 0 now and then."""
    size = lambda: rng.choice([0, 1, 2, 3, 3, 2])
    batch_a = [size() for _ in range(max(rank_a - 2, 0))]
    batch_b = [size() for _ in range(max(rank_b - 2, 0))]
    for i in range(1, min(len(batch_a), len(batch_b)) + 1):
        if rng.random() < 0.7:
            batch_b[-i] = rng.choice([batch_a[-i], 1, batch_a[-i]])
    k = size()
    k_b = k if rng.random() < 0.8 else size()
    a = batch_a + ([size()] if rank_a >= 2 else []) + [k]
    b = batch_b + [k_b] + ([size()] if rank_b >= 2 else [])
    return a, b


def main():
    rng = random.Random(29)
    cases = []
    for rank_a in range(0, 5):
        for rank_b in range(0, 5):
            if rank_a == 0 or rank_b == 0:
                cases.append(case(f"rank{rank_a}_{rank_b}_{len(cases)}",
                                  [2] * rank_a, [2] * rank_b, torch.float32,
                                  torch.float32))
                continue
            for _ in range(24):
                a, b = random_pair(rng, rank_a, rank_b)
                cases.append(case(f"shapes{rank_a}_{rank_b}_{len(cases)}", a,
                                  b, torch.float32, torch.float32))
            # Every dtype pair on a product that multiplies, and on one of
            # them with a size 0.
            # Batch dims that broadcast both ways ([3, 1] with [1, 4]).
            a = [3, 1][4 - max(rank_a, 2):] + [2] * (rank_a >= 2) + [3]
            b = [1, 4][4 - max(rank_b, 2):] + [3] + [2] * (rank_b >= 2)
            # The size 0: lhs's M, or for a 1-D lhs the contracted size.
            zero_a, zero_b = list(a), list(b)
            if rank_a >= 2:
                zero_a[rank_a - 2] = 0
            else:
                zero_a[0] = 0
                zero_b[0 if rank_b == 1 else rank_b - 2] = 0
            for da in DTYPES:
                for db in DTYPES:
                    cases.append(case(f"types{rank_a}_{rank_b}_{len(cases)}",
                                      a, b, da, db))
                    cases.append(case(f"types{rank_a}_{rank_b}_{len(cases)}",
                                      zero_a, zero_b, da, db))
    print("// Generated by matmul_torch.py: checked against PyTorch.\n")
    print("\n\n// -----\n\n".join(cases))


if __name__ == "__main__":
    main()
